import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { toolMessage } from "../../../cli/commands/tool.ts";
import { pyFixed } from "../../../core/py-json.ts";
import type { Domain } from "../../types.ts";
import { bankingKnowledgeDomain } from "../index.ts";
import { knowledgeBase } from "../knowledge-base.ts";
import { Bm25Index, tokenize } from "./bm25.ts";
import { countMatches, compilePattern, grepDocuments } from "./grep.ts";
import { bm25IndexFor } from "./tools.ts";

interface Vectors {
  synthetic: {
    documents: string[];
    average_idf: number;
    bm25: { query: string; top_k: number; results: [number, number][] }[];
    grep: { pattern: string; case_sensitive: boolean; results: [number, number][] }[];
  };
  knowledge_base: {
    documents: number;
    average_idf: number;
    avgdl: number;
    bm25: { query: string; top_k: number; results: [string, number][] }[];
    grep: { pattern: string; case_sensitive: boolean; results: [string, number][] }[];
  };
}

const vectors = JSON.parse(
  readFileSync(join(import.meta.dirname, "..", "fixtures", "retrieval-vectors.json"), "utf8"),
) as Vectors;

describe("BM25 as rank_bm25 0.2.2 computes it (vectors from scripts/make-retrieval-vectors.py)", () => {
  it("ranks and scores the synthetic corpus bit for bit, blank queries included", () => {
    const { documents, bm25 } = vectors.synthetic;
    const index = new Bm25Index(documents.map(tokenize));
    expect(index.averageIdf).toBe(vectors.synthetic.average_idf);
    for (const { query, top_k, results } of bm25) {
      expect(
        index.top(query, top_k).map((r) => [r.index, r.score]),
        JSON.stringify(query),
      ).toEqual(results);
    }
  });

  it("tokenizes like Python's str.lower().split() (Unicode spaces split, U+FEFF does not)", () => {
    expect(tokenize("A\u00a0b\u2003C\tfee, \ufeffx")).toEqual(["a", "b", "c", "fee,", "\ufeffx"]);
  });
});

describe("grep as upstream's retriever (Python re, literal fallback, findall counts)", () => {
  it("matches Python on the synthetic corpus for every pattern, case-insensitive and -sensitive", () => {
    const docs = vectors.synthetic.documents.map((content) => ({ content }));
    for (const { pattern, case_sensitive, results } of vectors.synthetic.grep) {
      expect(
        grepDocuments(docs, pattern, { topK: 10, caseSensitive: case_sensitive }).map((r) => [
          r.index,
          r.score,
        ]),
        `${pattern} (case ${case_sensitive ? "sensitive" : "insensitive"})`,
      ).toEqual(results);
    }
  });

  it("counts empty matches as Python's findall does", () => {
    expect(countMatches(compilePattern("x*", true), "abxd")).toBe(5);
    expect(countMatches(compilePattern("", true), "ab")).toBe(3);
    expect(countMatches(compilePattern("(unclosed", false), "(UNCLOSED (unclosed")).toBe(2);
  });
});

const dataDir = process.env.TAU_DATA_DIR;

describe.skipIf(!dataDir)(
  "knowledge-base retrieval on the official documents (skipped: TAU_DATA_DIR not set)",
  () => {
    let domain: Domain;
    const kbDir = join(dataDir ?? "", "domains", "banking_knowledge", "documents");
    beforeAll(() => {
      domain = bankingKnowledgeDomain.load(dataDir!);
    });
    const body = (content: string | null) => (content ?? "").split("\n\n[Timing: ")[0];
    const expectedText = (results: [string, number][]) => {
      const kb = knowledgeBase(kbDir);
      return results
        .map(([id, score], i) => {
          const doc = kb.byId.get(id)!;
          return `${i + 1}. ${doc.title}\n   ID: ${id}\n   Score: ${pyFixed(score, 4)}\n   Content: ${doc.content}\n`;
        })
        .join("\n");
    };

    it("builds upstream's index (698 documents in id order) and ranks every query bit for bit", () => {
      const kb = knowledgeBase(kbDir);
      expect(kb.documents).toHaveLength(vectors.knowledge_base.documents);
      const index = bm25IndexFor(kb);
      expect(index.averageLength).toBe(vectors.knowledge_base.avgdl);
      expect(index.averageIdf).toBe(vectors.knowledge_base.average_idf);
      for (const { query, top_k, results } of vectors.knowledge_base.bm25) {
        const got = index.top(query, top_k).map((r) => [kb.documents[r.index]!.id, r.score]);
        expect(got, query).toEqual(results);
      }
    });

    it("prints KB_search (bm25) and KB_search_bm25 exactly as upstream, timing line aside", async () => {
      const bm25 = domain.configure!({ retrievalConfig: "bm25" });
      const allTools = domain.configure!({ retrievalConfig: "alltools" });
      for (const { query, results } of vectors.knowledge_base.bm25.slice(0, 6)) {
        const expected = results.length === 0 ? "No relevant documents found." : expectedText(results);
        const search = await toolMessage({
          domain: bm25,
          name: "KB_search",
          argumentsJson: JSON.stringify({ query }),
        });
        expect(body(search.content), query).toBe(expected);
        expect(search.content).toMatch(/\n\n\[Timing: retrieval=\d+ms(, reranking=\d+ms)?, total=\d+ms\]$/);
        const k3 = await toolMessage({
          domain: allTools,
          name: "KB_search_bm25",
          argumentsJson: JSON.stringify({ query, k: 3 }),
        });
        expect(body(k3.content)).toBe(expectedText(results.slice(0, 3)));
      }
      const query = vectors.knowledge_base.bm25[0]!;
      const call = (args: Record<string, unknown>) =>
        toolMessage({
          domain: allTools,
          name: "KB_search_bm25",
          argumentsJson: JSON.stringify({ query: query.query, ...args }),
        });
      expect(body((await call({ k: 0 })).content)).toBe("No relevant documents found.");
      expect(body((await call({ k: -2 })).content)).toBe(expectedText(query.results.slice(0, -2)));
      expect(body((await call({ k: 50 })).content)).toBe(expectedText(query.results));
      const bad = await call({ k: "3" });
      expect([bad.error, bad.content]).toEqual([
        true,
        "Error: slice indices must be integers or None or have an __index__ method",
      ]);
      const blank = await toolMessage({ domain: bm25, name: "KB_search", argumentsJson: '{"query": "  "}' });
      expect(body(blank.content)).toBe("No relevant documents found.");
      const number = await toolMessage({ domain: bm25, name: "KB_search", argumentsJson: '{"query": 5}' });
      expect([number.error, number.content]).toEqual([true, "Error: 'int' object has no attribute 'strip'"]);
    });

    it("prints grep exactly as upstream for a spread of patterns", async () => {
      const grepOnly = domain.configure!({ retrievalConfig: "grep_only" });
      for (const { pattern, results } of vectors.knowledge_base.grep) {
        const message = await toolMessage({
          domain: grepOnly,
          name: "grep",
          argumentsJson: JSON.stringify({ pattern }),
        });
        expect(message.content, pattern).toBe(
          results.length === 0 ? `No matches found for pattern: ${pattern}` : expectedText(results),
        );
      }
    });
  },
);
