/**
 * An opt-in SQLite cache of LLM responses. The key is the sha256 of the
 * canonical request (model, messages, tools, tool choice, args incl. seed), so
 * identical requests replay identical responses and a run can be reproduced
 * offline. Usage and cost are recorded and replayed with the response.
 */
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import type Database from "better-sqlite3";
import { z } from "zod";
import { FileFormatError, UsageError } from "../core/errors.ts";
import { nowIso, PyNumber, ToolCall, Usage } from "../core/messages.ts";
import { maskSecrets } from "../core/secrets.ts";
import { PyFloat, parsePyJson, pyDumps, toPlain } from "../core/py-json.ts";
import type { LlmEventListener } from "./events.ts";
import { providerKey } from "./model-id.ts";
import type { LlmClient, LlmRequest, LlmResponse } from "./types.ts";
import { makeFolder } from "../core/make-folder.ts";

/** One stored response (version 1). Tool-call arguments keep Python floats through pyDumps/parsePyJson. */
export const CacheRecord = z.object({
  version: z.literal(1),
  model: z.string(),
  content: z.string().nullable(),
  tool_calls: z.array(ToolCall).nullable(),
  usage: Usage,
  cost_usd: PyNumber.nullable(),
  raw: z.any(),
  reasoning: z.any().optional(),
  generation_time_seconds: PyNumber.nullable(),
});
export type CacheRecord = z.infer<typeof CacheRecord>;

/** Drops undefined fields (JSON has no undefined) while keeping PyFloat boxes. */
function canonical(value: unknown): unknown {
  if (value === undefined || value === null || typeof value !== "object" || value instanceof PyFloat)
    return value;
  if (Array.isArray(value)) return value.map(canonical);
  if (value instanceof Map) return canonical(Object.fromEntries(value));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (item !== undefined) out[key] = canonical(item);
  return out;
}

/** The cache key of a request: sha256 hex of its canonical JSON. */
export function requestKey(model: string, request: LlmRequest): string {
  let modelKey = model;
  try {
    modelKey = providerKey(model);
  } catch {
    // Non-provider clients (scripted models) are keyed by their own name.
  }
  const hasTools = (request.tools?.length ?? 0) > 0;
  const text = pyDumps(
    canonical({
      version: 1,
      model: modelKey,
      messages: request.messages,
      tools: request.tools ?? [],
      tool_choice: hasTools ? (request.toolChoice ?? "auto") : null,
      args: request.args ?? {},
    }),
    { sortKeys: true },
  );
  return createHash("sha256").update(text).digest("hex");
}

/**
 * Opens the SQLite file with better-sqlite3, loaded only now: it is a native module whose build can
 * fail on an install (it is an optional dependency), and only the response cache needs it.
 */
function openSqlite(path: string): Database.Database {
  try {
    const Sqlite = createRequire(import.meta.url)("better-sqlite3") as typeof Database;
    return new Sqlite(path);
  } catch (error) {
    // A missing package, or one whose native part was never built ("Could not locate the bindings file").
    const first = error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
    const reason = first.startsWith("Could not locate the bindings file")
      ? "its native part is not built"
      : first;
    if (
      error instanceof Error &&
      /bindings|Cannot find module|MODULE_NOT_FOUND|ERR_DLOPEN/.test(
        `${first} ${(error as NodeJS.ErrnoException).code ?? ""}`,
      )
    )
      throw new UsageError(
        `The LLM response cache (--llm-cache) needs the better-sqlite3 package, which did not load (${reason}); install or rebuild it (npm rebuild better-sqlite3) or run without --llm-cache`,
        { cause: error },
      );
    throw error;
  }
}

/** The SQLite store behind {@link CachingLlmClient}; one file `llm-cache.sqlite` in the cache folder. */
export class ResponseCache {
  readonly path: string;
  private readonly db: Database.Database;
  private readonly getStatement: Database.Statement<[string], { record: string }>;
  private readonly putStatement: Database.Statement<[string, string, string, string]>;

