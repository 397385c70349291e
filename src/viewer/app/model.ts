/**
 * What the pages show, computed from the payloads with the same metrics code
 * as `tau view` (`src/metrics/`). Pure: tested without a browser too.
 */
import type { SimulationRun, TerminationReason } from "../../core/simulation.ts";
import {
  type ComponentOutcome,
  componentOutcomes,
  type GroupMetrics,
  metricsByGroup,
  telecomTaskFacets,
} from "../../metrics/breakdowns.ts";
import {
  type AgentMetrics,
  compareMetrics,
  computeMetrics,
  isSuccessful,
  type RunComparison,
} from "../../metrics/index.ts";
import { type RunData, type SimRow, simulationOfRow, type TaskRow } from "../wire.ts";

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

/** Telecom's breakdowns (task ids encode them). */
export interface TelecomBreakdowns {
  intent: GroupMetrics[];
  persona: GroupMetrics[];
  subIssues: GroupMetrics[];
}

/** Everything the run page shows. */
export interface RunModel {
  data: RunData;
  /** The rows as `computeMetrics` reads them, same order as `data.simulations`. */
  simulations: SimulationRun[];
  metrics: AgentMetrics;
  components: ComponentOutcome[];
  /** Groups by the number of expected write actions, ascending (tasks whose count is unknown left out). */
  byWriteActions: GroupMetrics[];
  telecom: TelecomBreakdowns | null;
  terminations: TerminationCount[];
  trials: number;
  grid: GridRow[];
  infra: SimRow[];
  /** Total cost, and per simulation with a cost. */
  cost: { total: number | null; perSimulation: number | null };
}

const byNumber = (a: GroupMetrics, b: GroupMetrics) => Number(a.group) - Number(b.group);
const byName = (a: GroupMetrics, b: GroupMetrics) => a.group.localeCompare(b.group);

/** Computes the run page's model. */
export function runModel(data: RunData): RunModel {
  const tasks = data.tasks;
  const simulations = data.simulations.map((row) => simulationOfRow(row, tasks[row.task]!.id));
  const numTrials = data.summary.numTrials;
  const metrics = computeMetrics(simulations, { numTrials });
  const taskById = new Map(tasks.map((task) => [task.id, task]));
  const byWriteActions = metricsByGroup(
    simulations,
    (id) => {
      const count = taskById.get(id)?.writeActions;
      return count === null || count === undefined ? null : String(count);
    },
    { numTrials },
  ).sort(byNumber);
  const telecom =
    tasks.length > 0 && tasks.every((task) => telecomTaskFacets(task.id) !== null)
      ? {
          intent: metricsByGroup(simulations, (id) => telecomTaskFacets(id)!.intent, { numTrials }).sort(
            byName,
          ),
          persona: metricsByGroup(simulations, (id) => telecomTaskFacets(id)!.persona, { numTrials }).sort(
            byName,
          ),
          subIssues: metricsByGroup(simulations, (id) => String(telecomTaskFacets(id)!.subIssues.length), {
            numTrials,
          }).sort(byNumber),
        }
      : null;

  const reasons = new Map<TerminationReason, number>();
  for (const row of data.simulations) reasons.set(row.termination, (reasons.get(row.termination) ?? 0) + 1);

  let trials = numTrials;
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
    simulations,
    metrics,
    components: componentOutcomes(simulations),
    byWriteActions,
    telecom,
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
