/**
 * Embedding models through the AI SDK's provider-level `doEmbed` (OpenAI's
 * embeddings API, and OpenRouter's OpenAI-compatible one for Qwen), with our
 * retry policy instead of the SDK's. banking_knowledge's dense retrieval uses it.
 */
import type { EmbeddingModelV3 } from "@ai-sdk/provider";
import { MissingApiKeyError } from "./errors.ts";
import type { LlmEventListener } from "./events.ts";
import { httpFetch } from "./http-fetch.ts";
import { classifyError } from "./provider-client.ts";
import { DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS, type RetryPolicy, withRetry } from "./retry.ts";

/** The embedding providers. */
export type EmbeddingProviderName = "openai" | "openrouter";

/** OpenRouter's OpenAI-compatible API. */
export const OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1";

const KEY_VARIABLE: Record<EmbeddingProviderName, string> = {
  openai: "OPENAI_API_KEY",
  openrouter: "OPENROUTER_API_KEY",
};
const BASE_URL_VARIABLE: Record<EmbeddingProviderName, string> = {
  openai: "OPENAI_BASE_URL",
  openrouter: "OPENROUTER_BASE_URL",
};

/** Options of {@link createEmbeddingClient}. */
export interface EmbeddingClientOptions {
  /** Keys and endpoint overrides are read from here (default `process.env`). */
  env?: Record<string, string | undefined>;
  retry?: Partial<RetryPolicy>;
  /** Per attempt; default 600 000 ms. */
  timeoutMs?: number | null;
  onEvent?: LlmEventListener;
}

/** One embedding request. */
export interface EmbedRequest {
  provider: EmbeddingProviderName;
  /** The provider's model id (`text-embedding-3-large`, `qwen/qwen3-embedding-8b`). */
  model: string;
  texts: string[];
  signal?: AbortSignal | undefined;
}

/** Embeds texts; one vector per text, in order. */
export interface EmbeddingClient {
  embed(request: EmbedRequest): Promise<number[][]>;
  /** Throws {@link MissingApiKeyError} when the provider's key is not set. */
  requireKey(provider: EmbeddingProviderName): void;
}

/** The embedding client; a missing key is reported when a provider is first needed. */
export function createEmbeddingClient(options: EmbeddingClientOptions = {}): EmbeddingClient {
  const env = options.env ?? process.env;
  const keyOf = (provider: EmbeddingProviderName) => env[KEY_VARIABLE[provider]]?.trim() || undefined;
  const requireKey = (provider: EmbeddingProviderName, model = "embeddings") => {
    const key = keyOf(provider);
    if (key === undefined) throw new MissingApiKeyError(KEY_VARIABLE[provider], `${provider}/${model}`);
    return key;
  };
  // The provider SDKs are imported on first use (most runs never embed anything).
  const modelFor = async (provider: EmbeddingProviderName, modelId: string): Promise<EmbeddingModelV3> => {
    const apiKey = requireKey(provider, modelId);
    const override = env[BASE_URL_VARIABLE[provider]] || undefined;
    if (provider === "openai") {
      const { createOpenAI } = await import("@ai-sdk/openai");
      return createOpenAI({ apiKey, fetch: httpFetch, ...(override ? { baseURL: override } : {}) }).embedding(
        modelId,
      );
    }
    const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
    return createOpenAICompatible({
      name: "openrouter",
      apiKey,
      fetch: httpFetch,
      baseURL: override ?? OPENROUTER_BASE_URL,
    }).embeddingModel(modelId);
  };
  return {
    requireKey: (provider) => {
      requireKey(provider);
    },
    async embed(request) {
      const model = await modelFor(request.provider, request.model);
      const name = `${request.provider}/${request.model}`;
      const started = performance.now();
      const { value, attempts } = await withRetry(
        async (signal) => await model.doEmbed({ values: request.texts, abortSignal: signal }),
        {
          model: name,
          policy: { ...DEFAULT_RETRY_POLICY, ...options.retry },
          timeoutMs: options.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : options.timeoutMs,
          signal: request.signal,
          onEvent: options.onEvent,
          classify: (error) => classifyError(error, name),
        },
      );
      options.onEvent?.({
        type: "call",
        model: name,
        callName: "embeddings",
        usage: { prompt_tokens: value.usage?.tokens ?? 0, completion_tokens: 0 },
        costUsd: null,
        durationMs: Math.round(performance.now() - started),
        attempts,
        cached: false,
      });
      return value.embeddings.map((vector) => [...vector]);
    },
  };
}
