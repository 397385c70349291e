/**
 * Comparing two runs over the tasks both evaluated: per-task differences in
 * success rate (B − A), their mean with a paired bootstrap interval and a
 * sign-flip permutation p-value, a decision at the chosen alpha, and what
 * the comparison could detect (minimum detectable difference, trials
 * needed; see `power.ts`). `tau compare` and the library's `compareRuns`
 * print and return these numbers.
 */
import type { AgentMetrics } from "./index.ts";
import {
  type BootstrapOptions,
  bootstrapMeanInterval,
  DEFAULT_INTERVAL_LEVEL,
  DEFAULT_RESAMPLES,
  DEFAULT_SEED,
  type IntervalMethod,
} from "./intervals.ts";
import { compareTaskIds } from "./order.ts";
import {
  DEFAULT_ALPHA,
  DEFAULT_POWER,
  decomposeVariance,
  minimumDetectableDifference,
  type PairedCounts,
  type TrialsNeeded,
  trialsToDetect,
  type VarianceDecomposition,
} from "./power.ts";
import { seededRandom } from "./random.ts";

/** One task's pass^1 in both runs. */
export interface TaskDifference {
  taskId: string;
  a: number;
  b: number;
  /** b − a. */
  difference: number;
}

/** Result of {@link comparePassHat1}. */
export interface PassHat1Comparison {
  /** Tasks evaluated in both runs, in task-id order. */
  tasks: TaskDifference[];
  /** Mean of b − a over the shared tasks (null when none are shared). */
  meanDifference: number | null;
  /** Paired-bootstrap interval of the mean difference (level 1 − alpha, default 95%). */
  interval: [number, number] | null;
  /** How {@link interval} was computed. */
  intervalMethod: IntervalMethod;
  /** Two-sided sign-flip permutation p-value (exact up to 16 non-zero differences, else seeded Monte Carlo). */
  pValue: number;
  /** Task ids evaluated in only one of the runs (left out of the comparison). */
  onlyInA: string[];
  onlyInB: string[];
}

const EXACT_FLIP_LIMIT = 16;
const MONTE_CARLO_FLIPS = 20000;

/** Probability, under "no difference", of a mean difference at least as large in size as observed. */
function signFlipPValue(differences: readonly number[], seed: number): number {
  const nonZero = differences.filter((d) => d !== 0);
  const count = differences.length;
  if (nonZero.length === 0 || count === 0) return 1;
  const observed = Math.abs(nonZero.reduce((s, d) => s + d, 0)) / count;
  const tolerance = 1e-12;
  if (nonZero.length <= EXACT_FLIP_LIMIT) {
    const total = 2 ** nonZero.length;
    let extreme = 0;
    for (let mask = 0; mask < total; mask++) {
      let sum = 0;
      for (let i = 0; i < nonZero.length; i++) sum += mask & (1 << i) ? -nonZero[i]! : nonZero[i]!;
      if (Math.abs(sum) / count >= observed - tolerance) extreme++;
    }
    return extreme / total;
  }
  const random = seededRandom(seed);
  let extreme = 0;
  for (let r = 0; r < MONTE_CARLO_FLIPS; r++) {
    let sum = 0;
    for (const d of nonZero) sum += random() < 0.5 ? -d : d;
    if (Math.abs(sum) / count >= observed - tolerance) extreme++;
  }
  return (extreme + 1) / (MONTE_CARLO_FLIPS + 1);
}

/**
 * Paired comparison of pass^1 between two runs over the tasks both evaluated:
 * per-task success-rate differences (b − a), their mean, a paired bootstrap
 * interval and a sign-flip permutation p-value.
 */
export function comparePassHat1(
  a: Pick<AgentMetrics, "perTask">,
  b: Pick<AgentMetrics, "perTask">,
  options: BootstrapOptions = {},
): PassHat1Comparison {
  const inB = new Map(b.perTask.map((t) => [t.taskId, t]));
  const inA = new Set(a.perTask.map((t) => t.taskId));
  const tasks: TaskDifference[] = [];
  for (const taskA of [...a.perTask].sort((x, y) => compareTaskIds(x.taskId, y.taskId))) {
    const taskB = inB.get(taskA.taskId);
    if (!taskB) continue;
    const rateA = taskA.successes / taskA.trials;
    const rateB = taskB.successes / taskB.trials;
    tasks.push({ taskId: taskA.taskId, a: rateA, b: rateB, difference: rateB - rateA });
  }
  const differences = tasks.map((t) => t.difference);
  const seed = options.seed ?? DEFAULT_SEED;
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const level = options.level ?? DEFAULT_INTERVAL_LEVEL;
  return {
    tasks,
    meanDifference:
      differences.length === 0 ? null : differences.reduce((s, d) => s + d, 0) / differences.length,
    interval: bootstrapMeanInterval(differences, resamples, seed, level),
    intervalMethod: {
      method: "percentile bootstrap over tasks",
      level,
      resamples,
      seed,
      tasks: tasks.length,
    },
    pValue: signFlipPValue(differences, seed),
    onlyInA: a.perTask
      .filter((t) => !inB.has(t.taskId))
      .map((t) => t.taskId)
      .sort(compareTaskIds),
    onlyInB: b.perTask
      .filter((t) => !inA.has(t.taskId))
      .map((t) => t.taskId)
      .sort(compareTaskIds),
  };
}

