import { describe, expect, it } from "vitest";
import { SimulationRun } from "../core/simulation.ts";
import { isSuccessful } from "../metrics/index.ts";
import type { WorkUnit } from "../runner/batch.ts";
import {
  formatDuration,
  formatProgressLine,
  PlainProgress,
  progressListener,
  RunProgress,
} from "./progress.ts";

const sim = (reward: number | null) =>
  SimulationRun.parse({
    id: "x",
    task_id: "t",
    start_time: "s",
    end_time: "e",
    duration: 1,
    termination_reason: reward === null ? "infrastructure_error" : "user_stop",
    reward_info: reward === null ? null : { reward },
  });

describe("RunProgress", () => {
  it("counts resumed work, successes, infra errors, costs, tokens, retries and 429s", () => {
    let now = 0;
    const progress = new RunProgress(10, [sim(1), sim(null)], () => now);
    progress.started();
    progress.started();
    now = 20_000;
    progress.finished(sim(0));
    progress.finished(sim(0.9999999));
    progress.retried();
    progress.onLlmEvent({
      type: "call",
      model: "m",
      callName: "agent",
      usage: { prompt_tokens: 1200, completion_tokens: 34 },
      costUsd: 0.0125,
      durationMs: 5,
      attempts: 1,
      cached: false,
    });
    progress.onLlmEvent({ type: "rate_limited", model: "m", retryAfterMs: 100 });
    progress.onLlmEvent({
      type: "retry",
      model: "m",
      attempt: 1,
      delayMs: 100,
      reason: "429",
      kind: "rate_limit",
      statusCode: 429,
    });
    const s = progress.snapshot();
    expect(s).toMatchObject({
      done: 4,
      total: 10,
      infraErrors: 1,
      tokens: 1234,
      retries: 2,
      rateLimited: 1,
      running: 0,
    });
    expect(s.passHat1).toBeCloseTo(2 / 3);
    expect(s.costUsd).toBeCloseTo(0.0125);
    // 2 finished in 20 s this session, 6 remain → 60 s
    expect(s.etaMs).toBe(60_000);
    expect(formatProgressLine(s)).toBe(
      "[20s] 4/10 (40%) | pass^1 0.667 | $0.0125 | 1234 tok | retries 2 | 429s 1 | infra 1 | running 0 | ETA 1m00s",
    );
  });

  it("says when calls had no known price instead of counting them as $0", () => {
    const progress = new RunProgress(1, [], () => 0);
    const call = (model: string, costUsd: number | null) => ({
      type: "call" as const,
      model,
      callName: "agent",
      usage: { prompt_tokens: 10, completion_tokens: 1 },
      costUsd,
      durationMs: 1,
      attempts: 1,
      cached: false,
    });
    progress.onLlmEvent(call("local/x", null));
    expect(formatProgressLine(progress.snapshot())).toContain("| cost n/a |");
    progress.onLlmEvent(call("openai/gpt-4.1", 0.5));
    expect(formatProgressLine(progress.snapshot())).toContain("| $0.5000 + 1 unpriced |");
  });

  it("uses upstream's 1e-6 success tolerance", () => {
    expect(isSuccessful(1 - 1e-7)).toBe(true);
    expect(isSuccessful(0.99)).toBe(false);
  });
});

describe("PlainProgress", () => {
  it("prints a line at start, periodically, and a final line when something changed", async () => {
    const lines: string[] = [];
    const progress = new RunProgress(2);
    const renderer = new PlainProgress(progress, (line) => lines.push(line), 10);
    renderer.start();
    progress.finished(sim(1));
    await new Promise((resolve) => setTimeout(resolve, 25));
    progress.finished(sim(0));
    renderer.stop();
    expect(lines[0]).toMatch(/^\[0s\] 0\/2 \(0%\) \| pass\^1 - /);
    expect(lines.some((line) => line.includes(" 1/2 (50%) | pass^1 1.000"))).toBe(true);
    expect(lines.at(-1)).toMatch(/ 2\/2 \(100%\) \| pass\^1 0\.500 .* ETA 0s$/);
  });
});

describe("progressListener", () => {
  it("starts the display with the batch, counts its events and draws the last line when it ends", () => {
    const lines: string[] = [];
    const listener = progressListener({
      isTty: false,
      write: (line) => lines.push(line),
      intervalMs: 60_000,
    });
    const unit = { trial: 0, seed: 1, key: "k" } as WorkUnit;
    listener({ type: "note", message: "ignored" });
    listener({ type: "llm", event: { type: "rate_limited", model: "m", retryAfterMs: null } });
    expect(lines).toEqual([]); // nothing is drawn before the batch starts
    listener({
      type: "run_started",
      resultsPath: "r",
      checkpointPath: "c",
      total: 3,
      resumed: [sim(1)],
      toRun: 2,
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/ 1\/3 \(33%\) \| pass\^1 1\.000 /);
    listener({ type: "simulation_started", unit });
    listener({ type: "simulation_retried", unit, attempt: 1, error: new Error("x") });
    listener({ type: "llm", event: { type: "rate_limited", model: "m", retryAfterMs: null } });
    listener({ type: "simulation_finished", unit, simulation: sim(0) });
    listener({ type: "batch_finished", interrupted: true });
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/ 2\/3 \(66%\) \| pass\^1 0\.500 .*\| retries 1 \| 429s 1 \| running 0 /);
  });
});

describe("formatDuration", () => {
  it("formats hours, minutes and seconds", () => {
    expect(formatDuration(3_725_000)).toBe("1h02m");
    expect(formatDuration(65_000)).toBe("1m05s");
    expect(formatDuration(999)).toBe("1s");
  });
});
