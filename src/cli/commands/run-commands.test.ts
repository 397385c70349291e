import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { TIMESTAMP_PATTERN } from "../../core/messages.ts";
import { Info } from "../../core/results.ts";
import { writeResultsFile } from "../../core/results-file.ts";
import { SimulationRun } from "../../core/simulation.ts";
import { loadCheckpointState } from "../../runner/checkpoint-state.ts";
import { compareCommand } from "./compare.ts";
import { evaluateTrajsCommand } from "./evaluate-trajs.ts";
import { exportCommand } from "./export.ts";
import { planEvaluation } from "../../runner/evaluate.ts";
import {
  evaluationOptionsFromFlags,
  type RunCommandOptions,
  runCommand,
  startedAsScript,
  startedViaNpx,
} from "./run.ts";
import { viewCommand } from "./view.ts";
import { runTauSync, TAU_BIN } from "../e2e-harness.ts";

const dataDir = process.env.TAU_DATA_DIR;
const repo = resolve(import.meta.dirname, "..", "..", "..");

/** The run config `tau run` would use for these flags (planned, not run). */
async function runConfigFromOptions(
  options: RunCommandOptions,
  io: Parameters<typeof evaluationOptionsFromFlags>[1],
) {
  return (await planEvaluation(evaluationOptionsFromFlags(options, io))).config;
}

const tau = (args: string[], cwd: string, env: Record<string, string> = {}) => runTauSync(args, { cwd, env });

function runOptions(overrides: Partial<RunCommandOptions>): RunCommandOptions {
  return {
    domain: "mock",
    taskSplitName: "base",
    numTrials: "1",
    seed: "300",
    maxSteps: "200",
    maxErrors: "10",
    maxConcurrency: "4",
    maxRetries: "3",
    retryDelay: "0",
    agent: "replay",
    user: "scripted",
    agentLlm: "openai/gpt-4.1-2025-04-14",
    userLlm: "openai/gpt-4.1-2025-04-14",
    judgeLlm: "openai/gpt-4.1-2025-04-14",
    promptCache: true,
    dataDir: dataDir!,
    progressInterval: "30",
    ...overrides,
  };
}

async function inProcessRun(cwd: string, overrides: Partial<RunCommandOptions>) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCommand(runOptions(overrides), {
    stdout: (line) => out.push(line),
    stderr: (line) => err.push(line),
    isTty: false,
    argv: ["run", "--domain", "mock"],
    cwd,
  });
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

describe("startedViaNpx", () => {
  it("recognises `npx tau` only, not tau spawned by another npx command", () => {
    expect(startedViaNpx({ npm_lifecycle_event: "npx", npm_lifecycle_script: "'tau'" })).toBe(true);
    expect(startedViaNpx({ npm_lifecycle_event: "npx", npm_lifecycle_script: "'vitest'" })).toBe(false);
    expect(startedViaNpx({ npm_lifecycle_event: "test", npm_lifecycle_script: "vitest run" })).toBe(false);
    expect(startedViaNpx({})).toBe(false);
  });
});

