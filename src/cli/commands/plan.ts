/**
 * `tau plan [BASELINE]`: how many trials per task a comparison needs to
 * detect a given difference in pass^1, and what that costs, from a baseline
 * run (its per-task success rates and recorded cost per simulation) or from
 * assumed success rates (`--prior-success`). The model is `tau compare`'s
 * (docs/statistics.md).
 */
import type { Command } from "commander";
import { UsageError } from "../../core/errors.ts";
import {
  baselineForPlan,
  computeMetrics,
  formatLevel,
  planTrials,
  type TrialPlan,
} from "../../metrics/index.ts";
import { parseFractionOption, parseIntegerOption, parseNumberOption } from "../options.ts";
import { parseRunUsage } from "../../runner/llm-usage.ts";
import { type LoadedRun, loadRun } from "../../runner/run-file.ts";

/** Options of `tau plan` (as commander passes them). */
export interface PlanCommandOptions {
  priorSuccess?: string;
  tasks?: string;
  effect?: string;
  alpha?: string;
  power?: string;
  betweenSd?: string;
  costPerSimulation?: string;
  /** For a τ-bench results file (a JSON list): its environment. */
  domain?: string;
  tau1DataDir?: string;
}

/** A cost per simulation and where it came from. */
interface SimulationCost {
  usd: number;
  source: string;
}

/**
 * What one simulation of a run cost: the recorded provider cost over its
 * simulations (judge and re-runs included) when every call was priced, else
 * the mean agent + user cost of its simulations; null when neither is known.
 */
export function costPerSimulation(run: Pick<LoadedRun, "info" | "simulations">): SimulationCost | null {
  const usage = parseRunUsage(run.info.taubench?.llm_usage);
  if (usage && usage.provider_calls > 0 && usage.unpriced_calls === 0 && run.simulations.length > 0)
    return {
      usd: usage.cost_usd / run.simulations.length,
      source: "the baseline's recorded provider cost over its simulations",
    };
  const metrics = computeMetrics(run.simulations);
  if (metrics.avgAgentCost === null && metrics.avgUserCost === null) return null;
  return {
    usd: (metrics.avgAgentCost ?? 0) + (metrics.avgUserCost ?? 0),
    source: "the baseline's mean agent + user cost per simulation",
  };
}

// Rates in [0, 1]: a task that always fails or always succeeds is a valid prior.
function parsePriorRates(text: string): number[] {
  return text.split(",").map((part) => {
    const rate = part.trim() === "" ? Number.NaN : Number(part);
    if (!(rate >= 0 && rate <= 1))
      throw new UsageError(`--prior-success takes rates between 0 and 1, got '${part.trim()}'`);
    return rate;
  });
}

const count = (n: number) => n.toLocaleString("en-US");
const usd = (value: number) => `$${value.toFixed(2)}`;

/** "1 trial per task", "3 trials per task". */
const trialsPerTask = (trials: number) => `${trials} trial${trials === 1 ? "" : "s"} per task`;

function simulationsLine(trials: number, tasks: number, cost: SimulationCost | null): string {
  const simulations = trials * tasks;
  return `${count(simulations)} simulations${cost ? `, about ${usd(simulations * cost.usd)}` : ""}`;
}

