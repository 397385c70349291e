/**
 * How much a comparison of two runs can see, and how many trials it needs.
 * The model (docs/statistics.md): the comparison is paired over tasks; each
 * trial of a task is a Bernoulli draw of that task's success rate in that
 * run; so the variance of one task's difference in success rate (B − A) is
 *
 *   σ²_between + v_A / n_A + v_B / n_B
 *
 * where v = p(1 − p) is the task's Bernoulli variance, n its trials, and
 * σ²_between how much the true per-task differences vary from task to task
 * (trials cannot shrink that part). The mean difference over T tasks has
 * that variance divided by T, and a two-sided test at level α has power
 * 1 − β against a true difference δ when
 *
 *   δ ≥ (t_{T−1}(1 − α/2) + t_{T−1}(1 − β)) · √(variance / T).
 */
import { studentTQuantile } from "./distributions.ts";

/** Success counts of one task in one run (evaluated trials only). */
export interface TaskCounts {
  taskId: string;
  trials: number;
  successes: number;
}

/** One task evaluated in both runs. */
export interface PairedCounts {
  taskId: string;
  a: TaskCounts;
  b: TaskCounts;
}

/** Significance and power asked of a comparison. */
export interface PowerTarget {
  /** Two-sided significance level (default 0.05). */
  alpha?: number;
  /** Power against the effect (default 0.8). */
  power?: number;
}

/** Default two-sided significance level. */
export const DEFAULT_ALPHA = 0.05;
/** Default power of a planned comparison. */
export const DEFAULT_POWER = 0.8;

function checkProbability(name: string, value: number): void {
  if (!(value > 0 && value < 1)) throw new RangeError(`${name} must be between 0 and 1, got ${value}`);
}

/**
 * Unbiased estimate of a task's Bernoulli variance p(1 − p) from its trials,
 * c(n − c) / (n(n − 1)); null with fewer than two trials (it cannot be told apart from the spread between tasks).
 */
export function bernoulliVariance(trials: number, successes: number): number | null {
  if (trials < 2) return null;
  return (successes * (trials - successes)) / (trials * (trials - 1));
}

/**
 * Per-task Bernoulli variance estimates of one run. A task with a single
 * trial gets p̄(1 − p̄) of the run's mean rate p̄, an upper bound of the
 * average p(1 − p) over tasks, so what is computed from it errs on the safe side.
 */
export function taskVariances(tasks: readonly TaskCounts[]): number[] {
  if (tasks.length === 0) return [];
  const meanRate = tasks.reduce((sum, t) => sum + t.successes / t.trials, 0) / tasks.length;
  const fallback = meanRate * (1 - meanRate);
  return tasks.map((t) => bernoulliVariance(t.trials, t.successes) ?? fallback);
}

/** The spread of per-task differences (b − a), split into trial noise and true task-to-task variation. */
export interface VarianceDecomposition {
  /** Tasks paired. */
  tasks: number;
  /** Sample variance of the per-task differences: what the paired test over tasks sees. */
  total: number;
  /** Its expected part from trial noise at the current trial counts: mean over tasks of v_A/n_A + v_B/n_B. */
  withinTask: number;
  /** The rest, max(0, total − withinTask): true per-task differences varying from task to task. */
  betweenTask: number;
  /** Mean per-task Bernoulli variance v of run A (the within-task variance of one trial). */
  trialVarianceA: number;
  /** Same for run B. */
  trialVarianceB: number;
}

function sampleVariance(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  return values.reduce((s, v) => s + (v - mean) ** 2, 0) / (values.length - 1);
}

/** Splits the variance of the paired differences (see {@link VarianceDecomposition}). */
export function decomposeVariance(pairs: readonly PairedCounts[]): VarianceDecomposition {
  const differences = pairs.map((p) => p.b.successes / p.b.trials - p.a.successes / p.a.trials);
  const vA = taskVariances(pairs.map((p) => p.a));
  const vB = taskVariances(pairs.map((p) => p.b));
  const count = pairs.length;
  const mean = (values: readonly number[]) => (count === 0 ? 0 : values.reduce((s, v) => s + v, 0) / count);
  const total = sampleVariance(differences);
  const withinTask = mean(pairs.map((p, i) => vA[i]! / p.a.trials + vB[i]! / p.b.trials));
  return {
    tasks: count,
    total,
    withinTask,
    betweenTask: Math.max(0, total - withinTask),
    trialVarianceA: mean(vA),
    trialVarianceB: mean(vB),
  };
}

/**
 * (t_{T−1}(1 − α/2) + t_{T−1}(power)): how many standard errors a true
 * difference must span to be detected; null with fewer than two tasks.
 */
export function detectionMultiplier(tasks: number, target: PowerTarget = {}): number | null {
  const alpha = target.alpha ?? DEFAULT_ALPHA;
  const power = target.power ?? DEFAULT_POWER;
  checkProbability("alpha", alpha);
  checkProbability("power", power);
  if (tasks < 2) return null;
  return studentTQuantile(1 - alpha / 2, tasks - 1) + studentTQuantile(power, tasks - 1);
}

/**
 * The smallest true mean difference the paired test over `tasks` tasks
 * detects with the given power, when one task's difference has variance
 * `variance`; null with fewer than two tasks.
 */
export function minimumDetectableDifference(
  variance: number,
  tasks: number,
  target: PowerTarget = {},
): number | null {
  const multiplier = detectionMultiplier(tasks, target);
  return multiplier === null ? null : multiplier * Math.sqrt(variance / tasks);
}

