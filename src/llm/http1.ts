/**
 * A small HTTP/1.1 client for plain `http:` provider endpoints (a local vLLM
 * or SGLang server, an in-house gateway, the bench's provider), where the
 * client's own CPU per call is what limits a run. `node:http` spends about
 * 0.1 ms of CPU per call on its request and response objects, streams,
 * listeners and agent bookkeeping; this client writes the request in one
 * `writev` and parses the reply straight from the socket's chunks, in about a
 * third of that (`npm run bench`, run-process).
 *
 * What it covers is what a provider call needs: one request at a time per
 * kept-alive connection (no pipelining), a body framed by `content-length`,
 * by chunked transfer coding (trailers skipped) or by the end of the
 * connection; interim 1xx replies skipped. A reply it cannot frame rejects
 * with a clear cause and the connection is closed. `https:` stays on
 * `node:https` (TLS sessions and certificate checks as Node does them).
 */
import { connect, type Socket } from "node:net";

/** One reply, its body whole and undecoded (content-encoding is the caller's). */
export interface Http1Reply {
  status: number;
  statusText: string;
  /** Names and values in turn, as received (values trimmed), like `IncomingMessage.rawHeaders`. */
  rawHeaders: string[];
  body: Buffer;
}

/** A header name is a token; a value holds no control character but tab (what `node:http` accepts). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
/** Larger heads are refused (node:http's limit is 16 KiB; providers send a few hundred bytes). */
const MAX_HEAD_BYTES = 64 * 1024;
const CRLF_CRLF = Buffer.from("\r\n\r\n");

/** An error on the connection, with a `code` like Node's network errors. */
function connectionError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/** How many idle connections an origin keeps (node:https's pool keeps as many); more are closed. */
const MAX_IDLE_PER_ORIGIN = 1024;
/** Idle kept-alive connections of one origin, the last one used first. */
const idleByOrigin = new Map<string, Connection[]>();

/**
 * Sends one request on a kept-alive connection to `target`'s origin and reads
 * the whole reply. Rejects like fetch: with the signal's reason on abort, with
 * `TypeError("fetch failed")` on a network failure, its cause the socket's
 * error (or one with `code` ECONNRESET when the server closes before the reply
 * is complete, HPE_INVALID when the reply is not HTTP/1.1 this client can
 * frame); a header that cannot be sent rejects with a TypeError saying which,
 * before anything is written.
 */
export function sendHttp1(
  target: URL,
  method: string,
  headers: Readonly<Record<string, string>>,
  body: readonly Uint8Array[] | undefined,
  signal?: AbortSignal,
): Promise<Http1Reply> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    let head: RequestHead;
    try {
      head = requestHead(target, method, headers, body);
    } catch (error) {
      reject(error);
      return;
    }
    const origin = `${target.hostname}:${target.port || "80"}`;
    const connection = idleByOrigin.get(origin)?.pop() ?? new Connection(origin, target);
    const exchange = new Exchange(method === "HEAD", head.closes, resolve, reject);
    connection.start(exchange, head.text, body, signal);
  });
}

interface RequestHead {
  text: string;
  /** The caller asked for `connection: close`: the connection is not reused after the reply. */
  closes: boolean;
}

/**
 * The request line and headers, validated; `host`, `connection: keep-alive`, `content-length`
 * and the URL's credentials (as basic authorization) added when not given.
 */
