/**
 * The provider adapter: one {@link LlmClient} per model, calling the AI SDK's
 * provider-level `doGenerate` directly (no SDK retries; ours are in retry.ts).
 * Tool-call arguments are parsed from the provider's raw JSON text so Python's
 * int/float distinction survives (`2.0` stays a float).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import {
  APICallError,
  type LanguageModelV3,
  type LanguageModelV3Content,
  type LanguageModelV3GenerateResult,
  JSONParseError,
  LoadAPIKeyError,
  type SharedV3ProviderOptions,
  TypeValidationError,
} from "@ai-sdk/provider";
import type { ToolCall, Usage } from "../core/messages.ts";
import { PyFloat, type PyValue, parsePyJson } from "../core/py-json.ts";
import { mapLlmArgs } from "./args.ts";
import { kindForStatus, LlmError, MissingApiKeyError, parseRetryAfter } from "./errors.ts";
import type { LlmEventListener } from "./events.ts";
import { CallSlots } from "./call-slots.ts";
import { handlesRequest, requestOverHttp, toResponse } from "./http-fetch.ts";
import { LeanOpenAiChatModel, routedFetch } from "./openai-chat.ts";
import type { ProviderName } from "./model-id.ts";
import { lookupPrice, type ModelPrice, type PriceTable, usageCostUsd } from "./prices.ts";
import { replayFromContent, toProviderPrompt, toProviderTools } from "./prompt.ts";
import { type RetryPolicy, withRetry } from "./retry.ts";
import type { LlmClient, LlmRequest, LlmResponse } from "./types.ts";

/** Everything a {@link ProviderLlmClient} needs, resolved (keys and URLs already looked up). */
export interface ProviderClientConfig {
  /** The name as given (`openai/gpt-4.1`), reported on responses and events. */
  model: string;
  provider: ProviderName;
  modelId: string;
  apiKey: string | undefined;
  /** Environment variable the key comes from, for the missing-key message; undefined when optional. */
  apiKeyVariable: string | undefined;
  baseUrl: string | undefined;
  promptCache: boolean;
  priceTable: PriceTable;
  /** The model's price, overriding the table. */
  price?: ModelPrice;
  retry: RetryPolicy;
  timeoutMs: number | null;
  onEvent: LlmEventListener | undefined;
  /**
   * A model the caller built (the AI SDK adapter): used as is instead of one made from `provider`,
   * key and URL. Its raw response text is known only when its provider was given
   * {@link keepRawResponses} as `fetch`.
   */
  languageModel?: LanguageModelV3;
  /** Key of the provider options in calls (a caller's OpenAI-compatible provider has its own name); default `provider`. */
  providerOptionsKey?: string;
  /**
   * Send `openai/…` and `local/…` calls through the AI SDK model alone, not the lean path of openai-chat.ts (which
   * sends the same bytes for less CPU); the lean path's tests use it as their oracle.
   */
  sdkOnly?: boolean;
}

/** The default endpoint of `local/…` models: Ollama's OpenAI-compatible API. */
export const DEFAULT_LOCAL_BASE_URL = "http://127.0.0.1:11434/v1";

/** Where each provider's SDK sends calls when no base URL is given (the SDKs' own defaults). */
const DEFAULT_BASE_URLS: Record<ProviderName, string> = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com/v1",
  google: "https://generativelanguage.googleapis.com/v1beta",
  local: DEFAULT_LOCAL_BASE_URL,
};

/** A URL without what could be a credential: user info, query and fragment. */
export function urlWithoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    parsed.search = "";
    parsed.hash = "";
    return parsed.href.replace(/\/$/, "");
  } catch {
    return "(not a URL)";
  }
}

/** Calls one provider model; see the module comment. */
export class ProviderLlmClient implements LlmClient {
  readonly model: string;
  private readonly price: ModelPrice | null;
  constructor(private readonly config: ProviderClientConfig) {
    this.model = config.model;
    this.price = config.price ?? lookupPrice(config.model, config.priceTable);
  }

