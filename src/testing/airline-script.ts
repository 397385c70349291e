/**
 * A scripted airline episode for the fake provider, shared by the tests and
 * examples of the agent adapters (AI SDK, OpenAI Agents SDK, URL, A2A, MCP):
 * task 11 asks to downgrade reservation GV1N64 to basic economy. The agent
 * side reads the reservation, makes the change and tells the refund; the user
 * simulator states the request and stops once the agent has answered. Replies
 * are chosen from what the request already contains (not from turn counts),
 * so agents that wrap the conversation differently get the same script.
 */
import type { FakeHandler, FakeReply, FakeRequest } from "./fake-provider.ts";

/** The airline task the script solves. */
export const AIRLINE_SCRIPT_TASK = "11";

/** The write the task expects (`update_reservation_flights` arguments); `cabin` differs in the wrong variant. */
export const AIRLINE_DOWNGRADE = {
  reservation_id: "GV1N64",
  cabin: "basic_economy",
  flights: [
    { flight_number: "HAT003", date: "2024-05-19" },
    { flight_number: "HAT290", date: "2024-05-20" },
  ],
  payment_id: "gift_card_1642017",
} as const;

/** What the scripted agent says at the end (the refund amount is what the task requires to be told). */
export const AIRLINE_CLOSING =
  "Done: everyone on GV1N64 is now in basic economy; $5244 goes back to your gift card.";

/** The scripted user's request. */
export const AIRLINE_REQUEST =
  "Hi, I'm James Patel (james_patel_9828). Please downgrade everyone on GV1N64 to basic economy.";

/** `right`: the expected write (reward 1.0); `wrong`: a write that succeeds but is not asked for, a cancellation (reward 0.0). */
export type AirlineScriptVariant = "right" | "wrong";

/** The tool calls the scripted agent makes, in order. */
export function airlineScriptCalls(
  variant: AirlineScriptVariant,
): { name: string; arguments: Record<string, unknown> }[] {
  return [
    { name: "get_reservation_details", arguments: { reservation_id: "GV1N64" } },
    variant === "right"
      ? { name: "update_reservation_flights", arguments: { ...AIRLINE_DOWNGRADE } }
      : { name: "cancel_reservation", arguments: { reservation_id: "GV1N64" } },
  ];
}

/** Whether a request comes from the user simulator (its system prompt carries the `<scenario>` block). */
export function isUserSimulatorRequest(request: FakeRequest): boolean {
  const first = request.body?.messages?.[0];
  if (request.protocol === "openai")
    return (
      (first?.role === "system" || first?.role === "developer") &&
      textOf(first.content).includes("<scenario>")
    );
  if (request.protocol === "anthropic") return textOf(request.body?.system ?? "").includes("<scenario>");
  return textOf(request.body?.systemInstruction?.parts ?? []).includes("<scenario>");
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("");
  return "";
}

/** The conversation of a request without its system prompt, serialized, to look for what happened already. */
function conversationText(request: FakeRequest): string {
  const messages: unknown[] = request.body?.messages ?? request.body?.contents ?? [];
  return JSON.stringify(messages.filter((m: any) => m?.role !== "system" && m?.role !== "developer"));
}

/** The scripted agent's next reply: the first tool call not yet in the conversation, then the closing. */
export function airlineAgentReply(request: FakeRequest, variant: AirlineScriptVariant): FakeReply {
  const text = conversationText(request);
  const next = airlineScriptCalls(variant).find((call) => !text.includes(`"name":"${call.name}"`));
  if (next) return { toolCalls: [{ name: next.name, arguments: JSON.stringify(next.arguments) }] };
  return { text: AIRLINE_CLOSING };
}

/** The scripted user simulator: the request first, `###STOP###` once the agent has answered. */
export function airlineUserReply(request: FakeRequest): FakeReply {
  return conversationText(request).includes("5244") ? { text: "###STOP###" } : { text: AIRLINE_REQUEST };
}

/** A fake-provider handler that plays both sides of the airline script. */
export function airlineScriptHandler(variant: AirlineScriptVariant): FakeHandler {
  return (request) =>
    isUserSimulatorRequest(request) ? airlineUserReply(request) : airlineAgentReply(request, variant);
}