function requestHead(
  target: URL,
  method: string,
  headers: Readonly<Record<string, string>>,
  body: readonly Uint8Array[] | undefined,
): RequestHead {
  if (!TOKEN.test(method)) throw new TypeError(`invalid HTTP method: ${JSON.stringify(method)}`);
  let head = `${method} ${target.pathname}${target.search} HTTP/1.1\r\n`;
  let host = false;
  let length = false;
  let connection = false;
  let authorization = false;
  let closes = false;
  for (const name in headers) {
    const value = headers[name]!;
    if (!TOKEN.test(name)) throw new TypeError(`invalid HTTP header name: ${JSON.stringify(name)}`);
    if (INVALID_VALUE.test(value))
      throw new TypeError(`invalid character in the value of HTTP header "${name}"`);
    const lower = name.toLowerCase();
    if (lower === "transfer-encoding")
      throw new TypeError(`HTTP header "${name}" is not sent: the client frames the body itself`);
    host ||= lower === "host";
    authorization ||= lower === "authorization";
    connection ||= lower === "connection";
    closes ||= lower === "connection" && /(?:^|,)\s*close\s*(?:,|$)/i.test(value);
    length ||= lower === "content-length";
    head += `${name}: ${value}\r\n`;
  }
  if (!host) head += `host: ${target.host}\r\n`;
  if (!connection) head += "connection: keep-alive\r\n";
  if (!authorization && (target.username !== "" || target.password !== "")) {
    // As node:http does with credentials in the URL.
    const credentials = `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`;
    head += `authorization: Basic ${Buffer.from(credentials).toString("base64")}\r\n`;
  }
  if (!length && (body !== undefined || !(method === "GET" || method === "HEAD" || method === "DELETE"))) {
    let bytes = 0;
    for (const chunk of body ?? []) bytes += chunk.length;
    head += `content-length: ${bytes}\r\n`;
  }
  return { text: `${head}\r\n`, closes };
}

/** A socket to one origin, reused for one request after another. */
class Connection {
  private readonly socket: Socket;
  private exchange: Exchange | null = null;
  private signal: AbortSignal | undefined;
  private readonly onAbort = () => {
    const reason = this.signal?.reason;
    const exchange = this.release();
    this.socket.destroy();
    exchange?.abort(reason);
  };

  constructor(
    private readonly origin: string,
    target: URL,
  ) {
    // A bracketed IPv6 literal (`[::1]`) is connected to without its brackets.
    const host = target.hostname.replace(/^\[(.*)\]$/, "$1");
    this.socket = connect({
      host,
      port: Number(target.port || 80),
      noDelay: true,
      keepAlive: true,
      keepAliveInitialDelay: 1000,
    });
    this.socket.on("data", (chunk: Buffer) => {
      const exchange = this.exchange;
      if (exchange === null) {
        this.socket.destroy(); // bytes nobody asked for: the connection is not trusted again
        return;
      }
      const outcome = exchange.onData(chunk);
      if (outcome !== "more") this.finish(outcome === "reusable");
    });
    this.socket.on("end", () => this.onClosed(null));
    this.socket.on("error", (error) => this.onClosed(error));
    this.socket.on("close", () => this.onClosed(null));
  }

  start(
    exchange: Exchange,
    head: string,
    body: readonly Uint8Array[] | undefined,
    signal?: AbortSignal,
  ): void {
    this.exchange = exchange;
    this.signal = signal;
    signal?.addEventListener("abort", this.onAbort, { once: true });
    this.socket.ref();
    this.socket.cork();
    this.socket.write(head, "latin1");
    for (const chunk of body ?? []) this.socket.write(chunk);
    this.socket.uncork();
  }

  private release(): Exchange | null {
    const exchange = this.exchange;
    this.exchange = null;
    this.signal?.removeEventListener("abort", this.onAbort);
    this.signal = undefined;
    return exchange;
  }

  /** The reply is complete: the connection goes back to the idle list, or is closed. */
  private finish(reusable: boolean): void {
    const exchange = this.release();
    let idle = idleByOrigin.get(this.origin);
    if (reusable && !this.socket.destroyed && (idle?.length ?? 0) < MAX_IDLE_PER_ORIGIN) {
      this.socket.unref(); // an idle connection never keeps the process alive
      if (idle === undefined) idleByOrigin.set(this.origin, (idle = []));
      idle.push(this);
    } else this.socket.destroy();
    exchange?.complete();
  }

