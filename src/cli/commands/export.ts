/** `tau export RUN`: writes upstream's results JSON from a run's checkpoint. */
import { resolve } from "node:path";
import type { Command } from "commander";
import { UsageError } from "../../core/errors.ts";
import { isTau1DomainName } from "../../domains/tau1/index.ts";
import { loadCheckpointState } from "../../runner/checkpoint-state.ts";
import { exportResults } from "../../runner/export.ts";
import { exportTau1Results } from "../../runner/tau1-results.ts";
import { resolveRunPath } from "../../runner/run-file.ts";

/** Exports a checkpoint; returns the path written. */
export async function exportCommand(target: string, options: { output?: string }): Promise<string> {
  const checkpoint = resolveRunPath(target);
  if (!checkpoint.endsWith(".jsonl"))
    throw new UsageError(
      `${checkpoint} is already a results file; export reads a run's results.jsonl checkpoint`,
    );
  const output = options.output ? resolve(options.output) : checkpoint.slice(0, -1);
  // A run on the original τ-bench domains exports τ-bench's own results format.
  const state = await loadCheckpointState(checkpoint);
  const exported = isTau1DomainName(state.run?.fingerprint.domain ?? "")
    ? await exportTau1Results(checkpoint, output)
    : await exportResults(checkpoint, output);
  console.error(`Exported ${exported.simulations} simulation(s) of ${exported.tasks} task(s) → ${output}`);
  return output;
}

/** Registers `tau export`. */
export function registerExportCommand(program: Command): void {
  program
    .command("export")
    .description("write upstream's results.json from a run's checkpoint (results.jsonl)")
    .argument("<run>", "checkpoint, run folder, or run name under ./runs/")
    .option("--output <file>", "where to write (default: the checkpoint's path with .json)")
    .action(async (target: string, options: { output?: string }) => {
      await exportCommand(target, options);
    });
}
