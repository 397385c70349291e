import { describe, expect, it } from "vitest";
import { assistantMessage, type Message, type ToolMessage, userMessage } from "../core/messages.ts";
import { type ContextOptions, replyToolCalls, toLlmContext } from "./context.ts";

/** Stands in for AgentError / UserError: proves the caller's error class and text come through. */
class SideError extends Error {}
const fail = (problem: string) => new SideError(`side: ${problem}`);
const agentSide: ContextOptions = { self: "assistant", fail };
const userSide: ContextOptions = { self: "user", fail };

const toolResult = (id: string, content: string | null, requestor: "user" | "assistant"): ToolMessage => ({
  role: "tool",
  id,
  content,
  requestor,
  error: false,
  turn_idx: null,
  timestamp: null,
});
const agentCall = { id: "a1", name: "get_user", arguments: { id: 1 }, requestor: "assistant" as const };
const userCall = { id: "u1", name: "check_status_bar", arguments: {}, requestor: "user" as const };
const system: Message = { role: "system", content: "note", turn_idx: null, timestamp: null };

describe("toLlmContext for the agent (self = assistant)", () => {
  it("keeps roles, names tool results after their calls and attaches stored reasoning by index", () => {
    const context = toLlmContext(
      [
        system,
        userMessage({ content: "Hi" }),
        assistantMessage({ tool_calls: [agentCall] }),
        toolResult("a1", "{}", "assistant"),
        toolResult("zz", null, "assistant"),
        assistantMessage({ content: "Done." }),
      ],
      { ...agentSide, reasoning: new Map([[2, { encrypted: "r" }]]) },
    );
    expect(context).toEqual([
      { role: "system", content: "note" },
      { role: "user", content: "Hi" },
      { role: "assistant", content: null, toolCalls: [agentCall], reasoning: { encrypted: "r" } },
      { role: "tool", content: "{}", toolCallId: "a1", toolName: "get_user" },
      { role: "tool", content: "", toolCallId: "zz" },
      { role: "assistant", content: "Done.", toolCalls: null },
    ]);
    // Absent reasoning is left out rather than sent as undefined.
    expect(Object.keys(context[5]!)).toEqual(["role", "content", "toolCalls"]);
  });

  it("drops a user message's tool calls (they never name the agent's tool results)", () => {
    const context = toLlmContext(
      [userMessage({ tool_calls: [userCall] }), toolResult("u1", "ok", "user")],
      agentSide,
    );
    expect(context).toEqual([
      { role: "user", content: "" },
      { role: "tool", content: "ok", toolCallId: "u1" },
    ]);
  });

  it("rejects empty messages from either speaker with the caller's error", () => {
    expect(() => toLlmContext([userMessage({ content: "  " })], agentSide)).toThrow(
      new SideError("side: user message 0 has neither content nor tool calls"),
    );
    expect(() => toLlmContext([userMessage({ content: "x" }), assistantMessage({})], agentSide)).toThrow(
      new SideError("side: assistant message 1 has neither content nor tool calls"),
    );
    expect(() => toLlmContext([assistantMessage({})], agentSide)).toThrow(SideError);
  });
});

describe("toLlmContext for the user simulator (self = user)", () => {
  it("flips the speakers and keeps the user's own tool traffic and reasoning", () => {
    const context = toLlmContext(
      [
        assistantMessage({ content: "Hi! How can I help?" }),
        userMessage({ content: "No signal." }),
        assistantMessage({ content: "Check the status bar." }),
        userMessage({ tool_calls: [userCall] }),
        toolResult("u1", "No service", "user"),
      ],
      { ...userSide, reasoning: new Map([[3, "thought"]]) },
    );
    expect(context).toEqual([
      { role: "user", content: "Hi! How can I help?" },
      { role: "assistant", content: "No signal.", toolCalls: null },
      { role: "user", content: "Check the status bar." },
      { role: "assistant", content: null, toolCalls: [userCall], reasoning: "thought" },
      { role: "tool", content: "No service", toolCallId: "u1", toolName: "check_status_bar" },
    ]);
  });

  it("rejects what the user may not see, naming the message index", () => {
    const greeting = assistantMessage({ content: "Hello" });
    const cases: [Message[], string][] = [
      [[greeting, system], "system message 1 in the user's conversation"],
      [
        [assistantMessage({ tool_calls: [agentCall] })],
        "agent tool calls cannot be shown to the user (message 0)",
      ],
      [
        [greeting, toolResult("a1", "{}", "assistant")],
        "the agent's tool result 1 cannot be shown to the user",
      ],
      [[greeting, assistantMessage({ content: " " })], "agent message 1 has neither content nor tool calls"],
      [[greeting, userMessage({ content: "" })], "user message 1 has neither content nor tool calls"],
    ];
    for (const [messages, problem] of cases) {
      expect(() => toLlmContext(messages, userSide)).toThrow(new SideError(`side: ${problem}`));
    }
  });
});

describe("replyToolCalls", () => {
  it("is null without calls and attributes calls to the requestor without touching the reply", () => {
    expect(replyToolCalls(undefined, "user")).toBeNull();
    expect(replyToolCalls(null, "assistant")).toBeNull();
    expect(replyToolCalls([], "user")).toBeNull();
    const reply = [agentCall];
    expect(replyToolCalls(reply, "user")).toEqual([{ ...agentCall, requestor: "user" }]);
    expect(reply[0]!.requestor).toBe("assistant");
  });
});
