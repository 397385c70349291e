/**
 * The retrieval configurations of banking_knowledge (spec §8.1): which
 * search tools the agent gets, with which back end and sizes, and which
 * prompt template its policy is built from.
 */
import { UsageError } from "../../../core/errors.ts";
import { pyRepr, pyStr } from "../../../core/py-json.ts";

/** Embedding providers of the dense variants. */
export type EmbeddingProvider = "openai" | "openrouter";

/** A `KB_search`-style pipeline. */
export interface PipelineSpec {
  readonly type: "bm25" | "embedding";
  readonly embedder?: EmbeddingProvider;
  /** The provider's model name as upstream configures it (`text-embedding-3-large`, `qwen3-embedding-8b`). */
  readonly model?: string;
  /** Retriever size (`top_k`, default 10); kept as given, Python slice semantics apply. */
  readonly topK: unknown;
  readonly reranker: boolean;
  readonly rerankerMinScore: unknown;
}

/** The grep tool's settings. */
export interface GrepSpec {
  readonly topK: unknown;
  readonly caseSensitive: unknown;
}

/** The shell tool's settings. */
export interface ShellSpec {
  readonly allowWrites: boolean;
}

/** How the policy is built from the template. */
export type PromptKind = "standard" | "full_kb" | "golden";

/** One retrieval configuration. */
export interface RetrievalVariant {
  readonly name: string;
  /** File in the data folder's `prompts/`. */
  readonly template: string;
  readonly prompt: PromptKind;
  /** `KB_search` (classic RAG variants). */
  readonly kbSearch?: PipelineSpec;
  /** AllTools: `KB_search_bm25` and `KB_search_dense`. */
  readonly kbSearchBm25?: PipelineSpec;
  readonly kbSearchDense?: PipelineSpec;
  readonly grep?: GrepSpec;
  readonly shell?: ShellSpec;
}

/** The default configuration, as upstream's `TextRunConfig` sets it for this domain. */
export const DEFAULT_RETRIEVAL_CONFIG = "alltools";

const OPENAI_MODEL = "text-embedding-3-large";
const QWEN_MODEL = "qwen3-embedding-8b";

const bm25 = (reranker = false): PipelineSpec => ({ type: "bm25", topK: 10, reranker, rerankerMinScore: 5 });
const dense = (embedder: EmbeddingProvider, reranker = false): PipelineSpec => ({
  type: "embedding",
  embedder,
  model: embedder === "openai" ? OPENAI_MODEL : QWEN_MODEL,
  topK: 10,
  reranker,
  rerankerMinScore: 5,
});
const grep: GrepSpec = { topK: 10, caseSensitive: false };

function classic(
  name: string,
  template: string,
  kbSearch: PipelineSpec,
  withGrep: boolean,
): RetrievalVariant {
  return { name, template, prompt: "standard", kbSearch, ...(withGrep ? { grep } : {}) };
}

function allTools(name: string, embedder: EmbeddingProvider): RetrievalVariant {
  return {
    name,
    template: "all_tools.md",
    prompt: "standard",
    kbSearchBm25: bm25(),
    kbSearchDense: dense(embedder),
    shell: { allowWrites: false },
  };
}

