/**
 * Export of a checkpoint to upstream's results JSON (spec §10): the latest
 * run record's `info`, every task of the run, and per `(trial, task, seed)`
 * the simulation that counts, in completion order.
 */
import { FileFormatError } from "../core/errors.ts";
import { Info, type Results, writeResultsFile } from "../core/results.ts";
import { loadCheckpointState } from "./checkpoint-state.ts";

/** Builds the results object a checkpoint describes (full simulations, transcripts included). */
export async function checkpointToResults(checkpointPath: string): Promise<Results> {
  // One pass keeping transcripts: the export needs every simulation in memory anyway.
  const state = await loadCheckpointState(checkpointPath, { full: true });
  if (!state.run) throw new FileFormatError(checkpointPath, "no run record (is this a taubench checkpoint?)");
  const info = Info.safeParse(state.run.info);
  if (!info.success)
    throw new FileFormatError(checkpointPath, `run record info: ${info.error.issues[0]!.message}`);
  const simulations = [...state.simulations.values()];
  return {
    timestamp: state.run.created_at,
    info: { ...info.data, num_trials: state.run.num_trials },
    tasks: [...state.tasks.values()],
    simulations,
    simulation_index: null,
  };
}

/** Writes upstream's monolithic results JSON for a checkpoint (atomically). */
export async function exportResults(checkpointPath: string, resultsPath: string): Promise<Results> {
  const results = await checkpointToResults(checkpointPath);
  writeResultsFile(resultsPath, results);
  return results;
}
