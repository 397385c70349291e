/**
 * Our Chat-Completions-shaped {@link LlmMessage}s and tool schemas → the AI
 * SDK's provider-level prompt, with Anthropic cache breakpoints and provider
 * reasoning (thinking blocks, thought signatures) carried across turns.
 */
import type {
  LanguageModelV3Content,
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  SharedV3ProviderOptions,
} from "@ai-sdk/provider";
import { z } from "zod";
import { pyDumps } from "../core/py-json.ts";
import type { ToolSchema } from "../env/toolkit.ts";
import type { ProviderName } from "./model-id.ts";
import type { LlmMessage } from "./types.ts";

const Metadata = z.record(z.string(), z.record(z.string(), z.any()));

/** One part of a provider reply that must be sent back as it was (reasoning, signatures). */
export const ReplayPart = z.discriminatedUnion("type", [
  z.object({ type: z.literal("reasoning"), text: z.string(), metadata: Metadata.optional() }),
  z.object({ type: z.literal("text"), metadata: Metadata.optional() }),
  z.object({ type: z.literal("tool-call"), toolCallId: z.string(), metadata: Metadata.optional() }),
]);
export type ReplayPart = z.infer<typeof ReplayPart>;

/**
 * What {@link LlmResponse.reasoning} holds: the reply's reasoning parts and
 * provider metadata in their original order, for the same provider's next turn.
 */
export const ProviderReplay = z.object({ provider: z.string(), parts: z.array(ReplayPart) });
export type ProviderReplay = z.infer<typeof ProviderReplay>;

const EPHEMERAL: SharedV3ProviderOptions = { anthropic: { cacheControl: { type: "ephemeral" } } };

/** Builds the replay record of a reply; undefined when there is nothing provider-specific to keep. */
export function replayFromContent(
  provider: ProviderName,
  content: LanguageModelV3Content[],
): ProviderReplay | undefined {
  const parts: ReplayPart[] = [];
  let interesting = false;
  let sawText = false;
  for (const part of content) {
    const metadata = part.providerMetadata as ReplayPart["metadata"];
    const withMetadata = metadata && Object.keys(metadata).length > 0 ? { metadata } : {};
    if (metadata && Object.values(metadata).some((v) => Object.keys(v).length > 0)) interesting = true;
    switch (part.type) {
      case "reasoning":
        interesting = true;
        parts.push({ type: "reasoning", text: part.text, ...withMetadata });
        break;
      case "text":
        // Our message keeps one text; remember where the first one sat.
        if (!sawText) parts.push({ type: "text", ...withMetadata });
        sawText = true;
        break;
      case "tool-call":
        parts.push({ type: "tool-call", toolCallId: part.toolCallId, ...withMetadata });
        break;
      default:
        break;
    }
  }
  return interesting ? { provider, parts } : undefined;
}

function toolCallPart(call: NonNullable<Extract<LlmMessage, { role: "assistant" }>["toolCalls"]>[number]) {
  // A string input is sent verbatim by the OpenAI-style adapters: the model then sees
  // exactly Python's `json.dumps(arguments)`, as upstream sends it (floats keep `.0`).
  return {
    type: "tool-call" as const,
    toolCallId: call.id,
    toolName: call.name,
    input: pyDumps(call.arguments),
  };
}

