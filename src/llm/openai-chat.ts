/**
 * A lean path for Chat Completions calls (`openai/…` and `local/…` models): the same
 * bytes as the AI SDK's chat model, for a fraction of its CPU per call.
 *
 * The SDK model stays the authority. For each call shape (sampling options,
 * provider options, response format, extra headers) it is asked once, with a
 * one-message probe prompt, for the URL, the headers and the body it would
 * send; the part of that body before `"messages"` is kept as a template (calls
 * that differ only in an integer seed share one: it is probed with a sentinel
 * seed, and each call writes its own seed where the sentinel was). A call
 * then only serializes its messages and tools (system prompts and tool schemas
 * once, keyed by content and by schema object) and is sent straight by
 * `requestOverHttp` (`http-fetch.ts`). A reply is checked by hand against what the SDK's response
 * schema accepts and turned into the result the SDK would return.
 *
 * Anything outside what is checked here goes to the SDK instead, never
 * approximated: a prompt part or option this file does not know is sent by the
 * SDK itself, and a reply that is not a plain 200 with one well-formed choice
 * (errors, refusals with audio, logprobs, a body that fails to parse, a network
 * failure) is handed to the SDK's own response handling as received, so errors
 * keep their classes, messages, status codes and headers exactly.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3FunctionTool,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
  LanguageModelV3Usage,
  SharedV3Warning,
} from "@ai-sdk/provider";
import { CallSlots } from "./call-slots.ts";
import { type HttpReply, requestOverHttp, toResponse } from "./http-fetch.ts";

/** The fetch the SDK model uses for a probe or a replay, for that one call. */
const sdkFetchOverrides = new CallSlots<typeof fetch>("x-taubench-sdk-fetch");

/**
 * The `fetch` to build the SDK model with: `base`, except while this module
 * asks the SDK for a probe or hands it a reply already received.
 */
export function routedFetch(base: typeof fetch): typeof fetch {
  return (input, init) => {
    const { value: override, init: rest } = sdkFetchOverrides.take(init);
    return (override ?? base)(input, rest);
  };
}

/**
 * Which SDK model is underneath: `@ai-sdk/openai`'s chat model (`openai/…`) or
 * `@ai-sdk/openai-compatible`'s (`local/…`); they differ in a few message fields and in what
 * replies they accept.
 */
export type ChatDialect = "openai" | "compatible";

/** What the SDK would send for one call shape, with the messages and tools left out. */
interface Plan {
  url: URL;
  headers: Record<string, string>;
  /**
   * The body up to and including `,"messages":`, as bytes; for a plan shared by every integer
   * seed, the part before the seed's value (see {@link Plan.afterSeed}).
   */
  head: Buffer;
  /** For a plan shared by every integer seed: the rest of the head, after the seed's value. */
  afterSeed?: Buffer;
  systemRole: "system" | "developer";
  warnings: SharedV3Warning[];
  dialect: ChatDialect;
  /** The key of the result's provider metadata, as the SDK names it for this call. */
  metadataKey: string;
}

/** Call options this path knows; a call with any other option goes to the SDK. */
const KNOWN_OPTIONS = new Set([
  "prompt",
  "maxOutputTokens",
  "temperature",
  "stopSequences",
  "topP",
  "topK",
  "presencePenalty",
  "frequencyPenalty",
  "responseFormat",
  "seed",
  "tools",
  "toolChoice",
  "abortSignal",
  "headers",
  "providerOptions",
]);

const PROBE_TEXT = "probe";
const PROBE_PROMPT: LanguageModelV3Prompt = [{ role: "system", content: PROBE_TEXT }];
const PROBE_REPLY = '{"choices":[{"index":0,"message":{"content":"probe"}}]}';
const MESSAGES_KEY = ',"messages":';

/**
 * The seed a plan for every integer seed is probed with (a safe integer no option is likely to
 * hold). Its one occurrence in the probed body marks where a call writes its own seed.
 */
export const SEED_SENTINEL = 5_871_390_264_117_093;
const SENTINEL_TEXT = String(SEED_SENTINEL);
/** The place of the seed in a plan's key when the plan serves every integer seed. */
const ANY_INTEGER_SEED = "(any integer)";
/** What a probe for every integer seed returns when the seed cannot be spliced: probe per seed value. */
const PER_SEED_VALUE = Symbol("per seed value");

/** Bounded caches: cleared when full (call shapes and system prompts of one run are few). */
const MAX_PLANS = 256;
const MAX_SYSTEM_PROMPTS = 256;