  /** The server ended the connection or it failed: a reply in progress ends with it, else it leaves the idle list. */
  private onClosed(error: Error | null): void {
    const idle = idleByOrigin.get(this.origin);
    const at = idle?.indexOf(this) ?? -1;
    if (at >= 0) idle!.splice(at, 1);
    const exchange = this.release();
    if (exchange === null) return;
    if (error === null && exchange.endsAtClose()) {
      this.socket.destroy();
      exchange.complete();
      return;
    }
    this.socket.destroy();
    exchange.fail(
      error ??
        (exchange.receivedAny()
          ? connectionError("the connection closed before the response ended", "ECONNRESET")
          : connectionError("socket hang up", "ECONNRESET")),
    );
  }
}

/** What {@link Exchange.onData} found: wait for more bytes, or the reply is complete (and the connection reusable or not). */
type DataOutcome = "more" | "reusable" | "close";

/** The parse of one reply, from the socket's chunks. */
class Exchange {
  private phase: "head" | "length" | "chunk-size" | "chunk-data" | "chunk-end" | "trailers" | "until-close" =
    "head";
  /** Bytes of the head not yet parsed (a head split across chunks). */
  private pending: Buffer | null = null;
  private readonly pieces: Buffer[] = [];
  private received = 0;
  /** Bytes still expected: of the body (length), of the current chunk (chunk-data). */
  private remaining = 0;
  private keepAlive = true;
  private status = 0;
  private statusText = "";
  private rawHeaders: string[] = [];
  private settled = false;

  constructor(
    private readonly headRequest: boolean,
    private readonly requestCloses: boolean,
    private readonly resolve: (reply: Http1Reply) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  receivedAny(): boolean {
    return this.received > 0;
  }

  /** True when the reply's body is framed by the end of the connection and has begun. */
  endsAtClose(): boolean {
    return this.phase === "until-close";
  }

  complete(): void {
    if (this.settled) return;
    this.settled = true;
    const body = this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces);
    this.resolve({ status: this.status, statusText: this.statusText, rawHeaders: this.rawHeaders, body });
  }

