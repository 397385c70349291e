/**
 * Model names: `provider/model` (`openai/gpt-4.1`, `anthropic/claude-sonnet-4-5`,
 * `google/gemini-2.5-pro`, `local/qwen3:8b`), plus upstream's bare LiteLLM
 * names (`gpt-4.1-2025-04-14`, `claude-3-7-sonnet-20250219`, `gemini/…`) so
 * upstream configs and results files keep working.
 */
import { UsageError } from "../core/errors.ts";

/** The provider families taubench talks to. */
export type ProviderName = "openai" | "anthropic" | "google" | "local";

/** A parsed model name. */
export interface ModelId {
  provider: ProviderName;
  /** The provider's own model id, e.g. `gpt-4.1-2025-04-14`. */
  modelId: string;
}

const PREFIXES: Record<string, ProviderName> = {
  openai: "openai",
  anthropic: "anthropic",
  google: "google",
  gemini: "google",
  local: "local",
  ollama: "local",
  ollama_chat: "local",
  hosted_vllm: "local",
};

/** Parses a model name; a UsageError lists the accepted forms when it cannot be placed. */
export function parseModelId(model: string): ModelId {
  const slash = model.indexOf("/");
  if (slash > 0) {
    const provider = PREFIXES[model.slice(0, slash)];
    const modelId = model.slice(slash + 1);
    if (provider && modelId !== "") return { provider, modelId };
  } else if (/^(gpt-|o\d|chatgpt-|text-davinci)/.test(model)) {
    return { provider: "openai", modelId: model };
  } else if (model.startsWith("claude-")) {
    return { provider: "anthropic", modelId: model };
  } else if (model.startsWith("gemini-")) {
    return { provider: "google", modelId: model };
  }
  throw new UsageError(
    `unknown model "${model}": use openai/<model>, anthropic/<model>, google/<model> or local/<model>`,
  );
}

/** The key a runner queues and rate-limits by: canonical `provider/model`. */
export function providerKey(model: string): string {
  const { provider, modelId } = parseModelId(model);
  return `${provider}/${modelId}`;
}
