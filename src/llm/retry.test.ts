import { describe, expect, it } from "vitest";
import { kindForStatus, LlmError, type LlmErrorKind, parseRetryAfter } from "./errors.ts";
import type { LlmEvent } from "./events.ts";
import { DEFAULT_RETRY_POLICY, retryDelayMs, withRetry } from "./retry.ts";

describe("retry delays", () => {
  const policy = { ...DEFAULT_RETRY_POLICY, initialDelayMs: 100, maxDelayMs: 1000, jitter: 0.5 };
  it("grows exponentially, stays within the jitter band and the cap", () => {
    expect(retryDelayMs(policy, 1, undefined, () => 0.5)).toBe(100);
    expect(retryDelayMs(policy, 3, undefined, () => 0.5)).toBe(400);
    expect(retryDelayMs(policy, 1, undefined, () => 0)).toBe(50);
    expect(retryDelayMs(policy, 1, undefined, () => 1)).toBe(150);
    expect(retryDelayMs(policy, 10, undefined, () => 1)).toBe(1000);
  });
  it("uses retry-after when given, capped", () => {
    expect(retryDelayMs(policy, 1, 3000, () => 0.5)).toBe(3000);
    expect(retryDelayMs({ ...policy, maxRetryAfterMs: 500 }, 1, 3000)).toBe(500);
  });
});

describe("retry-after parsing", () => {
  it("reads retry-after-ms, seconds and HTTP dates", () => {
    expect(parseRetryAfter({ "retry-after-ms": "250", "retry-after": "9" })).toBe(250);
    expect(parseRetryAfter({ "Retry-After": "2" })).toBe(2000);
    expect(
      parseRetryAfter({ "retry-after": "Wed, 21 Oct 2015 07:28:05 GMT" }, Date.UTC(2015, 9, 21, 7, 28, 0)),
    ).toBe(5000);
    expect(parseRetryAfter({ "retry-after": "soon" })).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});

describe("status classification", () => {
  it("separates transient from permanent failures", () => {
    expect(kindForStatus(429, "")).toBe("rate_limit");
    expect(kindForStatus(429, '{"error":{"code":"insufficient_quota"}}')).toBe("quota");
    expect(kindForStatus(503, "")).toBe("server");
    expect(kindForStatus(529, "overloaded")).toBe("server");
    expect(kindForStatus(400, '{"error":{"code":"context_length_exceeded"}}')).toBe("context_overflow");
    expect(
      kindForStatus(400, "The input token count (1200000) exceeds the maximum number of tokens allowed"),
    ).toBe("context_overflow");
    expect(kindForStatus(400, "invalid tool schema")).toBe("bad_request");
    expect(new LlmError("x", { kind: "quota", model: "m" }).isRetryable).toBe(false);
    expect(new LlmError("x", { kind: "rate_limit", model: "m" }).isRetryable).toBe(true);
  });

  it("stops the run on what would fail every simulation alike: rejected key, unknown model, no quota", () => {
    const stops = (kind: LlmErrorKind) => new LlmError("x", { kind, model: "m" }).stopsRun;
    const kinds: LlmErrorKind[] = ["auth", "not_found", "quota", "bad_request", "context_overflow", "server"];
    // One conversation's 400 (flagged content, say) or overflow is that simulation's, not the run's.
    expect(kinds.map(stops)).toEqual([true, true, true, false, false, false]);
  });
});

describe("withRetry", () => {
  const options = (events: LlmEvent[]) => ({
    model: "m",
    policy: { ...DEFAULT_RETRY_POLICY, initialDelayMs: 1, maxDelayMs: 2 },
    timeoutMs: null,
    onEvent: (e: LlmEvent) => events.push(e),
    classify: () => new LlmError("boom", { kind: "server", model: "m" }),
  });

  it("retries transient errors up to maxRetries and then throws the last one", async () => {
    const events: LlmEvent[] = [];
    let calls = 0;
    const error = await withRetry(async () => {
      calls++;
      throw new Error("down");
    }, options(events)).catch((e) => e);
    expect(calls).toBe(4);
    expect(error).toBeInstanceOf(LlmError);
    expect(events.filter((e) => e.type === "retry")).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({ type: "error", kind: "server" });
  });

  it("returns the value and the number of attempts", async () => {
    let calls = 0;
    const result = await withRetry(async () => {
      if (++calls < 2) throw new Error("once");
      return "ok";
    }, options([]));
    expect(result).toEqual({ value: "ok", attempts: 2 });
  });

  it("rethrows the caller's abort reason during the backoff sleep", async () => {
    const controller = new AbortController();
    const reason = new Error("cancelled");
    const pending = withRetry(
      async () => {
        throw new LlmError("busy", { kind: "rate_limit", model: "m", retryAfterMs: 10_000 });
      },
      { ...options([]), signal: controller.signal },
    );
    setTimeout(() => controller.abort(reason), 20);
    await expect(pending).rejects.toBe(reason);
  });
});
