/**
 * `tau analyze RUN`: τ-bench's error identification on the failed
 * simulations of a run — who is at fault (user, agent, environment) and, for
 * the agent's faults, what kind; prints the percentage breakdown, records
 * beside the run (`analysis.jsonl`, resumable; `analysis.json`).
 */
import type { Command } from "commander";
import { analyzeRun, renderAnalysisBreakdown } from "../../analysis/error-identification.ts";
import { loadRun } from "../../runner/run-file.ts";
import { DEFAULT_LLM } from "../options.ts";
import {
  addJudgeOptions,
  type JudgeCommandIo,
  type JudgeCommandOptions,
  judgeDependencies,
  judgeSettings,
  runJudgeCommand,
} from "../judge-options.ts";

/** Options of `tau analyze`. */
export interface AnalyzeCommandOptions extends JudgeCommandOptions {
  analysisLlm: string;
  analysisLlmArgs?: string;
}

/** Runs `tau analyze`; returns the exit code. */
export async function analyzeCommand(
  target: string,
  options: AnalyzeCommandOptions,
  io: JudgeCommandIo,
  deps = judgeDependencies("--analysis-llm", "the error analysis", options, io.err, io.signal),
): Promise<number> {
  const settings = judgeSettings(
    "--analysis-llm",
    options.analysisLlm,
    "--analysis-llm-args",
    options.analysisLlmArgs,
    options,
  );
  const run = await loadRun(target);
  io.err(`Analysing the failed simulations of ${run.path} [model ${settings.llm}]`);
  const result = await analyzeRun(run, settings, { ...deps, ...(io.signal ? { signal: io.signal } : {}) });
  io.out(renderAnalysisBreakdown(result.records));
  let cost: number | null = 0;
  for (const record of result.records)
    cost = cost === null || record.cost_usd === null ? null : cost + record.cost_usd;
  io.out("");
  io.out(`Analysis cost ${cost === null ? "n/a (unpriced model)" : `$${cost.toFixed(4)}`}`);
  io.out(`Analysis: ${result.filePath}`);
  io.out(`Saved: ${result.jsonPath}`);
  return result.interrupted ? 130 : 0;
}

/** Registers `tau analyze`. */
export function registerAnalyzeCommand(program: Command): void {
  const command = program
    .command("analyze")
    .description(
      "τ-bench's error identification on failed simulations: who is at fault, and the agent's fault type",
    )
    .argument("<run>", "checkpoint, results file, run folder or run name")
    .option("--analysis-llm <provider/model>", "the analysing model", DEFAULT_LLM)
    .option("--analysis-llm-args <json>", "the analysing model's arguments (default none)");
  addJudgeOptions(command).action((target: string, options: AnalyzeCommandOptions) =>
    runJudgeCommand((io) => analyzeCommand(target, options, io)),
  );
}
