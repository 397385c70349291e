/**
 * A `fetch` for the provider SDKs: plain `http:` over this project's own
 * HTTP/1.1 client (`http1.ts`), `https:` over `node:https` with a keep-alive
 * agent. Node 20's built-in fetch (undici behind WHATWG streams)
 * costs about 1 ms of CPU per small JSON call, which at a few hundred calls in
 * flight makes the runner, not the model, the bottleneck; this path costs a
 * fraction of that. It covers what the SDKs send — a POST (or GET) with a
 * string or byte body — and hands anything else to the global fetch.
 *
 * Behaviour kept from fetch: connection failures reject with
 * `TypeError("fetch failed", { cause })` (the SDK turns that into a retryable
 * `APICallError`), an abort rejects with the signal's reason, gzip/deflate/br
 * bodies are decoded. Redirects are not followed (provider APIs do not send
 * them; a 3xx comes back as a failed response).
 */
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { brotliDecompress, gunzip, inflate } from "node:zlib";
import { type Http1Reply, sendHttp1 } from "./http1.ts";

/** What {@link requestOverHttp} returns: the whole body, already read. */
export interface HttpReply {
  status: number;
  statusText: string;
  /** Built on first read: most replies are used without looking at their headers. */
  readonly headers: Headers;
  /** The decoded body (content-encoding undone). */
  body: Buffer;
}

// One https pool per process, like fetch's global dispatcher. No socket cap: the
// runner's per-provider scheduler decides how many calls are in flight, and a
// cap here would only queue them a second time. Idle sockets are kept for
// reuse (enough for a few hundred concurrent calls) and never keep the process alive.
const AGENT_OPTIONS = { keepAlive: true, maxFreeSockets: 1024, scheduling: "lifo" } as const;
const httpsAgent = new HttpsAgent(AGENT_OPTIONS);

/** Statuses whose Response must have a null body. */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

function headerRecord(headers: RequestInit["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers === undefined || headers === null) return out;
  if (headers instanceof Headers || Array.isArray(headers)) {
    // Headers lower-cases names and joins repeated ones, as fetch would send them.
    new Headers(headers).forEach((value, name) => {
      out[name] = value;
    });
    return out;
  }
  // The SDKs pass a plain record; building a Headers object for it costs more than the call's parsing.
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = String(value).trim();
  }
  return out;
}

function decode(encoding: string | undefined, body: Buffer): Promise<Buffer> {
  const codec = encoding?.trim().toLowerCase();
  const decoder =
    codec === "gzip" || codec === "x-gzip"
      ? gunzip
      : codec === "deflate"
        ? inflate
        : codec === "br"
          ? brotliDecompress
          : undefined;
  if (decoder === undefined || body.length === 0) return Promise.resolve(body);
  return new Promise((resolve, reject) =>
    decoder(body, (error, result) => (error ? reject(error) : resolve(result))),
  );
}

function responseHeaders(raw: string[]): Headers {
  const headers = new Headers();
  for (let index = 0; index + 1 < raw.length; index += 2) headers.append(raw[index]!, raw[index + 1]!);
  return headers;
}

function reply(status: number, statusText: string, raw: string[], body: Buffer): HttpReply {
  let headers: Headers | undefined;
  return {
    status,
    statusText,
    get headers() {
      headers ??= responseHeaders(raw);
      return headers;
    },
    body,
  };
}

/** The content-encoding of raw headers (the last one given), if any. */
function contentEncoding(raw: string[]): string | undefined {
  let encoding: string | undefined;
  for (let index = 0; index + 1 < raw.length; index += 2)
    if (raw[index]!.length === 16 && raw[index]!.toLowerCase() === "content-encoding")
      encoding = raw[index + 1];
  return encoding;
}

/** An {@link Http1Reply} with its body decoded; a body that does not decode fails like fetch. */
function decodedReply(received: Http1Reply): Promise<HttpReply> {
  const { status, statusText, rawHeaders, body } = received;
  return decode(contentEncoding(rawHeaders), body).then(
    (decoded) => reply(status, statusText, rawHeaders, decoded),
    (error: unknown) => {
      throw new TypeError("fetch failed", { cause: error });
    },
  );
}

