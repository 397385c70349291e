/**
 * `tau compare A B`: pass^1 of two runs side by side with a paired test over
 * the tasks both evaluated, a verdict in plain words, and what the comparison
 * could see: the variance of the per-task differences split into trial noise
 * and task-to-task spread, the minimum detectable difference, and the trials
 * per task that would detect `--effect` (docs/statistics.md).
 */
import type { Command } from "commander";
import { isTau1DomainName } from "../../domains/tau1/index.ts";
import { describeIntervalMethod, formatLevel, type RunComparison } from "../../metrics/index.ts";
import { tau1Metrics } from "../../metrics/tau1.ts";
import { parseFractionOption } from "../options.ts";
import { compareRuns } from "../../runner/compare-runs.ts";
import { describePrompts, recordedPrompts } from "../../runner/prompts.ts";
import { type LoadRunOptions, loadRun } from "../../runner/run-file.ts";

/** Options of `tau compare` (as commander passes them). */
export interface CompareCommandOptions {
  alpha?: string;
  power?: string;
  effect?: string;
}

const signed = (value: number) => `${value >= 0 ? "+" : ""}${value.toFixed(3)}`;
const trials = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));

/** The lines on what the comparison could detect (variance split, detectable difference, trials for the effect). */
export function powerLines(comparison: RunComparison): string[] {
  const { variance, minimumDetectableDifference: mde, trialsForEffect } = comparison;
  if (!variance || mde === null || !trialsForEffect) return [];
  const power = `${formatLevel(comparison.power)} power, alpha ${comparison.alpha}`;
  const lines = [
    `  variance of a task's difference: observed ${variance.total.toFixed(4)}; trial noise ${variance.withinTask.toFixed(4)} (expected at ${trials(comparison.trialsA)} and ${trials(comparison.trialsB)} trials per task); between tasks ${variance.betweenTask.toFixed(4)} (the rest)`,
    `  minimum detectable difference at ${power}: ${mde.toFixed(3)} pass^1`,
  ];
  const effect = comparison.effect.toFixed(3);
  lines.push(
    trialsForEffect.trials === null
      ? `  a difference of ${effect} is out of reach of more trials: the spread between tasks alone leaves ${trialsForEffect.floor.toFixed(3)} (it takes more tasks, or a larger effect)`
      : `  to detect ${effect}: ${trialsForEffect.trials} trial${trialsForEffect.trials === 1 ? "" : "s"} per task in each run (now ${trials(comparison.trialsA)} and ${trials(comparison.trialsB)})`,
  );
  return lines;
}

/** What `tau compare` prints, and its exit code: 1 when the runs have nothing to pair (another domain, no shared task). */
export interface Comparison {
  text: string;
  exitCode: number;
}

