/** `tau export RUN`: writes upstream's results JSON from a run's checkpoint. */
import { resolve } from "node:path";
import type { Command } from "commander";
import { UsageError } from "../../core/errors.ts";
import { exportResults } from "../../runner/export.ts";
import { resolveRunPath } from "../../runner/run-file.ts";

/** Exports a checkpoint; returns the path written. */
export async function exportCommand(target: string, options: { output?: string }): Promise<string> {
  const checkpoint = resolveRunPath(target);
  if (!checkpoint.endsWith(".jsonl"))
    throw new UsageError(
      `${checkpoint} is already a results file; export reads a run's results.jsonl checkpoint`,
    );
  const output = options.output ? resolve(options.output) : checkpoint.slice(0, -1);
  const exported = await exportResults(checkpoint, output);
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
