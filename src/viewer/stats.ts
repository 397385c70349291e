/**
 * A run's statistics for the viewer, computed once per change of the run
 * (on the server, or by the static export) with the same metrics code as
 * `tau view`: the metrics with their intervals, reward by component, and the
 * breakdowns by task group. The browser shows them; it does not recompute
 * them (each breakdown group is bootstrapped on its own, which is the slow
 * part on a run of thousands of tasks). Pure: no `node:` imports.
 */
import type { SimulationRun } from "../core/simulation.ts";
import {
  componentOutcomes,
  type GroupMetrics,
  metricsByGroup,
  telecomTaskFacets,
} from "../metrics/breakdowns.ts";
import { computeMetrics } from "../metrics/index.ts";
import type { GroupStats, RunStats, TaskRow } from "./wire.ts";

const byNumber = (a: GroupStats, b: GroupStats) => Number(a.group) - Number(b.group);
const byName = (a: GroupStats, b: GroupStats) => a.group.localeCompare(b.group);

/** One group's headline (its per-task detail is not sent). */
function groupStats(group: GroupMetrics): GroupStats {
  return {
    group: group.group,
    tasks: group.metrics.perTask.length,
    simulations: group.metrics.totalSimulations,
    passHat1: group.metrics.passHatK[0] ?? null,
    passHat1Interval: group.metrics.passHat1Interval,
  };
}

/** The statistics of a run whose simulations (as `computeMetrics` reads them) and tasks are given. */
export function runStats(
  simulations: readonly SimulationRun[],
  tasks: readonly TaskRow[],
  numTrials: number,
): RunStats {
  const options = { numTrials };
  const writes = new Map(tasks.map((task) => [task.id, task.writeActions]));
  const byWriteActions = metricsByGroup(
    simulations,
    (id) => {
      const count = writes.get(id);
      return count === null || count === undefined ? null : String(count);
    },
    options,
  )
    .map(groupStats)
    .sort(byNumber);
  const isTelecom = tasks.length > 0 && tasks.every((task) => telecomTaskFacets(task.id) !== null);
  const facet = (pick: (id: string) => string) => metricsByGroup(simulations, pick, options).map(groupStats);
  return {
    metrics: computeMetrics(simulations, options),
    components: componentOutcomes(simulations),
    byWriteActions,
    telecom: isTelecom
      ? {
          intent: facet((id) => telecomTaskFacets(id)!.intent).sort(byName),
          persona: facet((id) => telecomTaskFacets(id)!.persona).sort(byName),
          subIssues: facet((id) => String(telecomTaskFacets(id)!.subIssues.length)).sort(byNumber),
        }
      : null,
  };
}