describe.skipIf(!dataDir)("tau run end to end (skipped: TAU_DATA_DIR not set)", () => {
  it("`tau run --domain mock --agent replay --user scripted` gives pass^1 0.8 and saves under ./runs/NAME", () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-cli-run-"));
    const result = tau(
      [
        "run",
        "--domain",
        "mock",
        "--agent",
        "replay",
        "--user",
        "scripted",
        "--save-to",
        "e2e",
        "--data-dir",
        dataDir!,
      ],
      cwd,
    );
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/pass\^k\s+k=1\n\s+0\.800/);
    expect(result.stdout).toContain("Average reward  0.8000");
    expect(result.stdout).toMatch(/update_task_with_user_tools\s+✗/);
    expect(result.stdout).toMatch(/create_task_1\s+✓/);
    // not a TTY: plain progress lines on stderr
    expect(result.stderr).toMatch(/\[\d+s\] 10\/10 \(100%\) \| pass\^1 0\.800/);
    expect(existsSync(join(cwd, "runs", "e2e", "results.json"))).toBe(true);
    expect(existsSync(join(cwd, "runs", "e2e", "results.jsonl"))).toBe(true);
  });

  it("a missing API key is one line naming the variable, exit 2, and writes nothing", () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-cli-nokey-"));
    const result = tau(["run", "--domain", "mock", "--save-to", "nokey", "--data-dir", dataDir!], cwd, {
      OPENAI_API_KEY: "",
    });
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe(
      "tau: OPENAI_API_KEY is not set (needed for model openai/gpt-4.1-2025-04-14, used by the agent and the user simulator); set it or choose another --agent-llm / --user-llm",
    );
    expect(existsSync(join(cwd, "runs"))).toBe(false);
  });

  it("a missing key names the role that needs it: the default user simulator, then the judge", () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-cli-nokey-"));
    // An Anthropic agent still has the OpenAI user simulator by default.
    const user = tau(
      ["run", "--domain", "mock", "--agent-llm", "anthropic/claude-sonnet-4-5", "--data-dir", dataDir!],
      cwd,
      { OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "x" },
    );
    expect(user.status).toBe(2);
    expect(user.stderr.trim()).toBe(
      "tau: OPENAI_API_KEY is not set (needed for model openai/gpt-4.1-2025-04-14, used by the user simulator); set it or choose another --user-llm",
    );
    // Offline participants on a task with NL assertions still need the judge.
    const offline = [
      "run",
      "--domain",
      "retail",
      "--agent",
      "replay",
      "--user",
      "scripted",
      "--task-ids",
      "2",
    ];
    const judge = tau([...offline, "--data-dir", dataDir!], cwd, { OPENAI_API_KEY: "" });
    expect(judge.status).toBe(2);
    expect(judge.stderr.trim()).toBe(
      "tau: OPENAI_API_KEY is not set (needed for model openai/gpt-4.1-2025-04-14, used by the NL-assertion judge); set it or choose another --judge-llm, or pass --judge none to leave NL assertions unevaluated",
    );
    expect(existsSync(join(cwd, "runs"))).toBe(false);
    const skipped = tau(
      [...offline, "--judge", "none", "--save-to", "nojudge", "--data-dir", dataDir!],
      cwd,
      {
        OPENAI_API_KEY: "",
      },
    );
    expect(skipped.status, skipped.stderr).toBe(0);
    // evaluate-trajs on that run gives the same advice, naming its own flag.
    const regrade = tau(["evaluate-trajs", "nojudge", "--data-dir", dataDir!], cwd, { OPENAI_API_KEY: "" });
    expect(regrade.status).toBe(2);
    expect(regrade.stderr.trim()).toBe(
      "tau: OPENAI_API_KEY is not set (needed for model openai/gpt-4.1-2025-04-14, used by the NL-assertion judge); set it or choose another --judge, or pass --judge none to leave NL assertions unevaluated",
    );
  });

  it("an unknown task id is one line and exit code 2, with no stack", () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-cli-run-"));
    const result = tau(
      [
        "run",
        "--domain",
        "mock",
        "--agent",
        "replay",
        "--user",
        "scripted",
        "--task-ids",
        "nope",
        "--data-dir",
        dataDir!,
      ],
      cwd,
    );
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe("tau: Unknown task id for domain 'mock' (split 'base'): nope");
  });

  it("survives kill -9 mid-run: the resume completes every unit exactly once", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-cli-kill-"));
    const args = [
      "run",
      "--domain",
      "mock",
      "--agent",
      "replay",
      "--user",
      "scripted",
      "--num-trials",
      "100",
      "--max-concurrency",
      "1",
      "--save-to",
      "killed",
      "--data-dir",
      dataDir!,
    ];
    const checkpoint = join(cwd, "runs", "killed", "results.jsonl");
    const child = spawn(process.execPath, [TAU_BIN, ...args], { cwd, stdio: "ignore" });
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    // Wait until some simulations are on disk, then kill without warning.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const lines = existsSync(checkpoint) ? readFileSync(checkpoint, "utf8").split("\n").length : 0;
      if (lines > 25) break;
      if (Date.now() > deadline) throw new Error("the child run made no progress");
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill("SIGKILL");
    await exited;
    const before = await loadCheckpointState(checkpoint);
    expect(before.simulations.size).toBeGreaterThan(0);
    expect(before.simulations.size).toBeLessThan(1000);
    // Simulate a write torn by the kill as well.
    writeFileSync(checkpoint, `${readFileSync(checkpoint, "utf8")}{"kind": "simulation", "vers`);
    const resumed = tau(args, cwd);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      `Resuming ${checkpoint}: ${before.simulations.size} finished simulations kept`,
    );
    const after = await loadCheckpointState(checkpoint);
    expect(after.tornLine).toBeNull();
    expect(after.duplicates).toBe(0);
    expect(after.simulations.size).toBe(1000);
    const lines = readFileSync(checkpoint, "utf8").trim().split("\n");
    const simulationLines = lines.filter((line) => line.startsWith('{"kind": "simulation"'));
    expect(simulationLines).toHaveLength(1000);
    expect(resumed.stdout).toContain("Average reward  0.8000");
  }, 60_000);
});

