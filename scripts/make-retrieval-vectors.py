#!/usr/bin/env python3
"""Writes src/domains/banking_knowledge/fixtures/retrieval-vectors.json: what
upstream's banking_knowledge retrievers return, computed here in Python with
the same arithmetic, for taubench's TypeScript versions to match exactly.

* BM25: rank_bm25 0.2.2's `BM25Okapi` algorithm (k1 1.5, b 0.75, epsilon 0.25),
  written out below from the library's published definition (this machine has
  no PyPI): idf = log(N - n + 0.5) - log(n + 0.5) over terms in first-appearance
  order, negative idfs floored to epsilon times the average idf, and the score
  accumulated query token by query token as idf * (f * (k1 + 1)) /
  (f + k1 * (1 - b + b * |d| / avgdl)) in float64 (numpy when available, which
  gives the same doubles); then upstream's BM25Retriever ordering (stable
  descending sort, first min(top_k, N), zero scores included).
* grep: Python `re` with IGNORECASE (or not), the literal fallback of a pattern
  that does not compile, and `len(findall(content))` as the score.

Two corpora: a small synthetic one (ours) that exercises the corner cases, and
the official knowledge base in id order (only ids and scores are written).

    python3 scripts/make-retrieval-vectors.py /path/to/tau2-data
"""

import json
import math
import re
import sys
from pathlib import Path

try:
    import numpy as np
except ImportError:  # the plain loops below give the same doubles
    np = None

OUT = (
    Path(__file__).resolve().parent.parent
    / "src"
    / "domains"
    / "banking_knowledge"
    / "fixtures"
    / "retrieval-vectors.json"
)

K1, B, EPSILON = 1.5, 0.75, 0.25


class Okapi:
    """BM25Okapi as rank_bm25 0.2.2 computes it."""

    def __init__(self, corpus):
        self.size = len(corpus)
        self.lengths = [len(doc) for doc in corpus]
        self.avgdl = sum(self.lengths) / self.size
        self.freqs = []
        document_frequency = {}
        for doc in corpus:
            counts = {}
            for token in doc:
                counts[token] = counts.get(token, 0) + 1
            self.freqs.append(counts)
            for token in counts:
                document_frequency[token] = document_frequency.get(token, 0) + 1
        self.idf = {}
        total = 0
        negative = []
        for token, n in document_frequency.items():
            value = math.log(self.size - n + 0.5) - math.log(n + 0.5)
            self.idf[token] = value
            total += value
            if value < 0:
                negative.append(token)
        self.average_idf = total / len(self.idf)
        for token in negative:
            self.idf[token] = EPSILON * self.average_idf

    def scores(self, query):
        if np is not None:
            score = np.zeros(self.size)
            lengths = np.array(self.lengths)
            for q in query:
                f = np.array([(doc.get(q) or 0) for doc in self.freqs])
                score += (self.idf.get(q) or 0) * (f * (K1 + 1) / (f + K1 * (1 - B + B * lengths / self.avgdl)))
            return [float(s) for s in score]
        score = [0.0] * self.size
        for q in query:
            idf = self.idf.get(q) or 0
            for i, doc in enumerate(self.freqs):
                f = doc.get(q) or 0
                score[i] += idf * (f * (K1 + 1) / (f + K1 * (1 - B + B * self.lengths[i] / self.avgdl)))
        return score

    def top(self, query_text, top_k):
        if not query_text or not query_text.strip():
            return []
        scores = self.scores(query_text.lower().split())
        order = sorted(range(len(scores)), key=lambda i: scores[i], reverse=True)[: min(top_k, self.size)]
        return [[i, scores[i]] for i in order]


def grep(contents, pattern, case_sensitive, top_k):
    if not pattern.strip():
        return []
    flags = 0 if case_sensitive else re.IGNORECASE
    try:
        compiled = re.compile(pattern, flags)
    except re.error:
        compiled = re.compile(re.escape(pattern), flags)
    results = []
    for i, content in enumerate(contents):
        n = len(compiled.findall(content))
        if n:
            results.append([i, float(n)])
    results.sort(key=lambda r: r[1], reverse=True)
    return results[:top_k]


