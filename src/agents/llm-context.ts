/**
 * Turning an agent's view of the conversation into an LLM context (upstream
 * `to_litellm_messages`, spec §3.6), and an LLM reply into an assistant
 * message.
 */
import { type AssistantMessage, assistantMessage, type Message, nowIso } from "../core/messages.ts";
import { replyToolCalls, toLlmContext } from "../llm/context.ts";
import type { LlmMessage, LlmResponse } from "../llm/types.ts";
import type { AgentInput } from "./types.ts";
import { AgentError } from "./errors.ts";

/** Messages an incoming agent input adds to the state (a multi-tool delivery is expanded). */
export function expandInput(input: AgentInput): Message[] {
  if (input === null) return [];
  if (input.role === "multi_tool") return [...input.tool_messages];
  return [input];
}

/**
 * Converts trajectory messages to LLM messages behind the system prompt.
 * `reasoning` maps a message index to the provider reasoning stored with that
 * assistant reply.
 */
export function toLlmMessages(
  agentName: string,
  systemPrompt: string,
  messages: readonly Message[],
  reasoning: ReadonlyMap<number, unknown> = new Map(),
): LlmMessage[] {
  return [
    { role: "system", content: systemPrompt },
    ...toLlmContext(messages, {
      self: "assistant",
      reasoning,
      fail: (problem) => new AgentError(agentName, problem),
    }),
  ];
}

/** Upstream `generate()`'s return value: the reply as an assistant message with cost and usage. */
export function responseToAssistantMessage(response: LlmResponse): AssistantMessage {
  return assistantMessage({
    content: response.content,
    tool_calls: replyToolCalls(response.toolCalls, "assistant"),
    timestamp: nowIso(),
    cost: response.costUsd,
    usage: response.usage,
    raw_data: response.raw ?? null,
    generation_time_seconds: response.generationTimeSeconds ?? null,
  });
}
