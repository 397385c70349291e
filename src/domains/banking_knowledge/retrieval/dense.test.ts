import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolMessage } from "../../../cli/commands/tool.ts";
import { createLlmClient } from "../../../llm/index.ts";
import { createRetrievalServices } from "../../../runner/retrieval-services.ts";
import { type FakeProvider, fakeEmbedding, startFakeProvider } from "../../../testing/fake-provider.ts";
import type { Domain } from "../../types.ts";
import { bankingKnowledgeDomain } from "../index.ts";
import { knowledgeBase } from "../knowledge-base.ts";
import { buildDenseIndex, embeddingsCacheKey, QWEN_QUERY_INSTRUCTION } from "./dense.ts";
import type { RetrievalServices } from "./tools.ts";

const dataDir = process.env.TAU_DATA_DIR;

/** Cosine similarity, written out independently of dense.ts. */
function cosine(a: number[], b: number[]): number {
  const dot = a.reduce((sum, x, i) => sum + x * b[i]!, 0);
  const norm = (v: number[]) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
  return dot / (norm(a) * norm(b));
}

describe.skipIf(!dataDir)(
  "dense retrieval and the LLM reranker against the fake provider (skipped: TAU_DATA_DIR not set)",
  () => {
    let fake: FakeProvider;
    let env: Record<string, string>;
    let cacheDir: string;
    const kbDir = join(dataDir ?? "", "domains", "banking_knowledge", "documents");
    const services = (overrides: Record<string, string | undefined> = {}): RetrievalServices => {
      const vars = { ...env, ...overrides };
      return createRetrievalServices({
        env: vars,
        embeddingsCacheDir: cacheDir,
        createLlm: (model) =>
          createLlmClient(model, { env: vars, baseUrl: fake.openaiBaseUrl, retry: { maxRetries: 0 } }),
      });
    };
    const configured = (config: string, overrides: Record<string, string | undefined> = {}): Domain =>
      bankingKnowledgeDomain.load(dataDir!).configure!({
        retrievalConfig: config,
        services: services(overrides),
      });
    const body = (content: string | null) => (content ?? "").split("\n\n[Timing: ")[0]!;
    const ids = (content: string | null) => [...body(content).matchAll(/^ {3}ID: (.+)$/gm)].map((m) => m[1]);
    const scores = (content: string | null) =>
      [...body(content).matchAll(/^ {3}Score: (.+)$/gm)].map((m) => m[1]);

    beforeAll(async () => {
      fake = await startFakeProvider({
        handler: (request) => {
          // The reranker: rate documents that mention "dispute" 8, the others 3.
          const prompt = String(request.body.messages?.[0]?.content ?? "");
          return {
            text: JSON.stringify({
              relevance_score: /dispute/i.test(prompt.split("Document:")[1] ?? "") ? 8 : 3,
            }),
          };
        },
      });
      cacheDir = mkdtempSync(join(tmpdir(), "tau-embeddings-"));
      env = {
        OPENAI_API_KEY: "test-openai",
        OPENAI_BASE_URL: fake.openaiBaseUrl,
        OPENROUTER_API_KEY: "test-openrouter",
        OPENROUTER_BASE_URL: fake.openrouterBaseUrl,
      };
    });
    afterAll(async () => {
      await fake.close();
    });

    it("embeds the documents once (cached on disk), each query once, and ranks by cosine similarity", async () => {
      const kb = knowledgeBase(kbDir);
      const domain = configured("openai_embeddings");
      const query = "How do I dispute a card charge?";
      const first = await toolMessage({
        domain,
        name: "KB_search",
        argumentsJson: JSON.stringify({ query }),
      });
      expect(first.error, first.content ?? "").toBe(false);
      const [documents, queryRequest] = fake.embeddingRequests;
      expect(documents?.model).toBe("text-embedding-3-large");
      expect(documents?.body.encoding_format).toBe("float");
      expect(documents?.input).toEqual(kb.documents.map((doc) => doc.content));
      expect(queryRequest?.input).toEqual([query]);
      const q = fakeEmbedding(query);
      const ranked = kb.documents
        .map((doc) => ({ id: doc.id, score: cosine(fakeEmbedding(doc.content), q) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, 10);
      expect(ids(first.content)).toEqual(ranked.map((r) => r.id));
      expect(scores(first.content)).toEqual(ranked.map((r) => r.score.toFixed(4)));
      // The same query again: no request at all.
      await toolMessage({ domain, name: "KB_search", argumentsJson: JSON.stringify({ query }) });
      expect(fake.embeddingRequests).toHaveLength(2);
      // Another process (a fresh load) reads the documents' vectors from the disk cache.
      const again = await toolMessage({
        domain: configured("openai_embeddings_grep"),
        name: "KB_search",
        argumentsJson: JSON.stringify({ query: "overdraft fees" }),
      });
      expect(again.error).toBe(false);
      expect(fake.embeddingRequests.map((r) => r.input.length)).toEqual([698, 1, 1]);
      expect(readdirSync(cacheDir)).toEqual([
        `${embeddingsCacheKey(kb.documents, "openai", "text-embedding-3-large")}.f64`,
      ]);
    });

    it("re-embeds when a document changes or the cached order differs", async () => {
      const kb = knowledgeBase(kbDir);
      const dir = mkdtempSync(join(tmpdir(), "tau-embeddings-"));
      const docs = kb.documents.slice(0, 5);
      const calls: number[] = [];
      const embedder = {
        embed: async ({ texts }: { texts: string[] }) => {
          calls.push(texts.length);
          return texts.map(fakeEmbedding);
        },
      };
      const build = (documents: typeof docs) =>
        buildDenseIndex({ documents, provider: "openai", model: "m", embedder, cacheDir: dir });
      await build(docs);
      await build(docs);
      expect(calls).toEqual([5]);
      await build([{ ...docs[0]!, content: `${docs[0]!.content} (changed)` }, ...docs.slice(1)]);
      expect(calls).toEqual([5, 5]);
      const key = embeddingsCacheKey(docs, "openai", "m");
      writeFileSync(join(dir, `${key}.f64`), `${JSON.stringify({ ids: ["x"], dimensions: 8 })}\n`);
      await build(docs);
      expect(calls).toEqual([5, 5, 5]);
    });

    it("sends Qwen queries with their instruction to OpenRouter's embeddings path", async () => {
      const before = fake.embeddingRequests.length;
      const domain = configured("alltools-qwen");
      const message = await toolMessage({
        domain,
        name: "KB_search_dense",
        argumentsJson: JSON.stringify({ query: "lost card", k: 2 }),
      });
      expect(message.error, message.content ?? "").toBe(false);
      expect(ids(message.content)).toHaveLength(2);
      const sent = fake.embeddingRequests.slice(before);
      expect(sent.map((r) => [r.path, r.model])).toEqual([
        ["/api/v1/embeddings", "qwen/qwen3-embedding-8b"],
        ["/api/v1/embeddings", "qwen/qwen3-embedding-8b"],
      ]);
      expect(sent[1]!.input).toEqual([`Instruct: ${QWEN_QUERY_INSTRUCTION}\nQuery:lost card`]);
      const blank = await toolMessage({ domain, name: "KB_search_dense", argumentsJson: '{"query": " "}' });
      expect([blank.error, blank.content]).toEqual([
        true,
        "Error: Empty or missing input for key 'query': cannot generate embedding from blank text.",
      ]);
    });

    it("reranks with the LLM's ratings: keeps those at the minimum or above, best first, printed as the score", async () => {
      const before = fake.requests.length;
      const domain = configured("bm25_reranker");
      const message = await toolMessage({
        domain,
        name: "KB_search",
        argumentsJson: JSON.stringify({ query: "credit card dispute" }),
      });
      expect(message.error, message.content ?? "").toBe(false);
      const rated = fake.requests.slice(before);
      expect(rated).toHaveLength(10);
      expect(rated[0]!.model).toBe("gpt-5.2");
      expect(rated[0]!.body.response_format?.type).toBe("json_schema");
      const kept = scores(message.content);
      expect(kept.length).toBeGreaterThan(0);
      expect(kept.every((s) => s === "8.0000")).toBe(true);
      expect(message.content).toMatch(/reranking=\d+ms/);
    });

    it("fails before the first simulation when a key or the configuration's model is missing", () => {
      expect(() => configured("alltools", { OPENAI_API_KEY: undefined }).checkRequirements!()).toThrow(
        /^Retrieval config 'alltools' needs openai's embedding model: OPENAI_API_KEY is not set/,
      );
      expect(() =>
        configured("qwen_embeddings", { OPENROUTER_API_KEY: undefined }).checkRequirements!(),
      ).toThrow(/OPENROUTER_API_KEY is not set/);
      expect(() => configured("bm25_reranker", { OPENAI_API_KEY: undefined }).checkRequirements!()).toThrow(
        /the LLM reranker's model: OPENAI_API_KEY is not set/,
      );
      expect(() => configured("bm25", {}).checkRequirements!()).not.toThrow();
    });
  },
);