/** The variance model of a planned comparison (see the module comment). */
export interface VarianceModel {
  tasks: number;
  /** σ²_between: variance of the true per-task differences. */
  betweenTask: number;
  /** Mean Bernoulli variance of one trial of a task in run A. */
  trialVarianceA: number;
  /** Same in run B. */
  trialVarianceB: number;
}

/** Trials per task a comparison needs (null: no number of trials is enough). */
export interface TrialsNeeded {
  /** Trials per task, or null when the target is out of reach with these tasks. */
  trials: number | null;
  /** The detectable difference with unlimited trials (what the spread between tasks or a fixed run leaves). */
  floor: number;
}

/**
 * Trials per task, the same in both runs, for the paired test to detect
 * `effect` (two-sided `alpha`, `power`); see the module comment.
 */
export function trialsToDetect(model: VarianceModel, effect: number, target: PowerTarget = {}): TrialsNeeded {
  return solveTrials(model, effect, target, model.trialVarianceA + model.trialVarianceB, 0);
}

/**
 * Trials per task of run B when run A stays as it is (its per-task
 * within-task variance already fixed at `fixedWithinA`, the mean of v_A/n_A).
 */
export function candidateTrialsToDetect(
  model: VarianceModel,
  fixedWithinA: number,
  effect: number,
  target: PowerTarget = {},
): TrialsNeeded {
  return solveTrials(model, effect, target, model.trialVarianceB, fixedWithinA);
}

// Smallest n with multiplier² · (between + fixed + perTrial / n) / T ≤ effect².
function solveTrials(
  model: VarianceModel,
  effect: number,
  target: PowerTarget,
  perTrial: number,
  fixed: number,
): TrialsNeeded {
  if (!(effect > 0)) throw new RangeError(`effect must be positive, got ${effect}`);
  const multiplier = detectionMultiplier(model.tasks, target);
  if (multiplier === null) return { trials: null, floor: Number.POSITIVE_INFINITY };
  const floorVariance = model.betweenTask + fixed;
  const floor = multiplier * Math.sqrt(floorVariance / model.tasks);
  const room = (model.tasks * effect * effect) / (multiplier * multiplier) - floorVariance;
  if (!(room > 0)) return { trials: null, floor };
  // A rounding guard: 1e-12 keeps an exact fit (e.g. perTrial / room = 12) from becoming 13.
  return { trials: Math.max(1, Math.ceil(perTrial / room - 1e-12)), floor };
}

/** What {@link planTrials} is given: the tasks, their trial variance, and optionally a baseline kept as it is. */
export interface PlanInput extends PowerTarget {
  tasks: number;
  /** Mean per-task Bernoulli variance p(1 − p), assumed for both runs. */
  trialVariance: number;
  /** Assumed σ²_between (default 0: the same shift on every task). */
  betweenTask?: number;
  /** An existing baseline run: the mean over tasks of its v / n (its fixed share of a task difference's variance). */
  baselineWithinTask?: number;
  /** The difference in pass^1 to detect. */
  effect: number;
}

/** Trials per task for a planned comparison. */
export interface TrialPlan {
  tasks: number;
  effect: number;
  alpha: number;
  power: number;
  trialVariance: number;
  betweenTask: number;
  /** Both runs from scratch, with the same trials per task. */
  fresh: TrialsNeeded;
  /** The new run alone against the baseline as it is (null without a baseline). */
  againstBaseline: TrialsNeeded | null;
}

/** Trials per task that detect `effect`, fresh and against a baseline (see the module comment). */
export function planTrials(input: PlanInput): TrialPlan {
  const alpha = input.alpha ?? DEFAULT_ALPHA;
  const power = input.power ?? DEFAULT_POWER;
  const betweenTask = input.betweenTask ?? 0;
  if (!(betweenTask >= 0)) throw new RangeError(`betweenTask must be ≥ 0, got ${betweenTask}`);
  if (!(input.trialVariance >= 0 && input.trialVariance <= 0.25))
    throw new RangeError(`trialVariance must be in [0, 0.25], got ${input.trialVariance}`);
  const model: VarianceModel = {
    tasks: input.tasks,
    betweenTask,
    trialVarianceA: input.trialVariance,
    trialVarianceB: input.trialVariance,
  };
  const target = { alpha, power };
  return {
    tasks: input.tasks,
    effect: input.effect,
    alpha,
    power,
    trialVariance: input.trialVariance,
    betweenTask,
    fresh: trialsToDetect(model, input.effect, target),
    againstBaseline:
      input.baselineWithinTask === undefined
        ? null
        : candidateTrialsToDetect(model, input.baselineWithinTask, input.effect, target),
  };
}

/** A baseline's numbers for {@link planTrials}: tasks, mean trial variance, and its fixed within-task share. */
export function baselineForPlan(tasks: readonly TaskCounts[]): {
  tasks: number;
  trialVariance: number;
  baselineWithinTask: number;
} {
  const variances = taskVariances(tasks);
  const mean = (values: readonly number[]) =>
    values.length === 0 ? 0 : values.reduce((s, v) => s + v, 0) / values.length;
  return {
    tasks: tasks.length,
    trialVariance: mean(variances),
    baselineWithinTask: mean(variances.map((v, i) => v / tasks[i]!.trials)),
  };
}
