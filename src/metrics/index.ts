/**
 * Run metrics (upstream `metrics/agent_metrics.py`, spec §9): pass^k and
 * pass@k per task averaged over tasks, average reward, termination, DB and
 * action breakdowns, costs; seeded bootstrap intervals for every pass^k and
 * pass@k. Comparisons, power and the sequential test are in their own
 * modules, re-exported here (this folder has no `node:` imports: the browser
 * viewer uses it too).
 */
import type { SimulationRun, TerminationReason } from "../core/simulation.ts";
import {
  bootstrapMeanInterval,
  bootstrapMeans,
  DEFAULT_INTERVAL_LEVEL,
  DEFAULT_RESAMPLES,
  DEFAULT_SEED,
  type IntervalMethod,
} from "./intervals.ts";
import { canonicalOrder, compareTaskIds } from "./order.ts";

export * from "./compare.ts";
export * from "./distributions.ts";
export * from "./intervals.ts";
export * from "./order.ts";
export * from "./power.ts";
export * from "./sequential.ts";

/** Upstream's success test: reward within 1e-6 of 1. */
export function isSuccessful(reward: number): boolean {
  return reward >= 1 - 1e-6 && reward <= 1 + 1e-6;
}

/** Per-task tallies over the evaluated (non-infrastructure-error) simulations. */
export interface TaskMetrics {
  taskId: string;
  /** Evaluated simulations of this task. */
  trials: number;
  successes: number;
  /** Raw rewards, in trial order. */
  rewards: number[];
}

/** How simulations ended, grouped as upstream's console does. */
export interface TerminationCounts {
  userStop: number;
  agentStop: number;
  maxSteps: number;
  /** too_many_errors + agent_error + user_error. */
  error: number;
  infrastructureError: number;
  timeout: number;
  /** context_window_exceeded, unexpected_error. */
  other: number;
}

/** Matched / total expected actions of one tool type. */
export interface ActionCounts {
  correct: number;
  total: number;
}

/** Everything `computeMetrics` reports. */
export interface AgentMetrics {
  /** Mean raw reward over evaluated simulations (null when there are none). */
  avgReward: number | null;
  /** K actually used: num_trials lowered to the smallest evaluated count of any task. */
  maxK: number;
  /** pass^k for k = 1..maxK (index 0 is k = 1), unweighted mean over tasks. */
  passHatK: number[];
  /** pass@k for k = 1..maxK. */
  passAtK: number[];
  /** Interval of pass^1 ({@link passHatKIntervals}[0]; null without evaluated tasks). */
  passHat1Interval: [number, number] | null;
  /** Interval of each pass^k, k = 1..maxK, from one bootstrap over tasks (see {@link intervalMethod}). */
  passHatKIntervals: [number, number][];
  /** Interval of each pass@k, from the same resamples. */
  passAtKIntervals: [number, number][];
  /** How the intervals were computed (named in every report that shows them). */
  intervalMethod: IntervalMethod;
  totalSimulations: number;
  /** Distinct task ids among all simulations. */
  totalTasks: number;
  infraErrorCount: number;
  evaluatedSimulations: number;
  perTask: TaskMetrics[];
  terminationCounts: TerminationCounts;
  /** Mean agent cost in USD over simulations that have one (null when none do). */
  avgAgentCost: number | null;
  /** Mean user-simulator cost in USD, same rule. */
  avgUserCost: number | null;
  dbMatch: { match: number; mismatch: number; notChecked: number };
  readActions: ActionCounts;
  writeActions: ActionCounts;
  /** Simulations whose reward left a component unjudged (`reward_info.info.not_evaluated`). */
  notEvaluatedCount: number;
}

/** Options of {@link computeMetrics}. */
export interface MetricsOptions {
  /** The run's num_trials (upstream `info.num_trials`); default: the largest evaluated count of any task. */
  numTrials?: number;
  /** Bootstrap resamples for the intervals (default 2000). */
  resamples?: number;
  /** Seed of the bootstrap (default fixed, so reports are reproducible). */
  seed?: number;
  /** Coverage of the intervals (default 0.95). */
  level?: number;
}

/** Binomial coefficient as an exact integer (`math.comb`; 0 when k > n). */
export function binomial(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  let result = 1n;
  const kk = Math.min(k, n - k);
  for (let i = 1; i <= kk; i++) result = (result * BigInt(n - kk + i)) / BigInt(i);
  return result;
}

