/**
 * A fake LLM provider: a real HTTP server on 127.0.0.1 (random port) that
 * speaks OpenAI Chat Completions (`POST /v1/chat/completions`) and embeddings
 * (`POST /v1/embeddings`, also at OpenRouter's `/api/v1/embeddings`), Anthropic
 * Messages (`POST /v1/messages`) and Gemini (`POST /v1beta/models/{m}:generateContent`),
 * without streaming. Replies are scripted per test (a queue, then a handler);
 * faults (429 with retry-after, 5xx, delays, dropped connections, malformed
 * tool-call JSON) are injected the same way. Usage is estimated from the
 * request (≈4 characters per token) and prompt caching is simulated by prefix:
 * Anthropic at `cache_control` breakpoints, OpenAI automatically.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pyDumps, RawJson } from "../core/py-json.ts";

/** The wire protocol a request arrived in. */
export type FakeProtocol = "openai" | "anthropic" | "google";

/** A scripted tool call. A string `arguments` is sent verbatim (so it may be malformed, or keep `2.0`). */
export interface FakeToolCall {
  id?: string;
  name: string;
  arguments: string | Record<string, unknown>;
}

/** Token counts to report instead of the estimate. */
export interface FakeUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
}

/** One scripted reply, rendered in the protocol of the request it answers. */
export type FakeReply =
  | {
      kind?: "message";
      text?: string | null;
      toolCalls?: FakeToolCall[];
      /** Thinking text (Anthropic `thinking` block with a signature, Gemini thought, `reasoning_content`). */
      reasoning?: string;
      usage?: Partial<FakeUsage>;
      delayMs?: number;
    }
  | {
      kind: "error";
      status: number;
      message?: string;
      /** Sets the `retry-after` header (seconds). */
      retryAfterSeconds?: number;
      /** Sets the `retry-after-ms` header. */
      retryAfterMs?: number;
      delayMs?: number;
    }
  /** Sends `body` as is (status 200 unless given). */
  | { kind: "raw"; body: string; status?: number; delayMs?: number }
  /** Never answers (until the server closes): for timeouts. */
  | { kind: "hang" }
  /** Destroys the connection without an answer: a network error. */
  | { kind: "drop"; delayMs?: number }
  /**
   * Answers 200 with the headers and the first part of a normal reply (`text`, as a message),
   * then destroys the connection: a body cut short (the announced length never arrives).
   */
  | { kind: "truncate"; text?: string; delayMs?: number };

/** A request as the fake server saw it. */
export interface FakeRequest {
  protocol: FakeProtocol;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body. */
  body: any;
  /** Model id from the body (or the Gemini URL). */
  model: string;
  /** 0-based arrival index. */
  index: number;
}

/** Computes a reply from a request. */
export type FakeHandler = (request: FakeRequest) => FakeReply | Promise<FakeReply>;

/** Options of {@link startFakeProvider}. */
export interface FakeProviderOptions {
  /** Replies used first, in order. */
  replies?: FakeReply[];
  /** Used once the queue is empty. Without it, an empty queue answers HTTP 400. */
  handler?: FakeHandler;
  /** Added to every call before answering (benchmarks: e.g. 500). */
  latencyMs?: number;
  /** Keep every request in `requests` (default true; turn off for long benchmarks). */
  record?: boolean;
  /** Simulate prompt caching (default true). */
  simulateCache?: boolean;
  /** Smallest cacheable prefix in tokens (providers use 1024). */
  minCacheTokens?: number;
  /** Answers embeddings requests (default {@link fakeEmbedding} per text). */
  embed?: FakeEmbeddingHandler;
  /** Keys the server takes (`Bearer`, `x-api-key` or `x-goog-api-key`); a request with any other gets 401. Default: any. */
  acceptKeys?: string[];
}

/** An embeddings request (`POST /v1/embeddings`, or OpenRouter's `/api/v1/embeddings`) as the server saw it. */
export interface FakeEmbeddingRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  model: string;
  input: string[];
  /** The parsed JSON body (`encoding_format` etc.). */
  body: any;
}

