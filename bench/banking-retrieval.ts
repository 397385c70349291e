/**
 * banking_knowledge's offline retrieval: loading the 698-document knowledge
 * base, building upstream's BM25 index over it, and the latency of one BM25
 * query and one grep (index and documents already in memory), through the
 * same code the `KB_search` / `KB_search_bm25` / `grep` tools run.
 */
import { join } from "node:path";
import { knowledgeBase } from "../src/domains/banking_knowledge/knowledge-base.ts";
import { Bm25Index, tokenize } from "../src/domains/banking_knowledge/retrieval/bm25.ts";
import { grepDocuments } from "../src/domains/banking_knowledge/retrieval/grep.ts";
import { type BenchModule, type BenchResult, timeMedianMs } from "./harness.ts";

/** Targets from the issue (ms). */
export const RETRIEVAL_TARGETS = { bm25QueryMs: 2 };

/** Agent-like queries (the test vectors' spread). */
const QUERIES = [
  "credit card dispute",
  "annual fee",
  "how do I close my checking account",
  "lost debit card replacement",
  "cash back rewards",
  "transfer to human agent",
  "early closure fee savings",
  "credit limit increase",
];

export const bankingRetrievalBench: BenchModule = {
  name: "banking-retrieval",
  description: "banking_knowledge: knowledge-base load, BM25 index build and query, grep",
  run(context) {
    const results: BenchResult[] = [];
    const add = (metric: string, value: number, target?: number, note?: string) =>
      results.push({
        subject: "banking_knowledge",
        metric,
        value,
        unit: "ms",
        ...(target !== undefined ? { target } : {}),
        ...(note ? { note } : {}),
      });
    const dir = join(context.dataDir, "domains", "banking_knowledge", "documents");
    const loadStart = performance.now();
    const kb = knowledgeBase(dir);
    add(
      "load knowledge base (once)",
      performance.now() - loadStart,
      undefined,
      `${kb.documents.length} documents`,
    );
    const tokenized = kb.documents.map((doc) => tokenize(doc.content));
    const buildStart = performance.now();
    const index = new Bm25Index(tokenized);
    add(
      "BM25 index build (once)",
      performance.now() - buildStart,
      undefined,
      "tokenized; first build, cold logs",
    );
    add(
      "BM25 index build, tokenizing included",
      timeMedianMs(() => new Bm25Index(kb.documents.map((doc) => tokenize(doc.content))), {
        samples: Math.max(3, Math.ceil(11 * context.scale)),
        warmup: 2,
      }),
    );
    let q = 0;
    add(
      "BM25 query (top 10 of 698)",
      timeMedianMs(() => index.top(QUERIES[q++ % QUERIES.length]!, 10), {
        samples: Math.ceil(101 * context.scale),
        batch: 8,
      }),
      RETRIEVAL_TARGETS.bm25QueryMs,
      `${QUERIES.length} queries in turn`,
    );
    let p = 0;
    const patterns = ["fee", "annual.*fee", "\\bATM\\b", "dispute|chargeback"];
    add(
      "grep (Python-semantics regex over 698 documents)",
      timeMedianMs(
        () =>
          grepDocuments(kb.documents, patterns[p++ % patterns.length]!, { topK: 10, caseSensitive: false }),
        {
          samples: Math.ceil(31 * context.scale),
          batch: 4,
        },
      ),
      undefined,
      `${patterns.length} patterns in turn`,
    );
    return results;
  },
};
