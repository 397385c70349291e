/**
 * Dense retrieval (spec §8.6): every document's content embedded once (one
 * request, cached on disk under a key made of the document ids and content
 * hashes, so a changed document invalidates it), each new query embedded
 * once per process, documents ranked by cosine similarity.
 */
import { createHash } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { pyDumps } from "../../../core/py-json.ts";
import type { KbDocument } from "../knowledge-base.ts";
import type { EmbeddingProvider } from "./variants.ts";
import { makeFolder } from "../../../core/make-folder.ts";

/** What dense retrieval needs from the outside: an embedding model (the AI SDK's, in practice). */
export interface Embedder {
  /** Throws (one line) when the provider cannot be used, e.g. its API key is not set. */
  requireKey?(provider: EmbeddingProvider): void;
  /** Embeds texts with the provider's model; one vector per text, in order. */
  embed(request: {
    provider: EmbeddingProvider;
    model: string;
    texts: string[];
    signal?: AbortSignal | undefined;
  }): Promise<number[][]>;
}

/** The instruction Qwen3's embedding models expect in front of a search query (from the model's documentation). */
export const QWEN_QUERY_INSTRUCTION =
  "Given a web search query, retrieve relevant passages that answer the query";

/** The model name each provider's API expects. */
export function apiModelName(provider: EmbeddingProvider, model: string): string {
  return provider === "openrouter" && !model.includes("/") ? `qwen/${model}` : model;
}

/** The query text as sent: Qwen models get their instruction first (no space after `Query:`). */
export function queryText(provider: EmbeddingProvider, model: string, query: string): string {
  return provider === "openrouter" && model.toLowerCase().includes("qwen")
    ? `Instruct: ${QWEN_QUERY_INSTRUCTION}\nQuery:${query}`
    : query;
}

/** The default folder of cached document embeddings. */
export function defaultEmbeddingsCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TAU_EMBEDDINGS_CACHE) return env.TAU_EMBEDDINGS_CACHE;
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "taubench", "embeddings");
}

const md5 = (text: string) => createHash("md5").update(text, "utf8").digest("hex");
const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** upstream's cache key: the documents (ids with content md5, sorted by id) and the embedder. */
export function embeddingsCacheKey(
  documents: readonly KbDocument[],
  provider: EmbeddingProvider,
  model: string,
): string {
  const sorted = [...documents].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const docHash = sha256(sorted.map((doc) => `${doc.id}:${md5(doc.content)}`).join("|"));
  const embedderHash = md5(pyDumps({ config: { model }, type: provider }, { sortKeys: true }));
  return `${docHash}_${embedderHash}`;
}

/** Document vectors, normalized for cosine similarity (zero vectors stay zero). */
export interface DenseIndex {
  readonly ids: readonly string[];
  readonly dimensions: number;
  readonly vectors: Float64Array;
}

function normalize(vector: ArrayLike<number>): Float64Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  const norm = Math.sqrt(sum);
  const out = new Float64Array(vector.length);
  if (norm === 0) return out;
  for (let i = 0; i < vector.length; i++) out[i] = vector[i]! / norm;
  return out;
}

function readCached(path: string, ids: readonly string[]): Float64Array[] | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return null;
  }
  const newline = bytes.indexOf(10);
  if (newline < 0) return null;
  try {
    const header = JSON.parse(bytes.subarray(0, newline).toString("utf8")) as {
      ids: string[];
      dimensions: number;
    };
    // A hit also needs the same document order (otherwise the entry is recomputed).
    if (header.ids.length !== ids.length || header.ids.some((id, i) => id !== ids[i])) return null;
    const body = bytes.subarray(newline + 1);
    if (body.length !== ids.length * header.dimensions * 8) return null;
    const all = new Float64Array(body.buffer.slice(body.byteOffset, body.byteOffset + body.length));
    return ids.map((_, i) => all.subarray(i * header.dimensions, (i + 1) * header.dimensions));
  } catch {
    return null;
  }
}