describe.skipIf(!dataDir)("tau run and Ctrl-C (skipped: TAU_DATA_DIR not set)", () => {
  it("SIGINT stops new work, keeps finished simulations, prints the resume command and exits 130", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-cli-sigint-"));
    const args = [
      "run",
      "--domain",
      "mock",
      "--agent",
      "replay",
      "--user",
      "scripted",
      "--num-trials",
      "100",
      "--max-concurrency",
      "1",
      "--save-to",
      "stopped",
      "--data-dir",
      dataDir!,
    ];
    const checkpoint = join(cwd, "runs", "stopped", "results.jsonl");
    const child = spawn(process.execPath, [TAU_BIN, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    const deadline = Date.now() + 30_000;
    while (!(existsSync(checkpoint) && readFileSync(checkpoint, "utf8").split("\n").length > 20)) {
      if (Date.now() > deadline) throw new Error("the child run made no progress");
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(stderr).toContain("Resume with:");
    const resume = /Resume with:\n {2}(.+)/.exec(stderr)?.[1] ?? "";
    // Started as `node <abs>/scripts/tau-from-source.js` (the sources) from a folder outside the
    // repository: the hint starts that way too.
    expect(resume).toMatch(
      /^node \/\S+\/scripts\/tau-from-source\.js run --domain mock .* --save-to \/\S+\/runs\/stopped\/results\.json$/,
    );
    const kept = await loadCheckpointState(checkpoint);
    expect(kept.simulations.size).toBeGreaterThan(0);
    expect(kept.simulations.size).toBeLessThan(1000);
    // The exported results.json holds exactly what the checkpoint holds.
    expect(
      JSON.parse(readFileSync(join(cwd, "runs", "stopped", "results.json"), "utf8")).simulations,
    ).toHaveLength(kept.simulations.size);
  }, 60_000);
});

describe.skipIf(!dataDir)("run commands in-process (skipped: TAU_DATA_DIR not set)", () => {
  it("the resume command starts the way the run was started: `npx tau`, `tau` or `node bin/tau.js`", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-cli-resume-"));
    const argv = ["run", "--domain", "mock", "--save-to", "again"];
    const viaNpx = await runConfigFromOptions(runOptions({ saveTo: "again" }), { argv, cwd, viaNpx: true });
    expect(viaNpx.resumeCommand).toBe(
      `npx tau run --domain mock --save-to ${join(cwd, "runs", "again", "results.json")}`,
    );
    const direct = await runConfigFromOptions(runOptions({ saveTo: "again" }), { argv, cwd });
    expect(direct.resumeCommand).toBe(
      `tau run --domain mock --save-to ${join(cwd, "runs", "again", "results.json")}`,
    );
    const script = startedAsScript(join(cwd, "bin", "tau.js"), cwd);
    expect(script).toBe(join("bin", "tau.js"));
    expect(startedAsScript(join(cwd, "node_modules", ".bin", "tau"), cwd)).toBeUndefined();
    expect(startedAsScript("/elsewhere/my dir/bin/tau.js", cwd)).toBe("/elsewhere/my dir/bin/tau.js");
    const viaNode = await runConfigFromOptions(runOptions({ saveTo: "again" }), { argv, cwd, script });
    expect(viaNode.resumeCommand).toBe(
      `node bin/tau.js run --domain mock --save-to ${join(cwd, "runs", "again", "results.json")}`,
    );
    const spaced = await runConfigFromOptions(runOptions({ saveTo: "again" }), {
      argv,
      cwd,
      script: "/elsewhere/my dir/bin/tau.js",
    });
    expect(spaced.resumeCommand).toMatch(/^node '\/elsewhere\/my dir\/bin\/tau\.js' run --domain mock /);
  });

  it("view, export, evaluate-trajs and compare work on a run", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-cli-cmds-"));
    const first = await inProcessRun(cwd, { saveTo: join(cwd, "a.json"), numTrials: "2" });
    expect(first.code).toBe(0);
    const second = await inProcessRun(cwd, {
      saveTo: join(cwd, "b.json"),
      taskIds: ["create_task_1,update_task_1"],
    });
    expect(second.code).toBe(0);

    let text = "";
    await viewCommand(join(cwd, "a.jsonl"), { maxToolChars: "500" }, (t) => (text += t));
    expect(text).toContain("Per-task outcomes");
    expect(text).toMatch(/impossible_task_1\s+✓ ✓/);
    // The replay agent calls only ids that exist.
    expect(text).toMatch(
      /Hallucinated ids {2}0\.00 per task \(0 tool call\(s\) .* in 0 of \d+ simulations\)/,
    );

    text = "";
    await viewCommand(
      join(cwd, "a.json"),
      { task: "update_task_1", trial: "1", maxToolChars: "20" },
      (t) => (text += t),
    );
    expect(text).toMatch(/^Task update_task_1 · trial 1 · seed 373753 · ✓ reward 1\.000 · user_stop/);
    expect(text).toContain("→ update_task_status(");
    expect(text).toMatch(/… \(\d+ chars\)/);

    await expect(
      viewCommand(join(cwd, "a.json"), { task: "update_task_1", trial: "7", maxToolChars: "500" }, () => {}),
    ).rejects.toThrow("Task 'update_task_1' has no trial 7");

    const exported = await exportCommand(join(cwd, "a.jsonl"), { output: join(cwd, "copy.json") });
    expect(readFileSync(exported, "utf8")).toBe(readFileSync(join(cwd, "a.json"), "utf8"));

    text = "";
    const written = await evaluateTrajsCommand(
      [join(cwd, "a.json")],
      { judge: "none", dataDir: dataDir! },
      (t) => (text += t),
    );
    expect(text).toContain("re-graded 20 simulation(s)");
    expect(text).toContain("No reward changed.");
    expect(written).toEqual([join(cwd, "updated_a.json")]);
    expect(JSON.parse(readFileSync(written[0]!, "utf8")).timestamp).toMatch(TIMESTAMP_PATTERN);

    const { text: comparison, exitCode } = await compareCommand(join(cwd, "a.jsonl"), join(cwd, "b.json"));
    expect(exitCode).toBe(0);
    expect(comparison).toContain("paired over 2 shared task(s): B − A = +0.000");
    expect(comparison).toContain("left out: 8 task(s) only in A, 0 only in B");
    expect(comparison).toContain("Verdict: no difference on mock.");
  });

  it("reports a changed reward when a task definition changed (evaluate-trajs)", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-cli-regrade-"));
    await inProcessRun(cwd, { saveTo: join(cwd, "r.json"), taskIds: ["create_task_1"] });
    // Edit the embedded task: demand a different DB end state via an extra expected action.
    const path = join(cwd, "r.json");
    const raw = JSON.parse(readFileSync(path, "utf8"));
    raw.tasks[0].evaluation_criteria.reward_basis = ["DB", "ACTION"];
    raw.tasks[0].evaluation_criteria.actions.push({
      action_id: "extra",
      name: "update_task_status",
      arguments: { task_id: "task_9", status: "completed" },
    });
    writeFileSync(path, JSON.stringify(raw));
    let text = "";
    await evaluateTrajsCommand([path], { judge: "none", dataDir: dataDir! }, (t) => (text += t));
    expect(text).toContain("1 reward(s) changed:\n  create_task_1 trial 0: 1.000 → 0.000");
  });

  it("evaluate-trajs leaves infrastructure errors ungraded (reward_info stays null)", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-cli-regrade-infra-"));
    await inProcessRun(cwd, { saveTo: join(cwd, "r.json"), taskIds: ["create_task_1,update_task_1"] });
    const path = join(cwd, "r.json");
    const raw = JSON.parse(readFileSync(path, "utf8"));
    // What the runner records when a simulation kept raising: no transcript, no reward.
    Object.assign(raw.simulations[1], {
      termination_reason: "infrastructure_error",
      reward_info: null,
      messages: [],
      info: { error: "provider down", error_type: "InfrastructureError" },
    });
    const infraTask = raw.simulations[1].task_id as string;
    writeFileSync(path, JSON.stringify(raw));
    let text = "";
    const [written] = await evaluateTrajsCommand(
      [path],
      { judge: "none", dataDir: dataDir! },
      (t) => (text += t),
    );
    expect(text).toContain("re-graded 1 simulation(s), 1 infrastructure error(s) left as they were");
    expect(text).toContain("No reward changed.");
    expect(text).toContain("Infrastructure errors (not scored, re-run on resume): 1");
    const updated = JSON.parse(readFileSync(written!, "utf8"));
    const byTask = new Map(updated.simulations.map((s: { task_id: string }) => [s.task_id, s]));
    expect(byTask.get(infraTask)).toMatchObject({
      termination_reason: "infrastructure_error",
      reward_info: null,
    });
    const other = [...byTask.keys()].find((id) => id !== infraTask)!;
    expect(byTask.get(other)).toMatchObject({ reward_info: { reward: 1.0 } });
  });

  it("takes the split from --task-split-name or --split (default base)", async () => {
    const io = { argv: ["run"], cwd: mkdtempSync(join(tmpdir(), "tau-cli-split-")) };
    const split = async (overrides: Partial<RunCommandOptions>) =>
      (
        await runConfigFromOptions(
          runOptions({ domain: "retail", taskSplitName: undefined, ...overrides }),
          io,
        )
      ).split;
    expect(await split({})).toBe("base");
    expect(await split({ split: "test" })).toBe("test");
    expect(await split({ taskSplitName: "train" })).toBe("train");
    await expect(split({ split: "test", taskSplitName: "train" })).rejects.toThrow(/name different splits/);
  });

  it("--no-policy (commander's policy: false) reaches the run config; absent, it is off", async () => {
    const io = { argv: ["run"], cwd: mkdtempSync(join(tmpdir(), "tau-cli-policy-")) };
    expect((await runConfigFromOptions(runOptions({ policy: false }), io)).noPolicy).toBe(true);
    expect((await runConfigFromOptions(runOptions({ policy: true }), io)).noPolicy).toBeUndefined();
  });

  it("names a default run after the participants, without models for offline ones", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-cli-name-"));
    const io = { argv: ["run"], cwd };
    const offline = await runConfigFromOptions(runOptions({}), io);
    expect(offline.resultsPath).toMatch(/\/runs\/\d{8}_\d{6}_mock_replay_scripted\/results\.json$/);
    const mixed = await runConfigFromOptions(
      runOptions({ agent: "llm_agent", agentLlm: "openai/gpt-4.1-mini" }),
      io,
    );
    expect(mixed.resultsPath).toMatch(/\/\d{8}_\d{6}_mock_llm_agent_gpt-4\.1-mini_scripted\/results\.json$/);
    const llms = await runConfigFromOptions(runOptions({ agent: "llm_agent", user: "user_simulator" }), io);
    expect(llms.resultsPath).toMatch(
      /_mock_llm_agent_gpt-4\.1-2025-04-14_user_simulator_gpt-4\.1-2025-04-14\/results\.json$/,
    );
  });

  it("flag errors are usage errors naming the flag", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-cli-flags-"));
    await expect(inProcessRun(cwd, { numTrials: "0" })).rejects.toThrow(
      "--num-trials must be an integer ≥ 1, got '0'",
    );
    await expect(inProcessRun(cwd, { agentLlmArgs: "[1]" })).rejects.toThrow(
      "--agent-llm-args must be a JSON object",
    );
    await expect(inProcessRun(cwd, { saveTo: "a/b" })).rejects.toThrow(/--save-to takes a run name/);
    await expect(inProcessRun(cwd, { saveTo: join(dataDir!, "x.json") })).rejects.toThrow(
      /inside the data folder/,
    );
    await expect(inProcessRun(cwd, { agent: "nobody" })).rejects.toThrow(/Unknown agent 'nobody'/);
    await expect(inProcessRun(cwd, { timeout: "0" })).rejects.toThrow(
      "--timeout must be a positive number, got '0'",
    );
  });
});