/**
 * Computes the vectors of an embeddings request; a thrown error answers HTTP 500. Without one,
 * each text gets a deterministic 8-dimensional vector derived from its sha256.
 */
export type FakeEmbeddingHandler = (request: FakeEmbeddingRequest) => number[][] | Promise<number[][]>;

/** The default fake embedding of a text: 8 numbers in [-1, 1) from its sha256. */
export function fakeEmbedding(text: string): number[] {
  const digest = createHash("sha256").update(text).digest();
  return Array.from({ length: 8 }, (_, i) => digest.readInt16BE(2 * i) / 32768);
}

/** A running fake provider. */
export interface FakeProvider {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Base URLs to hand to the SDK adapters. */
  openaiBaseUrl: string;
  /** OpenRouter's layout (`…/api/v1`), for its OpenAI-compatible embeddings. */
  openrouterBaseUrl: string;
  /** Embeddings requests received (always recorded). */
  embeddingRequests: FakeEmbeddingRequest[];
  anthropicBaseUrl: string;
  googleBaseUrl: string;
  /** Recorded requests (when `record` is on). */
  requests: FakeRequest[];
  /** `GET /v1/models` requests received (OpenAI's model list; always recorded). */
  modelListRequests: { headers: Record<string, string | string[] | undefined> }[];
  /** Appends replies to the queue. */
  push(...replies: FakeReply[]): void;
  /** Replaces the handler. */
  setHandler(handler: FakeHandler | undefined): void;
  /** Requests received so far. */
  readonly callCount: number;
  /** Requests being answered right now, and the most seen at once. */
  readonly inFlight: number;
  readonly maxInFlight: number;
  close(): Promise<void>;
}

const estimateTokens = (text: string) => Math.ceil(text.length / 4);
const hashOf = (text: string) => createHash("sha256").update(text).digest("hex");

/** Strips `cache_control` so a prefix hashes the same with or without a breakpoint on it. */
function withoutCacheControl(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheControl);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (k !== "cache_control") out[k] = withoutCacheControl(v);
    return out;
  }
  return value;
}

interface Block {
  tokens: number;
  breakpoint: boolean;
  json: string;
}

/** One cacheable unit of a request: its JSON and estimated token count. */
function toBlock(item: unknown, breakpoint = false): Block {
  const json = JSON.stringify(item);
  return { tokens: estimateTokens(json), breakpoint, json };
}

/** Prefix cache: hashes of prefixes that were written, with their token counts. */
class PrefixCache {
  private readonly entries = new Set<string>();
  constructor(private readonly minTokens: number) {}

  /** Bounded so a long benchmark cannot grow the set without limit (a full cache simply starts over). */
  private remember(prefix: string): void {
    if (this.entries.size >= 200_000) this.entries.clear();
    this.entries.add(prefix);
  }

  /**
   * Anthropic semantics: reads the longest cached prefix ending at a block
   * boundary no later than the last breakpoint; writes the prefixes at every
   * breakpoint. Returns read, written and total input tokens.
   */
  anthropic(blocks: Block[]): { read: number; write: number; total: number } {
    const cumulative: number[] = [];
    const hashes: string[] = [];
    let running = 0;
    // Incremental hashing keeps a long conversation linear, not quadratic, in its length.
    const hash = createHash("sha256");
    for (const block of blocks) {
      running += block.tokens;
      hash.update(block.json);
      cumulative.push(running);
      hashes.push(hash.copy().digest("hex"));
    }
    const total = running;
    let lastBreakpoint = -1;
    blocks.forEach((b, i) => {
      if (b.breakpoint) lastBreakpoint = i;
    });
    if (lastBreakpoint < 0) return { read: 0, write: 0, total };
    let read = 0;
    for (let i = lastBreakpoint; i >= 0; i--) {
      if (this.entries.has(hashes[i]!)) {
        read = cumulative[i]!;
        break;
      }
    }
    let written = read;
    blocks.forEach((b, i) => {
      if (b.breakpoint && cumulative[i]! >= this.minTokens) {
        this.remember(hashes[i]!);
        written = Math.max(written, cumulative[i]!);
      }
    });
    return { read, write: written - read, total };
  }

