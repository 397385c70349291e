/**
 * `tau review RUN`: an LLM review of each simulation of a run (upstream's
 * `tau2 review`): errors of the agent and the user simulator with tags and
 * severities, and whether the agent authenticated the user; `--mode user`
 * reviews the simulator only. Recorded beside the run (`review.jsonl`,
 * resumable; `results_reviewed.json` in upstream's format); `tau view` shows
 * the fault audit from it.
 */
import type { Command } from "commander";
import { DEFAULT_REVIEW_LLM, reviewRun } from "../../analysis/review-run.ts";
import { UsageError } from "../../core/errors.ts";
import { ReviewMode } from "../../core/reviews.ts";
import { faultAudit, renderFaultAudit } from "../../metrics/fault-audit.ts";
import { computeMetrics } from "../../metrics/index.ts";
import { loadRun } from "../../runner/run-file.ts";
import {
  addJudgeOptions,
  type JudgeCommandIo,
  type JudgeCommandOptions,
  judgeDependencies,
  judgeSettings,
  runJudgeCommand,
} from "../judge-options.ts";

/** Options of `tau review`. */
export interface ReviewCommandOptions extends JudgeCommandOptions {
  mode: string;
  reviewLlm: string;
  reviewLlmArgs?: string;
}

const usd = (value: number | null) => (value === null ? "n/a (unpriced model)" : `$${value.toFixed(4)}`);

/** Runs `tau review`; returns the exit code (130 when interrupted). */
export async function reviewCommand(
  target: string,
  options: ReviewCommandOptions,
  io: JudgeCommandIo,
  deps = judgeDependencies("--review-llm", "the reviewer", options, io.err, io.signal),
): Promise<number> {
  const mode = ReviewMode.safeParse(options.mode);
  if (!mode.success) throw new UsageError(`--mode is full or user, got '${options.mode}'`);
  const settings = judgeSettings(
    "--review-llm",
    options.reviewLlm,
    "--review-llm-args",
    options.reviewLlmArgs,
    options,
  );
  const run = await loadRun(target);
  io.err(
    `Reviewing ${run.path} [mode ${mode.data}, model ${settings.llm}, concurrency ${settings.maxConcurrency}]`,
  );
  const result = await reviewRun(
    run,
    { mode: mode.data, ...settings },
    { ...deps, ...(io.signal ? { signal: io.signal } : {}) },
  );
  const records = new Map(result.records.map((record) => [record.simulation_id, record]));
  const audit = faultAudit(mode.data, run.simulations, records, { numTrials: run.info.num_trials });
  const failures = result.records.filter((record) => record.status === "failed");
  const errors = result.records.reduce(
    (sum, record) => sum + (record.status === "reviewed" ? record.review.errors.length : 0),
    0,
  );
  io.out(`Reviewed ${audit.reviewed} simulation(s) (${result.done} now, ${result.resumed} from before)`);
  io.out(
    `  with errors ${result.records.filter((r) => r.status === "reviewed" && r.review.has_errors).length} · errors ${errors}`,
  );
  if (failures.length > 0) {
    io.out(
      `  review failures ${failures.length} (not counted as clean; run tau review again to retry them):`,
    );
    for (const record of failures.slice(0, 10))
      io.out(
        `    ${record.task_id} trial ${record.trial}: ${record.failure.error.split("\n")[0]!.slice(0, 160)}`,
      );
  }
  io.out(`  review cost ${usd(audit.costUsd)}`);
  io.out("");
  for (const line of renderFaultAudit(
    audit,
    computeMetrics(run.simulations, { numTrials: run.info.num_trials }),
  ))
    io.out(line);
  io.out("");
  io.out(`Review: ${result.filePath}`);
  io.out(`Reviewed results: ${result.reviewedResultsPath}`);
  return result.interrupted ? 130 : 0;
}

/** Registers `tau review`. */
export function registerReviewCommand(program: Command): void {
  const command = program
    .command("review")
    .description(
      "LLM review of each simulation: agent and user-simulator errors, tags, severities, authentication",
    )
    .argument("<run>", "checkpoint, results file, run folder or run name")
    .option("--mode <mode>", "full (agent and user) or user (the user simulator only)", "full")
    .option("--review-llm <provider/model>", "the reviewing model", DEFAULT_REVIEW_LLM)
    .option("--review-llm-args <json>", "the reviewing model's arguments (default none, as upstream)");
  addJudgeOptions(command).action((target: string, options: ReviewCommandOptions) =>
    runJudgeCommand((io) => reviewCommand(target, options, io)),
  );
}
