/**
 * The agent's knowledge-base tools (spec §8.3): `KB_search`, `grep`,
 * `KB_search_bm25`, `KB_search_dense` and `shell`, over back ends shared by
 * every environment of a process (the BM25 index, the dense index, the
 * read-only sandbox), built on first use.
 */
import { pyTypeName } from "../../../core/py-json.ts";
import { param, PyTypeError, type ToolDef } from "../../../env/toolkit.ts";
import type { KnowledgeBase } from "../knowledge-base.ts";
import { fixed, strip, truthy } from "../py.ts";
import type { BankingTexts } from "../texts.ts";
import type { AgentToolsState } from "../toolkit-state.ts";
import { Bm25Index, tokenize } from "./bm25.ts";
import { buildDenseIndex, type DenseIndex, denseTop, type Embedder, queryVector } from "./dense.ts";
import { grepDocuments } from "./grep.ts";
import { Sandbox, shellText } from "./shell.ts";
import type { PipelineSpec, RetrievalVariant } from "./variants.ts";

/** Rates a document's relevance to a query from 0 to 10 with an LLM (the reranker's judge). */
export interface RelevanceRater {
  /** Throws (one line) when the rater's model cannot be used, e.g. its API key is not set. */
  ready?(): void;
  /** The 0–10 rating the model gives for a prompt that shows the query and the document. */
  rate(request: { prompt: string; signal?: AbortSignal | undefined }): Promise<number>;
}

/** The outside services the network-backed configurations use. */
export interface RetrievalServices {
  embedder?: Embedder;
  rater?: RelevanceRater;
  /** Where document embeddings are cached (default: the per-user cache). */
  embeddingsCacheDir?: string;
}

/** Back ends shared by all environments of one domain load and configuration. */
export class RetrievalBackends {
  private bm25Index: Bm25Index | undefined;
  private readonly denseIndexes = new Map<string, Promise<DenseIndex>>();
  private sharedSandbox: Sandbox | undefined;

  constructor(
    readonly variant: RetrievalVariant,
    private readonly loadKb: () => KnowledgeBase,
    readonly services: RetrievalServices,
    readonly embeddingsCacheDir: string,
    /** The reranker's question to its model about one document. */
    readonly rerankerPrompt: (query: string, document: string) => string,
  ) {}

  get kb(): KnowledgeBase {
    return this.loadKb();
  }

  /** The BM25 index over the documents' content (built once). */
  bm25(): Bm25Index {
    this.bm25Index ??= bm25IndexFor(this.kb);
    return this.bm25Index;
  }

  /** The dense index for a pipeline's embedder (built or read from the disk cache once). */
  dense(spec: PipelineSpec, signal?: AbortSignal): Promise<DenseIndex> {
    const embedder = this.services.embedder;
    if (!embedder) throw new Error(`No embedding model is configured for ${spec.embedder} dense retrieval`);
    const key = `${spec.embedder}:${spec.model}`;
    let index = this.denseIndexes.get(key);
    if (!index) {
      index = buildDenseIndex({
        documents: this.kb.documents,
        provider: spec.embedder!,
        model: spec.model!,
        embedder,
        cacheDir: this.embeddingsCacheDir,
        signal,
      });
      index.catch(() => this.denseIndexes.delete(key));
      this.denseIndexes.set(key, index);
    }
    return index;
  }

  /** The read-only sandbox, shared (writes are refused, so environments cannot see each other). */
  readOnlySandbox(): Sandbox {
    this.sharedSandbox ??= new Sandbox(this.kb.documents, false);
    return this.sharedSandbox;
  }
}

const bm25Indexes = new WeakMap<KnowledgeBase, Bm25Index>();

/** The BM25 index of a knowledge base, built once per process. */
export function bm25IndexFor(kb: KnowledgeBase): Bm25Index {
  let index = bm25Indexes.get(kb);
  if (!index) {
    index = new Bm25Index(kb.documents.map((doc) => tokenize(doc.content)));
    bm25Indexes.set(kb, index);
  }
  return index;
}

/** Per-environment retrieval state: the shared back ends and, with `terminal_use_write`, the own sandbox. */
export interface RetrievalState {
  readonly backends: RetrievalBackends;
  writableSandbox?: Sandbox;
}

const writableSandboxes = new FinalizationRegistry<Sandbox>((sandbox) => sandbox.dispose());

function sandboxOf(state: RetrievalState): Sandbox {
  if (!state.backends.variant.shell?.allowWrites) return state.backends.readOnlySandbox();
  if (!state.writableSandbox) {
    state.writableSandbox = new Sandbox(state.backends.kb.documents, true);
    writableSandboxes.register(state, state.writableSandbox);
  }
  return state.writableSandbox;
}

// ---------------------------------------------------------------------------
// Pipelines

type Scored = [id: string, score: number];