/** What a comparison says about run B relative to run A. */
export type ComparisonDecision = "better" | "worse" | "no_clear_difference" | "no_shared_tasks";

/** Options of {@link compareMetrics}. */
export interface CompareOptions {
  /** Two-sided significance level (default 0.05); the interval's level is 1 − alpha. */
  alpha?: number;
  /** Power for the minimum detectable difference (default 0.8). */
  power?: number;
  /** A difference in pass^1 to size trials for (default 0.05). */
  effect?: number;
  resamples?: number;
  seed?: number;
}

/** Everything a paired comparison of two runs reports (see the module comment). */
export interface RunComparison extends PassHat1Comparison {
  alpha: number;
  power: number;
  effect: number;
  /** B relative to A: better or worse when p < alpha and the interval excludes 0. */
  decision: ComparisonDecision;
  /** The p-value's method, for reports to name. */
  testMethod: "two-sided sign-flip permutation test over tasks";
  /** The spread of the per-task differences, trial noise vs task-to-task (null without shared tasks). */
  variance: VarianceDecomposition | null;
  /** Median evaluated trials per shared task in each run. */
  trialsA: number;
  trialsB: number;
  /**
   * Smallest true difference detectable at `power` and `alpha` at the current
   * trials: from the model's variance, between-task + within-task (the larger
   * of the observed variance and its trial-noise part; null below two tasks).
   */
  minimumDetectableDifference: number | null;
  /** Trials per task, the same in both runs, to detect `effect` (null without shared tasks). */
  trialsForEffect: TrialsNeeded | null;
}

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Paired comparison of pass^1 of two runs, with its decision and power (B − A; see {@link RunComparison}). */
export function compareMetrics(
  a: Pick<AgentMetrics, "perTask">,
  b: Pick<AgentMetrics, "perTask">,
  options: CompareOptions = {},
): RunComparison {
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  const power = options.power ?? DEFAULT_POWER;
  const effect = options.effect ?? 0.05;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be between 0 and 1, got ${alpha}`);
  if (!(power > 0 && power < 1)) throw new RangeError(`power must be between 0 and 1, got ${power}`);
  if (!(effect > 0 && effect <= 1)) throw new RangeError(`effect must be in (0, 1], got ${effect}`);
  const paired = comparePassHat1(a, b, {
    level: 1 - alpha,
    ...(options.resamples === undefined ? {} : { resamples: options.resamples }),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
  });
  const byIdA = new Map(a.perTask.map((t) => [t.taskId, t]));
  const byIdB = new Map(b.perTask.map((t) => [t.taskId, t]));
  const pairs: PairedCounts[] = paired.tasks.map(({ taskId }) => ({
    taskId,
    a: byIdA.get(taskId)!,
    b: byIdB.get(taskId)!,
  }));
  const variance = pairs.length > 0 ? decomposeVariance(pairs) : null;
  let decision: ComparisonDecision = "no_shared_tasks";
  if (paired.meanDifference !== null) {
    const [low, high] = paired.interval!;
    const significant = paired.pValue < alpha && (low > 0 || high < 0);
    decision = !significant ? "no_clear_difference" : paired.meanDifference > 0 ? "better" : "worse";
  }
  return {
    ...paired,
    alpha,
    power,
    effect,
    decision,
    testMethod: "two-sided sign-flip permutation test over tasks",
    variance,
    trialsA: median(pairs.map((p) => p.a.trials)),
    trialsB: median(pairs.map((p) => p.b.trials)),
    minimumDetectableDifference: variance
      ? minimumDetectableDifference(variance.betweenTask + variance.withinTask, variance.tasks, {
          alpha,
          power,
        })
      : null,
    trialsForEffect: variance
      ? trialsToDetect(
          {
            tasks: variance.tasks,
            betweenTask: variance.betweenTask,
            trialVarianceA: variance.trialVarianceA,
            trialVarianceB: variance.trialVarianceB,
          },
          effect,
          { alpha, power },
        )
      : null,
  };
}