  endpoint(args?: Record<string, unknown>): string {
    const { config } = this;
    const override =
      args === undefined ? undefined : mapLlmArgs(config.provider, config.modelId, args).baseUrl;
    return urlWithoutCredentials(override ?? config.baseUrl ?? DEFAULT_BASE_URLS[config.provider]);
  }

  /** The SDK model per base URL, built once (its fetch finds the call's capture in {@link rawResponses}). */
  private readonly models = new Map<string | undefined, Promise<LanguageModelV3>>();

  private modelFor(baseUrl: string | undefined): Promise<LanguageModelV3> {
    let model = this.models.get(baseUrl);
    if (model === undefined) {
      model = createModel(this.config, baseUrl);
      // A failed build (a provider SDK that cannot load) is not kept: the next call tries again.
      model.catch(() => this.models.delete(baseUrl));
      this.models.set(baseUrl, model);
    }
    return model;
  }

  async generate(request: LlmRequest): Promise<LlmResponse> {
    const { config } = this;
    if (config.apiKey === undefined && config.apiKeyVariable !== undefined) {
      throw new MissingApiKeyError(config.apiKeyVariable, config.model);
    }
    const mapped = mapLlmArgs(config.provider, config.modelId, request.args);
    if (mapped.dropped.length > 0) {
      config.onEvent?.({
        type: "debug",
        model: config.model,
        message: `dropped llm_args: ${mapped.dropped.join(", ")}`,
      });
    }
    const promptOptions = { provider: config.provider, promptCache: config.promptCache };
    const prompt = toProviderPrompt(request.messages, promptOptions);
    const tools = toProviderTools(request.tools, promptOptions);
    const toolChoice = tools ? { type: request.toolChoice ?? "auto" } : undefined;
    const baseUrl = mapped.baseUrl ?? config.baseUrl;
    const started = performance.now();
    const { value, attempts } = await withRetry(
      async (signal) => {
        const model = config.languageModel ?? (await this.modelFor(baseUrl));
        const call = (headers: Record<string, string | undefined> | undefined) =>
          model.doGenerate({
            prompt,
            ...(tools ? { tools, toolChoice } : {}),
            ...(request.responseFormat
              ? { responseFormat: { type: "json" as const, ...request.responseFormat } }
              : {}),
            ...mapped.sampling,
            providerOptions: rekeyed(mapped.providerOptions, config),
            ...(headers ? { headers } : {}),
            abortSignal: signal,
          });
        // Only Anthropic's and Gemini's tool-call arguments are read from the raw reply.
        if (config.provider !== "anthropic" && config.provider !== "google")
          return { result: await call(request.headers), rawText: undefined };
        const capture: { text?: string } = {};
        const result = config.languageModel
          ? // A model the caller built keeps the raw reply only through keepRawResponses, which finds it here.
            await rawResponses.run(capture, () => call(request.headers))
          : await rawReplies.with(capture, request.headers, call);
        return { result, rawText: capture.text };
      },
      {
        model: config.model,
        policy:
          mapped.maxRetries === undefined ? config.retry : { ...config.retry, maxRetries: mapped.maxRetries },
        timeoutMs: mapped.timeoutMs ?? config.timeoutMs,
        signal: request.signal,
        onEvent: config.onEvent,
        classify: (error) => classifyError(error, config.model),
      },
    );
    const seconds = (performance.now() - started) / 1000;
    const { result, rawText } = value;
    for (const warning of result.warnings) {
      config.onEvent?.({
        type: "debug",
        model: config.model,
        message: `provider warning: ${JSON.stringify(warning)}`,
      });
    }
    const usage = toUsage(result.usage);
    const cost = this.price ? usageCostUsd(this.price, usage) : null;
    config.onEvent?.({
      type: "call",
      model: config.model,
      callName: request.callName,
      usage,
      costUsd: cost,
      durationMs: Math.round(seconds * 1000),
      attempts,
      cached: false,
    });
    const texts = result.content.filter((p) => p.type === "text").map((p) => p.text);
    const content = texts.length > 0 ? texts.join("") : null;
    // A reply that arrived but cannot be used is a failed call too (counted as such), never retried here.
    const failed = (error: LlmError): LlmError => {
      config.onEvent?.({ type: "error", model: config.model, kind: error.kind, message: error.message });
      return error;
    };
    let toolCalls: ToolCall[];
    try {
      toolCalls = extractToolCalls(config, result.content, rawText);
    } catch (error) {
      throw error instanceof LlmError ? failed(error) : error;
    }
    if ((content === null || content.trim() === "") && toolCalls.length === 0) {
      // Upstream raises on an empty message (P6); the runner retries the whole simulation.
      throw failed(
        new LlmError(`${config.model}: empty reply (no text, no tool calls)`, {
          kind: "empty_response",
          model: config.model,
        }),
      );
    }
    const reasoning = replayFromContent(config.provider, result.content);
    return {
      content,
      toolCalls: toolCalls.length > 0 ? toolCalls : null,
      usage,
      costUsd: cost,
      raw: result.response?.body ?? null,
      ...(reasoning ? { reasoning } : {}),
      generationTimeSeconds: seconds,
    };
  }
}

