/**
 * The outside services of banking_knowledge's network-backed retrieval
 * configs, built from the run's environment: embedding models (OpenAI,
 * OpenRouter) for dense search, and the LLM reranker's judge (OpenAI
 * `gpt-5.2` with low reasoning effort, as upstream).
 */
import type { RelevanceRater, RetrievalServices } from "../domains/banking_knowledge/index.ts";
import { createEmbeddingClient } from "../llm/embeddings.ts";
import type { LlmEventListener } from "../llm/events.ts";
import type { LlmClient } from "../llm/types.ts";

/** The reranker's model, as upstream's `pointwise_llm_reranker` uses it. */
export const RERANKER_MODEL = "openai/gpt-5.2";

const RATING_SCHEMA = {
  type: "object",
  properties: { relevance_score: { type: "integer" } },
  required: ["relevance_score"],
  additionalProperties: false,
};

/** A rater that asks an LLM for `{"relevance_score": n}` (structured output). */
export function llmRelevanceRater(client: () => LlmClient): RelevanceRater {
  return {
    ready: () => {
      client();
    },
    async rate({ prompt, signal }) {
      const response = await client().generate({
        messages: [{ role: "user", content: prompt }],
        args: { reasoning_effort: "low" },
        responseFormat: { name: "RelevanceScore", schema: RATING_SCHEMA },
        callName: "reranker",
        ...(signal ? { signal } : {}),
      });
      const parsed = JSON.parse(response.content ?? "") as { relevance_score?: unknown };
      const score = parsed.relevance_score;
      if (typeof score !== "number" || !Number.isInteger(score))
        throw new Error(`The reranker's reply has no integer relevance_score: ${response.content}`);
      return score;
    },
  };
}

/** Options of {@link createRetrievalServices}. */
export interface RetrievalServicesOptions {
  /** Builds (and may throw for a missing key) the reranker's client. */
  createLlm: (model: string) => LlmClient;
  env?: Record<string, string | undefined>;
  embeddingsCacheDir?: string;
  onEvent?: LlmEventListener;
}

/** Embedder and reranker for a run; nothing is contacted (or required) until a config uses them. */
export function createRetrievalServices(options: RetrievalServicesOptions): RetrievalServices {
  let reranker: LlmClient | undefined;
  return {
    embedder: createEmbeddingClient({
      ...(options.env ? { env: options.env } : {}),
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    }),
    rater: llmRelevanceRater(() => {
      reranker ??= options.createLlm(RERANKER_MODEL);
      return reranker;
    }),
    ...(options.embeddingsCacheDir ? { embeddingsCacheDir: options.embeddingsCacheDir } : {}),
  };
}
