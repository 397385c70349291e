import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readResultsFile } from "../core/results-file.ts";
import { seededRandom } from "./random.ts";
import { SimulationRun, type TerminationReason } from "../core/simulation.ts";
import {
  binomial,
  bootstrapMeanInterval,
  comparePassHat1,
  computeMetrics,
  describeIntervalMethod,
  isSuccessful,
  metricsAsDict,
  passAtKForTask,
  passHatKForTask,
  passKSeriesForTask,
} from "./index.ts";

let counter = 0;
/** A minimal graded simulation. */
function sim(
  taskId: string,
  reward: number | null,
  extra: { reason?: TerminationReason; agentCost?: number | null; rewardInfo?: Record<string, unknown> } = {},
): SimulationRun {
  counter++;
  const reason = extra.reason ?? (reward === null ? "infrastructure_error" : "user_stop");
  return SimulationRun.parse({
    id: `sim-${counter}`,
    task_id: taskId,
    start_time: "2025-06-01T10:00:00",
    end_time: "2025-06-01T10:00:01",
    duration: 1,
    termination_reason: reason,
    agent_cost: extra.agentCost ?? null,
    reward_info: reward === null ? null : { reward, ...extra.rewardInfo },
  });
}

/** n trials of one task, the first c of them successful. */
function trials(taskId: string, n: number, c: number): SimulationRun[] {
  return Array.from({ length: n }, (_, i) => sim(taskId, i < c ? 1 : 0));
}

describe("pass^k and pass@k", () => {
  it("reproduces the paper's worked example (n=8, c=6)", () => {
    const metrics = computeMetrics(trials("t", 8, 6), { numTrials: 8 });
    expect(metrics.maxK).toBe(8);
    expect(metrics.passHatK[0]).toBeCloseTo(0.75, 12);
    expect(metrics.passHatK[1]!.toFixed(3)).toBe("0.536");
    expect(metrics.passHatK[1]).toBe(15 / 28);
    expect(metrics.passHatK[2]).toBe(20 / 56);
    expect(metrics.passHatK[3]!.toFixed(3)).toBe("0.214");
    expect(metrics.passHatK[6]).toBe(0); // C(6,7) = 0
    expect(metrics.passAtK[0]).toBeCloseTo(0.75, 12);
    expect(metrics.passAtK[2]).toBe(1); // C(2,3) = 0: any 3 draws include a success
  });

  it("computes the per-task formulas with exact binomials", () => {
    expect(binomial(8, 4)).toBe(70n);
    expect(binomial(50, 25)).toBe(126410606437752n);
    expect(binomial(3, 5)).toBe(0n);
    expect(passHatKForTask(4, 1, 2)).toBe(0);
    expect(passAtKForTask(4, 1, 2)).toBe(0.5);
    expect(passAtKForTask(4, 0, 4)).toBe(0);
  });

  it("averages tasks unweighted, unlike the average reward", () => {
    const metrics = computeMetrics([...trials("a", 2, 2), ...trials("b", 4, 1)]);
    expect(metrics.maxK).toBe(2); // lowered to task a's 2 trials
    expect(metrics.passHatK[0]).toBe(0.625);
    expect(metrics.avgReward).toBe(0.5);
    expect(metrics.perTask).toEqual([
      { taskId: "a", trials: 2, successes: 2, rewards: [1, 1] },
      { taskId: "b", trials: 4, successes: 1, rewards: [1, 0, 0, 0] },
    ]);
  });

  it("counts a reward within 1e-6 of 1 as a success", () => {
    expect(isSuccessful(0.9999995)).toBe(true);
    expect(isSuccessful(1.0000009)).toBe(true);
    expect(isSuccessful(0.999)).toBe(false);
    const metrics = computeMetrics([sim("t", 0.9999995), sim("t", 0.5)]);
    expect(metrics.passHatK[0]).toBe(0.5);
    expect(metrics.avgReward).toBeCloseTo(0.74999975, 12);
  });

  it("excludes infrastructure errors from every score but counts them", () => {
    const clean = computeMetrics(trials("t", 8, 6), { numTrials: 8 });
    const withInfra = computeMetrics([...trials("t", 8, 6), sim("t", null), sim("u", null)], {
      numTrials: 8,
    });
    expect(withInfra.passHatK).toEqual(clean.passHatK);
    expect(withInfra.avgReward).toBe(clean.avgReward);
    expect(withInfra.infraErrorCount).toBe(2);
    expect(withInfra.totalSimulations).toBe(10);
    expect(withInfra.evaluatedSimulations).toBe(8);
    expect(withInfra.totalTasks).toBe(2);
    expect(withInfra.perTask.map((t) => t.taskId)).toEqual(["t"]);
  });

  it("lowers K to the smallest evaluated count of any task", () => {
    const simulations = [...trials("a", 4, 4), ...trials("b", 3, 3), sim("b", null)];
    const metrics = computeMetrics(simulations, { numTrials: 4 });
    expect(metrics.maxK).toBe(3);
    expect(metrics.passHatK).toEqual([1, 1, 1]);
    expect(computeMetrics(simulations, { numTrials: 2 }).maxK).toBe(2);
    expect(computeMetrics([]).passHatK).toEqual([]);
    expect(computeMetrics([]).avgReward).toBeNull();
    expect(computeMetrics([]).passHat1Interval).toBeNull();
  });
});

