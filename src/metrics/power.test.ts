import { describe, expect, it } from "vitest";
import { studentTQuantile } from "./distributions.ts";
import {
  bernoulliVariance,
  candidateTrialsToDetect,
  decomposeVariance,
  detectionMultiplier,
  minimumDetectableDifference,
  type PairedCounts,
  taskVariances,
  trialsToDetect,
  type VarianceModel,
} from "./power.ts";
import { seededRandom } from "./random.ts";
import { pairedStatistic } from "./sequential.ts";

const random = seededRandom(2024);
const binomial = (n: number, p: number) => {
  let c = 0;
  for (let i = 0; i < n; i++) if (random() < p) c++;
  return c;
};
const counts = (taskId: string, trials: number, successes: number) => ({ taskId, trials, successes });

describe("variance pieces", () => {
  it("estimates a task's Bernoulli variance without bias, and stands in for single trials", () => {
    expect(bernoulliVariance(4, 1)).toBe(0.25); // 1·3 / (4·3)
    expect(bernoulliVariance(2, 1)).toBe(0.5);
    expect(bernoulliVariance(1, 1)).toBeNull();
    // Mean rate (1 + 0 + 0.5) / 3 = 0.5: single-trial tasks get 0.25.
    expect(taskVariances([counts("a", 1, 1), counts("b", 1, 0), counts("c", 2, 1)])).toEqual([
      0.25, 0.25, 0.5,
    ]);
  });

  it("splits the spread of a small paired example by hand", () => {
    const pairs: PairedCounts[] = [
      { taskId: "a", a: counts("a", 2, 0), b: counts("a", 2, 2) },
      { taskId: "b", a: counts("b", 2, 1), b: counts("b", 2, 1) },
      { taskId: "c", a: counts("c", 2, 2), b: counts("c", 2, 1) },
    ];
    const split = decomposeVariance(pairs);
    // Differences 1, 0, −0.5: mean 1/6, sample variance ((5/6)² + (1/6)² + (2/3)²) / 2 = 7/12.
    expect(split.total).toBeCloseTo(7 / 12, 14);
    // Variances per trial: a 0, 0.5, 0 and b 0, 0.5, 0.5; within = mean(v_a/2 + v_b/2) = (0 + 0.5 + 0.25) / 3.
    expect(split.withinTask).toBeCloseTo(0.25, 14);
    expect(split.betweenTask).toBeCloseTo(7 / 12 - 0.25, 14);
    expect(split.trialVarianceA).toBeCloseTo(1 / 6, 14);
    expect(split.trialVarianceB).toBeCloseTo(1 / 3, 14);
  });

  it("recovers the simulated between-task and within-task variance on average", () => {
    const tasks = 60;
    const rates = Array.from({ length: tasks }, () => 0.2 + 0.6 * random());
    // True per-task differences spread uniformly on ±0.15: variance 0.3² / 12.
    const shifts = rates.map(() => (random() - 0.5) * 0.3);
    const trueShiftVariance = (() => {
      const m = shifts.reduce((s, v) => s + v, 0) / tasks;
      return shifts.reduce((s, v) => s + (v - m) ** 2, 0) / (tasks - 1);
    })();
    const [nA, nB] = [3, 5];
    const trueWithin =
      rates.reduce((s, p, i) => s + (p * (1 - p)) / nA + ((p + shifts[i]!) * (1 - p - shifts[i]!)) / nB, 0) /
      tasks;
    let within = 0;
    let rawBetween = 0;
    const reps = 3000;
    for (let r = 0; r < reps; r++) {
      const split = decomposeVariance(
        rates.map((p, i) => ({
          taskId: `${i}`,
          a: counts(`${i}`, nA, binomial(nA, p)),
          b: counts(`${i}`, nB, binomial(nB, p + shifts[i]!)),
        })),
      );
      within += split.withinTask / reps;
      rawBetween += (split.total - split.withinTask) / reps;
    }
    expect(within).toBeCloseTo(trueWithin, 3);
    expect(Math.abs(rawBetween - trueShiftVariance)).toBeLessThan(0.002);
  });
});

