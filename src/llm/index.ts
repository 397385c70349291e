/**
 * The LLM layer's public surface: `createLlmClient("provider/model", options)`
 * and the pieces a runner needs (events, errors, retry policy, prices, cache).
 */
import { UsageError } from "../core/errors.ts";
import { maskSecrets, registerSecret, registerUrlCredentials } from "../core/secrets.ts";
import { MissingApiKeyError } from "./errors.ts";
import type { LlmEventListener } from "./events.ts";
import { type ModelId, type ProviderName, parseModelId } from "./model-id.ts";
import { BUNDLED_PRICES, type PriceTable } from "./prices.ts";
import { DEFAULT_LOCAL_BASE_URL, ProviderLlmClient } from "./provider-client.ts";
import { CachingLlmClient, openResponseCache } from "./response-cache.ts";
import { DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS, type RetryPolicy } from "./retry.ts";
import type { LlmClient } from "./types.ts";

export { type LlmErrorKind, LlmError, MissingApiKeyError } from "./errors.ts";
export type { LlmEvent, LlmEventListener } from "./events.ts";
export { type ModelId, type ProviderName, parseModelId, providerKey } from "./model-id.ts";
export {
  BUNDLED_PRICES,
  costUsd,
  loadPriceTable,
  lookupPrice,
  ModelPrice,
  type PriceTable,
} from "./prices.ts";
export { DEFAULT_LOCAL_BASE_URL } from "./provider-client.ts";
export { CachingLlmClient, openResponseCache, ResponseCache, requestKey } from "./response-cache.ts";
export { DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS, type RetryPolicy } from "./retry.ts";
export type { LlmClient, LlmMessage, LlmRequest, LlmResponse } from "./types.ts";

/** Options of {@link createLlmClient}. */
export interface LlmClientOptions {
  /** Endpoint override (tests, proxies). `local/…` also reads `TAU_LLM_BASE_URL`; `openai/…` reads `OPENAI_BASE_URL`. */
  baseUrl?: string;
  /** Anthropic cache breakpoints (system + tools, conversation prefix). Default true. */
  promptCache?: boolean;
  /** Folder of the SQLite response cache; off when unset. */
  cacheDir?: string;
  /** Prices for cost accounting; default the bundled table. */
  priceTable?: PriceTable;
  retry?: Partial<RetryPolicy>;
  /** Per-attempt timeout; default 600 000 ms; null = none. */
  timeoutMs?: number | null;
  onEvent?: LlmEventListener;
  /** Environment to read keys and URLs from (default `process.env`); tests pass their own. */
  env?: Record<string, string | undefined>;
}

/** Where each provider's key comes from; the first variable that is set wins. */
const KEY_VARIABLES: Record<ProviderName, string[]> = {
  openai: ["OPENAI_API_KEY"],
  anthropic: ["ANTHROPIC_API_KEY"],
  google: ["GOOGLE_GENERATIVE_AI_API_KEY", "GEMINI_API_KEY"],
  local: ["TAU_LLM_API_KEY"],
};

function resolveKey(id: ModelId, env: Record<string, string | undefined>): string | undefined {
  for (const variable of KEY_VARIABLES[id.provider]) {
    const value = env[variable];
    if (value !== undefined && value.trim() !== "") return value.trim();
  }
  return undefined;
}

function resolveBaseUrl(
  id: ModelId,
  options: LlmClientOptions,
  env: Record<string, string | undefined>,
): string | undefined {
  if (options.baseUrl) return options.baseUrl;
  switch (id.provider) {
    case "openai":
      return env.OPENAI_BASE_URL || undefined;
    case "anthropic":
      return env.ANTHROPIC_BASE_URL || undefined;
    case "google":
      return env.GOOGLE_GENERATIVE_AI_BASE_URL || undefined;
    case "local":
      return env.TAU_LLM_BASE_URL || DEFAULT_LOCAL_BASE_URL;
    default: {
      const unreachable: never = id.provider;
      throw new TypeError(`unknown provider ${String(unreachable)}`);
    }
  }
}

const BASE_URL_VARIABLES: Record<ProviderName, string> = {
  openai: "OPENAI_BASE_URL",
  anthropic: "ANTHROPIC_BASE_URL",
  google: "GOOGLE_GENERATIVE_AI_BASE_URL",
  local: "TAU_LLM_BASE_URL",
};

/** A base URL that is not `http(s)://…` is a usage error naming where it came from, not a network error later. */
function checkBaseUrl(url: string | undefined, model: string, source: string): void {
  if (url === undefined) return;
  let protocol: string | null = null;
  try {
    protocol = new URL(url).protocol;
  } catch {}
  if (protocol !== "http:" && protocol !== "https:")
    throw new UsageError(
      `${model}: ${source} ${JSON.stringify(maskSecrets(url))} is not an http:// or https:// URL`,
    );
}

/**
 * Creates the client for `provider/model`. A missing API key fails here with
 * {@link MissingApiKeyError} — unless a response cache is given, in which case
 * only a cache miss needs the key (so cached runs replay offline).
 */
export function createLlmClient(model: string, options: LlmClientOptions = {}): LlmClient {
  const env = options.env ?? process.env;
  const id = parseModelId(model);
  const apiKey = resolveKey(id, env);
  // Whatever echoes these (an error body, a proxy's message) is masked in every file and line we write.
  registerSecret(
    apiKey,
    KEY_VARIABLES[id.provider].find((variable) => env[variable]?.trim()) ?? "credential",
  );
  const baseUrl = resolveBaseUrl(id, options, env);
  registerUrlCredentials(baseUrl);
  checkBaseUrl(baseUrl, model, options.baseUrl ? "base URL" : BASE_URL_VARIABLES[id.provider]);
  const apiKeyVariable = id.provider === "local" ? undefined : KEY_VARIABLES[id.provider].join(" or ");
  if (apiKey === undefined && apiKeyVariable !== undefined && !options.cacheDir) {
    throw new MissingApiKeyError(apiKeyVariable, model);
  }
  const client = new ProviderLlmClient({
    model,
    provider: id.provider,
    modelId: id.modelId,
    apiKey,
    apiKeyVariable,
    baseUrl,
    promptCache: options.promptCache ?? true,
    priceTable: options.priceTable ?? BUNDLED_PRICES,
    retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    timeoutMs: options.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : options.timeoutMs,
    onEvent: options.onEvent,
  });
  if (!options.cacheDir) return client;
  return new CachingLlmClient(client, openResponseCache(options.cacheDir), options.onEvent);
}
