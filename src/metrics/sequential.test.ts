import { describe, expect, it } from "vitest";
import { studentTQuantile } from "./distributions.ts";
import type { PairedCounts, TaskCounts } from "./power.ts";
import { seededRandom } from "./random.ts";
import {
  designSequential,
  pairedStatistic,
  plannedInformation,
  type SequentialDesign,
  type SequentialLook,
  sequentialLook,
} from "./sequential.ts";

const counts = (taskId: string, trials: number, successes: number): TaskCounts => ({
  taskId,
  trials,
  successes,
});
const pair = (a: TaskCounts, b: TaskCounts): PairedCounts => ({ taskId: a.taskId, a, b });

describe("designSequential", () => {
  const baseline = Array.from({ length: 40 }, (_, i) => counts(`${i}`, 10, i % 2 ? 5 : 8));

  it("sets the information the final look needs and the trials that reach it", () => {
    const design = designSequential(baseline, { effect: 0.1 });
    const df = 39;
    const multiplier = studentTQuantile(1 - (0.9 * 0.05) / 2, df) + studentTQuantile(1 - 0.75 * 0.2, df);
    expect(design.requiredInformation).toBeCloseTo((multiplier / 0.1) ** 2, 8);
    // Per-task variances c(n − c) / (n(n − 1)): 25/90 and 16/90.
    expect(design.trialVariance).toBeCloseTo((25 / 90 + 16 / 90) / 2, 14);
    expect(design.baselineVariance).toBeCloseTo(design.trialVariance / 10, 14);
    const trials = design.plannedTrials!;
    expect(plannedInformation(design, 1 / trials)).toBeGreaterThanOrEqual(design.requiredInformation);
    expect(plannedInformation(design, 1 / (trials - 1))).toBeLessThan(design.requiredInformation);
    expect(design.infeasible).toBeNull();
    expect(design.test).toMatch(/group-sequential.*Bonferroni alpha and beta spending/);
  });

  it("says when the baseline, the tasks or the budget cannot reach the effect", () => {
    const noisy = designSequential(baseline, { effect: 0.05 });
    expect(noisy.infeasible?.reason).toBe("baseline");
    expect(noisy.infeasible?.message).toMatch(
      /unlimited trials of the new run detect only 0\.\d{3}; both runs need about \d+ trials per task/,
    );
    expect(noisy.plannedTrials).toBeNull();
    // With that many trials in the baseline, the design works.
    const needed = noisy.infeasible!.trialsNeeded!;
    const extended = baseline.map((t) => counts(t.taskId, needed, Math.round((t.successes / 10) * needed)));
    expect(designSequential(extended, { effect: 0.05 }).infeasible).toBeNull();
    expect(designSequential(baseline.slice(0, 1), { effect: 0.1 }).infeasible?.reason).toBe("tasks");
    expect(designSequential(baseline, { effect: 0.05, betweenTask: 0.5 }).infeasible?.reason).toBe("tasks");
    const budget = designSequential(baseline, { effect: 0.1, maxTrials: 2 });
    expect(budget.infeasible?.reason).toBe("budget");
    expect(() => designSequential(baseline, { effect: 0 })).toThrow(RangeError);
  });
});

describe("sequentialLook", () => {
  // Rates 0.5 and 0.75, 8 trials each (counts below are exact at multiples of 4 trials).
  const baseline = Array.from({ length: 40 }, (_, i) => counts(`${i}`, 8, i % 2 ? 4 : 6));
  const design = designSequential(baseline, { effect: 0.1 });
  // The new run: odd tasks swing to 1.0 and 0.0 in turn (mean difference 0); the first `lift` even tasks gain 1/4.
  const candidate = (trials: number, lift = 0) =>
    baseline.map((t, i) =>
      pair(
        t,
        counts(
          t.taskId,
          trials,
          i % 2 ? (i % 4 === 1 ? trials : 0) : 0.75 * trials + (i / 2 < lift ? trials / 4 : 0),
        ),
      ),
    );

  it("spends alpha and beta by planned information and decides at the final look", () => {
    const first = sequentialLook(design, [], candidate(4));
    expect(first.look).toBe(1);
    expect(first.final).toBe(false);
    expect(first.trials).toBe(4);
    expect(first.difference).toBe(0);
    const fraction = plannedInformation(design, 1 / 4) / design.requiredInformation;
    expect(fraction).toBeLessThan(1);
    expect(first.informationFraction).toBeCloseTo(fraction, 14);
    expect(first.alphaSpent).toBeCloseTo(0.1 * 0.05 * fraction, 14);
    expect(first.betaSpent).toBeCloseTo(0.25 * 0.2 * fraction, 14);
    expect(first.efficacyBoundary).toBeCloseTo(studentTQuantile(1 - first.alphaSpent / 2, 39), 10);
    expect(first.futilityBoundary).toBeCloseTo(
      0.1 * Math.sqrt(first.information) - studentTQuantile(1 - first.betaSpent, 39),
      10,
    );
    expect(first.decision).toBe("continue");
    // The same rates at the planned trials: nothing to find, and the final look says so.
    const final = Math.ceil(design.plannedTrials! / 4) * 4;
    const last = sequentialLook(design, [first], candidate(final));
    expect(final).toBeGreaterThanOrEqual(design.plannedTrials!);
    expect(last.final).toBe(true);
    expect(last.informationFraction).toBe(1);
    expect(last.alphaSpent).toBeCloseTo(0.05, 14);
    expect(last.betaSpent).toBeCloseTo(0.2, 14);
    expect(last.z).toBe(0);
    expect(last.futilityBoundary).toBeGreaterThan(0);
    expect(last.decision).toBe("futile");
    // A large improvement is declared early, with its sign.
    const lifted = baseline.map((t, i) => pair(t, counts(t.taskId, 4, i % 2 ? (i % 4 === 1 ? 4 : 2) : 4)));
    const better = sequentialLook(design, [], lifted);
    expect(better.decision).toBe("difference");
    expect(better.z).toBeGreaterThan(better.efficacyBoundary);
    // A run that must stop early (budget, interruption) spends the rest; a middling result stays undecided.
    const forced = sequentialLook(design, [first], candidate(4, 10), { final: true });
    expect(forced.final).toBe(true);
    expect(forced.alphaSpent).toBeCloseTo(0.05, 14);
    expect(Math.abs(forced.z)).toBeLessThan(forced.efficacyBoundary);
    expect(Math.abs(forced.z)).toBeGreaterThanOrEqual(forced.futilityBoundary!);
    expect(forced.decision).toBe("undecided");
  });

  it("treats a zero spread as decided by the sign alone", () => {
    const pairs = baseline.map((t) => pair(counts(t.taskId, 4, 0), counts(t.taskId, 4, 4)));
    expect(pairedStatistic(pairs)).toMatchObject({ difference: 1, standardError: 0, z: Infinity });
    expect(sequentialLook(design, [], pairs).decision).toBe("difference");
  });
});