function assistantParts(
  message: Extract<LlmMessage, { role: "assistant" }>,
  provider: ProviderName,
): Extract<LanguageModelV3Message, { role: "assistant" }>["content"] {
  const calls = message.toolCalls ?? [];
  const text = message.content ?? "";
  const out: Extract<LanguageModelV3Message, { role: "assistant" }>["content"] = [];
  const emitted = new Set<string>();
  let textDone = false;
  // Most messages carry no reasoning: no schema check (and no zod error object) for those.
  const replay = message.reasoning === undefined ? undefined : ProviderReplay.safeParse(message.reasoning);
  if (replay?.success && replay.data.provider === provider) {
    for (const part of replay.data.parts) {
      const providerOptions = part.metadata ? { providerOptions: part.metadata } : {};
      switch (part.type) {
        case "reasoning":
          out.push({ type: "reasoning", text: part.text, ...providerOptions });
          break;
        case "text":
          if (text !== "" && !textDone) out.push({ type: "text", text, ...providerOptions });
          textDone = true;
          break;
        case "tool-call": {
          const call = calls.find((c) => c.id === part.toolCallId);
          if (call && !emitted.has(call.id)) {
            out.push({ ...toolCallPart(call), ...providerOptions });
            emitted.add(call.id);
          }
          break;
        }
        default: {
          const unreachable: never = part;
          throw new TypeError(`unknown replay part ${JSON.stringify(unreachable)}`);
        }
      }
    }
  }
  if (!textDone && text !== "") out.unshift({ type: "text", text });
  for (const call of calls) if (!emitted.has(call.id)) out.push(toolCallPart(call));
  return out;
}

/** Options of {@link toProviderPrompt}. */
export interface PromptOptions {
  provider: ProviderName;
  /** Anthropic cache breakpoints on the system prompt and on the last message. */
  promptCache: boolean;
}

/** Converts an LLM context to the provider-level prompt. */
export function toProviderPrompt(messages: LlmMessage[], options: PromptOptions): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [];
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    switch (message.role) {
      case "system":
        prompt.push({ role: "system", content: message.content });
        break;
      case "user":
        prompt.push({ role: "user", content: [{ type: "text", text: message.content }] });
        break;
      case "assistant":
        for (const call of message.toolCalls ?? []) toolNames.set(call.id, call.name);
        prompt.push({ role: "assistant", content: assistantParts(message, options.provider) });
        break;
      case "tool":
        prompt.push({
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: message.toolCallId,
              // Gemini names function responses; recover the name from the call when not given.
              toolName: message.toolName ?? toolNames.get(message.toolCallId) ?? "",
              output: { type: "text", value: message.content },
            },
          ],
        });
        break;
      default: {
        const unreachable: never = message;
        throw new TypeError(`unknown message role ${JSON.stringify(unreachable)}`);
      }
    }
  }
  if (options.provider === "anthropic") {
    // Anthropic wants a user turn first, but the agent's context opens with the
    // assistant greeting; put a "." user turn before it, as LiteLLM does with
    // `modify_params` (without it LiteLLM refuses such a context).
    const first = prompt.findIndex((m) => m.role !== "system");
    if (first >= 0 && prompt[first]!.role === "assistant") {
      prompt.splice(first, 0, { role: "user", content: [{ type: "text", text: "." }] });
    }
    if (options.promptCache) addCacheBreakpoints(prompt);
  }
  return prompt;
}

/**
 * Two breakpoints in the messages (the tools get the third): the last system
 * message (tools + system are shared by every turn) and the last message, so
 * each turn reads the prefix the previous turn wrote.
 */
function addCacheBreakpoints(prompt: LanguageModelV3Prompt): void {
  let lastSystem = -1;
  for (let i = 0; i < prompt.length; i++) if (prompt[i]!.role === "system") lastSystem = i;
  if (lastSystem >= 0) prompt[lastSystem] = { ...prompt[lastSystem]!, providerOptions: EPHEMERAL };
  const last = prompt.length - 1;
  if (last >= 0 && last !== lastSystem && prompt[last]!.content.length > 0) {
    prompt[last] = { ...prompt[last]!, providerOptions: EPHEMERAL };
  }
}

/** Converts tool schemas; with `promptCache` the last tool carries an Anthropic cache breakpoint. */
export function toProviderTools(
  tools: ToolSchema[] | undefined,
  options: PromptOptions,
): LanguageModelV3FunctionTool[] | undefined {
  if (!tools || tools.length === 0) return undefined;
  return tools.map((tool, index) => ({
    type: "function" as const,
    name: tool.function.name,
    description: tool.function.description,
    inputSchema: tool.function.parameters as LanguageModelV3FunctionTool["inputSchema"],
    ...(options.promptCache && options.provider === "anthropic" && index === tools.length - 1
      ? { providerOptions: EPHEMERAL }
      : {}),
  }));
}