/** The plan text. */
export async function planCommand(
  baseline: string | undefined,
  options: PlanCommandOptions,
): Promise<string> {
  const effect = parseFractionOption("--effect", options.effect ?? "0.05", true);
  const alpha = parseFractionOption("--alpha", options.alpha ?? "0.05");
  const power = parseFractionOption("--power", options.power ?? "0.8");
  const betweenSd = parseNumberOption("--between-sd", options.betweenSd ?? "0");
  if (betweenSd > 1) throw new UsageError(`--between-sd must be at most 1, got '${options.betweenSd}'`);
  if (baseline !== undefined && options.priorSuccess !== undefined)
    throw new UsageError("tau plan takes a baseline run or --prior-success, not both");
  if (baseline === undefined && options.priorSuccess === undefined)
    throw new UsageError(
      "tau plan needs a baseline run (tau plan RUN) or assumed rates (--prior-success 0.6 --tasks 50)",
    );
  let cost: SimulationCost | null =
    options.costPerSimulation === undefined
      ? null
      : {
          usd: parseNumberOption("--cost-per-simulation", options.costPerSimulation),
          source: "--cost-per-simulation",
        };

  const lines: string[] = [];
  let plan: TrialPlan;
  let baselineTrials: number | null = null;
  if (baseline !== undefined) {
    if (options.tasks !== undefined)
      throw new UsageError("--tasks goes with --prior-success; a baseline run brings its tasks");
    const run = await loadRun(baseline, process.cwd(), {
      domain: options.domain,
      tau1DataDir: options.tau1DataDir,
    });
    const metrics = computeMetrics(run.simulations, { numTrials: run.info.num_trials });
    if (metrics.perTask.length < 2)
      throw new UsageError(
        `${run.path} has ${metrics.perTask.length} evaluated task(s); a paired comparison needs at least 2`,
      );
    const numbers = baselineForPlan(metrics.perTask);
    plan = planTrials({ ...numbers, betweenTask: betweenSd ** 2, effect, alpha, power });
    const trialCounts = metrics.perTask.map((t) => t.trials).sort((x, y) => x - y);
    baselineTrials = trialCounts[Math.floor(trialCounts.length / 2)]!;
    cost ??= costPerSimulation(run);
    lines.push(
      `Baseline ${run.path}: ${numbers.tasks} tasks, ${trialsPerTask(baselineTrials)}, pass^1 ${metrics.passHatK[0]?.toFixed(3) ?? "-"}, mean per-task trial variance p(1−p) ${numbers.trialVariance.toFixed(3)}`,
    );
  } else {
    const rates = parsePriorRates(options.priorSuccess!);
    let tasks = rates.length;
    if (options.tasks !== undefined) {
      tasks = parseIntegerOption("--tasks", options.tasks, 2);
      if (rates.length > 1 && rates.length !== tasks)
        throw new UsageError(`--prior-success lists ${rates.length} rates but --tasks says ${tasks}`);
    } else if (rates.length === 1) {
      throw new UsageError(
        "--prior-success with one rate needs --tasks N (how many tasks the comparison covers)",
      );
    }
    if (tasks < 2) throw new UsageError("a paired comparison needs at least 2 tasks");
    const all = rates.length === 1 ? Array.from({ length: tasks }, () => rates[0]!) : rates;
    const trialVariance = all.reduce((s, p) => s + p * (1 - p), 0) / tasks;
    plan = planTrials({ tasks, trialVariance, betweenTask: betweenSd ** 2, effect, alpha, power });
    lines.push(
      `Assumed: ${tasks} tasks with success rate${rates.length === 1 ? ` ${rates[0]} each` : "s as listed"}, mean per-task trial variance p(1−p) ${trialVariance.toFixed(3)}`,
    );
  }
  lines.push(
    `Detecting a difference of ${effect.toFixed(3)} in pass^1 (two-sided alpha ${alpha}, ${formatLevel(power)} power), paired over ${plan.tasks} tasks;`,
    `  assuming the new run's tasks vary as much as these, and ${betweenSd === 0 ? "the same difference on every task" : `true per-task differences with spread (sd) ${betweenSd}`} (--between-sd).`,
    "",
  );
  const fresh = plan.fresh;
  const against = plan.againstBaseline;
  const spread = betweenSd > 0 ? "the spread between tasks" : "";
  if (fresh.trials === null) {
    lines.push(
      `  Out of reach: ${spread || "this many tasks"} alone leave${spread ? "s" : ""} a detectable difference of ${fresh.floor.toFixed(3)}; it takes more tasks or a larger effect.`,
    );
  } else if (baselineTrials === null) {
    lines.push(
      `  Both runs: ${trialsPerTask(fresh.trials)} each = ${simulationsLine(fresh.trials, plan.tasks, cost)} per run.`,
    );
  } else if (fresh.trials > baselineTrials) {
    lines.push(
      `  Same trials in both runs: ${fresh.trials} per task. The baseline needs ${fresh.trials - baselineTrials} more per task (resume it with --num-trials ${fresh.trials}: ${simulationsLine(fresh.trials - baselineTrials, plan.tasks, cost)}), the new run ${fresh.trials} (${simulationsLine(fresh.trials, plan.tasks, cost)}).`,
    );
  }
  // A plan against the baseline exists only when there is a baseline (so baselineTrials is set).
  if (against && fresh.trials !== null)
    lines.push(
      against.trials === null
        ? `  Keeping the baseline as it is: out of reach (${spread ? `${spread} and ` : ""}its ${trialsPerTask(baselineTrials!)} leave${baselineTrials === 1 ? "s" : ""} a detectable difference of ${against.floor.toFixed(3)}).`
        : `  Keeping the baseline as it is: the new run needs ${trialsPerTask(against.trials)} (${simulationsLine(against.trials, plan.tasks, cost)}).`,
    );
  lines.push(
    "",
    cost
      ? `Cost per simulation $${cost.usd.toFixed(4)} (${cost.source}).`
      : "Cost: unknown (no recorded cost; pass --cost-per-simulation USD).",
  );
  return lines.join("\n");
}

/** Registers `tau plan`. */
export function registerPlanCommand(program: Command): void {
  program
    .command("plan")
    .description("trials per task (and cost) a comparison needs to detect a difference in pass^1")
    .argument("[baseline]", "a baseline run (checkpoint, results file, folder or name)")
    .option(
      "--prior-success <p>",
      "assumed success rate per task, or a comma-separated list of per-task rates",
    )
    .option("--tasks <n>", "number of tasks (with one --prior-success rate)")
    .option("--effect <d>", "difference in pass^1 to detect", "0.05")
    .option("--alpha <p>", "two-sided significance level", "0.05")
    .option("--power <p>", "power against the effect", "0.8")
    .option("--between-sd <sd>", "assumed spread (sd) of the true per-task differences", "0")
    .option("--cost-per-simulation <usd>", "cost of one simulation (default: the baseline's)")
    .option("--domain <name>", "for a τ-bench results file (a JSON list): tau1-retail or tau1-airline")
    .option(
      "--tau1-data-dir <dir>",
      "original τ-bench data folder (default: TAU1_DATA_DIR or the pulled cache)",
    )
    .action(async (baseline: string | undefined, options: PlanCommandOptions) => {
      console.log(await planCommand(baseline, options));
    });
}
