/**
 * Export of a checkpoint to upstream's results JSON (spec §10): the latest
 * run record's `info`, every task of the run, and per `(trial, task, seed)`
 * the simulation that counts, in completion order.
 */
import { FileFormatError } from "../core/errors.ts";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Info, type Results, resultsLayout, writeResultsFile } from "../core/results.ts";
import { type CheckpointState, checkpointUsage, loadCheckpointState } from "./checkpoint-state.ts";
import { runUsageToPy } from "./llm-usage.ts";

/**
 * The run's `info` as a checkpoint describes it: the latest run record's, with
 * the trial count it reached and, in `taubench.llm_usage`, the provider usage
 * summed over every session.
 */
export function checkpointInfo(state: CheckpointState, checkpointPath: string): Info {
  if (!state.run) throw new FileFormatError(checkpointPath, "no run record (is this a taubench checkpoint?)");
  const parsed = Info.safeParse(state.run.info);
  if (!parsed.success)
    throw new FileFormatError(checkpointPath, `run record info: ${parsed.error.issues[0]!.message}`);
  const info: Info = { ...parsed.data, num_trials: state.run.num_trials };
  const usage = checkpointUsage(state);
  if (usage && info.taubench) info.taubench = { ...info.taubench, llm_usage: runUsageToPy(usage) };
  return info;
}

/** Builds the results object a checkpoint describes (full simulations, transcripts included). */
export async function checkpointToResults(checkpointPath: string): Promise<Results> {
  // One pass keeping transcripts: the export needs every simulation in memory anyway.
  const state = await loadCheckpointState(checkpointPath, { full: true });
  const info = checkpointInfo(state, checkpointPath);
  const simulations = [...state.simulations.values()];
  return {
    timestamp: state.run!.created_at,
    info,
    tasks: [...state.tasks.values()],
    simulations,
    simulation_index: null,
  };
}

/**
 * Writes upstream's results JSON for a checkpoint (atomically): monolithic,
 * except back onto the dir-layout run the checkpoint was imported from, which
 * keeps its layout (a monolithic file beside `simulations/` would be misread).
 */
export async function exportResults(checkpointPath: string, resultsPath: string): Promise<Results> {
  const results = await checkpointToResults(checkpointPath);
  const imported = results.info.taubench?.imported_from as { path?: unknown; layout?: unknown } | undefined;
  if (imported?.layout === "dir" && imported.path === resultsPath) {
    writeResultsFile(resultsPath, results, { format: "dir" });
    removeUnindexedSimulations(resultsLayout(resultsPath).simulationsDir, results);
  } else {
    writeResultsFile(resultsPath, results);
  }
  return results;
}

// Files the index no longer names (dropped infrastructure errors) would fail upstream's integrity check;
// the import backed the folder up before.
function removeUnindexedSimulations(simulationsDir: string, results: Results): void {
  const ids = new Set(results.simulations.map((simulation) => simulation.id));
  for (const name of readdirSync(simulationsDir))
    if (name.endsWith(".json") && !ids.has(name.slice(0, -".json".length)))
      rmSync(join(simulationsDir, name), { force: true });
}