const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * `numerator / denominator` rounded to the nearest double, as Python's true division of two ints
 * is. Small operands are exact doubles already; larger ones (C(2000, 500) has 487 digits) are
 * divided as integers, scaled so the quotient keeps 55 significant bits plus a sticky bit for the
 * remainder, which makes the one rounding to a double the correct one.
 */
function ratio(numerator: bigint, denominator: bigint): number {
  if (numerator <= MAX_EXACT && denominator <= MAX_EXACT) return Number(numerator) / Number(denominator);
  if (numerator === 0n) return 0;
  const shift = Math.max(0, 55 - (numerator.toString(2).length - denominator.toString(2).length));
  const scaled = numerator << BigInt(shift);
  let quotient = scaled / denominator;
  if (quotient * denominator !== scaled) quotient |= 1n;
  // Two steps so neither power of two overflows; below the normal range it rounds twice (≈ 1e-308).
  const half = Math.floor(shift / 2);
  return Number(quotient) / 2 ** half / 2 ** (shift - half);
}

/** pass^k of one task: C(c, k) / C(n, k). */
export function passHatKForTask(trials: number, successes: number, k: number): number {
  return ratio(binomial(successes, k), binomial(trials, k));
}

/** pass@k of one task: 1 − C(n − c, k) / C(n, k). */
export function passAtKForTask(trials: number, successes: number, k: number): number {
  return 1 - ratio(binomial(trials - successes, k), binomial(trials, k));
}

/**
 * pass^k and pass@k of one task for k = 1..maxK, the same values as {@link passHatKForTask} and
 * {@link passAtKForTask}, with each binomial from the one before (C(n, k) = C(n, k−1)·(n−k+1)/k):
 * linear in maxK instead of quadratic, which matters at thousands of trials.
 */
export function passKSeriesForTask(
  trials: number,
  successes: number,
  maxK: number,
): { passHatK: number[]; passAtK: number[] } {
  const passHatK: number[] = [];
  const passAtK: number[] = [];
  let all = 1n;
  let good = 1n;
  let bad = 1n;
  const failures = trials - successes;
  for (let k = 1; k <= maxK; k++) {
    const step = BigInt(k);
    all = k > trials ? 0n : (all * BigInt(trials - k + 1)) / step;
    good = k > successes ? 0n : (good * BigInt(successes - k + 1)) / step;
    bad = k > failures ? 0n : (bad * BigInt(failures - k + 1)) / step;
    passHatK.push(ratio(good, all));
    passAtK.push(1 - ratio(bad, all));
  }
  return { passHatK, passAtK };
}

function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}

function terminationBucket(reason: TerminationReason): keyof TerminationCounts {
  switch (reason) {
    case "user_stop":
      return "userStop";
    case "agent_stop":
      return "agentStop";
    case "max_steps":
      return "maxSteps";
    case "too_many_errors":
    case "agent_error":
    case "user_error":
      return "error";
    case "infrastructure_error":
      return "infrastructureError";
    case "timeout":
      return "timeout";
    case "context_window_exceeded":
    case "unexpected_error":
      return "other";
    default: {
      const unreachable: never = reason;
      throw new TypeError(`unknown termination reason ${String(unreachable)}`);
    }
  }
}

function notEvaluated(simulation: SimulationRun): boolean {
  const list = simulation.reward_info?.info?.not_evaluated;
  return Array.isArray(list) && list.length > 0;
}