/** True when {@link requestOverHttp} can send this request itself (else use the global fetch). */
export function handlesRequest(input: Parameters<typeof fetch>[0], init?: RequestInit): boolean {
  if (typeof input !== "string" && !(input instanceof URL)) return false;
  const body = init?.body;
  if (body !== undefined && body !== null && typeof body !== "string" && !(body instanceof Uint8Array))
    return false;
  const url = typeof input === "string" ? input : input.href;
  return url.startsWith("http://") || url.startsWith("https://");
}

/**
 * Sends one request and reads the whole reply. Rejects like fetch: with the
 * signal's reason on abort, with `TypeError("fetch failed")` on a network error.
 * `chunks`, when given, is the body (instead of `init.body`), written as one
 * request without being joined first.
 */
export function requestOverHttp(
  url: string | URL,
  init: RequestInit = {},
  chunks?: readonly Uint8Array[],
): Promise<HttpReply> {
  const target = typeof url === "string" ? new URL(url) : url;
  const secure = target.protocol === "https:";
  const body =
    chunks ??
    (typeof init.body === "string"
      ? [Buffer.from(init.body)]
      : init.body instanceof Uint8Array
        ? [init.body]
        : undefined);
  const headers = headerRecord(init.headers);
  headers.accept ??= "*/*";
  headers["accept-encoding"] ??= "gzip, deflate, br";
  if (body !== undefined) {
    let length = 0;
    for (const chunk of body) length += chunk.length;
    headers["content-length"] = String(length);
  }
  const signal = init.signal ?? undefined;
  if (!secure) return sendHttp1(target, init.method ?? "GET", headers, body, signal).then(decodedReply);
  return new Promise<HttpReply>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    let settled = false;
    const finish = (error: unknown, reply?: HttpReply) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      if (reply) resolve(reply);
      else reject(error);
    };
    const onAbort = () => {
      finish(signal?.reason);
      request.destroy();
    };
    const options = { method: init.method ?? "GET", headers, agent: httpsAgent };
    const request = httpsRequest(target, options, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      // A connection closed mid-body must not pass for a complete (truncated) reply; Node reports it
      // as an "aborted" error on the response, which says less than this.
      const cutShort = () =>
        new TypeError("fetch failed", {
          cause: Object.assign(new Error("the connection closed before the response ended"), {
            code: "ECONNRESET",
          }),
        });
      response.on("error", (error) =>
        finish(response.complete ? new TypeError("fetch failed", { cause: error }) : cutShort()),
      );
      response.on("close", () => {
        if (!response.complete) finish(cutShort());
      });
      response.on("end", () => {
        const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        decode(response.headers["content-encoding"], raw).then(
          (decoded) =>
            finish(
              null,
              reply(response.statusCode ?? 0, response.statusMessage ?? "", response.rawHeaders, decoded),
            ),
          (error: unknown) => finish(new TypeError("fetch failed", { cause: error })),
        );
      });
    });
    request.on("error", (error) => finish(new TypeError("fetch failed", { cause: error })));
    signal?.addEventListener("abort", onAbort, { once: true });
    if (body === undefined || body.length === 1) request.end(body?.[0]);
    else {
      // Corked, the chunks leave with the headers in one writev (end uncorks).
      request.cork();
      for (const chunk of body) request.write(chunk);
      request.end();
    }
  });
}

/**
 * The body of a {@link BufferedResponse}: the one chunk, read through the
 * reader protocol the SDKs use (`getReader`, `read`, `cancel`, `releaseLock`).
 * Anything else (piping, tee) gets a real ReadableStream, made on demand.
 */
class BufferedBody {
  #chunk: Uint8Array | null;
  #stream: ReadableStream<Uint8Array> | null = null;
  constructor(chunk: Uint8Array) {
    this.#chunk = chunk;
  }

