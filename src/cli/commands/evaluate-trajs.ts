/**
 * `tau evaluate-trajs RUN…`: re-grades saved simulations with our evaluator
 * (lenient replay, as upstream) and reports where rewards changed; writes
 * `updated_<name>.json` beside each input unless `--output-dir` says otherwise.
 */
import { basename, dirname, join, resolve } from "node:path";
import type { Command } from "commander";
import { nowIso } from "../../core/messages.ts";
import { writeAtomically, writeResultsFile } from "../../core/results-file.ts";
import { serializeTau1Results } from "../../core/tau1-results.ts";
import { resolveDomainDataDir } from "../../domains/domain-data-dir.ts";
import { loadDomain } from "../../domains/registry.ts";
import { isTau1Domain } from "../../domains/tau1/index.ts";
import { createLlmJudge } from "../../evaluation/nl-assertions.ts";
import { createLlmClient } from "../../llm/index.ts";
import { localBaseUrl } from "../../llm/local-base-url.ts";
import { DEFAULT_LLM, defaultLlmArgs, parseJsonObjectOption, parseModelOption } from "../options.ts";
import { loadRun } from "../../runner/run-file.ts";
import { isSoloRun, regradeSimulations, tasksNeedJudge } from "../../runner/regrade.ts";
import { renderSummary } from "../summary.ts";
import {
  regradedTau1Entry,
  tau1Entries,
  tau1ExportContext,
  tau1MetricsLines,
} from "../../runner/tau1-results.ts";
import { explainMissingKey, judgeRole } from "../missing-key.ts";

/** Options of `tau evaluate-trajs`. */
export interface EvaluateTrajsOptions {
  freshTasks?: boolean;
  judge: string;
  judgeLlmArgs?: string;
  llmBaseUrl?: string;
  llmCache?: string;
  dataDir?: string;
  tau1DataDir?: string;
  /** For τ-bench results files (JSON lists): their environment. */
  domain?: string;
  outputDir?: string;
}

/** The judge's client; a missing key says that `--judge none` re-grades without it. */
function judgeClient(model: string, options: EvaluateTrajsOptions) {
  try {
    return createLlmClient(model, {
      ...localBaseUrl(model, options.llmBaseUrl),
      ...(options.llmCache ? { cacheDir: options.llmCache } : {}),
    });
  } catch (error) {
    throw explainMissingKey(error, model, [judgeRole("--judge")]);
  }
}

const formatReward = (value: number | null) => (value === null ? "none" : value.toFixed(3));

/** Re-grades each run; returns the files written. */
export async function evaluateTrajsCommand(
  targets: readonly string[],
  options: EvaluateTrajsOptions,
  write: (text: string) => void,
): Promise<string[]> {
  const judgeModel = options.judge.trim() === "none" ? null : parseModelOption("--judge", options.judge);
  const judgeArgs = options.judgeLlmArgs
    ? parseJsonObjectOption("--judge-llm-args", options.judgeLlmArgs)
    : defaultLlmArgs();
  const written: string[] = [];
  for (const target of targets) {
    const run = await loadRun(target, process.cwd(), {
      domain: options.domain,
      tau1DataDir: options.tau1DataDir,
    });
    const domainName = run.info.environment_info.domain_name;
    const domain = loadDomain(domainName, resolveDomainDataDir(domainName, options));
    const tasks = new Map(run.tasks.map((task) => [task.id, task]));
    if (options.freshTasks)
      for (const task of domain.tasks()) if (tasks.has(task.id)) tasks.set(task.id, task);
    const judge =
      judgeModel !== null && tasksNeedJudge(tasks.values())
        ? createLlmJudge(judgeClient(judgeModel, options), judgeArgs)
        : null;
    const full = await run.full(run.simulations.map((_, index) => index));
    const outcome = await regradeSimulations({
      simulations: full,
      tasks,
      domain,
      soloMode: isSoloRun(run.info),
      judge,
    });
    write(
      `${run.path}: re-graded ${full.length - outcome.skipped} simulation(s)` +
        (outcome.skipped > 0 ? `, ${outcome.skipped} infrastructure error(s) left as they were` : "") +
        (options.freshTasks ? " with fresh task definitions" : "") +
        "\n",
    );
    if (outcome.changes.length === 0) write("No reward changed.\n");
    else {
      write(`${outcome.changes.length} reward(s) changed:\n`);
      for (const change of outcome.changes)
        write(
          `  ${change.taskId} trial ${change.trial}: ${formatReward(change.before)} → ${formatReward(change.after)}\n`,
        );
    }
    write(
      `${renderSummary({ info: run.info, tasks: [...tasks.values()], simulations: outcome.simulations })}\n`,
    );
    if (isTau1Domain(domain)) write(`${tau1MetricsLines(outcome.simulations).join("\n")}\n`);
    const name = basename(run.path).replace(/\.jsonl?$/, "");
    const output = join(
      options.outputDir ? resolve(options.outputDir) : dirname(run.path),
      `updated_${name}.json`,
    );
    if (isTau1Domain(domain)) {
      // τ-bench's results format back: a τ-bench file keeps its entries (trajectories as they were),
      // with the new reward and reward_info; our run is written as `tau run` writes it.
      const entries = run.tau1Entries
        ? run.tau1Entries.map((entry, index) =>
            regradedTau1Entry(entry, tasks.get(String(entry.task_id))!, outcome.simulations[index]!),
          )
        : tau1Entries([...tasks.values()], outcome.simulations, tau1ExportContext(run.info, domain));
      writeAtomically(output, serializeTau1Results(entries));
    } else
      writeResultsFile(output, {
        timestamp: nowIso(),
        info: run.info,
        tasks: [...tasks.values()],
        simulations: outcome.simulations,
        simulation_index: null,
      });
    write(`Wrote ${output}\n`);
    written.push(output);
  }
  return written;
}

/** Registers `tau evaluate-trajs`. */
export function registerEvaluateTrajsCommand(program: Command): void {
  program
    .command("evaluate-trajs")
    .description("re-grade saved simulations with this evaluator and show where rewards changed")
    .argument("<runs...>", "checkpoints, results files, run folders or run names")
    .option(
      "--fresh-tasks",
      "grade against the data folder's current task definitions (default: the embedded ones)",
    )
    .option(
      "--judge <provider/model|none>",
      "NL-assertion judge; 'none' leaves NL assertions unevaluated",
      DEFAULT_LLM,
    )
    .option("--judge-llm-args <json>", 'judge model arguments (default {"temperature": 0.0})')
    .option("--llm-base-url <url>", "endpoint override for the judge model")
    .option("--llm-cache <dir>", "SQLite response cache folder")
    .option("--data-dir <dir>", "data folder (default: TAU_DATA_DIR or the pulled cache)")
    .option(
      "--tau1-data-dir <dir>",
      "original τ-bench data folder (default: TAU1_DATA_DIR or the pulled cache)",
    )
    .option("--domain <name>", "for τ-bench results files (JSON lists): tau1-retail or tau1-airline")
    .option("--output-dir <dir>", "where to write updated_<name>.json (default: beside each input)")
    .action(async (targets: string[], options: EvaluateTrajsOptions) => {
      await evaluateTrajsCommand(targets, options, (text) => process.stdout.write(text));
    });
}