  /** OpenAI semantics: automatic; the longest seen message prefix ≥ minTokens, in 128-token steps. */
  openai(blocks: Block[]): { read: number; total: number } {
    let running = 0;
    let read = 0;
    const hash = createHash("sha256");
    for (const block of blocks) {
      running += block.tokens;
      hash.update(block.json);
      if (running >= this.minTokens) {
        const prefix = hash.copy().digest("hex");
        if (this.entries.has(prefix)) read = running;
        this.remember(prefix);
      }
    }
    if (read > 0) read = this.minTokens + Math.floor((read - this.minTokens) / 128) * 128;
    return { read, total: running };
  }
}

function anthropicBlocks(body: any): Block[] {
  const blocks: Block[] = [];
  const add = (item: unknown, breakpoint: boolean) =>
    blocks.push(toBlock(withoutCacheControl(item), breakpoint));
  for (const tool of body.tools ?? []) add(tool, tool.cache_control != null);
  const system =
    typeof body.system === "string" ? [{ type: "text", text: body.system }] : (body.system ?? []);
  for (const block of system) add(block, block.cache_control != null);
  for (const message of body.messages ?? []) {
    const content =
      typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    for (const block of content) add({ role: message.role, block }, block.cache_control != null);
  }
  return blocks;
}

function openaiBlocks(body: any): Block[] {
  const messages: unknown[] = body.messages ?? [];
  return [...(body.tools ? [toBlock(body.tools)] : []), ...messages.map((message) => toBlock(message))];
}

function googleBlocks(body: any): Block[] {
  const items = [body.systemInstruction, body.tools, ...(body.contents ?? [])].filter((x) => x != null);
  return items.map((item) => toBlock(item));
}

function argumentsText(args: FakeToolCall["arguments"]): string {
  return typeof args === "string" ? args : pyDumps(args);
}

/** Anthropic's error `type` per status (its API reference). */
const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  529: "overloaded_error",
};

/** Google's error `status` per HTTP status (google.rpc.Code names). */
const GOOGLE_ERROR_STATUSES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

function errorBody(protocol: FakeProtocol, status: number, message: string): string {
  switch (protocol) {
    case "openai":
      return JSON.stringify({
        error: {
          message,
          type:
            status === 429
              ? "rate_limit_error"
              : status >= 400 && status < 500
                ? "invalid_request_error"
                : "api_error",
          code: /context/i.test(message) ? "context_length_exceeded" : null,
        },
      });
    case "anthropic":
      return JSON.stringify({
        type: "error",
        error: { type: ANTHROPIC_ERROR_TYPES[status] ?? "api_error", message },
      });
    case "google":
      return JSON.stringify({
        error: { code: status, message, status: GOOGLE_ERROR_STATUSES[status] ?? "INTERNAL" },
      });
    default: {
      const unreachable: never = protocol;
      throw new TypeError(`unknown protocol ${String(unreachable)}`);
    }
  }
}