describe("pass^1 interval", () => {
  it("contains the point estimate and is deterministic", () => {
    const simulations = ["a", "b", "c", "d", "e", "f"].flatMap((id, i) => trials(id, 4, i % 5));
    const first = computeMetrics(simulations);
    const second = computeMetrics(simulations);
    const [low, high] = first.passHat1Interval!;
    expect(low).toBeLessThanOrEqual(first.passHatK[0]!);
    expect(high).toBeGreaterThanOrEqual(first.passHatK[0]!);
    expect(low).toBeLessThan(high);
    expect(second.passHat1Interval).toEqual(first.passHat1Interval);
    // Another seed moves the ends a little, not the estimate.
    const reseeded = computeMetrics(simulations, { seed: 99 });
    expect(reseeded.passHat1Interval).not.toEqual(first.passHat1Interval);
    expect(reseeded.passHatK).toEqual(first.passHatK);
  });

  it("gives every pass^k and pass@k an interval from the same resamples, and names the method", () => {
    const simulations = Array.from({ length: 12 }, (_, i) => `t${i}`).flatMap((id, i) =>
      trials(id, 4, i % 5),
    );
    const metrics = computeMetrics(simulations, { numTrials: 4 });
    expect(metrics.passHatKIntervals).toHaveLength(4);
    expect(metrics.passAtKIntervals).toHaveLength(4);
    expect(metrics.passHatKIntervals[0]).toEqual(metrics.passHat1Interval);
    metrics.passHatKIntervals.forEach(([low, high], i) => {
      expect(low).toBeLessThanOrEqual(metrics.passHatK[i]!);
      expect(high).toBeGreaterThanOrEqual(metrics.passHatK[i]!);
      const [atLow, atHigh] = metrics.passAtKIntervals[i]!;
      expect(atLow).toBeLessThanOrEqual(metrics.passAtK[i]!);
      expect(atHigh).toBeGreaterThanOrEqual(metrics.passAtK[i]!);
    });
    // pass^k falls with k, and so do both ends of its interval (the same resamples throughout).
    for (let k = 1; k < 4; k++) {
      expect(metrics.passHatKIntervals[k]![0]).toBeLessThanOrEqual(metrics.passHatKIntervals[k - 1]![0]);
      expect(metrics.passHatKIntervals[k]![1]).toBeLessThanOrEqual(metrics.passHatKIntervals[k - 1]![1]);
    }
    expect(metrics.intervalMethod).toEqual({
      method: "percentile bootstrap over tasks",
      level: 0.95,
      resamples: 2000,
      seed: 0x7a0b,
      tasks: 12,
    });
    expect(describeIntervalMethod(metrics.intervalMethod)).toBe(
      "95% percentile bootstrap over 12 tasks (2000 resamples, seed 31243)",
    );
    const narrower = computeMetrics(simulations, { numTrials: 4, level: 0.5 }).passHatKIntervals[1]!;
    expect(narrower[0]).toBeGreaterThanOrEqual(metrics.passHatKIntervals[1]![0]);
    expect(narrower[1]).toBeLessThanOrEqual(metrics.passHatKIntervals[1]![1]);
  });

  it("is the same whatever order the simulations come in", () => {
    const random = seededRandom(3);
    const run = () =>
      Array.from({ length: 40 }, (_, i) => `${i}`).flatMap((id) =>
        Array.from({ length: 3 }, (_, trial) => ({
          ...sim(id, random() < 0.6 ? 1 : random() * 0.9, { agentCost: random() / 10 }),
          trial,
        })),
      );
    const shuffle = (simulations: SimulationRun[]) => {
      const out = [...simulations];
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [out[i], out[j]] = [out[j]!, out[i]!];
      }
      return out;
    };
    const [a, b] = [run(), run()];
    const reference = computeMetrics(a, { numTrials: 3 });
    const referenceB = computeMetrics(b, { numTrials: 3 });
    const comparison = comparePassHat1(reference, referenceB);
    // Enough differing tasks for the Monte Carlo p-value, whose draws follow the task order.
    expect(comparison.tasks.filter((t) => t.difference !== 0).length).toBeGreaterThan(16);
    for (let round = 0; round < 5; round++) {
      const metrics = computeMetrics(shuffle(a), { numTrials: 3 });
      // Every number, bit for bit: intervals, means (summed in one order), per-task lists.
      expect(metrics).toEqual(reference);
      expect(comparePassHat1(metrics, computeMetrics(shuffle(b), { numTrials: 3 }))).toEqual(comparison);
    }
    expect(reference.perTask.map((t) => t.taskId).slice(0, 12)).toEqual(
      Array.from({ length: 12 }, (_, i) => `${i}`),
    );
  });

  it("collapses when every task has the same rate", () => {
    expect(bootstrapMeanInterval([0.5, 0.5, 0.5])).toEqual([0.5, 0.5]);
    expect(bootstrapMeanInterval([])).toBeNull();
  });
});

