import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readResultsFile } from "../../core/results-file.ts";
import { runEvaluation } from "../../runner/evaluate.ts";
import { coinReplayAgent, REPLAY_SOLVED_MOCK_TASKS } from "../../testing/coin-agent.ts";
import { offlineEvaluation } from "../../testing/run-config.ts";
import { evaluationOptionsFromFlags, type RunCommandOptions, runCommand } from "./run.ts";
import { viewCommand } from "./view.ts";

const dataDir = process.env.TAU_DATA_DIR;

function runOptions(overrides: Partial<RunCommandOptions>): RunCommandOptions {
  return {
    domain: "mock",
    numTrials: "1",
    seed: "300",
    maxSteps: "200",
    maxErrors: "10",
    maxConcurrency: "4",
    maxRetries: "0",
    retryDelay: "0",
    agent: "replay",
    user: "scripted",
    agentLlm: "openai/gpt-4.1-2025-04-14",
    userLlm: "openai/gpt-4.1-2025-04-14",
    judgeLlm: "none",
    promptCache: true,
    progressInterval: "30",
    ...(dataDir ? { dataDir } : {}),
    ...overrides,
  };
}

const io = { argv: ["run"] };

describe("tau run --until-decided flags", () => {
  it("need one another, and are checked in one line naming the flag", () => {
    const flags = (extra: Partial<RunCommandOptions>) => () =>
      evaluationOptionsFromFlags(runOptions(extra), io);
    expect(flags({ against: "main" })).toThrow("--against goes with --until-decided");
    expect(flags({ effect: "0.1", maxTrials: "5" })).toThrow(
      "--effect, --max-trials go with --until-decided",
    );
    expect(flags({ untilDecided: true, effect: "0.1" })).toThrow(
      "--until-decided needs --against RUN (the baseline run to compare with)",
    );
    expect(flags({ untilDecided: true, against: "main" })).toThrow(/--until-decided needs --effect D/);
    expect(flags({ untilDecided: true, against: "main", effect: "2" })).toThrow(
      "--effect must be a number between 0 and 1 (1 included), got '2'",
    );
    expect(flags({ untilDecided: true, against: "main", effect: "0.1", roundTrials: "0" })).toThrow(
      /--round-trials/,
    );
    const options = evaluationOptionsFromFlags(
      runOptions({
        untilDecided: true,
        against: "main",
        effect: "0.1",
        alpha: "0.01",
        power: "0.9",
        roundTrials: "2",
        maxTrials: "20",
      }),
      io,
    );
    expect(options.untilDecided).toEqual({
      against: "main",
      effect: 0.1,
      alpha: 0.01,
      power: 0.9,
      roundTrials: 2,
      maxTrials: 20,
    });
    // The rounds set the trials.
    expect(options.numTrials).toBeUndefined();
  });
});

describe.skipIf(!dataDir)("tau run --against RUN --until-decided (skipped: TAU_DATA_DIR not set)", () => {
  it("stops at the first look on a large difference; the summary and tau view say why", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-until-"));
    const baseline = await runEvaluation(
      offlineEvaluation({
        dataDir: dataDir!,
        taskIds: REPLAY_SOLVED_MOCK_TASKS,
        agent: coinReplayAgent(0.2),
        numTrials: 8,
        saveTo: join(cwd, "runs", "main", "results.json"),
      }),
    );
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCommand(
      runOptions({
        taskIds: REPLAY_SOLVED_MOCK_TASKS,
        saveTo: "candidate",
        against: "main",
        untilDecided: true,
        effect: "0.4",
        roundTrials: "1",
      }),
      {
        stdout: (line) => out.push(line),
        stderr: (line) => err.push(line),
        isTty: false,
        argv: ["run"],
        cwd,
      },
    );
    expect(code).toBe(0);
    expect(err.join("\n")).toMatch(
      /--until-decided: group-sequential paired t-test over tasks, Bonferroni alpha and beta spending; effect 0\.4, alpha 0\.05, power 0\.8; up to 4 trials per task in rounds of 1/,
    );
    const summary = out.join("\n");
    expect(summary).toContain(
      `Until decided against ${baseline.checkpointPath}: decided at look 1 (1 trial(s) per task): the difference is real, this run is better than the baseline`,
    );
    expect(summary).toMatch(
      / {2}look 1 at 1 trial\(s\) per task: difference \+0\.813, z 29\.07; difference if \|z\| ≥ 6\.09/,
    );
    const resultsPath = join(cwd, "runs", "candidate", "results.json");
    const info = readResultsFile(resultsPath).info;
    expect(info.num_trials).toBe(1);
    expect(info.taubench?.until_decided).toMatchObject({ decision: "difference", direction: "better" });
    let viewed = "";
    await viewCommand(resultsPath, { maxToolChars: "500" }, (text) => {
      viewed += text;
    });
    expect(viewed).toContain("Until decided against");
    expect(viewed).toContain("the difference is real, this run is better than the baseline");
    expect(viewed).toContain("test: group-sequential paired t-test over tasks");
  });
});
