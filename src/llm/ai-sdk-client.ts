/**
 * Any AI SDK language model (`openai("gpt-4.1")`, `anthropic(…)`,
 * `createOpenAICompatible(…)(…)`) as an {@link LlmClient}: the same calls,
 * retries, error classes, usage and cost accounting as taubench's own
 * provider clients, with the model the caller built.
 */
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { UsageError } from "../core/errors.ts";
import type { LlmEventListener } from "./events.ts";
import type { ProviderName } from "./model-id.ts";
import { BUNDLED_PRICES, type ModelPrice, type PriceTable } from "./prices.ts";
import { ProviderLlmClient } from "./provider-client.ts";
import { DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS, type RetryPolicy } from "./retry.ts";
import type { LlmClient } from "./types.ts";

/** Options of {@link createAiSdkClient}. */
export interface AiSdkClientOptions {
  /** Prices for cost accounting (default the bundled table, looked up by {@link aiSdkModelName}). */
  priceTable?: PriceTable;
  /** This model's price, when the table does not know it. */
  price?: ModelPrice;
  retry?: Partial<RetryPolicy>;
  /** Per-attempt timeout; default 600 000 ms; null = none. */
  timeoutMs?: number | null;
  /** Anthropic cache breakpoints (as for taubench's own clients). Default true. */
  promptCache?: boolean;
  onEvent?: LlmEventListener;
}

/** The provider family whose conventions (prompt caching, argument names) a model follows. */
function familyOf(providerId: string): ProviderName {
  const head = providerId.split(".")[0]!.toLowerCase();
  if (head === "openai" || head === "azure") return "openai";
  if (head === "anthropic") return "anthropic";
  if (head === "google" || head === "vertex") return "google";
  return "local";
}

/**
 * The `provider/model` name a model is recorded and priced under: `openai/gpt-4.1`,
 * `anthropic/claude-sonnet-4-5`; other providers keep their own name (`groq/llama-3.3-70b`).
 */
export function aiSdkModelName(model: Pick<LanguageModelV3, "provider" | "modelId">): string {
  const family = familyOf(model.provider);
  const prefix = family === "local" ? model.provider.split(".")[0]! : family;
  return `${prefix}/${model.modelId}`;
}

/** Checks that a value is an AI SDK 6 language model object; one clear line otherwise. */
export function assertLanguageModel(model: unknown, where: string): asserts model is LanguageModelV3 {
  if (typeof model === "string")
    throw new UsageError(
      `${where}: pass a model object such as openai("gpt-4.1"), not the string "${model}"`,
    );
  const candidate = model as Partial<LanguageModelV3> | null;
  if (candidate === null || typeof candidate !== "object" || typeof candidate.doGenerate !== "function")
    throw new UsageError(`${where}: not an AI SDK language model (it has no doGenerate)`);
  if (candidate.specificationVersion !== "v3")
    throw new UsageError(
      `${where}: the model implements AI SDK specification ${String(candidate.specificationVersion)}; taubench needs v3 (the @ai-sdk/* 2.x/3.x providers of AI SDK 6)`,
    );
}

/** Wraps an AI SDK language model as a taubench {@link LlmClient}. */
export function createAiSdkClient(model: LanguageModelV3, options: AiSdkClientOptions = {}): LlmClient {
  assertLanguageModel(model, "createAiSdkClient");
  const provider = familyOf(model.provider);
  const name = aiSdkModelName(model);
  return new ProviderLlmClient({
    model: name,
    provider,
    modelId: model.modelId,
    apiKey: undefined,
    apiKeyVariable: undefined,
    baseUrl: undefined,
    promptCache: options.promptCache ?? true,
    priceTable: options.priceTable ?? BUNDLED_PRICES,
    ...(options.price ? { price: options.price } : {}),
    retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    timeoutMs: options.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : options.timeoutMs,
    onEvent: options.onEvent,
    languageModel: model,
    // An OpenAI-compatible provider reads its options under its own name.
    ...(provider === "local" ? { providerOptionsKey: model.provider.split(".")[0]! } : {}),
  });
}
