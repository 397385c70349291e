/**
 * What the pages show, computed from the payloads with the same metrics code
 * as `tau view` (`src/metrics/`). Pure: tested without a browser too.
 */
import type { TerminationReason } from "../../core/simulation.ts";
import { type AgentMetrics, compareMetrics, isSuccessful, type RunComparison } from "../../metrics/index.ts";
import type { RunData, SimRow, TaskRow } from "../wire.ts";

/** One simulation's outcome in the grid. */
export type Outcome = "success" | "failure" | "infra";

/** The outcome of a row. */
export function outcomeOf(row: SimRow): Outcome {
  if (row.termination === "infrastructure_error" || row.reward === null) return "infra";
  return isSuccessful(row.reward) ? "success" : "failure";
}

/** The interval of pass^k (null past the k the metrics computed). */
export function passHatKInterval(metrics: AgentMetrics, k: number): [number, number] | null {
  return metrics.passHatKIntervals[k - 1] ?? (k === 1 ? metrics.passHat1Interval : null);
}

/** The interval of pass@k. */
export function passAtKInterval(metrics: AgentMetrics, k: number): [number, number] | null {
  return metrics.passAtKIntervals[k - 1] ?? null;
}

/** A task's line in the grid. */
export interface GridRow {
  task: TaskRow;
  taskIndex: number;
  /** By trial; null where no simulation counts (not run yet). */
  cells: (SimRow | null)[];
  successes: number;
  evaluated: number;
  infra: number;
}

/** Counts of one termination reason. */
export interface TerminationCount {
  reason: TerminationReason;
  count: number;
}

/** What the run page shows. */
export interface RunModel {
  data: RunData;
  metrics: AgentMetrics;
  terminations: TerminationCount[];
  trials: number;
  grid: GridRow[];
  infra: SimRow[];
  /** Total cost, and per simulation with a cost. */
  cost: { total: number | null; perSimulation: number | null };
}

/** Computes what the run page shows. */
export function runModel(data: RunData): RunModel {
  const tasks = data.tasks;
  // Computed by the server (or the export) with computeMetrics; see stats.ts.
  const metrics = data.stats.metrics;
  const reasons = new Map<TerminationReason, number>();
  for (const row of data.simulations) reasons.set(row.termination, (reasons.get(row.termination) ?? 0) + 1);

  let trials = data.summary.numTrials;
  for (const row of data.simulations) trials = Math.max(trials, row.trial + 1);
  const grid: GridRow[] = tasks.map((task, taskIndex) => ({
    task,
    taskIndex,
    cells: new Array<SimRow | null>(trials).fill(null),
    successes: 0,
    evaluated: 0,
    infra: 0,
  }));
  const infra: SimRow[] = [];
  let total: number | null = null;
  let priced = 0;
  for (const row of data.simulations) {
    const line = grid[row.task]!;
    line.cells[row.trial] = row;
    const outcome = outcomeOf(row);
    if (outcome === "infra") {
      line.infra++;
      infra.push(row);
    } else {
      line.evaluated++;
      if (outcome === "success") line.successes++;
    }
    if (row.agentCost !== null || row.userCost !== null) {
      total = (total ?? 0) + (row.agentCost ?? 0) + (row.userCost ?? 0);
      priced++;
    }
  }
  return {
    data,
    metrics,
    terminations: [...reasons]
      .map(([reason, count]) => ({ reason, count }))
      .sort((a, b) => b.count - a.count),
    trials,
    grid: grid.filter((line) => line.cells.some((cell) => cell !== null)),
    infra,
    cost: { total, perSimulation: total === null || priced === 0 ? null : total / priced },
  };
}

/** One task whose pass^1 differs between two runs. */
export interface FlippedTask {
  taskId: string;
  a: { successes: number; trials: number };
  b: { successes: number; trials: number };
  difference: number;
}

/** The compare page's model: `tau compare`'s paired test and the tasks that moved. */
export interface ComparisonModel {
  domainA: string;
  domainB: string;
  metricsA: AgentMetrics;
  metricsB: AgentMetrics;
  /** `tau compare`'s numbers (`compareMetrics`); null when the runs are on different domains. */
  comparison: RunComparison | null;
  /** Tasks whose success rate changed, largest change first. */
  flipped: FlippedTask[];
}

/** Compares two runs as `tau compare` does. */
export function comparisonModel(a: RunModel, b: RunModel): ComparisonModel {
  const domainA = a.data.summary.domain;
  const domainB = b.data.summary.domain;
  if (domainA !== domainB)
    return {
      domainA,
      domainB,
      metricsA: a.metrics,
      metricsB: b.metrics,
      comparison: null,
      flipped: [],
    };
  const comparison = compareMetrics(a.metrics, b.metrics);
  const perTaskA = new Map(a.metrics.perTask.map((task) => [task.taskId, task]));
  const perTaskB = new Map(b.metrics.perTask.map((task) => [task.taskId, task]));
  const flipped = comparison.tasks
    .filter((task) => task.difference !== 0)
    .map((task) => {
      const inA = perTaskA.get(task.taskId)!;
      const inB = perTaskB.get(task.taskId)!;
      return {
        taskId: task.taskId,
        a: { successes: inA.successes, trials: inA.trials },
        b: { successes: inB.successes, trials: inB.trials },
        difference: task.difference,
      };
    })
    .sort((x, y) => Math.abs(y.difference) - Math.abs(x.difference) || x.taskId.localeCompare(y.taskId));
  return {
    domainA,
    domainB,
    metricsA: a.metrics,
    metricsB: b.metrics,
    comparison,
    flipped,
  };
}