const VARIANTS: readonly RetrievalVariant[] = [
  { name: "no_knowledge", template: "no_knowledge.md", prompt: "standard" },
  { name: "full_kb", template: "full_kb.md", prompt: "full_kb" },
  { name: "golden_retrieval", template: "required_docs.md", prompt: "golden" },
  classic("qwen_embeddings_grep", "classic_rag_qwen.md", dense("openrouter"), true),
  classic("openai_embeddings_grep", "classic_rag_openai.md", dense("openai"), true),
  classic("qwen_embeddings_reranker_grep", "classic_rag_qwen.md", dense("openrouter", true), true),
  classic("openai_embeddings_reranker_grep", "classic_rag_openai.md", dense("openai", true), true),
  classic("bm25_grep", "classic_rag_bm25.md", bm25(), true),
  classic("bm25_reranker_grep", "classic_rag_bm25.md", bm25(true), true),
  classic("qwen_embeddings", "classic_rag_qwen_no_grep.md", dense("openrouter"), false),
  classic("openai_embeddings", "classic_rag_openai_no_grep.md", dense("openai"), false),
  classic("qwen_embeddings_reranker", "classic_rag_qwen_no_grep.md", dense("openrouter", true), false),
  classic("openai_embeddings_reranker", "classic_rag_openai_no_grep.md", dense("openai", true), false),
  classic("bm25", "classic_rag_bm25_no_grep.md", bm25(), false),
  classic("bm25_reranker", "classic_rag_bm25_no_grep.md", bm25(true), false),
  { name: "grep_only", template: "grep_only.md", prompt: "standard", grep },
  { name: "terminal_use", template: "agentic_search.md", prompt: "standard", shell: { allowWrites: false } },
  {
    name: "terminal_use_write",
    template: "agentic_search_write.md",
    prompt: "standard",
    shell: { allowWrites: true },
  },
  allTools("alltools", "openai"),
  allTools("alltools-qwen", "openrouter"),
];

const BY_NAME = new Map(VARIANTS.map((variant) => [variant.name, variant]));
const ALIASES: Record<string, string> = { AllTools: "alltools" };

/** Every configuration name, in upstream's registry order. */
export const RETRIEVAL_CONFIG_NAMES: readonly string[] = VARIANTS.map((variant) => variant.name);

/**
 * upstream `resolve_variant`: the named configuration with `retrieval_kwargs` applied (`top_k`,
 * `grep_top_k`, `case_sensitive`, `reranker_min_score`; other keys are ignored).
 */
export function resolveVariant(
  name: string,
  kwargs: Record<string, unknown> | null = null,
): RetrievalVariant {
  const variant = BY_NAME.get(ALIASES[name] ?? name);
  if (!variant) {
    throw new UsageError(
      `Unknown retrieval variant: ${pyRepr(name)}. Available: ${pyStr([...RETRIEVAL_CONFIG_NAMES].sort())}`,
    );
  }
  const given = (key: string) =>
    kwargs && kwargs[key] !== undefined && kwargs[key] !== null ? kwargs[key] : undefined;
  const topK = given("top_k");
  const grepTopK = given("grep_top_k");
  const caseSensitive = given("case_sensitive");
  const minScore = given("reranker_min_score");
  const pipeline = (spec: PipelineSpec | undefined) =>
    spec && {
      ...spec,
      ...(topK !== undefined ? { topK } : {}),
      ...(minScore !== undefined ? { rerankerMinScore: minScore } : {}),
    };
  const kbSearch = pipeline(variant.kbSearch);
  const kbSearchBm25 = pipeline(variant.kbSearchBm25);
  const kbSearchDense = pipeline(variant.kbSearchDense);
  const grepSpec = variant.grep && {
    ...variant.grep,
    ...(grepTopK !== undefined ? { topK: grepTopK } : {}),
    ...(caseSensitive !== undefined ? { caseSensitive } : {}),
  };
  return {
    ...variant,
    ...(kbSearch ? { kbSearch } : {}),
    ...(kbSearchBm25 ? { kbSearchBm25 } : {}),
    ...(kbSearchDense ? { kbSearchDense } : {}),
    ...(grepSpec ? { grep: grepSpec } : {}),
  };
}

/** What a configuration needs from outside the data folder. */
export function requirementsOf(variant: RetrievalVariant): {
  embedders: EmbeddingProvider[];
  reranker: boolean;
  shell: boolean;
} {
  const pipelines = [variant.kbSearch, variant.kbSearchBm25, variant.kbSearchDense].filter(
    (spec): spec is PipelineSpec => spec !== undefined,
  );
  return {
    embedders: [...new Set(pipelines.flatMap((spec) => (spec.embedder ? [spec.embedder] : [])))],
    reranker: pipelines.some((spec) => spec.reranker),
    shell: variant.shell !== undefined,
  };
}
