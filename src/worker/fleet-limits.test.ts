import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LlmClient, LlmRequest, LlmResponse } from "../llm/types.ts";
import { FleetLimits } from "./fleet-limits.ts";
import { hasRedisServer, startRedis, type TestRedis } from "./redis-harness.ts";

const redisPresent = hasRedisServer();
if (!redisPresent) console.log("fleet limit tests skipped: redis-server is not installed");

/** One provider's calls, each held until the test ends it; counts what is in flight at once. */
function provider() {
  const pending: (() => void)[] = [];
  let active = 0;
  const client: LlmClient = {
    model: "local/fake",
    generate: () =>
      new Promise<LlmResponse>((resolve) => {
        active++;
        pending.push(() => {
          active--;
          resolve({ content: "ok", toolCalls: null, costUsd: null } as unknown as LlmResponse);
        });
      }),
  };
  return {
    client,
    get active() {
      return active;
    },
    finishOne() {
      pending.shift()!();
    },
  };
}

const until = async (condition: () => boolean | Promise<boolean>, timeoutMs = 20_000) => {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

const call = (client: LlmClient) => client.generate({} as LlmRequest);

describe.skipIf(!redisPresent)("fleet limits on a real redis-server (skipped: no redis-server)", () => {
  let redis: TestRedis;
  const connections: Redis[] = [];
  const fleets: FleetLimits[] = [];
  const connect = () => {
    const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    connections.push(connection);
    return connection;
  };
  const fleet = (workerId: string, leaseMs = 60_000) => {
    const limits = new FleetLimits({ redis: connect(), workerId, leaseMs, pollMs: 20 });
    fleets.push(limits);
    return limits;
  };
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const limits of fleets) limits.close();
    for (const connection of connections) connection.disconnect();
    await redis?.stop();
  });

  it("two workers share one limit: a decrease by one binds the other, and only calls begun since grow it back", async () => {
    const [a, b] = [fleet("a"), fleet("b")];
    const calls = provider();
    const viaA = a.wrap("run1", "local", 4, calls.client);
    const viaB = b.wrap("run1", "local", 4, calls.client);
    const state = connect();
    const done = [call(viaA), call(viaA)];
    await until(() => calls.active === 2);
    done.push(call(viaB), call(viaB), call(viaB));
    await until(() => calls.active === 4);
    expect(b.stats("run1").get("local")).toMatchObject({ inFlight: 2, waiting: 1 });

    await a.decrease("run1", "local", 4);
    expect(await state.hget("taubench:fleet:run1:local", "limit")).toBe("2");
    // Two of the four end: two calls still hold the two slots left, so B's fifth does not start.
    calls.finishOne();
    calls.finishOne();
    await until(async () => (await state.zcard("taubench:fleet:run1:local:leases")) === 2);
    await state.ping();
    expect(calls.active).toBe(2);
    expect(b.stats("run1").get("local")).toMatchObject({ waiting: 1 });
    // A third ends: the fifth starts in its place.
    calls.finishOne();
    await until(() => b.stats("run1").get("local")?.waiting === 0);
    expect(calls.active).toBe(2);
    calls.finishOne();
    await until(() => calls.active === 1);
    // The four successes came from calls begun before the decrease: the limit stays halved.
    expect(await state.hget("taubench:fleet:run1:local", "limit")).toBe("2");
    // B's fifth call holds one of the two slots now; of A's four new calls only one gets the other.
    done.push(call(viaA), call(viaA), call(viaA), call(viaA));
    await until(() => calls.active === 2);
    await state.ping();
    expect(calls.active).toBe(2);
    expect(a.stats("run1").get("local")).toMatchObject({ inFlight: 1, waiting: 3 });
    // Calls begun since the decrease that succeed grow it again (by 1/limit each).
    for (let i = 0; i < 5; i++) {
      await until(() => calls.active > 0);
      calls.finishOne();
    }
    await Promise.all(done);
    expect(Number(await state.hget("taubench:fleet:run1:local", "limit"))).toBeGreaterThan(3);
    expect(await state.zcard("taubench:fleet:run1:local:leases")).toBe(0);
  }, 60_000);

  it("a worker that stops renewing (killed) gives its slot back after leaseMs; while it renews, it keeps it", async () => {
    const calls = provider();
    const killed = fleet("killed", 300);
    const survivor = fleet("survivor", 300);
    const holding = call(killed.wrap("run2", "local", 1, calls.client));
    await until(() => calls.active === 1);
    const waiting = call(survivor.wrap("run2", "local", 1, calls.client));
    // Four lease periods: the renewals keep the slot the killed-to-be worker's.
    const started = Date.now();
    await until(() => Date.now() - started > 1200);
    expect(calls.active).toBe(1);
    expect(survivor.stats("run2").get("local")).toMatchObject({ inFlight: 0, waiting: 1 });
    // It stops renewing and never releases (as if killed with its call in flight): the lease expires.
    killed.close();
    await until(() => calls.active === 2);
    expect(survivor.stats("run2").get("local")).toMatchObject({ inFlight: 1, waiting: 0 });
    calls.finishOne();
    calls.finishOne();
    await Promise.all([holding, waiting]);
  }, 60_000);

  it("a run's limit is forgotten once the worker holds and waits for nothing of it; a later call makes it again", async () => {
    const calls = provider();
    const limits = fleet("forgetful", 300);
    const client = limits.wrap("run3", "local", 2, calls.client);
    const first = call(client);
    await until(() => calls.active === 1);
    expect(limits.size).toBe(1);
    // In flight, it is kept through several renewals.
    const started = Date.now();
    await until(() => Date.now() - started > 400);
    expect(limits.size).toBe(1);
    calls.finishOne();
    await first;
    // Idle: the next renewal round drops it (its state stays in Redis).
    await until(() => limits.size === 0);
    expect(Number(await connect().hget("taubench:fleet:run3:local", "limit"))).toBeGreaterThan(0);
    const second = call(client);
    await until(() => calls.active === 1);
    expect(limits.stats("run3").get("local")).toMatchObject({ inFlight: 1, waiting: 0 });
    calls.finishOne();
    await second;
  }, 60_000);
});
