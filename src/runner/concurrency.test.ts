import { describe, expect, it } from "vitest";
import { createLlmClient, type LlmEvent } from "../llm/index.ts";
import type { LlmClient, LlmRequest, LlmResponse } from "../llm/types.ts";
import { startFakeProvider } from "../testing/fake-provider.ts";
import { AdaptiveLimiter, ProviderScheduler } from "./concurrency.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const response: LlmResponse = {
  content: "ok",
  toolCalls: null,
  usage: { prompt_tokens: 1, completion_tokens: 1 },
  costUsd: 0,
};

describe("AdaptiveLimiter", () => {
  it("never lets more than the limit in and serves waiters in order", async () => {
    const limiter = new AdaptiveLimiter({ initial: 2, max: 2 });
    const order: number[] = [];
    let peak = 0;
    let active = 0;
    await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const release = await limiter.acquire();
        active++;
        peak = Math.max(peak, active);
        order.push(i);
        await sleep(2);
        active--;
        release();
      }),
    );
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("halves once per cooldown window and grows back one slot per window of successes", () => {
    let now = 0;
    const limiter = new AdaptiveLimiter({ initial: 64, max: 64, cooldownMs: 1000, now: () => now });
    limiter.recordRateLimit();
    limiter.recordRateLimit(); // same burst: no second halving
    expect(limiter.limit).toBe(32);
    now = 1500;
    limiter.recordRateLimit();
    expect(limiter.limit).toBe(16);
    for (let i = 0; i < 16; i++) limiter.recordSuccess();
    expect(limiter.limit).toBe(16); // 16 + 16 * (1/16..) is just below 17 because the step shrinks
    for (let i = 0; i < 2; i++) limiter.recordSuccess();
    expect(limiter.limit).toBe(17);
    for (let i = 0; i < 10_000; i++) limiter.recordSuccess();
    expect(limiter.limit).toBe(64); // capped
    expect(limiter.stats()).toMatchObject({ rateLimited: 3, decreases: 2 });
  });

  it("never drops below one slot", () => {
    let now = 0;
    const limiter = new AdaptiveLimiter({ initial: 3, max: 3, cooldownMs: 1, now: () => now });
    for (let i = 0; i < 10; i++) {
      now += 10;
      limiter.recordRateLimit();
    }
    expect(limiter.limit).toBe(1);
  });

  it("a waiter can be aborted", async () => {
    const limiter = new AdaptiveLimiter({ initial: 1, max: 1 });
    const release = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort(new Error("stop"));
    await expect(waiting).rejects.toThrow("stop");
    release();
    expect(limiter.stats()).toMatchObject({ inFlight: 0, waiting: 0 });
  });
});

/** A provider that answers 429 while more than `capacity` calls are open at once. */
function fakeProvider(capacity: number, latencyMs: number) {
  let open = 0;
  let peak = 0;
  let rejected = 0;
  const client: LlmClient = {
    model: "fake/model",
    async generate(_request: LlmRequest) {
      open++;
      peak = Math.max(peak, open);
      try {
        await sleep(latencyMs);
        if (open > capacity) {
          rejected++;
          throw Object.assign(new Error("429 Too Many Requests"), { statusCode: 429 });
        }
        return response;
      } finally {
        open--;
      }
    },
  };
  return { client, stats: () => ({ peak, rejected }) };
}

describe("ProviderScheduler under injected 429s", () => {
  it("backs off to the provider's capacity and completes every call", async () => {
    const provider = fakeProvider(8, 3);
    const scheduler = new ProviderScheduler({ maxConcurrency: 64, cooldownMs: 5 });
    const client = scheduler.wrap(provider.client);
    let done = 0;
    // 64 concurrent workers each doing 12 calls, retrying a 429 after a short pause.
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        for (let call = 0; call < 12; call++) {
          for (;;) {
            try {
              await client.generate({ messages: [] });
              done++;
              break;
            } catch {
              await sleep(1);
            }
          }
        }
      }),
    );
    expect(done).toBe(64 * 12);
    const stats = scheduler.stats().get("fake/model")!;
    expect(stats.decreases).toBeGreaterThanOrEqual(3); // 64 → 32 → 16 → 8
    expect(stats.limit).toBeLessThanOrEqual(16);
    expect(provider.stats().rejected).toBeGreaterThan(0);
    // Most calls got through without a 429 once the limit adapted.
    expect(provider.stats().rejected).toBeLessThan(done);
  });

  it("keeps separate queues per key and counts rate-limit events", () => {
    const scheduler = new ProviderScheduler(
      { maxConcurrency: 10, cooldownMs: 0 },
      (model) => model.split("/")[0]!,
    );
    scheduler.rateLimited("openai/gpt-4.1");
    scheduler.rateLimited("openai/gpt-4.1-mini");
    expect(scheduler.limiter("openai").limit).toBe(2);
    expect(scheduler.limiter("anthropic").limit).toBe(10);
  });
});

describe("ProviderScheduler with the LLM layer", () => {
  it("counts each 429 once: the layer's event, not the error it throws after its last retry", async () => {
    const fake = await startFakeProvider({ handler: () => ({ kind: "error", status: 429 }) });
    try {
      const scheduler = new ProviderScheduler({ maxConcurrency: 4, cooldownMs: 0 });
      const events: LlmEvent[] = [];
      const client = scheduler.wrap(
        createLlmClient("openai/gpt-4.1", {
          baseUrl: fake.openaiBaseUrl,
          env: { OPENAI_API_KEY: "sk-test" },
          retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 2 },
          onEvent: (event) => {
            events.push(event);
            if (event.type === "rate_limited") scheduler.rateLimited(event.model);
          },
        }),
      );
      await expect(client.generate({ messages: [{ role: "user", content: "hi" }] })).rejects.toThrow(
        /HTTP 429/,
      );
      expect(fake.callCount).toBe(3);
      expect(events.filter((event) => event.type === "rate_limited")).toHaveLength(3);
      expect(scheduler.stats().get("openai/gpt-4.1")).toMatchObject({ rateLimited: 3 });
    } finally {
      await fake.close();
    }
  });
});