describe.skipIf(!dataDir)("replaying every official task scores 1.0 (skipped: TAU_DATA_DIR not set)", () => {
  it("airline: tau run --agent replay --user scripted", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-cli-airline-"));
    const result = await inProcessRun(cwd, { domain: "airline", maxConcurrency: "8", saveTo: "airline" });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("Simulations 50 (50 evaluated, 0 infrastructure errors) · tasks 50");
    expect(result.stdout).toContain("Average reward  1.0000");
    expect(result.stdout).toMatch(/pass\^k\s+k=1\n\s+1\.000/);
    expect(result.stdout).not.toContain("NL assertions NOT evaluated");
    expect(result.stdout).toContain(
      "Provider calls 0 · retries 0 · 429s 0 · tokens in/out/cache-read 0/0/0 · cost $0.0000",
    );
    expect(result.stdout).not.toMatch(/^ {2}\S+ +[✗!]$/m); // no failed or errored row in the grid
    const results = JSON.parse(readFileSync(join(cwd, "runs", "airline", "results.json"), "utf8"));
    expect(results.simulations).toHaveLength(50);
    expect(
      results.simulations.every((s: { reward_info: { reward: number } }) => s.reward_info.reward === 1),
    ).toBe(true);
  });

  it("retail: tau run --agent replay --user scripted --judge none, NL assertions reported as not evaluated", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-cli-retail-"));
    const result = await inProcessRun(cwd, {
      domain: "retail",
      judge: "none",
      maxConcurrency: "8",
      saveTo: "retail",
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("Simulations 114 (114 evaluated, 0 infrastructure errors) · tasks 114");
    expect(result.stdout).toContain("Average reward  1.0000");
    expect(result.stdout).toContain(
      "NL assertions NOT evaluated in 40 simulation(s) (--judge none): their reward covers the other components only",
    );
    expect(result.stdout).not.toMatch(/^ {2}\S+ +[✗!]$/m); // no failed or errored row in the grid
    const results = JSON.parse(readFileSync(join(cwd, "runs", "retail", "results.json"), "utf8"));
    const rewards = results.simulations.map((s: { reward_info: { reward: number } }) => s.reward_info.reward);
    expect(rewards).toEqual(Array(114).fill(1));
    expect(results.info.taubench.judge_llm).toBeNull();
  });
});

