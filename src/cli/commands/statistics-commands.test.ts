import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Info } from "../../core/results.ts";
import { writeResultsFile } from "../../core/results-file.ts";
import { SimulationRun } from "../../core/simulation.ts";
import { baselineForPlan, compareMetrics, computeMetrics, planTrials } from "../../metrics/index.ts";
import { seededRandom } from "../../metrics/random.ts";
import { compareRuns } from "../../runner/compare-runs.ts";
import { runTauSync } from "../e2e-harness.ts";
import { compareCommand } from "./compare.ts";
import { costPerSimulation, planCommand } from "./plan.ts";

/** Per-task success rates spread over [0, 1] (seeded), shared by the runs below. */
const random = seededRandom(5);
const rates = Array.from({ length: 50 }, () => random());

/** A results file of 50 airline tasks × `trials`, each trial a Bernoulli draw of the task's rate + `shift`. */
function writeRun(
  path: string,
  trials: number,
  shift: number,
  extra: { usage?: Record<string, unknown>; domain?: string } = {},
) {
  const info = Info.parse({
    git_commit: "x",
    num_trials: trials,
    max_steps: 200,
    max_errors: 10,
    user_info: { implementation: "user_simulator", llm: "openai/u" },
    agent_info: { implementation: "llm_agent", llm: "openai/m" },
    environment_info: { domain_name: extra.domain ?? "airline", policy: "p" },
    ...(extra.usage ? { taubench: { format_version: 1, version: "0.1.0", llm_usage: extra.usage } } : {}),
  });
  const simulations = rates.flatMap((p, task) =>
    Array.from({ length: trials }, (_, trial) =>
      SimulationRun.parse({
        id: `s${task}-${trial}`,
        task_id: `${task}`,
        start_time: "s",
        end_time: "e",
        duration: 1,
        termination_reason: "user_stop",
        reward_info: { reward: random() < Math.min(1, p + shift) ? 1 : 0 },
        trial,
        seed: trial,
        agent_cost: 0.08,
        user_cost: 0.04,
      }),
    ),
  );
  writeResultsFile(path, { timestamp: null, info, tasks: [], simulations, simulation_index: null });
  return simulations;
}

describe("tau compare: what the comparison could detect", () => {
  const dir = mkdtempSync(join(tmpdir(), "tau-stats-compare-"));
  const a = writeRun(join(dir, "a.json"), 4, 0);
  const b = writeRun(join(dir, "b.json"), 4, 0.1);

  it("prints the variance split, the minimum detectable difference and the trials for --effect", async () => {
    const { text, exitCode } = await compareCommand(join(dir, "a.json"), join(dir, "b.json"), {
      effect: "0.1",
    });
    expect(exitCode).toBe(0);
    const expected = compareMetrics(computeMetrics(a), computeMetrics(b), { effect: 0.1 });
    const variance = expected.variance!;
    expect(text).toContain(
      `variance of a task's difference: observed ${variance.total.toFixed(4)}; trial noise ${variance.withinTask.toFixed(4)} (expected at 4 and 4 trials per task); between tasks ${variance.betweenTask.toFixed(4)} (the rest)`,
    );
    expect(text).toContain(
      `minimum detectable difference at 80% power, alpha 0.05: ${expected.minimumDetectableDifference!.toFixed(3)} pass^1`,
    );
    expect(text).toContain(
      `to detect 0.100: ${expected.trialsForEffect!.trials} trials per task in each run (now 4 and 4)`,
    );
    expect(text).toContain(
      "(interval: 95% percentile bootstrap over 50 tasks (2000 resamples, seed 31243); p: two-sided sign-flip permutation test over tasks)",
    );
  });

  it("takes the alpha for the verdict and the interval", async () => {
    const strict = (await compareCommand(join(dir, "a.json"), join(dir, "b.json"), { alpha: "0.001" })).text;
    expect(strict).toContain("99.9% interval");
    expect(strict).toContain("alpha 0.001");
    expect(strict).toMatch(/Verdict: no clear difference on airline/);
    await expect(compareCommand(join(dir, "a.json"), join(dir, "b.json"), { power: "1.5" })).rejects.toThrow(
      "--power must be a number between 0 and 1, got '1.5'",
    );
  });
});

describe("compareRuns (library)", () => {
  const dir = mkdtempSync(join(tmpdir(), "tau-stats-gate-"));
  writeRun(join(dir, "main.json"), 4, 0);
  writeRun(join(dir, "branch.json"), 4, -0.35);
  writeRun(join(dir, "retail.json"), 4, 0, { domain: "retail" });

  it("says a clearly worse run is worse, with the numbers a CI gate needs", async () => {
    const gate = await compareRuns(join(dir, "main.json"), join(dir, "branch.json"));
    expect(gate.decision).toBe("worse");
    expect(gate.domain).toBe("airline");
    expect(gate.meanDifference!).toBeLessThan(0);
    expect(gate.interval![1]).toBeLessThan(0);
    expect(gate.pValue).toBeLessThan(0.05);
    expect(gate.metricsA.passHatK[0]! - gate.metricsB.passHatK[0]!).toBeCloseTo(-gate.meanDifference!, 12);
    expect((await compareRuns(join(dir, "branch.json"), join(dir, "main.json"))).decision).toBe("better");
    expect((await compareRuns(join(dir, "main.json"), join(dir, "main.json"))).decision).toBe(
      "no_clear_difference",
    );
  });

  it("refuses runs on different domains in one line", async () => {
    await expect(compareRuns(join(dir, "main.json"), join(dir, "retail.json"))).rejects.toThrow(
      /are on different domains \(airline vs retail\)$/,
    );
  });
});