const decoder = new TextDecoder();

/** A serialized tool schema. */
interface ToolEntry {
  name: string;
  description: string | undefined;
  json: string;
}

/** Serialized tool schemas, by schema object (tool sets are built once and reused for every call). */
const toolJson = new WeakMap<object, ToolEntry>();

/** The bytes of whole tool lists, by their first schema object (checked entry by entry). */
const toolListBytes = new WeakMap<object, { entries: ToolEntry[]; bytes: Buffer }>();

/** JSON string literals of system prompts as bytes, by content. */
const systemBytes = new Map<string, Buffer>();

/**
 * A request body as byte chunks: the large parts that repeat across calls (template, system prompt,
 * tools) are cached buffers, the text between them is encoded once per call.
 */
class BodyChunks {
  readonly chunks: Uint8Array[] = [];
  private text = "";
  add(text: string): void {
    this.text += text;
  }
  addBytes(bytes: Buffer): void {
    this.flush();
    this.chunks.push(bytes);
  }
  flush(): Uint8Array[] {
    if (this.text !== "") this.chunks.push(Buffer.from(this.text));
    this.text = "";
    return this.chunks;
  }
}

/** How many calls the lean path sent itself and how many replies it read by hand (its tests check both). */
export const leanPathCounts = { sent: 0, read: 0 };

/** How many times the lean path asked the SDK for a plan (its tests check that seeds share one). */
export const leanProbeCounts = { probes: 0 };

/** An OpenAI chat model that sends what `sdk` would send, by the lean path where it can (see the module comment). */
export class LeanOpenAiChatModel implements LanguageModelV3 {
  readonly specificationVersion = "v3";
  readonly provider: string;
  readonly modelId: string;
  private readonly plans = new Map<string, Promise<Plan | null | typeof PER_SEED_VALUE>>();

  /** `sdk` must be built with {@link routedFetch}. */
  constructor(
    private readonly sdk: LanguageModelV3,
    private readonly dialect: ChatDialect = "openai",
  ) {
    this.provider = sdk.provider;
    this.modelId = sdk.modelId;
  }

  get supportedUrls() {
    return this.sdk.supportedUrls;
  }

  doStream(options: LanguageModelV3CallOptions) {
    return this.sdk.doStream(options);
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const plan = await this.planFor(options);
    const body = new BodyChunks();
    if (plan === null) return this.sdk.doGenerate(options);
    body.addBytes(plan.head);
    if (plan.afterSeed !== undefined) {
      body.add(JSON.stringify(options.seed));
      body.addBytes(plan.afterSeed);
    }
    if (!writeMessages(options.prompt, plan, body) || !writeTools(options, body))
      return this.sdk.doGenerate(options);
    body.add("}");
    leanPathCounts.sent++;
    let reply: HttpReply;
    try {
      reply = await requestOverHttp(
        plan.url,
        { method: "POST", headers: plan.headers, signal: options.abortSignal },
        body.flush(),
      );
    } catch (error) {
      return this.replay(options, () => Promise.reject(error));
    }
    const result = readReply(reply, plan);
    if (result === undefined) return this.replay(options, async () => toResponse(reply));
    leanPathCounts.read++;
    return result;
  }

  /** Lets the SDK handle a reply (or failure) already received, without sending anything. */
  private replay(
    options: LanguageModelV3CallOptions,
    answer: () => Promise<Response>,
  ): PromiseLike<LanguageModelV3GenerateResult> {
    return sdkFetchOverrides.with(answer, options.headers, (headers) =>
      this.sdk.doGenerate({ ...options, headers }),
    );
  }

  /**
   * The plan of this call's shape. Calls that differ only in an integer seed share one plan (each
   * writes its seed where the probe's sentinel was); other seeds, and shapes whose probe does
   * not show the sentinel exactly once as the seed, get a plan per seed value.
   */
  private async planFor(options: LanguageModelV3CallOptions): Promise<Plan | null> {
    for (const key of Object.keys(options)) if (!KNOWN_OPTIONS.has(key)) return null;
    const seed = options.seed;
    // JSON writes NaN and the infinities as null, which a key could not tell from no seed.
    if (seed !== undefined && !Number.isFinite(seed)) return null;
    if (seed !== undefined && Number.isSafeInteger(seed)) {
      const shared = await this.cachedPlan(shapeKey(options, ANY_INTEGER_SEED), () =>
        this.probe({ ...options, seed: SEED_SENTINEL }, true),
      );
      if (shared !== PER_SEED_VALUE) return shared;
    }
    const own = await this.cachedPlan(shapeKey(options, seed), () => this.probe(options, false));
    return own === PER_SEED_VALUE ? null : own;
  }

