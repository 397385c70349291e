import { describe, expect, it } from "vitest";
import { SimulationRun } from "../core/simulation.ts";
import { seededRandom } from "../metrics/random.ts";
import type { TaskCounts } from "../metrics/index.ts";
import {
  countsUpTo,
  type RoundOutcome,
  type RoundRunner,
  runUntilDecided,
  type UntilDecidedRecord,
  type UntilDecidedSettings,
} from "./until-decided.ts";

const taskIds = Array.from({ length: 40 }, (_, i) => `${i}`);
const rates = taskIds.map((_, i) => 0.2 + (0.6 * i) / 39);

/** A baseline of `trials` per task with successes as close to the rates as counts allow. */
function baselineCounts(trials: number): TaskCounts[] {
  return taskIds.map((taskId, i) => ({ taskId, trials, successes: Math.round(rates[i]! * trials) }));
}

function simulation(taskId: string, trial: number, success: boolean, infra = false): SimulationRun {
  return SimulationRun.parse({
    id: `${taskId}-${trial}`,
    task_id: taskId,
    start_time: "s",
    end_time: "e",
    duration: 1,
    termination_reason: infra ? "infrastructure_error" : "user_stop",
    reward_info: infra ? null : { reward: success ? 1 : 0 },
    trial,
    seed: trial,
  });
}

/**
 * A run that simulates trials as Bernoulli draws of rate + shift, as the runner would resume it:
 * every missing (task, trial) below the asked count is run, nothing is run twice.
 */
class FakeRun implements RoundRunner {
  readonly simulations = new Map<string, SimulationRun>();
  readonly asked: number[] = [];
  saved: UntilDecidedRecord | null = null;
  recordedDuringRounds: number[] = [];
  private readonly random: () => number;

  constructor(
    private readonly shift: number,
    seed: number,
    private readonly interruptAt: number | null = null,
  ) {
    this.random = seededRandom(seed);
  }

  async run(numTrials: number, record: UntilDecidedRecord): Promise<RoundOutcome> {
    this.asked.push(numTrials);
    this.recordedDuringRounds.push(record.looks.length);
    if (numTrials === this.interruptAt)
      return { simulations: [...this.simulations.values()], interrupted: true };
    taskIds.forEach((taskId, i) => {
      for (let trial = 0; trial < numTrials; trial++) {
        const key = `${taskId}/${trial}`;
        if (!this.simulations.has(key))
          this.simulations.set(key, simulation(taskId, trial, this.random() < rates[i]! + this.shift));
      }
    });
    return { simulations: [...this.simulations.values()], interrupted: false };
  }

  async save(record: UntilDecidedRecord): Promise<void> {
    this.saved = structuredClone(record);
  }
}

const settings = (extra: Partial<UntilDecidedSettings> = {}): UntilDecidedSettings => ({
  against: { path: "runs/main/results.jsonl", tasks: baselineCounts(20) },
  taskIds,
  effect: 0.12,
  ...extra,
});

describe("runUntilDecided", () => {
  it("adds rounds until a large true difference is declared, and records every look", async () => {
    const run = new FakeRun(0.3, 1);
    const lines: string[] = [];
    const { record } = await runUntilDecided(settings(), run, { log: (line) => lines.push(line) });
    expect(record.decision).toBe("difference");
    expect(record.direction).toBe("better");
    expect(run.saved).toEqual(record);
    expect(record.looks.length).toBeGreaterThanOrEqual(1);
    expect(record.looks.at(-1)!.decision).toBe("difference");
    expect(run.asked).toEqual(record.looks.map((look) => look.requested_trials));
    // Each round asks for one round more than the last look.
    for (const [i, trials] of run.asked.entries())
      expect(trials).toBe(Math.min(record.planned_trials, (i + 1) * record.round_trials));
    expect(record.test).toMatch(/group-sequential/);
    expect(record.against).toBe("runs/main/results.jsonl");
    expect(lines[0]).toMatch(
      /^--until-decided: group-sequential .*effect 0\.12, alpha 0\.05, power 0\.8; up to \d+ trials per task in rounds of \d+$/,
    );
    expect(lines.at(-1)).toMatch(/→ decided: the difference is real \(better\)$/);
  });

  it("stops for futility when there is no difference, at the latest at the planned trials", async () => {
    const run = new FakeRun(0, 2);
    const { record } = await runUntilDecided(settings(), run);
    expect(record.decision).toBe("futile");
    expect(record.direction).toBeNull();
    expect(Math.max(...run.asked)).toBeLessThanOrEqual(record.planned_trials);
    const final = record.looks.at(-1)!;
    expect(Math.abs(final.z!)).toBeLessThan(final.futility_boundary!);
  });

  it("continues an interrupted sequence from its recorded looks", async () => {
    // Round 2 (trials 2) is cut short: look 1 (one trial per task) is far too early to decide.
    const first = new FakeRun(0, 3, 2);
    const interrupted = await runUntilDecided(settings({ roundTrials: 1 }), first);
    expect(first.asked).toEqual([1, 2]);
    expect(interrupted.record.decision).toBeNull();
    expect(interrupted.outcome?.interrupted).toBe(true);
    expect(interrupted.record.looks).toHaveLength(first.asked.length - 1);
    // The resumed sequence keeps those looks and asks for the next round, not the first again.
    const again = new FakeRun(0, 4);
    const resumed = await runUntilDecided(settings({ roundTrials: 1 }), again, {
      previous: interrupted.record,
    });
    expect(resumed.record.looks.slice(0, interrupted.record.looks.length)).toEqual(interrupted.record.looks);
    expect(resumed.record.decision).not.toBeNull();
    expect(again.asked[0]).toBe(2);
    expect(again.recordedDuringRounds[0]).toBe(interrupted.record.looks.length);
    // A decided record is not run again; different settings start afresh.
    const idle = new FakeRun(0, 5);
    expect(
      (await runUntilDecided(settings({ roundTrials: 1 }), idle, { previous: resumed.record })).outcome,
    ).toBeNull();
    expect(idle.asked).toEqual([]);
    const other = new FakeRun(0, 6);
    const restarted = await runUntilDecided(settings({ roundTrials: 3 }), other, {
      previous: resumed.record,
    });
    expect(other.asked[0]).toBe(3);
    expect(restarted.record.looks[0]!.look).toBe(1);
  });

  it("refuses, before running anything, a baseline too noisy or too small for the effect", async () => {
    const run = new FakeRun(0, 7);
    await expect(runUntilDecided(settings({ effect: 0.03 }), run)).rejects.toThrow(
      /--until-decided cannot promise to detect 0\.03: the baseline's own trial noise is too large: .*; extend the baseline first \(resume it with --num-trials \d+\) or ask for a larger --effect/,
    );
    await expect(runUntilDecided(settings({ maxTrials: 2 }), run)).rejects.toThrow(
      /allow more with --max-trials/,
    );
    await expect(runUntilDecided(settings({ taskIds: ["0", "x"] }), run)).rejects.toThrow(
      "--against runs/main/results.jsonl shares 1 evaluated task(s) with this run; a paired comparison needs at least 2",
    );
    expect(run.asked).toEqual([]);
  });
});

describe("countsUpTo", () => {
  it("counts evaluated trials below the limit, never infrastructure errors", () => {
    const counts = countsUpTo(
      [
        simulation("a", 0, true),
        simulation("a", 1, false),
        simulation("a", 2, true),
        simulation("b", 0, true, true),
      ],
      2,
    );
    expect([...counts.values()]).toEqual([{ taskId: "a", trials: 2, successes: 1 }]);
  });
});