  /** True once something started reading (a second read gets nothing, as with a real stream). */
  get disturbed(): boolean {
    return this.#chunk === null;
  }

  /** Hands the chunk over once. */
  take(): Uint8Array | null {
    const chunk = this.#chunk;
    this.#chunk = null;
    return chunk;
  }

  get locked(): boolean {
    return false;
  }

  getReader() {
    return {
      read: async (): Promise<{ done: true; value: undefined } | { done: false; value: Uint8Array }> => {
        const chunk = this.take();
        return chunk === null || chunk.length === 0
          ? { done: true, value: undefined }
          : { done: false, value: chunk };
      },
      cancel: async (): Promise<void> => {
        this.take();
      },
      releaseLock: (): void => {},
      closed: Promise.resolve(undefined),
    };
  }

  async cancel(): Promise<void> {
    this.take();
  }

  /** A real stream over what is left, for callers that need more than a reader. */
  stream(): ReadableStream<Uint8Array> {
    if (this.#stream === null) {
      const rest = this.take() ?? new Uint8Array(0);
      this.#stream = new Response(rest).body!;
    }
    return this.#stream;
  }

  pipeThrough(...args: Parameters<ReadableStream<Uint8Array>["pipeThrough"]>) {
    return this.stream().pipeThrough(...args);
  }

  pipeTo(...args: Parameters<ReadableStream<Uint8Array>["pipeTo"]>) {
    return this.stream().pipeTo(...args);
  }

  tee() {
    return this.stream().tee();
  }

  [Symbol.asyncIterator]() {
    return (this.stream() as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  }
}

/**
 * A Response whose body is already in memory. Node 20's `new Response(bytes)`
 * builds a WHATWG stream per call, which is most of the cost of a small JSON
 * reply; this one hands the bytes over directly and behaves the same for
 * everything the SDKs do with a response (status, headers, reading the body once).
 */
class BufferedResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly ok: boolean;
  readonly url: string;
  readonly redirected = false;
  readonly type = "basic";
  #body: BufferedBody | null;

  constructor(status: number, statusText: string, headers: Headers, chunk: Uint8Array, url: string) {
    this.status = status;
    this.statusText = statusText;
    this.headers = headers;
    this.ok = status >= 200 && status <= 299;
    this.url = url;
    this.#body = NULL_BODY_STATUSES.has(status) ? null : new BufferedBody(chunk);
  }

  get body(): BufferedBody | null {
    return this.#body;
  }

  get bodyUsed(): boolean {
    return this.#body?.disturbed ?? false;
  }

  async bytes(): Promise<Uint8Array> {
    if (this.bodyUsed) throw new TypeError("Body is unusable: Body has already been read");
    return this.#body?.take() ?? new Uint8Array(0);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    return Buffer.from(await this.bytes()).toString("utf8");
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.bytes()], { type: this.headers.get("content-type") ?? "" });
  }

  async formData(): Promise<FormData> {
    throw new TypeError("formData() is not supported on a provider response");
  }

  clone(): Response {
    if (this.bodyUsed) throw new TypeError("Response.clone: Body has already been consumed.");
    const chunk = this.#body?.take() ?? new Uint8Array(0);
    if (this.#body) this.#body = new BufferedBody(chunk);
    const copy = new BufferedResponse(
      this.status,
      this.statusText,
      new Headers(this.headers),
      chunk,
      this.url,
    );
    return copy as unknown as Response;
  }
}

/** Turns an {@link HttpReply} into the Response the SDKs consume (see {@link BufferedResponse}). */
export function toResponse(reply: HttpReply, url = ""): Response {
  // The SDKs only use the Response surface BufferedResponse implements; the cast is the seam.
  const response = new BufferedResponse(reply.status, reply.statusText, reply.headers, reply.body, url);
  return response as unknown as Response;
}

/** A drop-in `fetch` over {@link requestOverHttp} (global fetch for what it does not handle). */
export async function httpFetch(input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> {
  if (!handlesRequest(input, init)) return fetch(input, init);
  return toResponse(await requestOverHttp(input as string | URL, init), String(input));
}