describe("tau view on upstream results files", () => {
  const fixtures = join(repo, "src", "core", "fixtures");
  it("summarises an upstream monolithic results.json, infra errors apart", async () => {
    let text = "";
    await viewCommand(join(fixtures, "results-upstream.json"), { maxToolChars: "500" }, (t) => (text += t));
    expect(text).toContain("Infrastructure errors (not scored, re-run on resume): 1");
    expect(text).toMatch(/refund_lamp_1\s+✓ !/);
  });
  it("reads the dir layout too", async () => {
    let text = "";
    await viewCommand(join(fixtures, "results-dir"), { maxToolChars: "500" }, (t) => (text += t));
    expect(text).toContain("Per-task outcomes");
    // Upstream records no provider usage; the summary does not invent any.
    expect(text).not.toContain("Provider calls");
  });
  it("shows one upstream trajectory from either layout", async () => {
    let text = "";
    const monolithic = join(fixtures, "results-upstream.json");
    await viewCommand(monolithic, { task: "resume_chat", maxToolChars: "500" }, (t) => (text += t));
    expect(text).toMatch(/^Task resume_chat · trial 0 · seed 626729 · ✗ reward 0\.000 · max_steps/);
    expect(text).toContain("→ get_order(");
    text = "";
    const dir = join(fixtures, "results-dir");
    await viewCommand(dir, { task: "refund_lamp_1", trial: "0", maxToolChars: "500" }, (t) => (text += t));
    expect(text).toMatch(/^Task refund_lamp_1 · trial 0 · seed 626729 · ✓ reward 1\.000 · user_stop/);
    expect(text).toContain("Action ✓ refund_lamp(");
    text = "";
    await viewCommand(
      monolithic,
      { task: "refund_lamp_1", trial: "1", maxToolChars: "500" },
      (t) => (text += t),
    );
    expect(text).toContain("Error (APIError): provider returned 503");
  });
});