  private cachedPlan(
    key: string,
    probe: () => Promise<Plan | null | typeof PER_SEED_VALUE>,
  ): Promise<Plan | null | typeof PER_SEED_VALUE> {
    let plan = this.plans.get(key);
    if (plan === undefined) {
      if (this.plans.size >= MAX_PLANS) this.plans.clear();
      plan = probe();
      this.plans.set(key, plan);
    }
    return plan;
  }

  /**
   * Asks the SDK what it sends for this call shape, with a one-message prompt and no tools. With
   * `anySeed` (`options.seed` is then {@link SEED_SENTINEL}), the plan serves every integer seed:
   * the sentinel must appear nowhere but once in the body, right after `"seed":`, and no other
   * option may hold its digits; else {@link PER_SEED_VALUE}.
   */
  private async probe(
    options: LanguageModelV3CallOptions,
    anySeed: boolean,
  ): Promise<Plan | null | typeof PER_SEED_VALUE> {
    if (anySeed && shapeKey(options, ANY_INTEGER_SEED).includes(SENTINEL_TEXT)) return PER_SEED_VALUE;
    leanProbeCounts.probes++;
    let seen: { url: unknown; init: RequestInit | undefined } | undefined;
    const answer = async (url: unknown, init?: RequestInit) => {
      seen = { url, init };
      return new Response(PROBE_REPLY, { status: 200, headers: { "content-type": "application/json" } });
    };
    const {
      prompt: _prompt,
      tools: _tools,
      toolChoice: _toolChoice,
      abortSignal: _signal,
      ...shape
    } = options;
    let result: LanguageModelV3GenerateResult;
    try {
      result = await sdkFetchOverrides.with(answer as typeof fetch, shape.headers, (headers) =>
        this.sdk.doGenerate({ ...shape, headers, prompt: PROBE_PROMPT }),
      );
    } catch {
      // The SDK refuses this shape (invalid provider options…): every call of it goes to the SDK, which says why.
      return anySeed ? PER_SEED_VALUE : null;
    }
    if (seen === undefined) return null;
    const { url, init } = seen;
    const body = init?.body;
    const headers = init?.headers;
    if (typeof url !== "string" || !/^https?:\/\//.test(url) || typeof body !== "string") return null;
    if (
      headers === null ||
      typeof headers !== "object" ||
      Array.isArray(headers) ||
      headers instanceof Headers
    )
      return null;
    const at = body.lastIndexOf(MESSAGES_KEY);
    if (at < 0) return null;
    const tail = body.slice(at + MESSAGES_KEY.length);
    const roles = this.dialect === "openai" ? (["system", "developer"] as const) : (["system"] as const);
    const systemRole = roles.find((role) => tail === `[{"role":"${role}","content":"${PROBE_TEXT}"}]}`);
    if (systemRole === undefined) return null;
    const plainHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value !== "string") return null;
      plainHeaders[name] = value;
    }
    const head = body.slice(0, at + MESSAGES_KEY.length);
    let seedAt = -1;
    if (anySeed) {
      seedAt = head.indexOf(`"seed":${SENTINEL_TEXT}`) + '"seed":'.length;
      const elsewhere = [url, ...Object.keys(plainHeaders), ...Object.values(plainHeaders)];
      if (
        seedAt < '"seed":'.length ||
        !",}".includes(head.charAt(seedAt + SENTINEL_TEXT.length) || "-") ||
        body.indexOf(SENTINEL_TEXT, seedAt + 1) >= 0 ||
        body.lastIndexOf(SENTINEL_TEXT, seedAt - 1) >= 0 ||
        elsewhere.some((text) => text.includes(SENTINEL_TEXT)) ||
        JSON.stringify(result.warnings).includes(SENTINEL_TEXT)
      )
        return PER_SEED_VALUE;
    }
    return {
      url: new URL(url),
      headers: plainHeaders,
      head: Buffer.from(anySeed ? head.slice(0, seedAt) : head),
      ...(anySeed ? { afterSeed: Buffer.from(head.slice(seedAt + SENTINEL_TEXT.length)) } : {}),
      systemRole,
      warnings: result.warnings,
      dialect: this.dialect,
      metadataKey: Object.keys(result.providerMetadata ?? {})[0] ?? this.dialect,
    };
  }
}

