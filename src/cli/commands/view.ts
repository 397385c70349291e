/**
 * `tau view FILE`: the summary of a run (our checkpoint, or upstream's or our
 * results JSON); with `--task ID [--trial N]`, that simulation's trajectory.
 */
import type { Command } from "commander";
import { UsageError } from "../../core/errors.ts";
import { parseIntegerOption } from "../options.ts";
import { loadRun } from "../../runner/run-file.ts";
import { renderSummary, renderTrajectory } from "../summary.ts";

/** Options of `tau view`. */
export interface ViewOptions {
  task?: string;
  trial?: string;
  maxToolChars: string;
}

/** Prints a run summary or one trajectory. */
export async function viewCommand(
  target: string,
  options: ViewOptions,
  write: (text: string) => void,
): Promise<void> {
  const run = await loadRun(target);
  if (options.task === undefined) {
    if (options.trial !== undefined) throw new UsageError("--trial needs --task");
    write(`${run.path}\n`);
    write(`${renderSummary(run)}\n`);
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
      "summarise a run (results.jsonl, results.json, run folder or run name), or show one simulation",
    )
    .argument("<run>", "checkpoint, results file, run folder, or run name under ./runs/")
    .option("--task <id>", "show this task's simulation(s)")
    .option("--trial <n>", "only this trial (with --task)")
    .option("--max-tool-chars <n>", "clip tool results longer than this", "500")
    .action(async (target: string, options: ViewOptions) => {
      await viewCommand(target, options, (text) => process.stdout.write(text));
    });
}
