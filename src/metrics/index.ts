/**
 * Run metrics (upstream `metrics/agent_metrics.py`, spec §9): pass^k and
 * pass@k per task averaged over tasks, average reward, termination, DB and
 * action breakdowns, costs; plus a seeded bootstrap interval for pass^1 and a
 * paired comparison of two runs (used by `tau compare`).
 */
import type { SimulationRun, TerminationReason } from "../core/simulation.ts";

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
  /** Raw rewards, in simulation order. */
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
  /** 95% percentile-bootstrap interval of pass^1 over tasks (seeded; null without tasks). */
  passHat1Interval: [number, number] | null;
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
  /** Bootstrap resamples for the pass^1 interval (default 2000). */
  resamples?: number;
  /** Seed of the bootstrap (default fixed, so reports are reproducible). */
  seed?: number;
}

const DEFAULT_RESAMPLES = 2000;
const DEFAULT_SEED = 0x7a0b;

/** Binomial coefficient as an exact integer (`math.comb`; 0 when k > n). */
export function binomial(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  let result = 1n;
  const kk = Math.min(k, n - k);
  for (let i = 1; i <= kk; i++) result = (result * BigInt(n - kk + i)) / BigInt(i);
  return result;
}

// Python divides the exact integers; for the trial counts met in practice both fit a double exactly.
function ratio(numerator: bigint, denominator: bigint): number {
  return Number(numerator) / Number(denominator);
}

/** pass^k of one task: C(c, k) / C(n, k). */
export function passHatKForTask(trials: number, successes: number, k: number): number {
  return ratio(binomial(successes, k), binomial(trials, k));
}

/** pass@k of one task: 1 − C(n − c, k) / C(n, k). */
export function passAtKForTask(trials: number, successes: number, k: number): number {
  return 1 - ratio(binomial(trials - successes, k), binomial(trials, k));
}

function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}

/** Small seeded PRNG (mulberry32): same seed, same resamples, on every platform. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Linear-interpolation quantile of sorted values (numpy's default). */
function quantile(sorted: readonly number[], q: number): number {
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const low = sorted[lower]!;
  return low + (sorted[upper]! - low) * (position - lower);
}

/** 95% percentile-bootstrap interval of the mean of `values` (resampling the values with replacement). */
export function bootstrapMeanInterval(
  values: readonly number[],
  resamples = DEFAULT_RESAMPLES,
  seed = DEFAULT_SEED,
): [number, number] | null {
  if (values.length === 0) return null;
  const random = seededRandom(seed);
  const means: number[] = new Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < values.length; i++) sum += values[Math.floor(random() * values.length)]!;
    means[r] = sum / values.length;
  }
  means.sort((a, b) => a - b);
  return [quantile(means, 0.025), quantile(means, 0.975)];
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

  for (const simulation of simulations) {
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

  const perTask = [...byTask.values()];
  const counts = perTask.map((task) => task.trials);
  const smallest = counts.length ? Math.min(...counts) : 0;
  const requested = options.numTrials ?? (counts.length ? Math.max(...counts) : 0);
  const maxK = Math.min(requested, smallest);
  const passHatK: number[] = [];
  const passAtK: number[] = [];
  for (let k = 1; k <= maxK; k++) {
    passHatK.push(mean(perTask.map((t) => passHatKForTask(t.trials, t.successes, k)))!);
    passAtK.push(mean(perTask.map((t) => passAtKForTask(t.trials, t.successes, k)))!);
  }
  const perTaskPass1 = perTask.map((t) => t.successes / t.trials);

  return {
    avgReward: mean(rewards),
    maxK,
    passHatK,
    passAtK,
    passHat1Interval: bootstrapMeanInterval(perTaskPass1, options.resamples, options.seed),
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

// ---------------------------------------------------------------------------
// Comparing two runs

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
  /** Tasks evaluated in both runs, in run a's order. */
  tasks: TaskDifference[];
  /** Mean of b − a over the shared tasks (null when none are shared). */
  meanDifference: number | null;
  /** 95% paired-bootstrap interval of the mean difference. */
  interval: [number, number] | null;
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
  a: AgentMetrics,
  b: AgentMetrics,
  options: { resamples?: number; seed?: number } = {},
): PassHat1Comparison {
  const inB = new Map(b.perTask.map((t) => [t.taskId, t]));
  const inA = new Set(a.perTask.map((t) => t.taskId));
  const tasks: TaskDifference[] = [];
  for (const taskA of a.perTask) {
    const taskB = inB.get(taskA.taskId);
    if (!taskB) continue;
    const rateA = taskA.successes / taskA.trials;
    const rateB = taskB.successes / taskB.trials;
    tasks.push({ taskId: taskA.taskId, a: rateA, b: rateB, difference: rateB - rateA });
  }
  const differences = tasks.map((t) => t.difference);
  const seed = options.seed ?? DEFAULT_SEED;
  return {
    tasks,
    meanDifference: mean(differences),
    interval: bootstrapMeanInterval(differences, options.resamples, seed),
    pValue: signFlipPValue(differences, seed),
    onlyInA: a.perTask.filter((t) => !inB.has(t.taskId)).map((t) => t.taskId),
    onlyInB: b.perTask.filter((t) => !inA.has(t.taskId)).map((t) => t.taskId),
  };
}