describe("tau plan", () => {
  const dir = mkdtempSync(join(tmpdir(), "tau-stats-plan-"));
  const baseline = writeRun(join(dir, "base.json"), 4, 0);
  writeRun(join(dir, "base16.json"), 16, 0, {
    usage: { provider_calls: 3200, cost_usd: 160, unpriced_calls: 0 },
  });

  it("sizes both runs from a baseline, and says when the baseline as it is cannot reach the effect", async () => {
    const text = await planCommand(join(dir, "base.json"), {});
    const plan = planTrials({ ...baselineForPlan(computeMetrics(baseline).perTask), effect: 0.05 });
    const n = plan.fresh.trials!;
    expect(n).toBeGreaterThan(4);
    expect(text).toContain(
      `Same trials in both runs: ${n} per task. The baseline needs ${n - 4} more per task (resume it with --num-trials ${n}: ${((n - 4) * 50).toLocaleString("en-US")} simulations, about $${((n - 4) * 50 * 0.12).toFixed(2)}), the new run ${n}`,
    );
    expect(plan.againstBaseline!.trials).toBeNull();
    expect(text).toContain(
      `Keeping the baseline as it is: out of reach (its 4 trials per task leave a detectable difference of ${plan.againstBaseline!.floor.toFixed(3)})`,
    );
    expect(text).toContain(
      "Cost per simulation $0.1200 (the baseline's mean agent + user cost per simulation).",
    );
  });

  it("speaks of one trial per task in the singular", async () => {
    writeRun(join(dir, "base1.json"), 1, 0);
    const text = await planCommand(join(dir, "base1.json"), {});
    expect(text).toContain("50 tasks, 1 trial per task, pass^1");
    expect(text).toMatch(/its 1 trial per task leaves a detectable difference of 0\.\d{3}/);
    expect(text).not.toMatch(/\b1 trials\b/);
  });

  it("prefers the recorded provider cost, judge and re-runs included, and sizes the new run alone", async () => {
    const text = await planCommand(join(dir, "base16.json"), { effect: "0.1" });
    expect(text).toContain(
      "Cost per simulation $0.2000 (the baseline's recorded provider cost over its simulations).",
    );
    expect(text).toMatch(
      /Keeping the baseline as it is: the new run needs \d+ trials per task \([\d,]+ simulations, about \$[\d.]+\)/,
    );
  });

  it("plans from assumed rates, and refuses incomplete input in one line", async () => {
    const text = await planCommand(undefined, { priorSuccess: "0.6", tasks: "50", costPerSimulation: "0.5" });
    const plan = planTrials({ tasks: 50, trialVariance: 0.24, effect: 0.05 });
    expect(text).toContain("Assumed: 50 tasks with success rate 0.6 each");
    expect(text).toContain(
      `Both runs: ${plan.fresh.trials} trials per task each = ${(plan.fresh.trials! * 50).toLocaleString("en-US")} simulations, about $${(plan.fresh.trials! * 25).toFixed(2)} per run.`,
    );
    expect(await planCommand(undefined, { priorSuccess: "1,0,0.5,0.5" })).toContain("paired over 4 tasks");
    const spread = await planCommand(undefined, { priorSuccess: "0.6", tasks: "50", betweenSd: "0.3" });
    expect(spread).toMatch(
      /Out of reach: the spread between tasks alone leaves a detectable difference of 0\.\d{3}/,
    );
    for (const [baselineRun, options, message] of [
      [
        undefined,
        {},
        "tau plan needs a baseline run (tau plan RUN) or assumed rates (--prior-success 0.6 --tasks 50)",
      ],
      [
        undefined,
        { priorSuccess: "0.6,x", tasks: "2" },
        "--prior-success takes rates between 0 and 1, got 'x'",
      ],
      [
        undefined,
        { priorSuccess: "0.6,0.5", tasks: "3" },
        "--prior-success lists 2 rates but --tasks says 3",
      ],
      [
        join(dir, "base.json"),
        { priorSuccess: "0.5" },
        "tau plan takes a baseline run or --prior-success, not both",
      ],
      [
        join(dir, "base.json"),
        { effect: "0" },
        "--effect must be a number between 0 and 1 (1 included), got '0'",
      ],
    ] as const)
      await expect(planCommand(baselineRun, options)).rejects.toThrow(message);
    // Through the command line: one line, exit code 2.
    const cli = runTauSync(["plan", "--prior-success", "0.6"]);
    expect(cli.status).toBe(2);
    expect(cli.stderr.trim()).toBe(
      "tau: --prior-success with one rate needs --tasks N (how many tasks the comparison covers)",
    );
  });

  it("knows no cost when a run recorded none", () => {
    expect(costPerSimulation({ info: { taubench: undefined } as never, simulations: [] })).toBeNull();
  });
});