/** Computes the run's metrics. Infrastructure errors are counted but never scored. */
export function computeMetrics(
  simulations: readonly SimulationRun[],
  options: MetricsOptions = {},
): AgentMetrics {
  const terminationCounts: TerminationCounts = {
    userStop: 0,
    agentStop: 0,
    maxSteps: 0,
    error: 0,
    infrastructureError: 0,
    timeout: 0,
    other: 0,
  };
  const dbMatch = { match: 0, mismatch: 0, notChecked: 0 };
  const readActions = { correct: 0, total: 0 };
  const writeActions = { correct: 0, total: 0 };
  const byTask = new Map<string, TaskMetrics>();
  const allTaskIds = new Set<string>();
  const rewards: number[] = [];
  const agentCosts: number[] = [];
  const userCosts: number[] = [];
  let notEvaluatedCount = 0;

  // One canonical order (task, trial, seed, id): no number depends on how the lines were written.
  for (const simulation of canonicalOrder(simulations)) {
    allTaskIds.add(simulation.task_id);
    terminationCounts[terminationBucket(simulation.termination_reason)]++;
    if (simulation.termination_reason === "infrastructure_error") continue;

    const reward = simulation.reward_info?.reward ?? 0;
    rewards.push(reward);
    let task = byTask.get(simulation.task_id);
    if (!task) {
      task = { taskId: simulation.task_id, trials: 0, successes: 0, rewards: [] };
      byTask.set(simulation.task_id, task);
    }
    task.trials++;
    if (isSuccessful(reward)) task.successes++;
    task.rewards.push(reward);

    if (simulation.agent_cost !== null) agentCosts.push(simulation.agent_cost);
    if (simulation.user_cost !== null) userCosts.push(simulation.user_cost);
    const dbCheck = simulation.reward_info?.db_check;
    if (!dbCheck) dbMatch.notChecked++;
    else if (dbCheck.db_match) dbMatch.match++;
    else dbMatch.mismatch++;
    for (const check of simulation.reward_info?.action_checks ?? []) {
      const bucket =
        check.tool_type === "read" ? readActions : check.tool_type === "write" ? writeActions : null;
      if (!bucket) continue;
      bucket.total++;
      if (check.action_match) bucket.correct++;
    }
    if (notEvaluated(simulation)) notEvaluatedCount++;
  }

  const perTask = [...byTask.values()].sort((a, b) => compareTaskIds(a.taskId, b.taskId));
  const counts = perTask.map((task) => task.trials);
  const smallest = counts.length ? Math.min(...counts) : 0;
  const requested = options.numTrials ?? (counts.length ? Math.max(...counts) : 0);
  const maxK = Math.min(requested, smallest);
  const series = perTask.map((t) => passKSeriesForTask(t.trials, t.successes, maxK));
  const hatColumns = Array.from({ length: maxK }, (_, i) => series.map((t) => t.passHatK[i]!));
  const atColumns = Array.from({ length: maxK }, (_, i) => series.map((t) => t.passAtK[i]!));
  const passHatK = hatColumns.map((column) => mean(column)!);
  const passAtK = atColumns.map((column) => mean(column)!);
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const seed = options.seed ?? DEFAULT_SEED;
  const level = options.level ?? DEFAULT_INTERVAL_LEVEL;
  const intervals = bootstrapMeans([...hatColumns, ...atColumns], { resamples, seed, level });
  const passHatKIntervals = intervals.slice(0, maxK) as [number, number][];
  const passAtKIntervals = intervals.slice(maxK) as [number, number][];
  // maxK can be 0 with evaluated tasks (num_trials 0 in an odd file); pass^1 keeps its interval then.
  const passHat1Interval =
    passHatKIntervals[0] ??
    bootstrapMeanInterval(
      perTask.map((t) => t.successes / t.trials),
      resamples,
      seed,
      level,
    );

  return {
    avgReward: mean(rewards),
    maxK,
    passHatK,
    passAtK,
    passHat1Interval,
    passHatKIntervals,
    passAtKIntervals,
    intervalMethod: {
      method: "percentile bootstrap over tasks",
      level,
      resamples,
      seed,
      tasks: perTask.length,
    },
    totalSimulations: simulations.length,
    totalTasks: allTaskIds.size,
    infraErrorCount: terminationCounts.infrastructureError,
    evaluatedSimulations: rewards.length,
    perTask,
    terminationCounts,
    avgAgentCost: mean(agentCosts),
    avgUserCost: mean(userCosts),
    dbMatch,
    readActions,
    writeActions,
    notEvaluatedCount,
  };
}

/** Upstream's `AgentMetrics.as_dict()`: the headline numbers under upstream's key names. */
export function metricsAsDict(metrics: AgentMetrics): Record<string, number | null> {
  const out: Record<string, number | null> = {
    avg_reward: metrics.avgReward,
    avg_agent_cost: metrics.avgAgentCost,
    total_simulations: metrics.totalSimulations,
    total_tasks: metrics.totalTasks,
    infra_error_count: metrics.infraErrorCount,
  };
  metrics.passHatK.forEach((value, i) => {
    out[`pass_hat_${i + 1}`] = value;
  });
  return out;
}