/** Starts a fake provider on 127.0.0.1 with a random port. */
export async function startFakeProvider(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const queue: FakeReply[] = [...(options.replies ?? [])];
  let handler = options.handler;
  const record = options.record ?? true;
  const simulateCache = options.simulateCache ?? true;
  const cache = new PrefixCache(options.minCacheTokens ?? 1024);
  const requests: FakeRequest[] = [];
  let callCount = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let idCounter = 0;
  const timers = new Set<NodeJS.Timeout>();

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      if (ms <= 0) return resolve();
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  function renderMessage(
    protocol: FakeProtocol,
    body: any,
    model: string,
    reply: Extract<FakeReply, { kind?: "message" }>,
  ): string {
    const n = ++idCounter;
    const calls = (reply.toolCalls ?? []).map((call, i) => ({
      id: call.id ?? `call_fake_${n}_${i}`,
      name: call.name,
      text: argumentsText(call.arguments),
    }));
    const text = reply.text ?? null;
    const outputEstimate = estimateTokens(
      (text ?? "") + calls.map((c) => c.name + c.text).join("") + (reply.reasoning ?? ""),
    );
    const reasoningTokens = reply.usage?.reasoning ?? (reply.reasoning ? estimateTokens(reply.reasoning) : 0);
    const output = reply.usage?.output ?? outputEstimate;
    switch (protocol) {
      case "openai": {
        const counted = simulateCache ? cache.openai(openaiBlocks(body)) : { read: 0, total: 0 };
        const input = reply.usage?.input ?? counted.total;
        const cacheRead = reply.usage?.cacheRead ?? counted.read;
        return pyDumps({
          id: `chatcmpl-fake-${n}`,
          object: "chat.completion",
          created: 1700000000 + n,
          model,
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                content: text,
                ...(reply.reasoning ? { reasoning_content: reply.reasoning } : {}),
                ...(calls.length > 0
                  ? {
                      tool_calls: calls.map((c) => ({
                        id: c.id,
                        type: "function",
                        function: { name: c.name, arguments: c.text },
                      })),
                    }
                  : {}),
                refusal: null,
              },
              logprobs: null,
              finish_reason: calls.length > 0 ? "tool_calls" : "stop",
            },
          ],
          usage: {
            prompt_tokens: input,
            completion_tokens: output,
            total_tokens: input + output,
            prompt_tokens_details: { cached_tokens: cacheRead },
            completion_tokens_details: { reasoning_tokens: reasoningTokens },
          },
        });
      }
      case "anthropic": {
        const counted = simulateCache ? cache.anthropic(anthropicBlocks(body)) : null;
        const total = counted?.total ?? anthropicBlocks(body).reduce((s, b) => s + b.tokens, 0);
        const cacheRead = reply.usage?.cacheRead ?? counted?.read ?? 0;
        const cacheWrite = reply.usage?.cacheWrite ?? counted?.write ?? 0;
        const input = reply.usage?.input ?? Math.max(0, total - cacheRead - cacheWrite);
        const content: unknown[] = [];
        if (reply.reasoning) {
          content.push({
            type: "thinking",
            thinking: reply.reasoning,
            signature: `sig-${hashOf(reply.reasoning).slice(0, 16)}`,
          });
        }
        if (text !== null) content.push({ type: "text", text });
        for (const c of calls)
          content.push({ type: "tool_use", id: c.id, name: c.name, input: new RawJson(c.text) });
        return pyDumps({
          id: `msg_fake_${n}`,
          type: "message",
          role: "assistant",
          model,
          content,
          stop_reason: calls.length > 0 ? "tool_use" : "end_turn",
          stop_sequence: null,
          usage: {
            input_tokens: input,
            output_tokens: output,
            cache_creation_input_tokens: cacheWrite,
            cache_read_input_tokens: cacheRead,
          },
        });
      }
      case "google": {
        const counted = simulateCache ? cache.openai(googleBlocks(body)) : { read: 0, total: 0 };
        const input = reply.usage?.input ?? counted.total;
        const cacheRead = reply.usage?.cacheRead ?? counted.read;
        const parts: unknown[] = [];
        if (reply.reasoning) parts.push({ text: reply.reasoning, thought: true });
        if (text !== null) parts.push({ text });
        calls.forEach((c, i) => {
          parts.push({
            functionCall: { name: c.name, args: new RawJson(c.text) },
            ...(reply.reasoning && i === 0 ? { thoughtSignature: `sig-${n}` } : {}),
          });
        });
        return pyDumps({
          candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
          usageMetadata: {
            promptTokenCount: input,
            candidatesTokenCount: output - reasoningTokens,
            totalTokenCount: input + output,
            ...(cacheRead > 0 ? { cachedContentTokenCount: cacheRead } : {}),
            ...(reasoningTokens > 0 ? { thoughtsTokenCount: reasoningTokens } : {}),
          },
          modelVersion: model,
        });
      }
      default: {
        const unreachable: never = protocol;
        throw new TypeError(`unknown protocol ${String(unreachable)}`);
      }
    }
  }

  const embeddingRequests: FakeEmbeddingRequest[] = [];
  const modelListRequests: FakeProvider["modelListRequests"] = [];

  async function answerEmbeddings(req: IncomingMessage, res: ServerResponse, path: string, text: string) {
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      return json(400, { error: { message: "fake provider: request body is not JSON" } });
    }
    const input: string[] = Array.isArray(body.input) ? body.input.map(String) : [String(body.input ?? "")];
    const request: FakeEmbeddingRequest = {
      path,
      headers: req.headers,
      model: String(body.model ?? ""),
      input,
      body,
    };
    embeddingRequests.push(request);
    callCount++;
    await wait(options.latencyMs ?? 0);
    let vectors: number[][];
    try {
      vectors = options.embed ? await options.embed(request) : input.map(fakeEmbedding);
    } catch (error) {
      return json(500, { error: { message: `fake provider: embedding handler failed: ${String(error)}` } });
    }
    const tokens = input.reduce((sum, item) => sum + estimateTokens(item), 0);
    json(200, {
      object: "list",
      data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })),
      model: request.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  }

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = (req.url ?? "/").split("?")[0]!;
    if (options.acceptKeys) {
      const given =
        String(req.headers.authorization ?? "").replace(/^Bearer /, "") ||
        String(req.headers["x-api-key"] ?? req.headers["x-goog-api-key"] ?? "");
      if (!options.acceptKeys.includes(given)) {
        res.writeHead(401, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            error: { message: "fake provider: invalid API key", type: "invalid_request_error" },
          }),
        );
        return;
      }
    }
    if (req.method === "GET" && path === "/v1/models") {
      modelListRequests.push({ headers: req.headers });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          object: "list",
          data: [{ id: "fake-model", object: "model", owned_by: "taubench" }],
        }),
      );
      return;
    }
    if (req.method === "POST" && (path === "/v1/embeddings" || path === "/api/v1/embeddings")) {
      await answerEmbeddings(req, res, path, Buffer.concat(chunks).toString("utf8"));
      return;
    }
    let protocol: FakeProtocol;
    let model = "";
    const gemini = /^\/v1beta\/models\/([^/:]+):generateContent$/.exec(path);
    if (req.method === "POST" && path === "/v1/chat/completions") protocol = "openai";
    else if (req.method === "POST" && path === "/v1/messages") protocol = "anthropic";
    else if (req.method === "POST" && gemini) {
      protocol = "google";
      model = decodeURIComponent(gemini[1]!);
    } else {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `fake provider: no route ${req.method} ${path}` } }));
      return;
    }
    let body: any;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(errorBody(protocol, 400, "fake provider: request body is not JSON"));
      return;
    }
    if (protocol !== "google") model = String(body.model ?? "");
    const request: FakeRequest = { protocol, path, headers: req.headers, body, model, index: callCount++ };
    if (record) requests.push(request);
    const reply: FakeReply = queue.length > 0 ? queue.shift()! : handler ? await handler(request) : noReply();
    await wait((options.latencyMs ?? 0) + ("delayMs" in reply ? (reply.delayMs ?? 0) : 0));
    const kind = reply.kind ?? "message";
    switch (reply.kind) {
      case undefined:
      case "message":
        res.writeHead(200, { "content-type": "application/json" });
        res.end(renderMessage(protocol, body, model, reply));
        return;
      case "error": {
        const headers: Record<string, string> = { "content-type": "application/json" };
        if (reply.retryAfterSeconds !== undefined) headers["retry-after"] = String(reply.retryAfterSeconds);
        if (reply.retryAfterMs !== undefined) headers["retry-after-ms"] = String(reply.retryAfterMs);
        res.writeHead(reply.status, headers);
        res.end(
          errorBody(protocol, reply.status, reply.message ?? `fake provider: scripted HTTP ${reply.status}`),
        );
        return;
      }
      case "raw":
        res.writeHead(reply.status ?? 200, { "content-type": "application/json" });
        res.end(reply.body);
        return;
      case "hang":
        // Left open on purpose; close() destroys the socket.
        return;
      case "drop":
        req.socket.destroy();
        return;
      case "truncate": {
        const full = Buffer.from(renderMessage(protocol, body, model, { text: reply.text ?? "cut short" }));
        res.writeHead(200, { "content-type": "application/json", "content-length": String(full.length) });
        res.write(full.subarray(0, Math.floor(full.length / 2)), () => req.socket.destroy());
        return;
      }
      default: {
        const unreachable: never = reply;
        throw new TypeError(`unknown fake reply ${kind} ${JSON.stringify(unreachable)}`);
      }
    }
  }

  const server = createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    let counted = true;
    const done = () => {
      if (counted) inFlight--;
      counted = false;
    };
    res.on("close", done);
    answer(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `fake provider: handler failed: ${String(error)}` } }));
    });
  });
  // Benchmarks open hundreds of connections at once.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    openrouterBaseUrl: `${url}/api/v1`,
    embeddingRequests,
    modelListRequests,
    anthropicBaseUrl: `${url}/v1`,
    googleBaseUrl: `${url}/v1beta`,
    requests,
    push: (...replies) => {
      queue.push(...replies);
    },
    setHandler: (next) => {
      handler = next;
    },
    get callCount() {
      return callCount;
    },
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function noReply(): FakeReply {
  return { kind: "error", status: 400, message: "fake provider: no scripted reply left" };
}