/** The key of a call shape's plan: every option but the prompt, tools and signal, with `seed` in its place. */
function shapeKey(options: LanguageModelV3CallOptions, seed: unknown): string {
  return JSON.stringify([
    options.maxOutputTokens,
    options.temperature,
    options.stopSequences,
    options.topP,
    options.topK,
    options.presencePenalty,
    options.frequencyPenalty,
    options.responseFormat,
    seed,
    options.headers,
    options.providerOptions,
  ]);
}

/**
 * Writes the JSON of the prompt's messages as the SDK writes them; false (with `body` left
 * unusable) for anything this path does not cover.
 */
function writeMessages(prompt: LanguageModelV3Prompt, plan: Plan, body: BodyChunks): boolean {
  const { systemRole, dialect } = plan;
  body.add("[");
  let first = true;
  const out = {
    push(json: string) {
      body.add(first ? json : `,${json}`);
      first = false;
    },
  };
  for (const message of prompt) {
    if (message.providerOptions !== undefined) return false;
    switch (message.role) {
      case "system": {
        let content = systemBytes.get(message.content);
        if (content === undefined) {
          if (systemBytes.size >= MAX_SYSTEM_PROMPTS) systemBytes.clear();
          content = Buffer.from(JSON.stringify(message.content));
          systemBytes.set(message.content, content);
        }
        out.push(`{"role":"${systemRole}","content":`);
        body.addBytes(content);
        body.add("}");
        break;
      }
      case "user": {
        const part = message.content[0];
        if (message.content.length !== 1 || part?.type !== "text" || part.providerOptions !== undefined)
          return false;
        out.push(`{"role":"user","content":${JSON.stringify(part.text)}}`);
        break;
      }
      case "assistant": {
        let text = "";
        let reasoning = "";
        const calls: string[] = [];
        for (const part of message.content) {
          if (part.providerOptions !== undefined) return false;
          if (part.type === "text") text += part.text;
          else if (part.type === "reasoning") reasoning += part.text;
          else if (part.type === "tool-call") {
            if (typeof part.input !== "string") return false;
            const input = argumentsText(part.input, dialect);
            if (input === undefined) return false;
            calls.push(
              `{"id":${JSON.stringify(part.toolCallId)},"type":"function","function":{"name":${JSON.stringify(part.toolName)},"arguments":${JSON.stringify(input)}}}`,
            );
          } else return false;
        }
        const content =
          calls.length > 0 ? (text === "" ? "null" : JSON.stringify(text)) : JSON.stringify(text);
        // OpenAI's Chat Completions has no field for reasoning; OpenAI-compatible servers take reasoning_content.
        const reasoningJson =
          dialect === "compatible" && reasoning.length > 0
            ? `,"reasoning_content":${JSON.stringify(reasoning)}`
            : "";
        out.push(
          calls.length > 0
            ? `{"role":"assistant","content":${content}${reasoningJson},"tool_calls":[${calls.join(",")}]}`
            : `{"role":"assistant","content":${content}${reasoningJson}}`,
        );
        break;
      }
      case "tool": {
        for (const part of message.content) {
          if (part.type !== "tool-result" || part.providerOptions !== undefined) return false;
          const { output } = part;
          if (output.type !== "text" || output.providerOptions !== undefined) return false;
          out.push(
            `{"role":"tool","tool_call_id":${JSON.stringify(part.toolCallId)},"content":${JSON.stringify(output.value)}}`,
          );
        }
        break;
      }
      default:
        return false;
    }
  }
  body.add("]");
  return true;
}

/**
 * Tool-call arguments as the SDK sends them back. OpenAI: the text itself when it is a JSON
 * object, else `{}`; OpenAI-compatible: the text when it is JSON, else the text as a JSON string.
 * Undefined when the SDK's guarded parse could judge it differently from `JSON.parse`.
 */
function argumentsText(input: string, dialect: ChatDialect): string | undefined {
  if (mayHoldPrototypeKeys(input)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(input);
  } catch {
    return dialect === "openai" ? "{}" : JSON.stringify(input);
  }
  if (dialect === "compatible") return input;
  return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? input : "{}";
}

/**
 * True when a JSON text could name `__proto__` or `constructor` (also spelled with `\u` escapes),
 * which the SDK's parser treats specially; such texts take the SDK's path.
 */
