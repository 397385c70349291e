/**
 * Turning an agent's view of the conversation into an LLM context (upstream
 * `to_litellm_messages`, spec §3.6), and an LLM reply into an assistant
 * message.
 */
import {
  type AssistantMessage,
  assistantMessage,
  hasTextContent,
  type Message,
  nowIso,
  type ToolCall,
} from "../core/messages.ts";
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
 * Converts trajectory messages to LLM messages. `reasoning` maps a message
 * index to the provider reasoning stored with that assistant reply.
 */
export function toLlmMessages(
  agentName: string,
  systemPrompt: string,
  messages: readonly Message[],
  reasoning: ReadonlyMap<number, unknown> = new Map(),
): LlmMessage[] {
  const out: LlmMessage[] = [{ role: "system", content: systemPrompt }];
  const toolNames = new Map<string, string>();
  messages.forEach((message, index) => {
    switch (message.role) {
      case "system":
        out.push({ role: "system", content: message.content ?? "" });
        break;
      case "user":
        if (!hasTextContent(message) && message.tool_calls === null) {
          throw new AgentError(agentName, `user message ${index} has neither content nor tool calls`);
        }
        out.push({ role: "user", content: message.content ?? "" });
        break;
      case "assistant": {
        if (!hasTextContent(message) && message.tool_calls === null) {
          throw new AgentError(agentName, `assistant message ${index} has neither content nor tool calls`);
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
      case "tool": {
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
        throw new AgentError(agentName, `unsupported message ${JSON.stringify(never)}`);
      }
    }
  });
  return out;
}

/** Tool calls of a reply, attributed to `requestor`; null when there are none (upstream). */
export function replyToolCalls(
  calls: readonly ToolCall[] | null | undefined,
  requestor: ToolCall["requestor"],
): ToolCall[] | null {
  if (!calls || calls.length === 0) return null;
  return calls.map((call) => ({ ...call, requestor }));
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