/** The faults a provider can throw at a client, by name: the vocabulary of the fault suite. */
export const FAKE_FAULTS = [
  "rate_limit_retry_after",
  "rate_limit",
  "server_500",
  "bad_gateway_502",
  "unavailable_503",
  "overloaded_529",
  "connection_reset",
  "timeout",
  "truncated_body",
  "malformed_tool_json",
  "empty_reply",
  "context_overflow",
] as const;
export type FakeFault = (typeof FAKE_FAULTS)[number];

/** How each provider words a prompt that does not fit (what clients recognise context overflow by). */
const CONTEXT_OVERFLOW_MESSAGES: Record<FakeProtocol, string> = {
  openai:
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens.",
  anthropic: "prompt is too long: 212345 tokens > 200000 maximum",
  google: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
};

/**
 * The reply that injects `fault`, in `protocol`'s own shape: a 429 with or without `retry-after`,
 * 5xx (Anthropic's 529 "overloaded" included), a reset connection, a call that never answers (the
 * client's timeout must fire), a body cut short, a tool call whose arguments are not a JSON object
 * (unparsable text where the API sends a string, a bare string where it sends an object), an
 * empty reply (no text, no tool calls), and the provider's own "context too long" 400.
 */
export function faultReply(fault: FakeFault, protocol: FakeProtocol, toolName = "get_users"): FakeReply {
  switch (fault) {
    case "rate_limit_retry_after":
      return { kind: "error", status: 429, retryAfterSeconds: 1, message: "fake provider: rate limited" };
    case "rate_limit":
      return { kind: "error", status: 429, message: "fake provider: rate limited" };
    case "server_500":
      return { kind: "error", status: 500, message: "fake provider: internal error" };
    case "bad_gateway_502":
      return { kind: "error", status: 502, message: "fake provider: bad gateway" };
    case "unavailable_503":
      return { kind: "error", status: 503, message: "fake provider: unavailable" };
    case "overloaded_529":
      return { kind: "error", status: 529, message: "fake provider: overloaded" };
    case "connection_reset":
      return { kind: "drop" };
    case "timeout":
      return { kind: "hang" };
    case "truncated_body":
      return { kind: "truncate" };
    case "malformed_tool_json":
      // OpenAI-style APIs send arguments as a JSON string, which can be cut off; Anthropic and
      // Gemini send an object, so theirs is the wrong type instead.
      return {
        toolCalls: [
          { name: toolName, arguments: protocol === "openai" ? '{"user_id": "user_1"' : '"user_id=user_1"' },
        ],
      };
    case "empty_reply":
      return { text: null };
    case "context_overflow":
      return { kind: "error", status: 400, message: CONTEXT_OVERFLOW_MESSAGES[protocol] };
    default: {
      const unreachable: never = fault;
      throw new TypeError(`unknown fault ${String(unreachable)}`);
    }
  }
}
