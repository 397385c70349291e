/**
 * Retries as data: exponential backoff with jitter, `retry-after` honoured,
 * a timeout per attempt and an AbortSignal for the whole call. Only transient
 * failures (429, 5xx, network, timeouts) are retried.
 */
import { LlmError } from "./errors.ts";
import type { LlmEventListener } from "./events.ts";

/** How a call is retried. Plain data so it can live in a run config. */
export interface RetryPolicy {
  /** Retries after the first attempt (upstream LiteLLM `num_retries` = 3). */
  maxRetries: number;
  /** Backoff before the first retry. */
  initialDelayMs: number;
  /** Cap of the exponential backoff. */
  maxDelayMs: number;
  /** Growth of the backoff per retry. */
  backoffFactor: number;
  /** Relative jitter in [0, 1]: a delay d becomes uniform in [d·(1−j), d·(1+j)]. */
  jitter: number;
  /** Cap on a provider's `retry-after` (a runaway header must not stall a run for hours). */
  maxRetryAfterMs: number;
}

/** The default policy: 3 retries like upstream, 1 s doubling to at most 60 s, ±20 % jitter. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  initialDelayMs: 1000,
  maxDelayMs: 60_000,
  backoffFactor: 2,
  jitter: 0.2,
  maxRetryAfterMs: 120_000,
};

/** Default per-attempt timeout (LiteLLM's default request timeout is 600 s). */
export const DEFAULT_TIMEOUT_MS = 600_000;

/** The delay before retry number `retry` (1-based), honouring the provider's `retry-after` if given. */
export function retryDelayMs(
  policy: RetryPolicy,
  retry: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, policy.maxRetryAfterMs);
  const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * policy.backoffFactor ** (retry - 1));
  const jittered = base * (1 - policy.jitter + 2 * policy.jitter * random());
  return Math.max(0, Math.min(policy.maxDelayMs, Math.round(jittered)));
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Marks an abort caused by our own per-attempt timeout (as opposed to the caller's signal). */
class AttemptTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms`);
    this.name = "AttemptTimeout";
  }
}

/** Options of {@link withRetry}. */
export interface WithRetryOptions {
  model: string;
  policy: RetryPolicy;
  /** Per attempt; null or 0 = no timeout. */
  timeoutMs: number | null;
  signal?: AbortSignal | undefined;
  onEvent?: LlmEventListener | undefined;
  /** Turns whatever an attempt threw into an {@link LlmError}. */
  classify: (error: unknown) => LlmError;
  random?: () => number;
}

/** The result of {@link withRetry}: the value and how many attempts it took. */
export interface Retried<T> {
  value: T;
  attempts: number;
}

/**
 * Runs `attempt` until it succeeds, a non-retryable error occurs, or the
 * retries are used up. The caller's abort is rethrown as is (not wrapped).
 */
export async function withRetry<T>(
  attempt: (signal: AbortSignal) => Promise<T>,
  options: WithRetryOptions,
): Promise<Retried<T>> {
  const { policy, signal, onEvent, model } = options;
  for (let attemptIndex = 0; ; attemptIndex++) {
    signal?.throwIfAborted();
    const controller = new AbortController();
    const onOuterAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onOuterAbort, { once: true });
    const timeoutMs = options.timeoutMs;
    const timer =
      timeoutMs && timeoutMs > 0
        ? setTimeout(() => controller.abort(new AttemptTimeout(timeoutMs)), timeoutMs)
        : undefined;
    let error: LlmError;
    try {
      const value = await attempt(controller.signal);
      return { value, attempts: attemptIndex + 1 };
    } catch (thrown) {
      if (signal?.aborted) throw signal.reason;
      if (controller.signal.aborted && controller.signal.reason instanceof AttemptTimeout) {
        error = new LlmError(`${model}: request ${controller.signal.reason.message}`, {
          kind: "timeout",
          model,
          cause: thrown,
        });
      } else {
        error = thrown instanceof LlmError ? thrown : options.classify(thrown);
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onOuterAbort);
    }
    if (error.kind === "rate_limit") {
      onEvent?.({ type: "rate_limited", model, retryAfterMs: error.retryAfterMs ?? null });
    }
    if (!error.isRetryable || attemptIndex >= policy.maxRetries) {
      onEvent?.({ type: "error", model, kind: error.kind, message: error.message });
      throw error;
    }
    const delayMs = retryDelayMs(policy, attemptIndex + 1, error.retryAfterMs, options.random);
    onEvent?.({
      type: "retry",
      model,
      attempt: attemptIndex + 1,
      delayMs,
      reason: error.message,
      kind: error.kind,
      statusCode: error.statusCode,
    });
    await sleep(delayMs, signal);
  }
}