  /** Rejects like fetch on a network failure: `TypeError("fetch failed")` with the cause. */
  fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(new TypeError("fetch failed", { cause: error }));
  }

  /** Rejects with the signal's reason, as fetch does on abort. */
  abort(reason: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(reason);
  }

  onData(chunk: Buffer): DataOutcome {
    try {
      return this.consume(chunk);
    } catch (error) {
      this.fail(error);
      return "close";
    }
  }

  private consume(input: Buffer): DataOutcome {
    let chunk = input;
    this.received += chunk.length;
    for (;;) {
      switch (this.phase) {
        case "head": {
          const from = this.pending === null ? 0 : Math.max(0, this.pending.length - 3);
          if (this.pending !== null) chunk = Buffer.concat([this.pending, chunk]);
          const end = chunk.indexOf(CRLF_CRLF, from);
          if (end < 0) {
            if (chunk.length > MAX_HEAD_BYTES) throw invalid("the response head is too large");
            this.pending = chunk;
            return "more";
          }
          this.pending = null;
          const interim = this.parseHead(chunk.toString("latin1", 0, end));
          chunk = chunk.subarray(end + 4);
          if (interim) continue; // a 1xx reply: the real one follows
          if (this.phase === "head") return chunk.length > 0 ? "close" : this.done();
          break;
        }
        case "length": {
          const take = Math.min(this.remaining, chunk.length);
          if (take > 0) this.pieces.push(take === chunk.length ? chunk : chunk.subarray(0, take));
          this.remaining -= take;
          if (this.remaining > 0) return "more";
          return chunk.length > take ? "close" : this.done();
        }
        case "chunk-size": {
          const line = this.takeLine(chunk);
          if (line === undefined) return "more";
          chunk = line.rest;
          const size = line.text.split(";", 1)[0]!.trim();
          if (!/^[0-9a-fA-F]{1,12}$/.test(size)) throw invalid(`bad chunk size ${JSON.stringify(size)}`);
          this.remaining = Number.parseInt(size, 16);
          this.phase = this.remaining === 0 ? "trailers" : "chunk-data";
          break;
        }
        case "chunk-data": {
          const take = Math.min(this.remaining, chunk.length);
          if (take > 0) this.pieces.push(chunk.subarray(0, take));
          this.remaining -= take;
          chunk = chunk.subarray(take);
          if (this.remaining > 0) return "more";
          this.phase = "chunk-end";
          break;
        }
        case "chunk-end": {
          const line = this.takeLine(chunk);
          if (line === undefined) return "more";
          if (line.text !== "") throw invalid("a chunk does not end with CRLF");
          chunk = line.rest;
          this.phase = "chunk-size";
          break;
        }
        case "trailers": {
          const line = this.takeLine(chunk);
          if (line === undefined) return "more";
          chunk = line.rest;
          if (line.text !== "") break; // a trailer field: not kept
          return chunk.length > 0 ? "close" : this.done();
        }
        case "until-close":
          if (chunk.length > 0) this.pieces.push(chunk);
          return "more";
      }
      if (chunk.length === 0) return "more";
    }
  }

  private done(): DataOutcome {
    return this.keepAlive ? "reusable" : "close";
  }

  /** One CRLF-ended line (without it) and the bytes after; undefined (the bytes kept) until the line is whole. */
  private takeLine(chunk: Buffer): { text: string; rest: Buffer } | undefined {
    const joined = this.pending === null ? chunk : Buffer.concat([this.pending, chunk]);
    const end = joined.indexOf("\r\n");
    if (end < 0) {
      if (joined.length > MAX_HEAD_BYTES) throw invalid("a chunk line is too long");
      this.pending = joined;
      return undefined;
    }
    this.pending = null;
    return { text: joined.toString("latin1", 0, end), rest: joined.subarray(end + 2) };
  }

  /** Reads a status line and headers and picks the body's framing; true for an interim (1xx) reply. */
  private parseHead(text: string): boolean {
    const lines = text.split("\r\n");
    const match = /^HTTP\/1\.([01]) ([1-9][0-9]{2})(?: (.*))?$/.exec(lines[0]!);
    if (match === null) throw invalid(`bad status line ${JSON.stringify(lines[0]!.slice(0, 80))}`);
    const status = Number(match[2]);
    const raw: string[] = [];
    let length: string | undefined;
    let chunked = false;
    let connection = "";
    for (let index = 1; index < lines.length; index++) {
      const line = lines[index]!;
      const colon = line.indexOf(":");
      const name = line.slice(0, colon);
      if (colon <= 0 || !TOKEN.test(name))
        throw invalid(`bad header line ${JSON.stringify(line.slice(0, 80))}`);
      const value = line.slice(colon + 1).trim();
      raw.push(name, value);
      const lower = name.toLowerCase();
      if (lower === "content-length") {
        if (!/^[0-9]{1,15}$/.test(value) || (length !== undefined && length !== value))
          throw invalid(`bad content-length ${JSON.stringify(value)}`);
        length = value;
      } else if (lower === "transfer-encoding") {
        const codings = value.toLowerCase().split(",");
        chunked = codings[codings.length - 1]!.trim() === "chunked";
        if (!chunked) throw invalid(`transfer-encoding ${JSON.stringify(value)} without chunked last`);
      } else if (lower === "connection") connection += `${value.toLowerCase()},`;
    }
    if (status < 200) {
      if (status === 101) throw invalid("the server switched protocols");
      return true;
    }
    this.status = status;
    this.statusText = match[3] ?? "";
    this.rawHeaders = raw;
    const tokens = connection.split(",").map((token) => token.trim());
    this.keepAlive =
      !this.requestCloses && (match[1] === "1" ? !tokens.includes("close") : tokens.includes("keep-alive"));
    if (this.headRequest || status === 204 || status === 304) this.phase = "head";
    else if (chunked) {
      if (length !== undefined) throw invalid("both content-length and chunked transfer-encoding");
      this.phase = "chunk-size";
    } else if (length !== undefined) {
      this.remaining = Number(length);
      this.phase = this.remaining === 0 ? "head" : "length";
    } else {
      this.phase = "until-close";
      this.keepAlive = false;
    }
    return false;
  }
}

function invalid(what: string): Error {
  return connectionError(`the server's reply is not valid HTTP/1.1: ${what}`, "HPE_INVALID");
}
