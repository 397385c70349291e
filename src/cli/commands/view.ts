/**
 * `tau view FILE`: the summary of a run (our checkpoint, or upstream's or our
 * results JSON); with `--task ID [--trial N]`, that simulation's trajectory.
 */
import type { Command } from "commander";
import { renderRunFaultAudit } from "../../analysis/fault-report.ts";
import { UsageError } from "../../core/errors.ts";
import { parseIntegerOption } from "../options.ts";
import { hallucinatedIds } from "../../metrics/hallucinated-ids.ts";
import { loadRun } from "../../runner/run-file.ts";
import { renderSummary, renderTrajectory } from "../summary.ts";
import { isTau1DomainName } from "../../domains/tau1/index.ts";
import { tau1MetricsLines } from "../../runner/tau1-results.ts";
import { type ViewWebOptions, viewWebCommand } from "./view-web.ts";

/** Options of `tau view`. */
export interface ViewOptions {
  task?: string;
  trial?: string;
  maxToolChars: string;
  /** For a τ-bench results file: its environment (`tau1-retail`, `tau1-airline`). */
  domain?: string;
  tau1DataDir?: string;
}

/** Prints a run summary or one trajectory. */
export async function viewCommand(
  target: string,
  options: ViewOptions,
  write: (text: string) => void,
): Promise<void> {
  const run = await loadRun(target, process.cwd(), {
    domain: options.domain,
    tau1DataDir: options.tau1DataDir,
  });
  if (options.task === undefined) {
    if (options.trial !== undefined) throw new UsageError("--trial needs --task");
    write(`${run.path}\n`);
    // Full simulations: the hallucinated-id counter reads their tool outputs.
    const simulations = await run.full(run.simulations.map((_, index) => index));
    const ids = hallucinatedIds(run.info.environment_info.domain_name, simulations);
    write(`${renderSummary({ ...run, hallucinatedIds: ids })}\n`);
    // The review's fault audit (a non-standard view) only after the standard numbers.
    const audit = renderRunFaultAudit(run.path, simulations, run.info.num_trials);
    if (isTau1DomainName(run.info.environment_info.domain_name))
      write(`${tau1MetricsLines(run.simulations).join("\n")}\n`);
    if (audit.length > 0) write(`${audit.join("\n")}\n`);
    return;
  }
  const trial = options.trial === undefined ? null : parseIntegerOption("--trial", options.trial, 0);
  const indices = run.simulations
    .map((simulation, index) => ({ simulation, index }))
    .filter(
      ({ simulation }) =>
        simulation.task_id === options.task && (trial === null || (simulation.trial ?? 0) === trial),
    )
    .map(({ index }) => index);
  if (indices.length === 0) {
    const known = [...new Set(run.simulations.map((s) => s.task_id))];
    const trials = [
      ...new Set(run.simulations.filter((s) => s.task_id === options.task).map((s) => s.trial ?? 0)),
    ];
    throw new UsageError(
      trials.length > 0
        ? `Task '${options.task}' has no trial ${trial} in ${run.path} (trials: ${trials.join(", ")})`
        : `No simulation of task '${options.task}' in ${run.path}. Tasks: ${known.slice(0, 20).join(", ")}${known.length > 20 ? ", …" : ""}`,
    );
  }
  const maxToolChars = parseIntegerOption("--max-tool-chars", options.maxToolChars, 1);
  const simulations = await run.full(indices);
  simulations.sort((a, b) => (a.trial ?? 0) - (b.trial ?? 0));
  write(
    `${simulations.map((simulation) => renderTrajectory(simulation, { maxToolChars })).join(`\n\n${"─".repeat(60)}\n\n`)}\n`,
  );
}

/** Registers `tau view`. */
export function registerViewCommand(program: Command): void {
  program
    .command("view")
    .description(
      "summarise a run (results.jsonl, results.json, run folder or run name), or show one simulation; --web opens the web viewer",
    )
    .argument(
      "[runs...]",
      "checkpoint, results file, run folder, or run name under ./runs/ (--web: several, default every run under ./runs/)",
    )
    .option("--task <id>", "show this task's simulation(s)")
    .option("--trial <n>", "only this trial (with --task)")
    .option("--max-tool-chars <n>", "clip tool results longer than this", "500")
    .option("--domain <name>", "for a τ-bench results file (a JSON list): tau1-retail or tau1-airline")
    .option(
      "--tau1-data-dir <dir>",
      "original τ-bench data folder (default: TAU1_DATA_DIR or the pulled cache)",
    )
    .option("--web", "serve the web viewer on 127.0.0.1 (a free port unless --port)")
    .option("--port <n>", "with --web: listen on this port")
    .option("--export <dir>", "with --web: write the viewer as a static site into DIR instead of serving it")
    .option(
      "--data-dir <dir>",
      "with --web: the data folder, for DB differences (default TAU_DATA_DIR or the cache)",
    )
    .action(async (targets: string[], options: ViewOptions & ViewWebOptions & { web?: boolean }) => {
      if (options.web) {
        if (options.task !== undefined || options.trial !== undefined)
          throw new UsageError("--web shows every task; open one in the page (or drop --web for --task)");
        await viewWebCommand(targets, options, {
          out: (line) => console.log(line),
          err: (line) => console.error(line),
        });
        return;
      }
      if (options.port !== undefined || options.export !== undefined)
        throw new UsageError("--port and --export go with --web");
      if (targets.length !== 1)
        throw new UsageError(`tau view takes one run (got ${targets.length}); --web shows several`);
      await viewCommand(targets[0]!, options, (text) => process.stdout.write(text));
    });
}