function writeCached(path: string, ids: readonly string[], vectors: readonly number[][]): void {
  const dimensions = vectors[0]?.length ?? 0;
  const body = new Float64Array(ids.length * dimensions);
  vectors.forEach((vector, i) => {
    body.set(vector, i * dimensions);
  });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(
    temporary,
    Buffer.concat([Buffer.from(`${JSON.stringify({ ids, dimensions })}\n`), Buffer.from(body.buffer)]),
  );
  renameSync(temporary, path);
}

/**
 * The dense index of a knowledge base: from the disk cache when its key and document order match,
 * else embedded in one request and cached.
 */
export async function buildDenseIndex(options: {
  documents: readonly KbDocument[];
  provider: EmbeddingProvider;
  model: string;
  embedder: Embedder;
  cacheDir: string;
  signal?: AbortSignal | undefined;
}): Promise<DenseIndex> {
  const { documents, provider, model } = options;
  const ids = documents.map((doc) => doc.id);
  const path = join(options.cacheDir, `${embeddingsCacheKey(documents, provider, model)}.f64`);
  let vectors: ArrayLike<number>[] | null = readCached(path, ids);
  if (vectors === null) {
    const fresh = await options.embedder.embed({
      provider,
      model: apiModelName(provider, model),
      texts: documents.map((doc) => doc.content),
      signal: options.signal,
    });
    if (fresh.length !== documents.length)
      throw new Error(
        `The embedding model returned ${fresh.length} vectors for ${documents.length} documents`,
      );
    makeFolder(options.cacheDir);
    writeCached(path, ids, fresh);
    vectors = fresh;
  }
  const dimensions = vectors[0]?.length ?? 0;
  const all = new Float64Array(ids.length * dimensions);
  vectors.forEach((vector, i) => {
    all.set(normalize(vector), i * dimensions);
  });
  return { ids, dimensions, vectors: all };
}

/** Cosine scores of a query vector against every document, and the best `topK` (stable on ties). */
export function denseTop(
  index: DenseIndex,
  query: ArrayLike<number>,
  topK: number,
): { index: number; score: number }[] {
  const q = normalize(query);
  if (q.length !== index.dimensions && index.ids.length > 0)
    throw new Error(`Query embedding has ${q.length} dimensions, the documents ${index.dimensions}`);
  const scores = index.ids.map((_, d) => {
    let dot = 0;
    const offset = d * index.dimensions;
    for (let i = 0; i < q.length; i++) dot += index.vectors[offset + i]! * q[i]!;
    return dot;
  });
  const order = scores.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
  return order
    .slice(0, Math.max(0, Math.min(topK, order.length)))
    .map((i) => ({ index: i, score: scores[i]! }));
}

/** Process-wide cache of query vectors, keyed like upstream's (embedder type, config, query). */
const queryVectors = new Map<string, Promise<number[]>>();

/** The vector of one query text (embedded once per process per embedder). */
export function queryVector(options: {
  provider: EmbeddingProvider;
  model: string;
  query: string;
  embedder: Embedder;
  signal?: AbortSignal | undefined;
}): Promise<number[]> {
  const { provider, model, query } = options;
  const config: Record<string, string> = { model };
  if (provider === "openrouter" && model.toLowerCase().includes("qwen"))
    config._query_instruction = QWEN_QUERY_INSTRUCTION;
  const key = sha256(`${provider}|${pyDumps(config, { sortKeys: true })}|${query}`);
  let vector = queryVectors.get(key);
  if (!vector) {
    vector = options.embedder
      .embed({
        provider,
        model: apiModelName(provider, model),
        texts: [queryText(provider, model, query)],
        signal: options.signal,
      })
      .then((vectors) => {
        const first = vectors[0];
        if (!first) throw new Error("The embedding model returned no vector for the query");
        return first;
      });
    vector.catch(() => queryVectors.delete(key));
    queryVectors.set(key, vector);
  }
  return vector;
}