/** Python `items[:bound]`. */
function sliceTo<T>(items: readonly T[], bound: unknown): T[] {
  if (bound === null || bound === undefined) return [...items];
  const n = typeof bound === "boolean" ? Number(bound) : bound;
  if (typeof n !== "number" || !Number.isInteger(n))
    throw new PyTypeError("slice indices must be integers or None or have an __index__ method");
  return items.slice(0, n >= 0 ? n : Math.max(items.length + n, 0));
}

function retrieverSize(spec: PipelineSpec, documents: number): number {
  const topK = typeof spec.topK === "number" ? spec.topK : Number(spec.topK);
  return Math.min(topK, documents);
}

interface Timing {
  inputMs: number;
  retrievalMs: number;
  postprocessingMs: number;
}

const now = () => Number(process.hrtime.bigint()) / 1e6;

/** The search tools' text: numbered documents with scores and content, then the timing line. */
function formatResults(kb: KnowledgeBase, results: readonly Scored[], timing: Timing): string {
  let out =
    results.length === 0
      ? "No relevant documents found."
      : results
          .map(([id, score], i) => {
            const doc = kb.byId.get(id);
            return `${i + 1}. ${doc?.title || "Untitled"}\n   ID: ${id}\n   Score: ${fixed(score, 4)}\n   Content: ${doc?.content ?? ""}\n`;
          })
          .join("\n");
  const total = timing.inputMs + timing.retrievalMs + timing.postprocessingMs;
  out += `\n\n[Timing: retrieval=${fixed(timing.retrievalMs, 0)}ms`;
  if (timing.postprocessingMs > 0) out += `, reranking=${fixed(timing.postprocessingMs, 0)}ms`;
  return `${out}, total=${fixed(total, 0)}ms]`;
}

/** Merges retriever output (max score per document), sorts it stably by score and cuts it. */
function ranked(results: readonly Scored[], topK: unknown): Scored[] {
  const merged = new Map<string, number>();
  for (const [id, score] of results) {
    const known = merged.get(id);
    if (known === undefined || score > known) merged.set(id, score);
  }
  const sorted = [...merged].sort((a, b) => (b[1] > a[1] ? 1 : b[1] < a[1] ? -1 : 0));
  return topK === undefined ? sorted : sliceTo(sorted, topK);
}

/** The BM25 retriever: nothing for a falsy or blank query (a non-string raises on `.strip()`). */
function bm25Retrieve(backends: RetrievalBackends, spec: PipelineSpec, query: unknown): Scored[] {
  if (!truthy(query) || strip(query) === "") return [];
  const { documents } = backends.kb;
  const all = backends.bm25().top(query as string, documents.length);
  return sliceTo(all, retrieverSize(spec, documents.length)).map(({ index, score }) => [
    documents[index]!.id,
    score,
  ]);
}

/** The LLM reranker (`pointwise_llm_reranker`): rated documents at or above the minimum, best first. */
async function rerank(
  backends: RetrievalBackends,
  spec: PipelineSpec,
  query: unknown,
  results: Scored[],
  signal?: AbortSignal,
): Promise<Scored[]> {
  if (results.length === 0) return results;
  const rater = backends.services.rater;
  if (!rater) throw new Error("No model is configured for the LLM reranker");
  const toRate = results
    .map(([id]) => [id, backends.kb.byId.get(id)?.content ?? ""] as const)
    .filter(([, content]) => content !== "");
  if (toRate.length === 0) return [];
  const ratings = await mapLimited(toRate, 20, async ([id, document]) => {
    try {
      const rating = await rater.rate({ prompt: backends.rerankerPrompt(String(query), document), signal });
      return [id, Math.max(0, Math.min(10, Math.trunc(rating)))] as Scored;
    } catch {
      // A failing rating drops the document, as upstream's thread pool does.
      return null;
    }
  });
  const minimum = Number(spec.rerankerMinScore);
  const kept = ratings.filter((r): r is Scored => r !== null && r[1] >= minimum);
  return kept.sort((a, b) => (b[1] > a[1] ? 1 : b[1] < a[1] ? -1 : 0));
}