describe("breakdowns", () => {
  it("counts terminations, DB checks, actions, costs and unjudged NL components", () => {
    const action = { action_id: "x", name: "f", arguments: {} };
    const simulations = [
      sim("a", 1, {
        agentCost: 0.25,
        rewardInfo: {
          db_check: { db_match: true, db_reward: 1 },
          action_checks: [
            { action, action_match: true, action_reward: 1, tool_type: "write" },
            { action, action_match: false, action_reward: 0, tool_type: "read" },
            { action, action_match: true, action_reward: 1, tool_type: "generic" },
          ],
        },
      }),
      sim("a", 0, {
        agentCost: 0.75,
        rewardInfo: {
          db_check: { db_match: false, db_reward: 0 },
          info: { not_evaluated: ["NL_ASSERTION"] },
        },
      }),
      sim("b", 0, { reason: "max_steps", agentCost: null }),
      sim("b", 0, { reason: "too_many_errors" }),
      sim("b", 0, { reason: "agent_error" }),
      sim("c", null),
    ];
    const metrics = computeMetrics(simulations);
    expect(metrics.terminationCounts).toEqual({
      userStop: 2,
      agentStop: 0,
      maxSteps: 1,
      error: 2,
      infrastructureError: 1,
      timeout: 0,
      other: 0,
    });
    expect(metrics.dbMatch).toEqual({ match: 1, mismatch: 1, notChecked: 3 });
    expect(metrics.readActions).toEqual({ correct: 0, total: 1 });
    expect(metrics.writeActions).toEqual({ correct: 1, total: 1 });
    expect(metrics.avgAgentCost).toBe(0.5);
    expect(metrics.notEvaluatedCount).toBe(1);
    expect(metricsAsDict(metrics)).toEqual({
      avg_reward: 0.2,
      avg_agent_cost: 0.5,
      total_simulations: 6,
      total_tasks: 3,
      infra_error_count: 1,
      pass_hat_1: 0.25,
      pass_hat_2: 0,
    });
  });

  it("reads the upstream-shaped results fixture", () => {
    const results = readResultsFile(
      fileURLToPath(new URL("../core/fixtures/results-upstream.json", import.meta.url)),
    );
    const metrics = computeMetrics(results.simulations, { numTrials: results.info.num_trials });
    expect(metrics.infraErrorCount).toBe(1);
    expect(metrics.maxK).toBe(1);
    expect(metrics.passHatK).toEqual([0.5]);
    expect(metrics.avgAgentCost).toBeCloseTo(0.30200000000000005, 15);
  });
});

