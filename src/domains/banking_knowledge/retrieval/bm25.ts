/**
 * BM25 exactly as upstream's retriever computes it: rank_bm25 0.2.2
 * `BM25Okapi` (k1 1.5, b 0.75, ε 0.25) over `text.lower().split()` tokens,
 * every operation in the library's order in IEEE doubles, with the natural
 * log correctly rounded as CPython's `math.log` gives it (V8's `Math.log`
 * differs in the last bit for about 2 % of the arguments), then the stable
 * descending sort and cut of upstream's `BM25Retriever` (spec §8.4).
 */

const K1 = 1.5;
const B = 0.75;
const EPSILON = 0.25;

// Python's str.split() separators: str.isspace() characters (not U+FEFF, unlike JavaScript's \s).
const PYTHON_WHITESPACE = /[\t\n\v\f\r \x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/** Python `text.lower().split()`. */
export function tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .split(PYTHON_WHITESPACE)
    .filter((token) => token !== "");
}

/** A built index over a corpus (token lists in corpus order). */
export class Bm25Index {
  readonly size: number;
  readonly averageLength: number;
  readonly averageIdf: number;
  /** idf per term (negative idfs already replaced by ε × average idf). */
  private readonly idf = new Map<string, number>();
  /** Per term: the documents containing it and the term's frequency there. */
  private readonly postings = new Map<string, { docs: Int32Array; freqs: Float64Array }>();
  /** Per document: `k1 * (1 - b + b * |d| / avgdl)`, the length part of the denominator. */
  private readonly lengthNorm: Float64Array;

  constructor(corpus: readonly (readonly string[])[]) {
    this.size = corpus.length;
    if (this.size === 0) throw new Error("BM25 needs at least one document");
    let totalTokens = 0;
    const documentFrequency = new Map<string, number>();
    const frequencies: Map<string, number>[] = [];
    for (const document of corpus) {
      totalTokens += document.length;
      const counts = new Map<string, number>();
      for (const token of document) counts.set(token, (counts.get(token) ?? 0) + 1);
      frequencies.push(counts);
      for (const term of counts.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    }
    this.averageLength = totalTokens / this.size;
    this.lengthNorm = new Float64Array(this.size);
    for (let i = 0; i < this.size; i++)
      this.lengthNorm[i] = K1 * (1 - B + (B * corpus[i]!.length) / this.averageLength);

    // _calc_idf: the sum runs over terms in first-appearance order, negatives included.
    let idfSum = 0;
    const negative: string[] = [];
    for (const [term, n] of documentFrequency) {
      const idf = pythonLog(this.size - n + 0.5) - pythonLog(n + 0.5);
      this.idf.set(term, idf);
      idfSum += idf;
      if (idf < 0) negative.push(term);
    }
    this.averageIdf = idfSum / this.idf.size;
    const floor = EPSILON * this.averageIdf;
    for (const term of negative) this.idf.set(term, floor);

    const lists = new Map<string, { docs: number[]; freqs: number[] }>();
    frequencies.forEach((counts, doc) => {
      for (const [term, f] of counts) {
        let list = lists.get(term);
        if (!list) {
          list = { docs: [], freqs: [] };
          lists.set(term, list);
        }
        list.docs.push(doc);
        list.freqs.push(f);
      }
    });
    for (const [term, list] of lists)
      this.postings.set(term, { docs: Int32Array.from(list.docs), freqs: Float64Array.from(list.freqs) });
  }

  /** `get_scores(query_tokens)`: one score per document, accumulated token by token. */
  scores(queryTokens: readonly string[]): Float64Array {
    const scores = new Float64Array(this.size);
    for (const token of queryTokens) {
      const idf = this.idf.get(token);
      const posting = this.postings.get(token);
      // Documents without the token add idf × 0 = 0, which leaves every score as it is.
      if (idf === undefined || idf === 0 || !posting) continue;
      const { docs, freqs } = posting;
      for (let i = 0; i < docs.length; i++) {
        const d = docs[i]!;
        const f = freqs[i]!;
        scores[d] = scores[d]! + idf * ((f * (K1 + 1)) / (f + this.lengthNorm[d]!));
      }
    }
    return scores;
  }

  /**
   * upstream `BM25Retriever.retrieve`: the first `min(topK, N)` documents by score, descending and
   * stable (ties in corpus order; zero scores fill the list). A blank query gives nothing.
   */
  top(query: string, topK: number): { index: number; score: number }[] {
    if (query.trim() === "") return [];
    const scores = this.scores(tokenize(query));
    const order = Array.from({ length: this.size }, (_, i) => i);
    order.sort((a, b) => scores[b]! - scores[a]! || a - b);
    return order.slice(0, Math.min(topK, this.size)).map((index) => ({ index, score: scores[index]! }));
  }
}

// ---------------------------------------------------------------------------
// Correctly rounded natural log

const PRECISION = 110n;

/** 2·atanh(num/den) in fixed point (|num/den| ≤ 0.172 gains 5 bits per term). */
function twiceAtanh(num: bigint, den: bigint): bigint {
  if (num < 0n) return -twiceAtanh(-num, den);
  const z = (num << PRECISION) / den;
  const z2 = (z * z) >> PRECISION;
  let term = z;
  let sum = 0n;
  for (let k = 1n; term !== 0n; k += 2n) {
    sum += term / k;
    term = (term * z2) >> PRECISION;
  }
  return 2n * sum;
}

const LN2 = twiceAtanh(1n, 3n);

const logCache = new Map<number, number>();

/**
 * `math.log(x)` for finite x > 0, rounded correctly to the nearest double (what CPython returns
 * on glibc for the arguments BM25 needs; checked against Python in the test vectors).
 */
export function pythonLog(x: number): number {
  const cached = logCache.get(x);
  if (cached !== undefined) return cached;
  if (!(x > 0) || !Number.isFinite(x)) return Math.log(x);
  // x = mantissa · 2^exponent with an integer mantissa.
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  let mantissa = bits & ((1n << 52n) - 1n);
  let exponent: number;
  if (biased === 0) exponent = -1074;
  else {
    mantissa |= 1n << 52n;
    exponent = biased - 1075;
  }
  // mantissa = m · 2^k with m in [1/√2, √2): ln x = ln m + (k + exponent) ln 2, and |atanh's z| ≤ 0.172.
  let k = mantissa.toString(2).length - 1;
  if (mantissa * mantissa > 2n * (1n << BigInt(2 * k))) k += 1;
  const scale = 1n << BigInt(k);
  const result = fixedToDouble(twiceAtanh(mantissa - scale, mantissa + scale) + BigInt(k + exponent) * LN2);
  logCache.set(x, result);
  return result;
}

/** A fixed-point value (PRECISION fraction bits) rounded to the nearest double, ties to even. */
function fixedToDouble(value: bigint): number {
  const negative = value < 0n;
  let magnitude = negative ? -value : value;
  if (magnitude === 0n) return 0;
  const length = magnitude.toString(2).length;
  let shift = length - 53;
  if (shift > 0) {
    const rest = magnitude & ((1n << BigInt(shift)) - 1n);
    magnitude >>= BigInt(shift);
    const half = 1n << BigInt(shift - 1);
    if (rest > half || (rest === half && (magnitude & 1n) === 1n)) magnitude += 1n;
  } else shift = 0;
  const result = Number(magnitude) * 2 ** (shift - Number(PRECISION));
  return negative ? -result : result;
}
