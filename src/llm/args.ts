/**
 * Maps upstream-style `llm_args` (LiteLLM names: `temperature`, `top_p`,
 * `max_tokens`, `seed`, `reasoning_effort`, …) onto AI SDK call options and
 * provider options. Arguments a provider cannot take are dropped, like
 * LiteLLM's `drop_params = True`, and reported so a debug log can say which.
 */
import type { SharedV3ProviderOptions } from "@ai-sdk/provider";
import { PyFloat } from "../core/py-json.ts";
import type { ProviderName } from "./model-id.ts";

/** Standard sampling options shared by every provider. */
export interface SamplingOptions {
  temperature?: number;
  topP?: number;
  topK?: number;
  maxOutputTokens?: number;
  seed?: number;
  stopSequences?: string[];
  presencePenalty?: number;
  frequencyPenalty?: number;
}

/** The result of {@link mapLlmArgs}. */
export interface MappedArgs {
  sampling: SamplingOptions;
  providerOptions: SharedV3ProviderOptions;
  /** `num_retries`: overrides the retry policy's `maxRetries` for this call. */
  maxRetries?: number;
  /** `timeout` (seconds in LiteLLM): per-attempt timeout. */
  timeoutMs?: number;
  /** `api_base` / `base_url`: overrides the endpoint. */
  baseUrl?: string;
  /** Argument names that were not sent, with the reason. */
  dropped: string[];
}

/** LiteLLM's mapping of `reasoning_effort` to a thinking budget (Anthropic, Gemini 2.5). */
const THINKING_BUDGETS: Record<string, number> = { minimal: 512, low: 1024, medium: 2048, high: 4096 };

function num(value: unknown): number | undefined {
  if (value instanceof PyFloat) return value.value;
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function plain(value: unknown): unknown {
  if (value instanceof PyFloat) return value.value;
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

/** Translates `llm_args` for one provider. Never throws on unknown names: they are dropped and listed. */
export function mapLlmArgs(
  provider: ProviderName,
  modelId: string,
  args: Record<string, unknown> | undefined,
): MappedArgs {
  const out: MappedArgs = { sampling: {}, providerOptions: {}, dropped: [] };
  const options: Record<string, unknown> = {};
  const drop = (name: string, why = `not supported by ${provider}`) => out.dropped.push(`${name} (${why})`);
  for (const [name, raw] of Object.entries(args ?? {})) {
    if (raw === null || raw === undefined) continue;
    const n = num(raw);
    switch (name) {
      case "temperature":
        if (n === undefined) drop(name, "not a number");
        else out.sampling.temperature = n;
        break;
      case "top_p":
        if (n === undefined) drop(name, "not a number");
        else out.sampling.topP = n;
        break;
      case "top_k":
        if (n === undefined) drop(name, "not a number");
        else if (provider === "openai") drop(name);
        else out.sampling.topK = n;
        break;
      case "max_tokens":
      case "max_completion_tokens":
      case "max_output_tokens":
        if (n === undefined) drop(name, "not a number");
        else out.sampling.maxOutputTokens = n;
        break;
      case "seed":
        if (n === undefined) drop(name, "not a number");
        else if (provider === "anthropic") drop(name);
        else out.sampling.seed = n;
        break;
      case "stop":
        out.sampling.stopSequences = Array.isArray(raw) ? raw.map(String) : [String(raw)];
        break;
      case "presence_penalty":
      case "frequency_penalty":
        if (n === undefined) drop(name, "not a number");
        else if (provider === "anthropic") drop(name);
        else if (name === "presence_penalty") out.sampling.presencePenalty = n;
        else out.sampling.frequencyPenalty = n;
        break;
      case "reasoning_effort":
        mapReasoningEffort(provider, modelId, String(raw), options, drop);
        break;
      case "thinking":
        mapThinking(provider, plain(raw), options, drop);
        break;
      case "parallel_tool_calls":
        if (provider === "openai") options.parallelToolCalls = Boolean(raw);
        else if (provider === "anthropic") options.disableParallelToolUse = !raw;
        else if (provider === "local") options.parallel_tool_calls = Boolean(raw);
        else drop(name);
        break;
      case "user":
      case "service_tier":
        if (provider === "openai") options[name === "user" ? "user" : "serviceTier"] = String(raw);
        else drop(name);
        break;
      case "num_retries":
        if (n === undefined) drop(name, "not a number");
        else out.maxRetries = Math.max(0, Math.floor(n));
        break;
      case "timeout":
        if (n === undefined) drop(name, "not a number");
        else out.timeoutMs = n * 1000;
        break;
      case "api_base":
      case "base_url":
        out.baseUrl = String(raw);
        break;
      case "api_key":
        drop(name, "keys come from environment variables, never from llm_args");
        break;
      default:
        // A local OpenAI-compatible server (vLLM, Ollama…) accepts server-specific fields
        // (`min_p`, `repetition_penalty`, `chat_template_kwargs`); send them verbatim.
        if (provider === "local") options[name] = plain(raw);
        else drop(name, "unknown argument");
    }
  }
  if (Object.keys(options).length > 0) out.providerOptions[provider] = options as never;
  return out;
}

function mapReasoningEffort(
  provider: ProviderName,
  modelId: string,
  effort: string,
  options: Record<string, unknown>,
  drop: (name: string, why?: string) => void,
): void {
  switch (provider) {
    case "openai":
    case "local":
      options.reasoningEffort = effort;
      return;
    case "anthropic": {
      const budget = THINKING_BUDGETS[effort];
      if (effort === "none" || effort === "disable") options.thinking = { type: "disabled" };
      else if (budget !== undefined) options.thinking = { type: "enabled", budgetTokens: budget };
      else drop("reasoning_effort", `unknown effort "${effort}"`);
      return;
    }
    case "google": {
      if (modelId.startsWith("gemini-3")) {
        options.thinkingConfig = { thinkingLevel: effort, includeThoughts: true };
        return;
      }
      const budget = effort === "none" || effort === "disable" ? 0 : THINKING_BUDGETS[effort];
      if (budget === undefined) drop("reasoning_effort", `unknown effort "${effort}"`);
      else options.thinkingConfig = { thinkingBudget: budget, includeThoughts: budget > 0 };
      return;
    }
    default: {
      const unreachable: never = provider;
      throw new TypeError(`unknown provider ${String(unreachable)}`);
    }
  }
}

function mapThinking(
  provider: ProviderName,
  raw: unknown,
  options: Record<string, unknown>,
  drop: (name: string, why?: string) => void,
): void {
  const spec = (raw ?? {}) as { type?: unknown; budget_tokens?: unknown };
  const budget = typeof spec.budget_tokens === "number" ? spec.budget_tokens : undefined;
  const enabled = spec.type !== "disabled";
  if (provider === "anthropic") {
    options.thinking = enabled ? { type: "enabled", budgetTokens: budget ?? 1024 } : { type: "disabled" };
  } else if (provider === "google") {
    options.thinkingConfig = enabled
      ? { thinkingBudget: budget ?? -1, includeThoughts: true }
      : { thinkingBudget: 0, includeThoughts: false };
  } else {
    drop("thinking");
  }
}