describe("minimum detectable difference", () => {
  it("is what the paired test over tasks detects with the promised power", () => {
    // Bernoulli trials, 50 tasks, 4 trials each: the test at α = 0.05 facing a true difference of
    // exactly the MDE should succeed about 80% of the time.
    const tasks = 50;
    const n = 4;
    const rates = Array.from({ length: tasks }, () => 0.25 + 0.5 * random());
    const perTrial = rates.reduce((s, p) => s + p * (1 - p), 0) / tasks;
    const mde = minimumDetectableDifference((2 * perTrial) / n, tasks)!;
    expect(mde).toBeGreaterThan(0.1);
    expect(mde).toBeLessThan(0.25);
    const critical = studentTQuantile(0.975, tasks - 1);
    let detected = 0;
    const reps = 4000;
    for (let r = 0; r < reps; r++) {
      const pairs = rates.map((p, i) => ({
        taskId: `${i}`,
        a: counts(`${i}`, n, binomial(n, p - mde / 2)),
        b: counts(`${i}`, n, binomial(n, p + mde / 2)),
      }));
      if (Math.abs(pairedStatistic(pairs).z) >= critical) detected++;
    }
    const margin = 3 * Math.sqrt((0.8 * 0.2) / reps);
    expect(Math.abs(detected / reps - 0.8)).toBeLessThan(margin + 0.02);
  });

  it("uses t quantiles with T − 1 degrees of freedom and refuses nonsense", () => {
    expect(detectionMultiplier(10)).toBeCloseTo(studentTQuantile(0.975, 9) + studentTQuantile(0.8, 9), 14);
    expect(detectionMultiplier(1)).toBeNull();
    expect(minimumDetectableDifference(0.1, 1)).toBeNull();
    expect(() => detectionMultiplier(10, { alpha: 0 })).toThrow(RangeError);
    expect(() => detectionMultiplier(10, { power: 1 })).toThrow(RangeError);
  });
});

describe("trials to detect an effect", () => {
  const model: VarianceModel = { tasks: 50, betweenTask: 0, trialVarianceA: 0.2, trialVarianceB: 0.2 };
  const mdeAt = (m: VarianceModel, nA: number, nB: number) =>
    minimumDetectableDifference(m.betweenTask + m.trialVarianceA / nA + m.trialVarianceB / nB, m.tasks)!;

  it("gives the fewest trials per task whose detectable difference reaches the effect", () => {
    const needed = trialsToDetect(model, 0.05);
    expect(needed.trials).toBe(27);
    expect(mdeAt(model, 27, 27)).toBeLessThanOrEqual(0.05);
    expect(mdeAt(model, 26, 26)).toBeGreaterThan(0.05);
    expect(needed.floor).toBe(0);
    // A stricter alpha or more power needs more trials; a larger effect fewer.
    expect(trialsToDetect(model, 0.05, { alpha: 0.01 }).trials!).toBeGreaterThan(27);
    expect(trialsToDetect(model, 0.05, { power: 0.9 }).trials!).toBeGreaterThan(27);
    expect(trialsToDetect(model, 0.1).trials!).toBe(7);
  });

  it("says when the spread between tasks puts the effect out of reach of any trials", () => {
    const spread = { ...model, betweenTask: 0.05 };
    const needed = trialsToDetect(spread, 0.05);
    expect(needed.trials).toBeNull();
    expect(needed.floor).toBeCloseTo(detectionMultiplier(50)! * Math.sqrt(0.05 / 50), 14);
    expect(needed.floor).toBeGreaterThan(0.05);
    expect(trialsToDetect(spread, 0.2).trials).not.toBeNull();
  });

  it("sizes the new run alone against a baseline that stays as it is", () => {
    // A baseline of 40 trials (within 0.2/40) leaves room: the candidate needs more than half of 27·2.
    const needed = candidateTrialsToDetect(model, 0.2 / 40, 0.05);
    expect(needed.trials).not.toBeNull();
    expect(mdeAt(model, 40, needed.trials!)).toBeLessThanOrEqual(0.05);
    expect(mdeAt(model, 40, needed.trials! - 1)).toBeGreaterThan(0.05);
    // A 4-trial baseline is too noisy on its own for 0.05.
    const tooNoisy = candidateTrialsToDetect(model, 0.2 / 4, 0.05);
    expect(tooNoisy.trials).toBeNull();
    expect(tooNoisy.floor).toBeCloseTo(mdeAt({ ...model, trialVarianceB: 0 }, 4, 1), 14);
  });
});
