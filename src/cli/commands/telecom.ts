/**
 * `tau telecom generate --output FILE`: rebuilds the telecom task set from
 * the sub-issue catalog, validating every task on a fresh environment, and
 * prints the validation report. With the official data the file equals the
 * data folder's `domains/telecom/tasks.json`.
 */
import { renameSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Command } from "commander";
import { resolveDataDir } from "../../domains/data-dir.ts";
import { formatReport, generateFromDataDir, serializeTasks } from "../../domains/telecom/generator/index.ts";
import { makeFolder } from "../../core/make-folder.ts";

interface GenerateFlags {
  output: string;
  dataDir?: string;
  includeNoRefuel?: boolean;
  sources?: boolean;
}

/** Adds `tau telecom generate`. */
export function registerTelecomCommand(program: Command): void {
  const telecom = program.command("telecom").description("telecom domain tools");
  telecom
    .command("generate")
    .description("generate and validate the telecom task set (upstream's tasks.json format)")
    .requiredOption("--output <file>", "where to write the tasks (JSON list)")
    .option("--data-dir <dir>", "data folder (default: TAU_DATA_DIR or the pulled cache)")
    .option(
      "--include-no-refuel",
      "keep the tasks with data_usage_exceeded_no_refuel (upstream's code at HEAD; the shipped file omits them)",
    )
    .option("--sources", "also list which data file each text was taken from")
    .action((flags: GenerateFlags) => {
      const dataDir = resolveDataDir(flags.dataDir);
      const started = performance.now();
      const { tasks, report, texts } = generateFromDataDir(dataDir, {
        noRefuelTasks: flags.includeNoRefuel ? "include" : "omit",
      });
      const elapsedMs = performance.now() - started;
      const output = resolve(flags.output);
      makeFolder(dirname(output));
      // Write next to the target and rename, so an interrupted run never leaves half a file.
      const partial = `${output}.partial`;
      writeFileSync(partial, serializeTasks(tasks));
      renameSync(partial, output);
      console.log(formatReport(report, flags.sources ? texts.sources : undefined));
      console.log(`wrote ${tasks.length} tasks to ${output} in ${(elapsedMs / 1000).toFixed(1)} s`);
      if (report.rejected.length > 0) {
        console.error(`tau: ${report.rejected.length} composed task(s) failed validation (listed above)`);
        process.exitCode = 1;
      }
    });
}