SYNTHETIC = [
    "The annual fee is waived in the first year. Annual fee: $95.",
    "Late fee, returned payment fee and foreign transaction fee are listed below.",
    "A checking account with no monthly fee. Fees apply for overdrafts.",
    "the the the the the the the the",
    "Wire transfers take one business day.\u00a0Domestic\u2003wires cost $25.",
    "Savings accounts earn interest monthly; interest compounds daily.",
    "",
    "Crédit café naïve ÜBER straße",
    "Line one.\nLine two fee.\n",
    "fee fee fee fee fee fee fee fee fee fee fee fee fee fee fee fee",
    "Dispute a charge within 60 days. Disputes are reviewed in 10 business days.",
    "ATM withdrawals: 4 free per month, then $2.50 each.",
    "the fee",
]

BM25_QUERIES = [
    "annual fee",
    "fee",
    "the",
    "the the fee",
    "wire transfer",
    "interest",
    "unknownword",
    "",
    "   ",
    "FEE Fee fee,",
    "crédit straße",
    "dispute charge days",
]

KB_QUERIES = [
    "credit card dispute",
    "annual fee",
    "how do I close my checking account",
    "lost debit card replacement",
    "cash back rewards",
    "transfer to human agent",
    "referral bonus",
    "overdraft",
    "Platinum Rewards Card",
    "early closure fee savings",
    "the",
    "zzzunknownzzz",
    "ATM fee refund",
    "credit limit increase",
    "unlock_discoverable_agent_tool",
    "verify identity date of birth",
]

GREP_PATTERNS = [
    "fee",
    "annual.*fee",
    "fee|charge",
    r"\bATM\b",
    "[",
    "(unclosed",
    "Fee",
    r"\$\d+",
    r"^#",
    r"days\.",
    r"(?P<word>fee)",
    r"(?i)ANNUAL",
    "a*",
    r"\d{2,3}",
    "crédit",
    r"\s{2,}",
    r"business\s+day",
    r"(?<n>x)",
    "[aeiou]{3}",
    r"\w+@\w+\.com",
    r"fee\.$",
    r"\Z",
    r"[^a-z ]",
    r"\bfee\b",
    r"(?s)fee.",
    r"\w+é",
    r"[\w-]+fee",
    "]",
    "{",
    r"a{,3}",
    r"\d+\.\d{2}",
    r"(fee) \1",
    r"(?P<f>fee) (?P=f)",
    r"fee(?=,)",
    r"(?<=late )fee",
    r"\$\d+(?:\.\d+)?",
    r"[A-Z][a-z]+ [A-Z][a-z]+",
    r"\\",
    r"\-",
    r"(?#comment)fee",
]


def main():
    data_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else None
    tokenized = [text.lower().split() for text in SYNTHETIC]
    synthetic = Okapi(tokenized)
    out = {
        "what": "BM25 (rank_bm25 0.2.2 BM25Okapi) and grep results of upstream's retrievers, from scripts/make-retrieval-vectors.py",
        "synthetic": {
            "documents": SYNTHETIC,
            "average_idf": synthetic.average_idf,
            "bm25": [{"query": q, "top_k": 10, "results": synthetic.top(q, 10)} for q in BM25_QUERIES],
            "grep": [
                {"pattern": p, "case_sensitive": cs, "results": grep(SYNTHETIC, p, cs, 10)}
                for p in GREP_PATTERNS
                for cs in (False, True)
            ],
        },
    }
    if data_dir is not None:
        docs_dir = data_dir / "domains" / "banking_knowledge" / "documents"
        docs = [json.loads(path.read_text()) for path in docs_dir.glob("*.json")]
        docs.sort(key=lambda d: d["id"])
        contents = [d["content"] for d in docs]
        kb = Okapi([c.lower().split() for c in contents])
        ids = [d["id"] for d in docs]
        out["knowledge_base"] = {
            "documents": len(docs),
            "average_idf": kb.average_idf,
            "avgdl": kb.avgdl,
            "bm25": [
                {"query": q, "top_k": 10, "results": [[ids[i], s] for i, s in kb.top(q, 10)]} for q in KB_QUERIES
            ],
            "grep": [
                {"pattern": p, "case_sensitive": False, "results": [[ids[i], s] for i, s in grep(contents, p, False, 10)]}
                for p in GREP_PATTERNS
            ],
        }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