async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** `pipeline.retrieve(query, top_k)` with timing, formatted; synchronous for plain BM25. */
function search(
  state: RetrievalState,
  spec: PipelineSpec,
  query: unknown,
  topK: unknown,
  signal?: AbortSignal,
): string | Promise<string> {
  const { backends } = state;
  // Upstream indexes when the environment is built; the lazy build here stays out of the timing.
  if (spec.type === "bm25") backends.bm25();
  if (spec.type === "bm25" && !spec.reranker) {
    const t0 = now();
    const t1 = now();
    const results = ranked(bm25Retrieve(backends, spec, query), topK);
    const t2 = now();
    const t3 = now();
    return formatResults(backends.kb, results, {
      inputMs: t1 - t0,
      retrievalMs: t2 - t1,
      postprocessingMs: t3 - t2,
    });
  }
  return (async () => {
    const index = spec.type === "embedding" ? await backends.dense(spec, signal) : undefined;
    const t0 = now();
    let vector: number[] | undefined;
    if (spec.type === "embedding") {
      if (!truthy(query) || strip(query) === "")
        throw new Error("Empty or missing input for key 'query': cannot generate embedding from blank text.");
      vector = await queryVector({
        provider: spec.embedder!,
        model: spec.model!,
        query: query as string,
        embedder: requireEmbedder(backends),
        signal,
      });
    }
    const t1 = now();
    let retrieved: Scored[];
    if (vector && index) {
      const size = retrieverSize(spec, index.ids.length);
      retrieved = sliceTo(denseTop(index, vector, index.ids.length), size).map(
        ({ index: i, score }) => [index.ids[i]!, score] as Scored,
      );
    } else retrieved = bm25Retrieve(backends, spec, query);
    let results = ranked(retrieved, topK);
    const t2 = now();
    if (spec.reranker) results = await rerank(backends, spec, query, results, signal);
    const t3 = now();
    return formatResults(backends.kb, results, {
      inputMs: t1 - t0,
      retrievalMs: t2 - t1,
      postprocessingMs: t3 - t2,
    });
  })();
}

function requireEmbedder(backends: RetrievalBackends): Embedder {
  const embedder = backends.services.embedder;
  if (!embedder) throw new Error("No embedding model is configured for dense retrieval");
  return embedder;
}

/** The `grep` tool's text. */
function grepText(state: RetrievalState, pattern: unknown): string {
  const spec = state.backends.variant.grep!;
  if (typeof pattern !== "string") strip(pattern);
  const kb = state.backends.kb;
  const topK = typeof spec.topK === "number" ? spec.topK : Number(spec.topK);
  const results = grepDocuments(kb.documents, pattern as string, {
    topK,
    caseSensitive: truthy(spec.caseSensitive),
  });
  if (results.length === 0) return `No matches found for pattern: ${pattern as string}`;
  return results
    .map(({ index, score }, i) => {
      const doc = kb.documents[index]!;
      return `${i + 1}. ${doc.title || "Untitled"}\n   ID: ${doc.id}\n   Score: ${fixed(score, 4)}\n   Content: ${doc.content}\n`;
    })
    .join("\n");
}

// ---------------------------------------------------------------------------
// The tools

const STR = { type: "string" };

const retrievalOf = (ctx: { state: AgentToolsState }) => ctx.state.retrieval as RetrievalState;

/** The retrieval tools a configuration offers, in upstream's order (they come before the base tools). */
export function retrievalTools(variant: RetrievalVariant, texts: BankingTexts): ToolDef<AgentToolsState>[] {
  const described = (
    name: string,
    owner: string,
    params: ToolDef["params"],
    run: ToolDef<AgentToolsState>["run"],
  ): ToolDef<AgentToolsState> => ({
    name,
    owner,
    kind: "read",
    description: texts.description(name),
    params: params.map((p) => {
      const description = texts.paramDescription(name, p.name);
      return description === undefined ? p : { ...p, description };
    }),
    run,
  });
  const tools: ToolDef<AgentToolsState>[] = [];
  if (variant.kbSearchBm25 && variant.kbSearchDense) {
    const bm25 = variant.kbSearchBm25;
    const dense = variant.kbSearchDense;
    const k = param("k", { type: "integer" }, undefined, { default: 10 });
    tools.push(
      described("KB_search_bm25", "KBSearchBm25AllToolsMixin", [param("query", STR), k], (ctx, a) =>
        search(retrievalOf(ctx), bm25, a.query, a.k, ctx.signal),
      ),
      described("KB_search_dense", "KBSearchDenseAllToolsMixin", [param("query", STR), k], (ctx, a) =>
        search(retrievalOf(ctx), dense, a.query, a.k, ctx.signal),
      ),
    );
  }
  if (variant.kbSearch) {
    const spec = variant.kbSearch;
    tools.push(
      described("KB_search", "KBSearchMixin", [param("query", STR)], (ctx, a) =>
        search(retrievalOf(ctx), spec, a.query, undefined, ctx.signal),
      ),
    );
  }
  if (variant.grep) {
    tools.push(
      described("grep", "GrepMixin", [param("pattern", STR)], (ctx, a) =>
        grepText(retrievalOf(ctx), a.pattern),
      ),
    );
  }
  if (variant.shell) {
    tools.push(
      described("shell", "ShellMixin", [param("command", STR)], async (ctx, a) => {
        if (typeof a.command !== "string")
          throw new PyTypeError(`expected string or bytes-like object, got '${pyTypeName(a.command)}'`);
        const result = await sandboxOf(retrievalOf(ctx)).run(a.command, ctx.signal);
        return shellText(a.command, result);
      }),
    );
  }
  return tools;
}
