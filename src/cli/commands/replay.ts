/**
 * `tau replay`: the fidelity probe. Builds the gold environment of each task
 * (initial state, then the expected actions in order, as upstream's evaluator
 * does) and writes one JSON line per task with outputs, hashes and assertions.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Command } from "commander";
import { pyDumps } from "../../core/py-json.ts";
import { resolveDomainDataDir } from "../../domains/domain-data-dir.ts";
import { loadDomain } from "../../domains/registry.ts";
import { isTau1Domain } from "../../domains/tau1/index.ts";
import { replayRecord } from "../../evaluation/replay-record.ts";
import { tau1ReplayRecord } from "../../evaluation/tau1.ts";
import { parseTaskIds, selectTasks, splitOption } from "../../runner/task-selection.ts";
import { fileOperation } from "../../core/errors.ts";
import { makeFolder } from "../../core/make-folder.ts";

interface ReplayOptions {
  domain: string;
  dataDir?: string;
  tau1DataDir?: string;
  split?: string;
  taskSplitName?: string;
  taskIds?: string[];
  output: string;
}

export function registerReplayCommand(program: Command): void {
  program
    .command("replay")
    .description(
      "replay each task's expected actions on a fresh environment; write outputs and DB hashes as JSON lines",
    )
    .requiredOption("--domain <name>", "domain name")
    .requiredOption("--output <file>", "JSON Lines file to write ('-' for stdout)")
    .option("--data-dir <dir>", "data folder (default: TAU_DATA_DIR or the pulled cache)")
    .option(
      "--tau1-data-dir <dir>",
      "original τ-bench data folder, for tau1-* domains (default: TAU1_DATA_DIR or the pulled cache)",
    )
    .option("--split <name>", "only tasks of this split (default: every task in the file; tau1-*: test)")
    .option("--task-split-name <name>", "same as --split")
    .option("--task-ids <ids...>", "only these task ids (comma or space separated)")
    .action((options: ReplayOptions) => {
      const domain = loadDomain(options.domain, resolveDomainDataDir(options.domain, options));
      for (const line of domain.notices?.() ?? []) console.error(`note: ${line}`);
      const tasks = selectTasks(domain, {
        split: splitOption(options) ?? null,
        taskIds: parseTaskIds(options.taskIds),
        onWarning: (line) => console.error(line),
      });
      // `--output -` writes the lines to stdout (the summary stays on stderr).
      const toStdout = options.output === "-";
      const output = toStdout ? "stdout" : resolve(options.output);
      const fd = toStdout
        ? null
        : fileOperation(output, "write", () => {
            makeFolder(dirname(output));
            return openSync(output, "w");
          });
      const started = performance.now();
      let failedSteps = 0;
      try {
        for (const task of tasks) {
          const record = isTau1Domain(domain) ? tau1ReplayRecord(domain, task) : replayRecord(domain, task);
          failedSteps += record.steps.filter((step) => step.error).length;
          // The golden sample (upstream's own replay) is written with ensure_ascii=False: emoji and
          // superscripts in telecom's status bar stay raw UTF-8, so the lines compare byte for byte.
          const line = `${pyDumps(record, { ensureAscii: false })}\n`;
          if (fd === null) process.stdout.write(line);
          else writeSync(fd, line);
        }
      } finally {
        if (fd !== null) closeSync(fd);
      }
      const seconds = (performance.now() - started) / 1000;
      console.error(
        `Replayed ${tasks.length} task${tasks.length === 1 ? "" : "s"} of ${domain.name} in ${seconds.toFixed(2)} s ` +
          `(${failedSteps} step${failedSteps === 1 ? "" : "s"} returned an error) → ${output}`,
      );
    });
}
