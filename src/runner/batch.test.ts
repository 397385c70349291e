import { describe, expect, it } from "vitest";
import { InfrastructureError } from "../core/errors.ts";
import { SimulationRun } from "../core/simulation.ts";
import { Task } from "../core/task.ts";
import { planUnits, runBatch, type WorkUnit } from "./batch.ts";
import { simulationKey } from "./checkpoint.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const tasks = ["a", "b", "c"].map((id) => Task.parse({ id, user_scenario: { instructions: id } }));

function finished(unit: WorkUnit, reward = 1): SimulationRun {
  return SimulationRun.parse({
    id: `${unit.trial}-${unit.task.id}`,
    task_id: unit.task.id,
    start_time: "s",
    end_time: "e",
    duration: 0.1,
    termination_reason: "user_stop",
    reward_info: { reward },
  });
}

describe("planUnits", () => {
  it("orders trial-major and carries the trial seed", () => {
    const units = planUnits(tasks, [11, 22]);
    expect(units.map((u) => `${u.trial}:${u.task.id}:${u.seed}`)).toEqual([
      "0:a:11",
      "0:b:11",
      "0:c:11",
      "1:a:22",
      "1:b:22",
      "1:c:22",
    ]);
    // The key the checkpoint files the simulation under, made once per unit.
    expect(units.map((u) => u.key)).toEqual(units.map((u) => simulationKey(u.trial, u.task.id, u.seed)));
  });
});