/**
 * The provider SDKs, each imported on first use: together they take longer to load than the rest of
 * taubench, and a run uses one or two of them (offline participants none).
 */
const providerSdks = {
  openai: () => import("@ai-sdk/openai"),
  anthropic: () => import("@ai-sdk/anthropic"),
  google: () => import("@ai-sdk/google"),
  local: () => import("@ai-sdk/openai-compatible"),
};

/**
 * Where {@link keepRawResponses} leaves the response text of the call running in this async context:
 * only for a model the caller built. Once an AsyncLocalStorage is used, every promise of the process
 * pays a hook, so taubench's own models keep theirs through {@link rawReplies}.
 */
const rawResponses = new AsyncLocalStorage<{ text?: string }>();

/** Where the fetch of taubench's own Anthropic and Gemini models leaves a call's response text. */
const rawReplies = new CallSlots<{ text?: string }>("x-taubench-raw-reply");

/**
 * A `fetch` for an AI SDK provider the caller builds (`createAnthropic({ fetch: keepRawResponses() })`):
 * it keeps each response's text for taubench, so tool-call arguments that the provider returns as
 * JSON objects (Anthropic, Gemini) are read from the raw body and `2.0` stays a float, as with
 * taubench's own clients. Outside a taubench call it is `inner` unchanged.
 */
export function keepRawResponses(inner?: typeof fetch): typeof fetch {
  return async (input, init) => {
    const capture = rawResponses.getStore();
    const response = await (inner ?? globalThis.fetch)(input, init);
    return capture === undefined ? response : responseKeepingText(response, capture);
  };
}

