/**
 * Comparing two runs on disk (the library's `compareRuns`, and `tau compare`):
 * load them, check they are on the same domain, and return the paired
 * comparison of `metrics/compare.ts` with both runs' metrics.
 */
import { UsageError } from "../core/errors.ts";
import {
  type AgentMetrics,
  type CompareOptions,
  compareMetrics,
  computeMetrics,
  type RunComparison,
} from "../metrics/index.ts";
import { type LoadedRun, loadRun } from "./run-file.ts";

/** A comparison of two runs, with what was compared. */
export interface RunsComparison extends RunComparison {
  domain: string;
  pathA: string;
  pathB: string;
  metricsA: AgentMetrics;
  metricsB: AgentMetrics;
}

/**
 * Compares run B with run A (names, folders, files, or runs already loaded):
 * the difference in pass^1 (B − A), its interval, p-value and decision
 * (`better` / `worse` / `no_clear_difference` / `no_shared_tasks`), and what
 * the comparison could detect. Runs on different domains are a usage error.
 */
export async function compareRuns(
  a: string | LoadedRun,
  b: string | LoadedRun,
  options: CompareOptions = {},
): Promise<RunsComparison> {
  const runA = typeof a === "string" ? await loadRun(a) : a;
  const runB = typeof b === "string" ? await loadRun(b) : b;
  const domain = runA.info.environment_info.domain_name;
  const other = runB.info.environment_info.domain_name;
  if (domain !== other)
    throw new UsageError(`${runA.path} and ${runB.path} are on different domains (${domain} vs ${other})`);
  const metricsA = computeMetrics(runA.simulations, { numTrials: runA.info.num_trials });
  const metricsB = computeMetrics(runB.simulations, { numTrials: runB.info.num_trials });
  return {
    ...compareMetrics(metricsA, metricsB, options),
    domain,
    pathA: runA.path,
    pathB: runB.path,
    metricsA,
    metricsB,
  };
}
