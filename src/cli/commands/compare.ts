/**
 * `tau compare A B`: pass^1 of two runs side by side with a paired test over
 * the tasks both evaluated, and a verdict in plain words.
 */
import type { Command } from "commander";
import { comparePassHat1, computeMetrics } from "../../metrics/index.ts";
import { describePrompts, recordedPrompts } from "../../runner/prompts.ts";
import { loadRun } from "../../runner/run-file.ts";

const signed = (value: number) => `${value >= 0 ? "+" : ""}${value.toFixed(3)}`;

/** What `tau compare` prints, and its exit code: 1 when the runs have nothing to pair (another domain, no shared task). */
export interface Comparison {
  text: string;
  exitCode: number;
}

/** The comparison of two runs. */
export async function compareCommand(targetA: string, targetB: string): Promise<Comparison> {
  const [a, b] = [await loadRun(targetA), await loadRun(targetB)];
  const lines: string[] = [];
  const domainA = a.info.environment_info.domain_name;
  const domainB = b.info.environment_info.domain_name;
  const label = (run: typeof a) =>
    `${run.info.agent_info.implementation}${run.info.agent_info.llm ? ` (${run.info.agent_info.llm})` : ""}`;
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
  const metricsA = computeMetrics(a.simulations, { numTrials: a.info.num_trials });
  const metricsB = computeMetrics(b.simulations, { numTrials: b.info.num_trials });
  const comparison = comparePassHat1(metricsA, metricsB);
  const fmt = (value: number | undefined) => (value === undefined ? "-" : value.toFixed(3));
  lines.push("");
  lines.push(`Domain ${domainA}`);
  lines.push(
    `  pass^1  A ${fmt(metricsA.passHatK[0])}  B ${fmt(metricsB.passHatK[0])}  (${metricsA.totalTasks} / ${metricsB.totalTasks} tasks)`,
  );
  if (comparison.meanDifference === null) {
    lines.push("  No task was evaluated in both runs, so they cannot be compared.");
    return { text: lines.join("\n"), exitCode: 1 };
  }
  const interval = comparison.interval;
  lines.push(
    `  paired over ${comparison.tasks.length} shared task(s): B − A = ${signed(comparison.meanDifference)}` +
      (interval ? `, 95% interval [${signed(interval[0])}, ${signed(interval[1])}]` : "") +
      `, p = ${comparison.pValue.toFixed(3)} (sign-flip test)`,
  );
  if (comparison.onlyInA.length + comparison.onlyInB.length > 0)
    lines.push(
      `  left out: ${comparison.onlyInA.length} task(s) only in A, ${comparison.onlyInB.length} only in B`,
    );
  const better = comparison.meanDifference > 0 ? "B" : "A";
  const significant = comparison.pValue < 0.05 && interval !== null && (interval[0] > 0 || interval[1] < 0);
  lines.push(
    significant
      ? `  Verdict: ${better} is better on ${domainA} (by ${Math.abs(comparison.meanDifference).toFixed(3)} pass^1; unlikely to be chance, p < 0.05).`
      : comparison.meanDifference === 0
        ? `  Verdict: no difference on ${domainA}.`
        : `  Verdict: no clear difference on ${domainA}; ${better} is ahead by ${Math.abs(comparison.meanDifference).toFixed(3)} but that is within chance (p = ${comparison.pValue.toFixed(2)}). More tasks or trials would tell.`,
  );
  return { text: lines.join("\n"), exitCode: 0 };
}

/** Registers `tau compare`. */
export function registerCompareCommand(program: Command): void {
  program
    .command("compare")
    .description(
      "compare two runs: pass^1 difference per domain with a paired test over tasks (exit 1 when they share no evaluated task)",
    )
    .argument("<a>", "first run (checkpoint, results file, folder or name)")
    .argument("<b>", "second run")
    .action(async (a: string, b: string) => {
      const comparison = await compareCommand(a, b);
      console.log(comparison.text);
      process.exitCode = comparison.exitCode;
    });
}