function mayHoldPrototypeKeys(text: string): boolean {
  return text.includes("__proto__") || text.includes("constructor") || /\\u00[5-7]/i.test(text);
}

/** Writes `,"tools":[…],"tool_choice":…` as the SDK does (nothing without tools); false when not covered. */
function writeTools(options: LanguageModelV3CallOptions, body: BodyChunks): boolean {
  const tools = options.tools;
  if (tools === undefined || tools.length === 0) return true;
  const choice = options.toolChoice;
  if (choice?.type === "tool") return false;
  const entries: ToolEntry[] = [];
  for (const tool of tools) {
    if (tool.type !== "function" || tool.strict !== undefined) return false;
    entries.push(functionToolEntry(tool));
  }
  const key = tools[0]!.type === "function" ? (tools[0]!.inputSchema as unknown) : undefined;
  const keyed = key !== null && typeof key === "object" ? key : undefined;
  const cached = keyed ? toolListBytes.get(keyed) : undefined;
  let bytes: Buffer;
  if (
    cached &&
    cached.entries.length === entries.length &&
    cached.entries.every((e, i) => e === entries[i])
  ) {
    bytes = cached.bytes;
  } else {
    bytes = Buffer.from(`,"tools":[${entries.map((entry) => entry.json).join(",")}]`);
    if (keyed) toolListBytes.set(keyed, { entries, bytes });
  }
  body.addBytes(bytes);
  if (choice !== undefined) body.add(`,"tool_choice":"${choice.type}"`);
  return true;
}

function functionToolEntry(tool: LanguageModelV3FunctionTool): ToolEntry {
  const schema = tool.inputSchema as unknown;
  const cacheable = schema !== null && typeof schema === "object";
  const cached = cacheable ? toolJson.get(schema) : undefined;
  if (cached && cached.name === tool.name && cached.description === tool.description) return cached;
  const json = JSON.stringify({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  });
  const entry = { name: tool.name, description: tool.description, json };
  if (cacheable) toolJson.set(schema, entry);
  return entry;
}

const isNullish = (value: unknown): value is null | undefined => value === null || value === undefined;
const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);
const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const nullishString = (value: unknown) => isNullish(value) || typeof value === "string";
const nullishNumber = (value: unknown) => isNullish(value) || isNumber(value);
const nullishNumbers = (value: unknown, names: string[]) =>
  isNullish(value) || (isRecord(value) && names.every((name) => nullishNumber(value[name])));

/**
 * The SDK's result for a plain successful reply: one choice with text and/or
 * function tool calls (and, OpenAI-compatible, reasoning), optional usage.
 * Undefined for anything else (the SDK reads those). The checks are the SDK's
 * response schema of the dialect, or stricter.
 */