describe("comparePassHat1", () => {
  const tasks = Array.from({ length: 10 }, (_, i) => `t${i}`);

  it("gives difference 0 and p = 1 for identical runs", () => {
    const run = computeMetrics(tasks.flatMap((id, i) => trials(id, 3, i % 4)));
    const comparison = comparePassHat1(run, run);
    expect(comparison.meanDifference).toBe(0);
    expect(comparison.pValue).toBe(1);
    expect(comparison.interval).toEqual([0, 0]);
    expect(comparison.tasks.every((t) => t.difference === 0)).toBe(true);
  });

  it("finds a consistent improvement significant, with an exact sign-flip p-value", () => {
    const a = computeMetrics([...tasks.flatMap((id) => trials(id, 2, 0)), ...trials("only-a", 1, 1)]);
    const b = computeMetrics([...tasks.flatMap((id) => trials(id, 2, 2)), ...trials("only-b", 1, 0)]);
    const comparison = comparePassHat1(a, b);
    expect(comparison.meanDifference).toBe(1);
    expect(comparison.pValue).toBe(2 / 1024); // only all-plus and all-minus are as extreme
    expect(comparison.interval).toEqual([1, 1]);
    expect(comparison.onlyInA).toEqual(["only-a"]);
    expect(comparison.onlyInB).toEqual(["only-b"]);
    expect(comparePassHat1(b, a).meanDifference).toBe(-1);
  });

  it("uses a seeded Monte Carlo test beyond 16 differing tasks", () => {
    const many = Array.from({ length: 30 }, (_, i) => `m${i}`);
    const a = computeMetrics(many.flatMap((id) => trials(id, 2, 1)));
    const b = computeMetrics(many.flatMap((id, i) => trials(id, 2, i % 3 === 0 ? 1 : 2)));
    const first = comparePassHat1(a, b);
    expect(first.pValue).toBeLessThan(0.001);
    expect(first.pValue).toBeGreaterThan(0);
    expect(comparePassHat1(a, b).pValue).toBe(first.pValue);
    const [low, high] = first.interval!;
    expect(low).toBeLessThanOrEqual(first.meanDifference!);
    expect(high).toBeGreaterThanOrEqual(first.meanDifference!);
  });
});

describe("pass^k at thousands of trials", () => {
  it("the series equals the one-k formulas, and large binomials divide as Python does", () => {
    for (const [n, c] of [
      [1, 0],
      [4, 1],
      [7, 7],
      [32, 19],
      [300, 250],
    ] as const) {
      const series = passKSeriesForTask(n, c, n);
      for (let k = 1; k <= n; k++) {
        expect(series.passHatK[k - 1]).toBe(passHatKForTask(n, c, k));
        expect(series.passAtK[k - 1]).toBe(passAtKForTask(n, c, k));
      }
    }
    // Operands far beyond a double (Number() of either is Infinity); the expected values are
    // Python's math.comb(c, k) / math.comb(n, k).
    expect(passHatKForTask(2000, 1800, 500)).toBe(2.8134678024695736e-27);
    expect(passKSeriesForTask(2000, 1800, 500).passHatK[499]).toBe(2.8134678024695736e-27);
    expect(passHatKForTask(2000, 1500, 700)).toBe(5.945817946187131e-113);
    expect(passHatKForTask(5001, 5000, 4000)).toBe(0.2001599680063987);
  });
});