/** `response` read into `capture.text`, and a copy of it to hand on. */
async function responseKeepingText(response: Response, capture: { text?: string }): Promise<Response> {
  const text = await response.text();
  capture.text = text;
  return new Response(text, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

function rekeyed(options: SharedV3ProviderOptions, config: ProviderClientConfig): SharedV3ProviderOptions {
  const key = config.providerOptionsKey;
  const own = options[config.provider];
  if (key === undefined || key === config.provider || own === undefined) return options;
  const { [config.provider]: _moved, ...rest } = options;
  return { ...rest, [key]: own };
}

/**
 * Builds the SDK model of a client (once per base URL); its fetch keeps the raw response text in
 * the capture the call names ({@link rawReplies}).
 */
async function createModel(
  config: ProviderClientConfig,
  baseUrl: string | undefined,
): Promise<LanguageModelV3> {
  const fetchCapturing = async (
    input: Parameters<typeof fetch>[0],
    init?: RequestInit,
  ): Promise<Response> => {
    const { value: capture, init: sent } = rawReplies.take(init);
    if (handlesRequest(input, sent)) {
      const reply = await requestOverHttp(input as string | URL, sent);
      if (capture) capture.text = reply.body.toString("utf8");
      return toResponse(reply);
    }
    return capture
      ? responseKeepingText(await globalThis.fetch(input, sent), capture)
      : globalThis.fetch(input, sent);
  };
  const common = { fetch: fetchCapturing as typeof fetch, ...(baseUrl ? { baseURL: baseUrl } : {}) };
  switch (config.provider) {
    case "openai": {
      const { createOpenAI } = await providerSdks.openai();
      const sdk = createOpenAI({
        ...common,
        fetch: config.sdkOnly ? common.fetch : routedFetch(common.fetch),
        apiKey: config.apiKey ?? "",
      }).chat(config.modelId);
      return config.sdkOnly ? sdk : new LeanOpenAiChatModel(sdk);
    }
    case "anthropic": {
      const { createAnthropic } = await providerSdks.anthropic();
      return createAnthropic({ ...common, apiKey: config.apiKey ?? "" })(config.modelId);
    }
    case "google": {
      const { createGoogleGenerativeAI } = await providerSdks.google();
      return createGoogleGenerativeAI({ ...common, apiKey: config.apiKey ?? "" })(config.modelId);
    }
    case "local": {
      const { createOpenAICompatible } = await providerSdks.local();
      const sdk = createOpenAICompatible({
        name: "local",
        fetch: config.sdkOnly ? common.fetch : routedFetch(common.fetch),
        baseURL: baseUrl ?? DEFAULT_LOCAL_BASE_URL,
        ...(config.apiKey ? { apiKey: config.apiKey } : {}),
        includeUsage: true,
      }).chatModel(config.modelId);
      return config.sdkOnly ? sdk : new LeanOpenAiChatModel(sdk, "compatible");
    }
    default: {
      const unreachable: never = config.provider;
      throw new TypeError(`unknown provider ${String(unreachable)}`);
    }
  }
}

function toUsage(usage: LanguageModelV3GenerateResult["usage"]): Usage {
  const out: Usage = {
    prompt_tokens: usage.inputTokens.total ?? 0,
    completion_tokens: usage.outputTokens.total ?? 0,
  };
  // Extra fields only when non-zero, so plain usage keeps upstream's two-field shape.
  if (usage.inputTokens.cacheRead) out.cache_read_tokens = usage.inputTokens.cacheRead;
  if (usage.inputTokens.cacheWrite) out.cache_write_tokens = usage.inputTokens.cacheWrite;
  if (usage.outputTokens.reasoning) out.reasoning_tokens = usage.outputTokens.reasoning;
  return out;
}

/**
 * Tool-call arguments as Python's `json.loads` would give them. OpenAI-style
 * APIs send the arguments as a JSON string (parsed here); Anthropic and Gemini
 * send objects, which we re-read from the raw body so floats keep their `.0`.
 */
function extractToolCalls(
  config: ProviderClientConfig,
  content: LanguageModelV3Content[],
  rawText: string | undefined,
): ToolCall[] {
  const parts = content.filter((p) => p.type === "tool-call" && !p.providerExecuted);
  if (parts.length === 0) return [];
  const rawInputs = rawArgumentObjects(config.provider, rawText);
  return parts.map((part, index) => {
    if (part.type !== "tool-call") throw new TypeError("unreachable");
    let args: PyValue | undefined;
    if (config.provider === "anthropic") args = rawInputs?.byId.get(part.toolCallId);
    else if (config.provider === "google") args = rawInputs?.inOrder[index];
    if (args === undefined) {
      try {
        args = parsePyJson(part.input === "" ? "{}" : part.input);
      } catch (error) {
        throw new LlmError(
          `${config.model}: tool call ${part.toolName} has arguments that are not valid JSON: ${truncate(part.input)}`,
          { kind: "invalid_tool_arguments", model: config.model, cause: error },
        );
      }
    }
    if (args === null || typeof args !== "object" || Array.isArray(args) || args instanceof PyFloat) {
      throw new LlmError(
        `${config.model}: tool call ${part.toolName} has arguments that are not a JSON object: ${truncate(part.input)}`,
        { kind: "invalid_tool_arguments", model: config.model },
      );
    }
    return {
      id: part.toolCallId,
      name: part.toolName,
      arguments: args as Record<string, unknown>,
      requestor: "assistant",
    };
  });
}

function rawArgumentObjects(
  provider: ProviderName,
  rawText: string | undefined,
): { byId: Map<string, PyValue>; inOrder: PyValue[] } | undefined {
  if (rawText === undefined || (provider !== "anthropic" && provider !== "google")) return undefined;
  let body: any;
  try {
    body = parsePyJson(rawText);
  } catch {
    return undefined;
  }
  const byId = new Map<string, PyValue>();
  const inOrder: PyValue[] = [];
  if (provider === "anthropic") {
    for (const block of Array.isArray(body?.content) ? body.content : []) {
      if (block?.type === "tool_use" && typeof block.id === "string") byId.set(block.id, block.input ?? {});
    }
  } else {
    const parts = body?.candidates?.[0]?.content?.parts;
    for (const part of Array.isArray(parts) ? parts : []) {
      if (part?.functionCall) inOrder.push(part.functionCall.args ?? {});
    }
  }
  return { byId, inOrder };
}

function truncate(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** What is wrong with a 2xx body the SDK could not read: not JSON, or JSON of another shape (the first fields the schema refused). */
function unreadableBody(error: APICallError): string {
  const body = truncate(oneLine(error.responseBody ?? ""), 80);
  if (JSONParseError.isInstance(error.cause)) return `the body is not JSON: ${body || "(empty)"}`;
  if (TypeValidationError.isInstance(error.cause)) {
    const issues = (
      error.cause.cause as { issues?: { path?: PropertyKey[]; message?: string }[] } | undefined
    )?.issues;
    const fields = (issues ?? [])
      .slice(0, 3)
      .map(
        (issue) => `${(issue.path ?? []).map(String).join(".") || "(root)"}: ${issue.message ?? "invalid"}`,
      );
    return `the body is not a reply of this API (${fields.length > 0 ? fields.join("; ") : "its schema refused it"}): ${body}`;
  }
  return `${oneLine(error.message)}: ${body}`;
}

/** Turns an SDK or network error into an {@link LlmError} with a kind and a one-line message. */
export function classifyError(error: unknown, model: string): LlmError {
  if (error instanceof LlmError) return error;
  if (APICallError.isInstance(error)) {
    const retryAfterMs = parseRetryAfter(error.responseHeaders);
    const status = error.statusCode;
    if (status === undefined) {
      return new LlmError(`${model}: ${error.message}`, { kind: "network", model, cause: error });
    }
    // A success status with a body that is not the dialect's reply: say what is wrong with it.
    if (status >= 200 && status < 300)
      return new LlmError(`${model}: HTTP ${status}, but ${unreadableBody(error)}`, {
        kind: "invalid_response",
        model,
        statusCode: status,
        cause: error,
      });
    const body = error.responseBody ?? error.message;
    const kind = kindForStatus(status, body);
    return new LlmError(
      `${model}: HTTP ${status} (${kind.replace("_", " ")}): ${truncate(oneLine(error.message))}`,
      {
        kind,
        model,
        statusCode: status,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
        cause: error,
      },
    );
  }
  // A model the caller built reads its key when called: none would fail every call, so it stops the run.
  if (LoadAPIKeyError.isInstance(error)) {
    return new LlmError(`${model}: ${oneLine(error.message)}`, { kind: "auth", model, cause: error });
  }
  if (isNetworkError(error)) {
    return new LlmError(`${model}: network error: ${oneLine(String((error as Error).message))}`, {
      kind: "network",
      model,
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new LlmError(`${model}: invalid response: ${truncate(oneLine(message))}`, {
    kind: "invalid_response",
    model,
    cause: error,
  });
}

function isNetworkError(error: unknown): boolean {
  for (let e: any = error, depth = 0; e && depth < 5; e = e.cause, depth++) {
    if (e instanceof TypeError && /fetch failed|terminated|network/i.test(e.message)) return true;
    if (typeof e.code === "string" && /^(E[A-Z]+|UND_ERR)/.test(e.code)) return true;
  }
  return false;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