  constructor(cacheDir: string) {
    makeFolder(cacheDir);
    this.path = join(cacheDir, "llm-cache.sqlite");
    this.db = openSqlite(this.path);
    // WAL lets several processes of one run share the cache.
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("busy_timeout = 5000");
    this.db.exec(
      "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT NOT NULL, created_at TEXT NOT NULL, record TEXT NOT NULL)",
    );
    this.getStatement = this.db.prepare("SELECT record FROM responses WHERE key = ?");
    this.putStatement = this.db.prepare(
      "INSERT OR REPLACE INTO responses (key, model, created_at, record) VALUES (?, ?, ?, ?)",
    );
  }

  /** The stored response for a key, or undefined. A corrupt record is an error naming the file. */
  get(key: string): LlmResponse | undefined {
    const row = this.getStatement.get(key);
    if (!row) return undefined;
    const parsed = CacheRecord.safeParse(parsePyJson(row.record));
    if (!parsed.success) {
      throw new FileFormatError(this.path, `record ${key}: ${parsed.error.issues[0]?.message ?? "invalid"}`);
    }
    const record = parsed.data;
    return {
      content: record.content,
      toolCalls: record.tool_calls,
      usage: toPlain(record.usage) as Usage,
      costUsd: record.cost_usd,
      raw: toPlain(record.raw),
      ...(record.reasoning !== undefined && record.reasoning !== null
        ? { reasoning: toPlain(record.reasoning) }
        : {}),
      ...(record.generation_time_seconds !== null
        ? { generationTimeSeconds: record.generation_time_seconds }
        : {}),
    };
  }

  /** Stores a response under a key (replacing an older one). */
  put(key: string, model: string, response: LlmResponse): void {
    const record: CacheRecord = {
      version: 1,
      model,
      content: response.content,
      tool_calls: response.toolCalls,
      usage: response.usage,
      cost_usd: response.costUsd,
      raw: response.raw ?? null,
      reasoning: response.reasoning ?? null,
      generation_time_seconds: response.generationTimeSeconds ?? null,
    };
    this.putStatement.run(key, model, nowIso(), maskSecrets(pyDumps(canonical(record))));
  }

  /** Number of stored responses. */
  size(): number {
    return (this.db.prepare("SELECT COUNT(*) AS n FROM responses").get() as { n: number }).n;
  }

  close(): void {
    this.db.close();
  }
}

const openCaches = new Map<string, ResponseCache>();

/** The process-wide cache for a folder (one SQLite handle per folder, however many clients use it). */
export function openResponseCache(cacheDir: string): ResponseCache {
  const key = resolve(cacheDir);
  let cache = openCaches.get(key);
  if (!cache) {
    cache = new ResponseCache(key);
    openCaches.set(key, cache);
  }
  return cache;
}

/** Wraps a client: identical requests are answered from the cache; misses go to the provider and are stored. */
export class CachingLlmClient implements LlmClient {
  readonly model: string;
  constructor(
    private readonly inner: LlmClient,
    private readonly cache: ResponseCache,
    private readonly onEvent?: LlmEventListener,
  ) {
    this.model = inner.model;
    if (inner.endpoint) this.endpoint = (args) => inner.endpoint!(args);
  }

  /** The wrapped client's endpoint (a cache hit reaches none, but misses go there). */
  endpoint?: (args?: Record<string, unknown>) => string;

  async generate(request: LlmRequest): Promise<LlmResponse> {
    request.signal?.throwIfAborted();
    const key = requestKey(this.model, request);
    const hit = this.cache.get(key);
    if (hit) {
      this.onEvent?.({
        type: "call",
        model: this.model,
        callName: request.callName,
        usage: hit.usage,
        costUsd: hit.costUsd,
        durationMs: 0,
        attempts: 0,
        cached: true,
      });
      return hit;
    }
    const response = await this.inner.generate(request);
    this.cache.put(key, this.model, response);
    return response;
  }
}