describe("runBatch", () => {
  it("bounds concurrency and records every unit before reporting it", async () => {
    const units = planUnits(tasks, [1, 2, 3, 4]);
    let active = 0;
    let peak = 0;
    const recorded: string[] = [];
    const reported: string[] = [];
    const outcome = await runBatch({
      units,
      maxConcurrency: 3,
      maxRetries: 0,
      retryDelayMs: 0,
      async runSimulation(unit) {
        active++;
        peak = Math.max(peak, active);
        await sleep(2);
        active--;
        return finished(unit);
      },
      async record(simulation) {
        await sleep(1);
        recorded.push(simulation.id);
      },
      onFinished(simulation) {
        expect(recorded).toContain(simulation.id);
        reported.push(simulation.id);
      },
    });
    expect(peak).toBe(3);
    expect(outcome).toEqual({ recorded: 12, notRun: 0, interrupted: false, stoppedBy: null });
    expect(new Set(reported).size).toBe(12);
  });

  it("retries the whole simulation, then records an infrastructure error", async () => {
    const attempts = new Map<string, number>();
    const retries: number[] = [];
    const results: SimulationRun[] = [];
    await runBatch({
      units: planUnits(tasks.slice(0, 2), [5]),
      maxConcurrency: 2,
      maxRetries: 3,
      retryDelayMs: 1,
      async runSimulation(unit) {
        const n = (attempts.get(unit.task.id) ?? 0) + 1;
        attempts.set(unit.task.id, n);
        if (unit.task.id === "a" && n < 3) throw new Error("flaky");
        if (unit.task.id === "b") throw new TypeError("always broken");
        return finished(unit);
      },
      async record(simulation) {
        results.push(simulation);
      },
      onRetry(_unit, attempt) {
        retries.push(attempt);
      },
    });
    expect(attempts.get("a")).toBe(3);
    expect(attempts.get("b")).toBe(4);
    const a = results.find((s) => s.task_id === "a")!;
    expect(a.termination_reason).toBe("user_stop");
    expect(a.seed).toBe(5);
    const b = results.find((s) => s.task_id === "b")!;
    expect(b.termination_reason).toBe("infrastructure_error");
    expect(b.reward_info).toBeNull();
    expect(b.messages).toEqual([]);
    expect(b.info).toMatchObject({
      error: "always broken",
      error_type: "TypeError",
      failed_after_attempts: 4,
    });
    expect(retries.sort()).toEqual([1, 1, 2, 2, 3]);
  });

  it("on abort starts nothing new, abandons in-flight work and keeps what finished", async () => {
    const controller = new AbortController();
    const recorded: string[] = [];
    let started = 0;
    const outcome = await runBatch({
      units: planUnits(tasks, [1, 2, 3]),
      maxConcurrency: 2,
      maxRetries: 3,
      retryDelayMs: 0,
      signal: controller.signal,
      async runSimulation(unit, signal) {
        started++;
        if (started === 4) setTimeout(() => controller.abort(), 5);
        await sleep(started <= 3 ? 1 : 50);
        signal.throwIfAborted();
        return finished(unit);
      },
      async record(simulation) {
        recorded.push(simulation.id);
      },
    });
    expect(outcome.interrupted).toBe(true);
    expect(recorded.length).toBeGreaterThanOrEqual(2);
    expect(recorded.length).toBeLessThan(9);
    expect(outcome.recorded).toBe(recorded.length);
    expect(outcome.notRun).toBe(9 - recorded.length);
    expect(started).toBeLessThan(9);
  });

  it("gives each attempt its own signal and aborts every one in flight", async () => {
    const controller = new AbortController();
    const signals: AbortSignal[] = [];
    const reason = new Error("operator stop");
    const outcome = await runBatch({
      units: planUnits(tasks, [1]),
      maxConcurrency: 3,
      maxRetries: 0,
      retryDelayMs: 0,
      signal: controller.signal,
      runSimulation(_unit, signal) {
        signals.push(signal);
        if (signals.length === 3) setTimeout(() => controller.abort(reason), 1);
        // Never finishes on its own: only the abort ends it.
        return new Promise((_resolve, reject) =>
          signal.addEventListener("abort", () => reject(signal.reason), { once: true }),
        );
      },
      async record() {},
    });
    expect(outcome).toMatchObject({ interrupted: true, recorded: 0, notRun: 3 });
    expect(new Set(signals).size).toBe(3);
    expect(signals.every((signal) => signal.aborted && signal.reason === reason)).toBe(true);
  });

  it("stops on an error that would fail every simulation, keeping what finished and recording no failure", async () => {
    const recorded: SimulationRun[] = [];
    const denied = new InfrastructureError("agent endpoint: HTTP 401 (auth)", { stopsRun: true });
    let attempts = 0;
    let startedAfter = 0;
    const outcome = await runBatch({
      units: planUnits(tasks, [1, 2, 3]),
      maxConcurrency: 2,
      maxRetries: 3,
      retryDelayMs: 0,
      async runSimulation(unit, signal) {
        attempts++;
        if (attempts > 3) startedAfter++;
        if (attempts <= 2) return finished(unit);
        if (attempts === 3) throw new Error("wrapped", { cause: denied });
        await sleep(50);
        signal.throwIfAborted();
        return finished(unit);
      },
      async record(simulation) {
        recorded.push(simulation);
      },
    });
    expect(outcome.stoppedBy).toBe(denied);
    expect(outcome.interrupted).toBe(false);
    // The failing unit is neither retried nor recorded; the one in flight beside it is abandoned.
    expect(recorded.map((simulation) => simulation.termination_reason)).toEqual(["user_stop", "user_stop"]);
    expect(outcome).toMatchObject({ recorded: 2, notRun: 7 });
    expect(startedAfter).toBeLessThanOrEqual(1);
  });

  it("stops and throws when the checkpoint cannot be written", async () => {
    await expect(
      runBatch({
        units: planUnits(tasks, [1]),
        maxConcurrency: 1,
        maxRetries: 0,
        retryDelayMs: 0,
        runSimulation: async (unit) => finished(unit),
        record: async () => {
          throw new Error("disk full");
        },
      }),
    ).rejects.toThrow("disk full");
  });

  it("lets disk writes complete while purely synchronous simulations keep coming", async () => {
    const events: string[] = [];
    await runBatch({
      units: planUnits(
        tasks,
        Array.from({ length: 20 }, (_, i) => i),
      ),
      maxConcurrency: 1,
      maxRetries: 0,
      retryDelayMs: 0,
      async runSimulation(unit) {
        events.push("start");
        return finished(unit); // no await: like the offline replay agent
      },
      record: () => new Promise<void>((resolve) => setImmediate(resolve)),
      onFinished() {
        events.push("done");
      },
    });
    expect(events.filter((e) => e === "done")).toHaveLength(60);
    // Results were reported long before the last simulation started.
    expect(events.indexOf("done")).toBeLessThan(10);
  });
});