// ---------------------------------------------------------------------------
// Operating characteristics, simulated with Bernoulli trials (pure math, no runner).

interface Outcome {
  decision: "better" | "worse" | "futile" | "undecided";
  trials: number;
}

function simulate(
  random: () => number,
  rates: readonly number[],
  shift: number,
  baselineTrials: number,
  effect: number,
): Outcome {
  const draw = (n: number, p: number) => {
    let c = 0;
    for (let i = 0; i < n; i++) if (random() < p) c++;
    return c;
  };
  const baseline = rates.map((p, i) => counts(`${i}`, baselineTrials, draw(baselineTrials, p)));
  const design: SequentialDesign = designSequential(baseline, { effect });
  if (design.infeasible) throw new Error(design.infeasible.message);
  const planned = design.plannedTrials!;
  const round = Math.max(1, Math.ceil(planned / 5));
  const candidate = baseline.map((t) => counts(t.taskId, 0, 0));
  const looks: SequentialLook[] = [];
  for (;;) {
    const next = Math.min(planned, candidate[0]!.trials + round);
    candidate.forEach((task, i) => {
      task.successes += draw(next - task.trials, rates[i]! + shift);
      task.trials = next;
    });
    const look = sequentialLook(
      design,
      looks,
      baseline.map((t, i) => pair(t, candidate[i]!)),
    );
    looks.push(look);
    if (look.decision === "continue") continue;
    const decision = look.decision === "difference" ? (look.z > 0 ? "better" : "worse") : look.decision;
    return { decision, trials: next };
  }
}

describe("sequential test, simulated", () => {
  const comparisons = 2000;
  const alpha = 0.05;
  const power = 0.8;
  const effect = 0.08;
  const setup = seededRandom(16);
  // 50 tasks with success rates spread over [0.15, 0.85], a 20-trial baseline.
  const rates = Array.from({ length: 50 }, () => 0.15 + 0.7 * setup());
  const margin = (p: number) => 2.326 * Math.sqrt((p * (1 - p)) / comparisons);

  it(`declares a difference that is not there at most alpha of the time (${comparisons} comparisons)`, () => {
    const random = seededRandom(1);
    let falseDecisions = 0;
    let trials = 0;
    for (let i = 0; i < comparisons; i++) {
      const outcome = simulate(random, rates, 0, 20, effect);
      if (outcome.decision === "better" || outcome.decision === "worse") falseDecisions++;
      trials += outcome.trials;
    }
    expect(falseDecisions / comparisons).toBeLessThanOrEqual(alpha + margin(alpha));
    // Futility stops save trials: on average fewer than the planned final look.
    const planned = designSequential(
      rates.map((p, i) => counts(`${i}`, 20, Math.round(20 * p))),
      { effect },
    ).plannedTrials!;
    expect(trials / comparisons).toBeLessThan(planned);
  });

  it(`detects a true difference of the target size with at least the promised power (${comparisons} comparisons)`, () => {
    const random = seededRandom(2);
    let detected = 0;
    for (let i = 0; i < comparisons; i++)
      if (simulate(random, rates, effect, 20, effect).decision === "better") detected++;
    expect(detected / comparisons).toBeGreaterThanOrEqual(power - margin(power));
  });

  it("stops early when the true difference is larger than asked for", () => {
    const random = seededRandom(3);
    const outcomes = Array.from({ length: 300 }, () => simulate(random, rates, 2 * effect, 20, effect));
    expect(outcomes.every((o) => o.decision === "better")).toBe(true);
    const meanTrials = outcomes.reduce((s, o) => s + o.trials, 0) / outcomes.length;
    expect(meanTrials).toBeLessThan(5);
  });
});
