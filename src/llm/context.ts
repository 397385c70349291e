/**
 * Turning a participant's view of a trajectory into an LLM context: upstream
 * `to_litellm_messages` for the agent (spec §3.6) and `UserState.flip_roles`
 * for the user simulator (spec §4.2). Both sides share the bookkeeping (tool
 * names by call id, stored reasoning by message index, empty-message checks);
 * they differ in which trajectory role is "me" and in how strict they are.
 * Lives here because agents/ and users/ may not import each other.
 */
import { hasTextContent, type Message, type Requestor, type ToolCall } from "../core/messages.ts";
import type { LlmMessage } from "./types.ts";

/** How to build one side's context. */
export interface ContextOptions {
  /**
   * The trajectory role whose messages are this side's own replies (sent as
   * `assistant`); the other speaker's text is sent as `user`. `user` means the
   * roles are flipped, and the user simulator's stricter checks apply: no
   * system messages, no agent tool calls, no agent-side tool results.
   */
  self: Requestor;
  /** Provider reasoning stored with our own replies, by message index. */
  reasoning?: ReadonlyMap<number, unknown>;
  /** Wraps a problem text into the caller's error (AgentError / UserError with its name). */
  fail: (message: string) => Error;
}

/** Converts trajectory messages to LLM messages (without the caller's system prompt). */
export function toLlmContext(messages: readonly Message[], options: ContextOptions): LlmMessage[] {
  const { self, fail } = options;
  const reasoning = options.reasoning ?? new Map<number, unknown>();
  const flipped = self === "user";
  const out: LlmMessage[] = [];
  const toolNames = new Map<string, string>();
  messages.forEach((message, index) => {
    switch (message.role) {
      case "system":
        if (flipped) throw fail(`system message ${index} in the user's conversation`);
        out.push({ role: "system", content: message.content ?? "" });
        break;
      case "user":
      case "assistant": {
        if (message.role === self) {
          if (!hasTextContent(message) && message.tool_calls === null) {
            throw fail(`${message.role} message ${index} has neither content nor tool calls`);
          }
          for (const call of message.tool_calls ?? []) toolNames.set(call.id, call.name);
          const stored = reasoning.get(index);
          out.push({
            role: "assistant",
            content: message.content,
            toolCalls: message.tool_calls,
            ...(stored !== undefined ? { reasoning: stored } : {}),
          });
          break;
        }
        // The other speaker. The agent's context quietly drops a user message's tool calls
        // (they went to the user's own tools); the user must never see the agent's.
        if (flipped && message.tool_calls !== null) {
          throw fail(`agent tool calls cannot be shown to the user (message ${index})`);
        }
        if (!hasTextContent(message) && message.tool_calls === null) {
          throw fail(`${flipped ? "agent" : "user"} message ${index} has neither content nor tool calls`);
        }
        out.push({ role: "user", content: message.content ?? "" });
        break;
      }
      case "tool": {
        if (flipped && message.requestor !== "user") {
          throw fail(`the agent's tool result ${index} cannot be shown to the user`);
        }
        const name = toolNames.get(message.id);
        out.push({
          role: "tool",
          content: message.content ?? "",
          toolCallId: message.id,
          ...(name !== undefined ? { toolName: name } : {}),
        });
        break;
      }
      default: {
        const never: never = message;
        throw fail(`unsupported message ${JSON.stringify(never)}`);
      }
    }
  });
  return out;
}

/** Tool calls of a reply, attributed to `requestor`; null when there are none (upstream). */
export function replyToolCalls(
  calls: readonly ToolCall[] | null | undefined,
  requestor: Requestor,
): ToolCall[] | null {
  if (!calls || calls.length === 0) return null;
  return calls.map((call) => ({ ...call, requestor }));
}