function readReply(reply: HttpReply, plan: Plan): LanguageModelV3GenerateResult | undefined {
  if (reply.status !== 200) return undefined;
  const openaiDialect = plan.dialect === "openai";
  const text = decoder.decode(reply.body);
  if (mayHoldPrototypeKeys(text)) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (
    !isRecord(body) ||
    !nullishString(body.id) ||
    !nullishNumber(body.created) ||
    !nullishString(body.model)
  )
    return undefined;
  const { choices, usage } = body;
  if (!Array.isArray(choices) || choices.length !== 1) return undefined;
  const choice: unknown = choices[0];
  if (!isRecord(choice) || !nullishString(choice.finish_reason)) return undefined;
  if (openaiDialect && (!isNumber(choice.index) || !isNullish(choice.logprobs))) return undefined;
  const message = choice.message;
  if (!isRecord(message) || !(isNullish(message.role) || message.role === "assistant")) return undefined;
  if (!nullishString(message.content)) return undefined;
  let reasoning: unknown;
  if (openaiDialect) {
    if (!nullishString(message.refusal)) return undefined;
    // Annotations become source parts in the SDK; an empty list (what OpenAI sends) is none.
    const annotations = message.annotations;
    const noAnnotations = isNullish(annotations) || (Array.isArray(annotations) && annotations.length === 0);
    if (!isNullish(message.audio) || !noAnnotations) return undefined;
  } else {
    if (!nullishString(message.reasoning_content) || !nullishString(message.reasoning)) return undefined;
    reasoning = message.reasoning_content ?? message.reasoning;
  }
  const toolCalls = message.tool_calls;
  if (!isNullish(toolCalls) && !Array.isArray(toolCalls)) return undefined;
  if (!(isNullish(usage) || isRecord(usage))) return undefined;
  if (usage) {
    if (!nullishNumbers(usage, ["prompt_tokens", "completion_tokens", "total_tokens"])) return undefined;
    const promptDetails = openaiDialect ? ["cached_tokens", "cache_write_tokens"] : ["cached_tokens"];
    if (!nullishNumbers(usage.prompt_tokens_details, promptDetails)) return undefined;
    const details = ["reasoning_tokens", "accepted_prediction_tokens", "rejected_prediction_tokens"];
    if (!nullishNumbers(usage.completion_tokens_details, details)) return undefined;
  }
  const content: LanguageModelV3Content[] = [];
  if (typeof reasoning === "string" && reasoning.length > 0)
    content.push({ type: "reasoning", text: reasoning });
  if (typeof message.content === "string" && message.content.length > 0) {
    content.push({ type: "text", text: message.content });
  }
  // OpenAI-compatible servers may send a non-string refusal (`false`): the SDK ignores it.
  const refused = typeof message.refusal === "string" && message.refusal.length > 0;
  if (refused) content.push({ type: "text", text: message.refusal as string });
  for (const call of toolCalls ?? []) {
    // A call without an id gets a random one from the SDK, and a Gemini signature becomes metadata: left to it.
    if (!isRecord(call) || typeof call.id !== "string") return undefined;
    if (openaiDialect ? call.type !== "function" : !isNullish(call.extra_content)) return undefined;
    const fn = call.function;
    if (!isRecord(fn) || typeof fn.name !== "string" || typeof fn.arguments !== "string") return undefined;
    content.push({ type: "tool-call", toolCallId: call.id, toolName: fn.name, input: fn.arguments });
  }
  const finishReason = (choice.finish_reason ?? undefined) as string | undefined;
  const completionDetails = (usage?.completion_tokens_details ?? undefined) as
    | Record<string, number | null | undefined>
    | undefined;
  const metadata: Record<string, number> = {};
  if (!isNullish(completionDetails?.accepted_prediction_tokens))
    metadata.acceptedPredictionTokens = completionDetails.accepted_prediction_tokens;
  if (!isNullish(completionDetails?.rejected_prediction_tokens))
    metadata.rejectedPredictionTokens = completionDetails.rejected_prediction_tokens;
  let responseHeaders: Record<string, string> | undefined;
  return {
    content,
    finishReason: { unified: unifiedFinishReason(finishReason, refused), raw: finishReason },
    usage: chatUsage(usage as ChatUsage | null | undefined, plan.dialect),
    response: {
      id: (body.id ?? undefined) as string | undefined,
      modelId: (body.model ?? undefined) as string | undefined,
      timestamp: body.created ? new Date((body.created as number) * 1000) : undefined,
      get headers() {
        responseHeaders ??= Object.fromEntries(reply.headers);
        return responseHeaders;
      },
      body,
    },
    warnings: [...plan.warnings],
    providerMetadata: { [plan.metadataKey]: metadata },
  };
}

function unifiedFinishReason(
  raw: string | undefined,
  refused: boolean,
): LanguageModelV3FinishReason["unified"] {
  switch (raw) {
    case "stop":
      return refused ? "content-filter" : "stop";
    case "length":
      return "length";
    case "content_filter":
      return "content-filter";
    case "function_call":
    case "tool_calls":
      return "tool-calls";
    default:
      return "other";
  }
}

interface ChatUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null; cache_write_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
}

/**
 * Token counts in the SDK's shape: cached and reasoning tokens are parts of the totals. Only the
 * OpenAI dialect reads cache writes.
 */
function chatUsage(usage: ChatUsage | null | undefined, dialect: ChatDialect): LanguageModelV3Usage {
  if (isNullish(usage)) {
    return {
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
      raw: undefined,
    };
  }
  const input = usage.prompt_tokens ?? 0;
  const output = usage.completion_tokens ?? 0;
  const cacheRead = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const cacheWrite =
    dialect === "openai" ? (usage.prompt_tokens_details?.cache_write_tokens ?? undefined) : undefined;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens ?? 0;
  return {
    inputTokens: { total: input, noCache: input - cacheRead - (cacheWrite ?? 0), cacheRead, cacheWrite },
    outputTokens: { total: output, text: Math.max(0, output - reasoning), reasoning },
    raw: usage as LanguageModelV3Usage["raw"],
  };
}