/** The comparison of two runs (`options` also say how to read τ-bench results files). */
export async function compareCommand(
  targetA: string,
  targetB: string,
  options: CompareCommandOptions & LoadRunOptions = {},
): Promise<Comparison> {
  const alpha = options.alpha === undefined ? 0.05 : parseFractionOption("--alpha", options.alpha);
  const power = options.power === undefined ? 0.8 : parseFractionOption("--power", options.power);
  const effect = options.effect === undefined ? 0.05 : parseFractionOption("--effect", options.effect, true);
  const read = { domain: options.domain, tau1DataDir: options.tau1DataDir };
  const [a, b] = [await loadRun(targetA, process.cwd(), read), await loadRun(targetB, process.cwd(), read)];
  const lines: string[] = [];
  const domainA = a.info.environment_info.domain_name;
  const domainB = b.info.environment_info.domain_name;
  const label = (run: typeof a) =>
    `${run.info.agent_info.implementation}${run.info.agent_info.llm ? ` (${run.info.agent_info.llm})` : ""}${run.info.taubench?.no_policy === true ? " [ablation --no-policy: no policy document]" : ""}`;
  lines.push(`A: ${a.path} — ${label(a)}`);
  lines.push(`B: ${b.path} — ${label(b)}`);
  const [promptsA, promptsB] = [recordedPrompts(a.info), recordedPrompts(b.info)];
  lines.push(`   prompts A: ${describePrompts(promptsA)}; B: ${describePrompts(promptsB)}`);
  const exact = (wording: string) => wording !== "paraphrased";
  const bothUpstream = promptsA.wording === "upstream" && promptsB.wording === "upstream";
  if (
    exact(promptsA.wording) !== exact(promptsB.wording) ||
    (bothUpstream && promptsA.sha256 !== promptsB.sha256)
  )
    lines.push(
      "warning: the runs' models saw different prompt texts, so a difference may come from the wording as much as from the agents",
    );
  if (domainA !== domainB) {
    lines.push(`The runs are on different domains (${domainA} vs ${domainB}); there is nothing to pair.`);
    return { text: lines.join("\n"), exitCode: 1 };
  }
  const comparison = await compareRuns(a, b, { alpha, power, effect });
  const { metricsA, metricsB } = comparison;
  const fmt = (value: number | undefined) => (value === undefined ? "-" : value.toFixed(3));
  lines.push("");
  lines.push(`Domain ${domainA}`);
  lines.push(
    `  pass^1  A ${fmt(metricsA.passHatK[0])}  B ${fmt(metricsB.passHatK[0])}  (${metricsA.totalTasks} / ${metricsB.totalTasks} tasks)`,
  );
  if (isTau1DomainName(domainA)) {
    const tau1 = (run: typeof a) =>
      tau1Metrics(
        run.simulations.map((s) => ({
          taskId: s.task_id,
          trial: s.trial ?? 0,
          reward: s.reward_info?.reward ?? 0,
        })),
      );
    const [ta, tb] = [tau1(a), tau1(b)];
    lines.push(
      `  τ-bench's pass^k (its formula, errors as 0): A ${ta.passHatK.map((v) => v.toFixed(3)).join(" / ")}  B ${tb.passHatK.map((v) => v.toFixed(3)).join(" / ")}`,
    );
  }
  if (comparison.meanDifference === null) {
    lines.push("  No task was evaluated in both runs, so they cannot be compared.");
    return { text: lines.join("\n"), exitCode: 1 };
  }
  const interval = comparison.interval;
  lines.push(
    `  paired over ${comparison.tasks.length} shared task(s): B − A = ${signed(comparison.meanDifference)}` +
      (interval
        ? `, ${formatLevel(comparison.intervalMethod.level)} interval [${signed(interval[0])}, ${signed(interval[1])}]`
        : "") +
      `, p = ${comparison.pValue.toFixed(3)}`,
  );
  lines.push(
    `  (interval: ${describeIntervalMethod(comparison.intervalMethod)}; p: ${comparison.testMethod})`,
  );
  if (comparison.onlyInA.length + comparison.onlyInB.length > 0)
    lines.push(
      `  left out: ${comparison.onlyInA.length} task(s) only in A, ${comparison.onlyInB.length} only in B`,
    );
  const better = comparison.meanDifference > 0 ? "B" : "A";
  const difference = Math.abs(comparison.meanDifference).toFixed(3);
  lines.push(
    comparison.decision === "better" || comparison.decision === "worse"
      ? `  Verdict: ${better} is better on ${domainA} (by ${difference} pass^1; unlikely to be chance, p < ${comparison.alpha}).`
      : comparison.meanDifference === 0
        ? `  Verdict: no difference on ${domainA}.`
        : `  Verdict: no clear difference on ${domainA}; ${better} is ahead by ${difference} but that is within chance (p = ${comparison.pValue.toFixed(2)}). More tasks or trials would tell.`,
  );
  lines.push(...powerLines(comparison));
  return { text: lines.join("\n"), exitCode: 0 };
}

/** Registers `tau compare`. */
export function registerCompareCommand(program: Command): void {
  program
    .command("compare")
    .description(
      "compare two runs: pass^1 difference per domain with a paired test over tasks and what it could detect (exit 1 when they share no evaluated task)",
    )
    .argument("<a>", "first run (checkpoint, results file, folder or name)")
    .argument("<b>", "second run")
    .option("--alpha <p>", "two-sided significance level", "0.05")
    .option("--power <p>", "power for the minimum detectable difference", "0.8")
    .option("--effect <d>", "difference in pass^1 to size trials for", "0.05")
    .option("--domain <name>", "for τ-bench results files (JSON lists): tau1-retail or tau1-airline")
    .option(
      "--tau1-data-dir <dir>",
      "original τ-bench data folder (default: TAU1_DATA_DIR or the pulled cache)",
    )
    .action(async (a: string, b: string, options: CompareCommandOptions & LoadRunOptions) => {
      const comparison = await compareCommand(a, b, options);
      console.log(comparison.text);
      process.exitCode = comparison.exitCode;
    });
}
