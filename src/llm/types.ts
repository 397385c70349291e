/**
 * The one seam between taubench and language models. Providers, the response
 * cache and the scripted test model all implement {@link LlmClient}.
 */
import type { ToolCall, Usage } from "../core/messages.ts";
import type { ToolSchema } from "../env/toolkit.ts";

/** A message in an LLM context (OpenAI Chat Completions shape). */
export type LlmMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | {
      role: "assistant";
      content: string | null;
      toolCalls?: ToolCall[] | null;
      /** Provider reasoning to send back on the next turn (thinking models), opaque to us. */
      reasoning?: unknown;
    }
  | { role: "tool"; content: string; toolCallId: string; toolName?: string };

/** One generation request. */
export interface LlmRequest {
  messages: LlmMessage[];
  tools?: ToolSchema[];
  /** `auto` (default when tools are given), `required` (solo agent) or `none`. */
  toolChoice?: "auto" | "required" | "none";
  /** Provider arguments: temperature, seed, max_tokens, reasoning effort… (upstream `llm_args`). */
  args?: Record<string, unknown>;
  /** Ask for a JSON reply matching a schema (structured outputs; the reranker's rating). */
  responseFormat?: { name: string; schema: Record<string, unknown> };
  /** Label of the call site (`agent`, `user`, `nl_assertions_eval`) for logs and accounting. */
  callName?: string;
  /** Extra HTTP headers for this call (an agent service reads the simulation id from them). */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** One generation result. Tool-call arguments keep Python int/float distinctions. */
export interface LlmResponse {
  content: string | null;
  toolCalls: ToolCall[] | null;
  usage: Usage;
  /** USD; null when the model has no known price. */
  costUsd: number | null;
  /** The provider's response body (stored as `raw_data`). */
  raw?: unknown;
  /** Provider reasoning to carry into the next turn, when the provider returns it. */
  reasoning?: unknown;
  generationTimeSeconds?: number;
}

/** A model that can be asked for the next message. */
export interface LlmClient {
  /** `provider/model`, as given on the command line. */
  readonly model: string;
  generate(request: LlmRequest): Promise<LlmResponse>;
  /**
   * The base URL calls with these `llm_args` go to, without credentials (recorded in results so a
   * run answered by a local server does not pass for a hosted one); absent for clients with no endpoint.
   */
  endpoint?(args?: Record<string, unknown>): string;
}
