/**
 * Concurrency control for LLM traffic: one {@link AdaptiveLimiter} per
 * provider+model key, AIMD style (halve on a 429, grow by about one slot per
 * window of successful calls), each capped by the run's `--max-concurrency`.
 * Offline participants never touch it.
 */
import { LlmError } from "../llm/errors.ts";
import type { LlmClient, LlmRequest, LlmResponse } from "../llm/types.ts";

/** Time source, injectable for tests. */
export type Clock = () => number;

/** Settings of one limiter. */
export interface AdaptiveLimiterOptions {
  /** Slots at the start; optimistic (the cap) unless told otherwise. */
  initial: number;
  /** Hard ceiling (the run's `--max-concurrency`). */
  max: number;
  /** Floor the limit never goes below. */
  min?: number;
  /** Further 429s within this window after a decrease do not halve again (one burst = one signal). */
  cooldownMs?: number;
  now?: Clock;
}

/** Counters a limiter exposes for progress and tests. */
export interface LimiterStats {
  limit: number;
  inFlight: number;
  waiting: number;
  rateLimited: number;
  decreases: number;
}

/** One caller waiting in a FIFO line for a `T` (a slot, a lease). */
export interface Waiter<T> {
  resolve(value: T): void;
  reject(error: unknown): void;
}

/**
 * Joins `line` and resolves when the line's owner hands this waiter a value; an abort of
 * `signal` leaves the line and rejects with the signal's reason.
 */
export function waitInLine<T>(line: Waiter<T>[], signal?: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const waiter: Waiter<T> = { resolve, reject };
    line.push(waiter);
    signal?.addEventListener(
      "abort",
      () => {
        const index = line.indexOf(waiter);
        if (index >= 0) {
          line.splice(index, 1);
          reject(signal.reason);
        }
      },
      { once: true },
    );
  });
}

/** An AIMD concurrency limit with a FIFO wait line. */
export class AdaptiveLimiter {
  private current: number;
  private readonly max: number;
  private readonly min: number;
  private readonly cooldownMs: number;
  private readonly now: Clock;
  private lastDecrease = Number.NEGATIVE_INFINITY;
  private active = 0;
  private readonly waiters: Waiter<() => void>[] = [];
  private rateLimitedCount = 0;
  private decreaseCount = 0;

  constructor(options: AdaptiveLimiterOptions) {
    this.max = Math.max(1, Math.floor(options.max));
    this.min = Math.max(1, Math.min(this.max, Math.floor(options.min ?? 1)));
    this.current = Math.min(this.max, Math.max(this.min, options.initial));
    this.cooldownMs = options.cooldownMs ?? 1000;
    this.now = options.now ?? Date.now;
  }

  /** The whole number of slots currently allowed. */
  get limit(): number {
    return Math.floor(this.current);
  }

  /** Counters for progress display. */
  stats(): LimiterStats {
    return {
      limit: this.limit,
      inFlight: this.active,
      waiting: this.waiters.length,
      rateLimited: this.rateLimitedCount,
      decreases: this.decreaseCount,
    };
  }

  /** Waits for a slot; the returned function gives it back (idempotent). */
  acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.active < this.limit && this.waiters.length === 0) return Promise.resolve(this.grant());
    return waitInLine(this.waiters, signal);
  }

  private grant(): () => void {
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.wake();
    };
  }

  private wake(): void {
    while (this.waiters.length > 0 && this.active < this.limit) this.waiters.shift()!.resolve(this.grant());
  }

  /** Additive increase: about one more slot after a full window of successes. */
  recordSuccess(): void {
    if (this.current >= this.max) return;
    this.current = Math.min(this.max, this.current + 1 / Math.max(1, this.current));
    this.wake();
  }

  /** Multiplicative decrease on a rate-limit signal (at most once per cooldown window). */
  recordRateLimit(): void {
    this.rateLimitedCount++;
    const now = this.now();
    if (now - this.lastDecrease < this.cooldownMs) return;
    this.lastDecrease = now;
    const next = Math.max(this.min, Math.floor(this.current / 2));
    if (next < this.current) {
      this.current = next;
      this.decreaseCount++;
    }
  }
}

/** True for errors that mean "slow down" (HTTP 429), whatever layer threw them. */
export function isRateLimitError(error: unknown): boolean {
  return (
    typeof error === "object" && error !== null && (error as { statusCode?: unknown }).statusCode === 429
  );
}

/** Hands out one limiter per provider key and wraps clients so every call holds a slot. */
export class ProviderScheduler {
  private readonly limiters = new Map<string, AdaptiveLimiter>();

  constructor(
    private readonly options: { maxConcurrency: number; cooldownMs?: number; now?: Clock },
    /** Maps a `provider/model` name to its queue key. */
    private readonly keyOf: (model: string) => string = (model) => model,
  ) {}

  /** The limiter for a queue key (created on first use, starting at the cap). */
  limiter(key: string): AdaptiveLimiter {
    let limiter = this.limiters.get(key);
    if (!limiter) {
      limiter = new AdaptiveLimiter({
        initial: this.options.maxConcurrency,
        max: this.options.maxConcurrency,
        ...(this.options.cooldownMs === undefined ? {} : { cooldownMs: this.options.cooldownMs }),
        ...(this.options.now === undefined ? {} : { now: this.options.now }),
      });
      this.limiters.set(key, limiter);
    }
    return limiter;
  }

  /** Reports a rate-limit signal seen by the LLM layer (a retried 429) for a model. */
  rateLimited(model: string): void {
    this.limiter(this.keyOf(model)).recordRateLimit();
  }

  /** Per-key counters. */
  stats(): Map<string, LimiterStats> {
    return new Map([...this.limiters].map(([key, limiter]) => [key, limiter.stats()]));
  }

  /** A client whose calls wait for a slot on the model's queue and feed the limiter. */
  wrap(client: LlmClient): LlmClient {
    const limiter = this.limiter(this.keyOf(client.model));
    return {
      model: client.model,
      ...(client.endpoint ? { endpoint: client.endpoint.bind(client) } : {}),
      async generate(request: LlmRequest): Promise<LlmResponse> {
        const release = await limiter.acquire(request.signal);
        try {
          const response = await client.generate(request);
          limiter.recordSuccess();
          return response;
        } catch (error) {
          // The LLM layer reports every 429 it saw as a `rate_limited` event (the runner feeds those to
          // {@link rateLimited}), the last one before it gave up included: counting its error again
          // would count that 429 twice. Only a client outside that layer is heard through its errors.
          if (isRateLimitError(error) && !(error instanceof LlmError)) limiter.recordRateLimit();
          throw error;
        } finally {
          release();
        }
      },
    };
  }
}
