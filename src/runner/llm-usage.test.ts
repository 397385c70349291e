import { describe, expect, it } from "vitest";
import { PyFloat, pyDumps } from "../core/py-json.ts";
import type { LlmEvent } from "../llm/events.ts";
import {
  emptyRunUsage,
  formatUsageLine,
  LlmUsageCounter,
  parseRunUsage,
  runUsageToPy,
  sumRunUsage,
} from "./llm-usage.ts";

const call = (model: string, cached: boolean, costUsd: number | null): LlmEvent => ({
  type: "call",
  model,
  callName: undefined,
  usage: { prompt_tokens: 1000, completion_tokens: 20, cache_read_tokens: 800, cache_write_tokens: 100 },
  costUsd,
  durationMs: 5,
  attempts: 1,
  cached,
});

describe("LlmUsageCounter", () => {
  it("counts provider calls, cache hits apart, retries, 429s, failures, tokens and cost per model", () => {
    const counter = new LlmUsageCounter();
    counter.onLlmEvent(call("a", false, 0.5));
    counter.onLlmEvent(call("a", true, 0.5)); // a cache hit costs nothing
    counter.onLlmEvent(call("b", false, null)); // unpriced model
    counter.onLlmEvent({ type: "rate_limited", model: "b", retryAfterMs: 1000 });
    counter.onLlmEvent({
      type: "retry",
      model: "b",
      attempt: 1,
      delayMs: 1000,
      reason: "429",
      kind: "rate_limit",
      statusCode: 429,
    });
    counter.onLlmEvent({ type: "error", model: "a", kind: "server", message: "down" });
    counter.onLlmEvent({ type: "debug", model: "a", message: "ignored" });
    counter.simulationRetried();
    const usage = counter.snapshot();
    expect(usage).toMatchObject({
      provider_calls: 2,
      cached_calls: 1,
      failed_calls: 1,
      retries: 1,
      rate_limited: 1,
      prompt_tokens: 2000,
      completion_tokens: 40,
      cache_read_tokens: 1600,
      cache_write_tokens: 200,
      cost_usd: 0.5,
      unpriced_calls: 1,
      simulation_retries: 1,
    });
    expect(usage.by_model.a).toMatchObject({ provider_calls: 1, cached_calls: 1, failed_calls: 1 });
    expect(usage.by_model.b).toMatchObject({
      provider_calls: 1,
      retries: 1,
      rate_limited: 1,
      unpriced_calls: 1,
    });
    expect(counter.version).toBe(7); // the debug event changes nothing
    // The snapshot is a copy.
    counter.onLlmEvent(call("a", false, 1));
    expect(usage.provider_calls).toBe(2);
  });
});

describe("recorded usage", () => {
  it("sums sessions and formats the summary line", () => {
    const one = { ...emptyRunUsage(), provider_calls: 10, retries: 2, rate_limited: 1, prompt_tokens: 5000 };
    const two = { ...emptyRunUsage(), provider_calls: 5, completion_tokens: 300, cache_read_tokens: 4000 };
    const total = sumRunUsage([one, { ...two, cost_usd: 1.23456 }]);
    expect(formatUsageLine(total)).toBe(
      "Provider calls 15 · retries 2 · 429s 1 · tokens in/out/cache-read 5000/300/4000 · cost $1.2346",
    );
    expect(
      formatUsageLine({
        ...total,
        cached_calls: 3,
        failed_calls: 1,
        cache_write_tokens: 7,
        unpriced_calls: 2,
        simulation_retries: 4,
      }),
    ).toBe(
      "Provider calls 15 (+3 from cache, 1 failed) · retries 2 · 429s 1 · tokens in/out/cache-read 5000/300/4000 · cache-write 7 · cost $1.2346 (+2 unpriced calls) · simulation re-runs 4",
    );
  });

  it("writes the cost as a Python float and reads it back; junk is ignored", () => {
    const py = runUsageToPy({ ...emptyRunUsage(), by_model: { m: { ...emptyRunUsage(), cost_usd: 2 } } });
    expect(py.cost_usd).toBeInstanceOf(PyFloat);
    expect(pyDumps(py)).toContain('"cost_usd": 0.0');
    expect(pyDumps(py)).toContain('"by_model": {"m": {"provider_calls": 0');
    expect(parseRunUsage(py)?.by_model.m?.cost_usd).toBe(2);
    expect(parseRunUsage(undefined)).toBeNull();
    expect(parseRunUsage({ provider_calls: "many" })).toBeNull();
    // Counters added by a later version default to 0 when missing.
    expect(parseRunUsage({ provider_calls: 3 })?.retries).toBe(0);
  });
});