describe("tau compare verdicts", () => {
  function writeRun(
    path: string,
    rewardFor: (task: number) => number,
    { domain = "retail", taskPrefix = "t" } = {},
  ) {
    const info = Info.parse({
      git_commit: "x",
      num_trials: 1,
      max_steps: 200,
      max_errors: 10,
      user_info: { implementation: "user_simulator" },
      agent_info: { implementation: "llm_agent", llm: "openai/m" },
      environment_info: { domain_name: domain, policy: "p" },
    });
    const simulations = Array.from({ length: 30 }, (_, task) =>
      SimulationRun.parse({
        id: `s${task}`,
        task_id: `${taskPrefix}${task}`,
        start_time: "s",
        end_time: "e",
        duration: 1,
        termination_reason: "user_stop",
        reward_info: { reward: rewardFor(task) },
        trial: 0,
        seed: 1,
      }),
    );
    writeResultsFile(path, { timestamp: null, info, tasks: [], simulations, simulation_index: null });
  }

  it("calls a clear improvement and a wash in plain words", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tau-compare-"));
    writeRun(join(dir, "a.json"), (task) => (task < 10 ? 1 : 0));
    writeRun(join(dir, "b.json"), (task) => (task < 25 ? 1 : 0));
    writeRun(join(dir, "c.json"), (task) => (task < 12 && task !== 3 ? 1 : 0));
    const { text: better } = await compareCommand(join(dir, "a.json"), join(dir, "b.json"));
    expect(better).toContain("pass^1  A 0.333  B 0.833");
    expect(better).toContain(
      "Verdict: B is better on retail (by 0.500 pass^1; unlikely to be chance, p < 0.05).",
    );
    const { text: wash } = await compareCommand(join(dir, "a.json"), join(dir, "c.json"));
    expect(wash).toMatch(/Verdict: no clear difference on retail; .* within chance/);
  });

  it("exits non-zero when the runs have nothing in common: another domain, or no shared task", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tau-compare-"));
    writeRun(join(dir, "a.json"), () => 1);
    writeRun(join(dir, "other.json"), () => 1, { domain: "airline" });
    writeRun(join(dir, "disjoint.json"), () => 1, { taskPrefix: "u" });
    const domains = await compareCommand(join(dir, "a.json"), join(dir, "other.json"));
    expect(domains.text).toContain("different domains (retail vs airline)");
    expect(domains.exitCode).toBe(1);
    const tasks = await compareCommand(join(dir, "a.json"), join(dir, "disjoint.json"));
    expect(tasks.text).toContain("No task was evaluated in both runs");
    expect(tasks.exitCode).toBe(1);
    const cli = runTauSync(["compare", join(dir, "a.json"), join(dir, "other.json")]);
    expect(cli.status).toBe(1);
  });
});
