/**
 * Trial seeds exactly as upstream draws them (spec §2.9): CPython's
 * `random.seed(seed)` (MT19937 seeded by `init_by_array`) followed by
 * `random.randint(0, 1000000)` once per trial. Resume keys contain the seed,
 * so any other generator would make Python-produced runs unresumable.
 */

const N = 624;
const M = 397;
const MATRIX_A = 0x9908b0df;
const UPPER_MASK = 0x80000000;
const LOWER_MASK = 0x7fffffff;

/** CPython's Mersenne Twister (`_randommodule.c`), only the parts `randint` needs. */
export class MersenneTwister {
  private readonly state = new Uint32Array(N);
  private index = N + 1;

  /** Seeds like Python `random.seed(n)` for an int `n` (absolute value, 32-bit words, little end first). */
  constructor(seed: number | bigint) {
    let value = BigInt(seed);
    if (value < 0n) value = -value;
    const key: number[] = [];
    while (value > 0n) {
      key.push(Number(value & 0xffffffffn));
      value >>= 32n;
    }
    if (key.length === 0) key.push(0);
    this.initByArray(key);
  }

  private initGenrand(seed: number): void {
    const mt = this.state;
    mt[0] = seed >>> 0;
    for (let i = 1; i < N; i++) {
      const previous = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = (Math.imul(1812433253, previous) + i) >>> 0;
    }
    this.index = N;
  }

  private initByArray(key: readonly number[]): void {
    this.initGenrand(19650218);
    const mt = this.state;
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const previous = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = ((mt[i]! ^ Math.imul(previous, 1664525)) + key[j]! + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const previous = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = ((mt[i]! ^ Math.imul(previous, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  /** One 32-bit output (`genrand_uint32`). */
  nextUint32(): number {
    const mt = this.state;
    if (this.index >= N) {
      let kk = 0;
      for (; kk < N - M; kk++) {
        const y = (mt[kk]! & UPPER_MASK) | (mt[kk + 1]! & LOWER_MASK);
        mt[kk] = mt[kk + M]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      for (; kk < N - 1; kk++) {
        const y = (mt[kk]! & UPPER_MASK) | (mt[kk + 1]! & LOWER_MASK);
        mt[kk] = mt[kk + (M - N)]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      const y = (mt[N - 1]! & UPPER_MASK) | (mt[0]! & LOWER_MASK);
      mt[N - 1] = mt[M - 1]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      this.index = 0;
    }
    let y = mt[this.index++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** Python `getrandbits(k)` for 1 ≤ k ≤ 32: the top k bits of one output. */
  getRandBits(bits: number): number {
    if (bits < 1 || bits > 32) throw new RangeError(`getRandBits supports 1..32 bits, got ${bits}`);
    return bits === 32 ? this.nextUint32() : this.nextUint32() >>> (32 - bits);
  }

  /** Python `_randbelow(n)`: rejection sampling on `n.bit_length()` bits (n < 2^32). */
  randBelow(n: number): number {
    if (!Number.isInteger(n) || n <= 0 || n > 0xffffffff)
      throw new RangeError(`randBelow needs 0 < n < 2^32`);
    const bits = Math.floor(Math.log2(n)) + 1;
    let value = this.getRandBits(bits);
    while (value >= n) value = this.getRandBits(bits);
    return value;
  }

  /** Python `randint(a, b)`, both ends included. */
  randInt(low: number, high: number): number {
    return low + this.randBelow(high - low + 1);
  }
}

/** Upstream's per-trial seeds: `random.seed(seed)`, then `randint(0, 1000000)` per trial. */
export function trialSeeds(seed: number, numTrials: number): number[] {
  const generator = new MersenneTwister(seed);
  return Array.from({ length: numTrials }, () => generator.randInt(0, 1_000_000));
}
