import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { UsageError } from "../core/errors.ts";
import { PyFloat, parsePyJson, pyDumps } from "../core/py-json.ts";
import { Info, type Results, taskToPy } from "../core/results.ts";
import { readResultsFile, writeResultsFile } from "../core/results-file.ts";
import type { SimulationRun } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import { loadDomain } from "../domains/registry.ts";
import { infrastructureErrorSimulation } from "./batch.ts";
import { loadCheckpointState } from "./checkpoint-state.ts";
import { canonicalModelName, importedInfoDifferences } from "./import-results.ts";
import { OFFLINE_RUN_DEPENDENCIES, offlineRunConfig } from "../testing/run-config.ts";
import { planRun } from "./plan.ts";
import { executeRun, type RunConfig } from "./run.ts";
import { trialSeeds } from "./seeds.ts";

const dataDir = process.env.TAU_DATA_DIR;

const offline = OFFLINE_RUN_DEPENDENCIES;

function config(resultsPath: string, overrides: Partial<RunConfig> = {}): RunConfig {
  return offlineRunConfig(dataDir!, { resultsPath, ...overrides });
}

const scratch = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

/** `info` as upstream's `tau2 run` writes it: LiteLLM model names, its own commit and policy text, no taubench stamp. */
function upstreamInfo(overrides: Record<string, unknown> = {}): Info {
  return Info.parse({
    git_commit: "a2c0247",
    num_trials: 1,
    max_steps: 200,
    max_errors: 10,
    user_info: {
      implementation: "scripted",
      llm: "gpt-4.1-2025-04-14",
      llm_args: { temperature: new PyFloat(0) },
      // The info-comparison tests need no data folder; the run tests compare against the real file.
      global_simulation_guidelines: dataDir
        ? readFileSync(join(dataDir, "user_simulator", "simulation_guidelines.md"), "utf8")
        : "guidelines",
    },
    agent_info: {
      implementation: "replay",
      llm: "gpt-4.1-2025-04-14",
      llm_args: { temperature: new PyFloat(0) },
    },
    // The policy is excluded from the comparison, as upstream excludes it.
    environment_info: { domain_name: "mock", policy: "An older wording of the mock policy." },
    seed: 300,
    ...overrides,
  });
}

describe("importedInfoDifferences", () => {
  const ours = (agentLlm: string, userLlm: string): Info =>
    upstreamInfo({
      git_commit: "0123456789abcdef",
      agent_info: { implementation: "llm_agent", llm: agentLlm, llm_args: { temperature: new PyFloat(0) } },
      user_info: { implementation: "user_simulator", llm: userLlm, llm_args: { temperature: 0 } },
      environment_info: { domain_name: "mock", policy: "today's policy" },
    });
  const theirs = (agentLlm: string, userLlm: string): Info =>
    upstreamInfo({
      agent_info: { implementation: "llm_agent", llm: agentLlm, llm_args: { temperature: new PyFloat(0) } },
      user_info: {
        implementation: "user_simulator",
        llm: userLlm,
        llm_args: { temperature: new PyFloat(0) },
      },
    });

  it("maps upstream's LiteLLM names onto provider/model and ignores commit, policy and trial count", () => {
    expect(canonicalModelName("gpt-4.1-2025-04-14")).toBe("openai/gpt-4.1-2025-04-14");
    expect(canonicalModelName("claude-3-7-sonnet-20250219")).toBe("anthropic/claude-3-7-sonnet-20250219");
    expect(canonicalModelName("gemini/gemini-2.5-pro")).toBe("google/gemini-2.5-pro");
    expect(canonicalModelName("vertex_ai/some-model")).toBe("vertex_ai/some-model");
    const stored = { ...theirs("gpt-4.1-2025-04-14", "claude-3-7-sonnet-20250219"), num_trials: 4 };
    expect(
      importedInfoDifferences(
        stored,
        ours("openai/gpt-4.1-2025-04-14", "anthropic/claude-3-7-sonnet-20250219"),
      ),
    ).toEqual([]);
  });

  it("names every setting that differs", () => {
    const stored = theirs("gpt-4o", "gpt-4.1-2025-04-14");
    const current = {
      ...ours("openai/gpt-4.1-2025-04-14", "openai/gpt-4.1-2025-04-14"),
      max_steps: 50,
      seed: 7,
    };
    expect(importedInfoDifferences(stored, current)).toEqual([
      'agent_info.llm: "openai/gpt-4o" → "openai/gpt-4.1-2025-04-14"',
      "max_steps: 200 → 50",
      "seed: 300 → 7",
    ]);
    const args = ours("openai/gpt-4o", "openai/gpt-4.1-2025-04-14");
    args.agent_info = { ...args.agent_info, llm_args: { temperature: new PyFloat(0.5) } };
    expect(importedInfoDifferences(stored, args)).toEqual([
      'agent_info.llm_args: {"temperature": 0.0} → {"temperature": 0.5}',
    ]);
  });
});

describe.skipIf(!dataDir)("resuming from an existing results file (skipped: TAU_DATA_DIR not set)", () => {
  let tasks: Task[];
  let finished: SimulationRun;

  beforeAll(async () => {
    tasks = [...loadDomain("mock", dataDir!).tasks()];
    const source = await executeRun(
      config(join(scratch("tau-import-src-"), "results.json"), { taskIds: ["create_task_1"] }),
      offline,
    );
    finished = readResultsFile(source.resultsPath).simulations[0]!;
  });

  /** Upstream's file after 2 of 10 mock tasks: one finished, one infrastructure error. */
  function upstreamResults(): Results {
    const failedTask = tasks.find((task) => task.id !== finished.task_id)!;
    const failed = infrastructureErrorSimulation(
      { trial: 0, task: failedTask, seed: 626729 },
      new Error("provider unavailable"),
      4,
    );
    return {
      timestamp: "2025-06-01T12:00:00.000000",
      info: upstreamInfo(),
      tasks,
      simulations: [finished, failed],
      simulation_index: null,
    };
  }

  it("continues an upstream monolithic file: runs the 9 missing or failed units, keeps a backup", async () => {
    const path = join(scratch("tau-import-json-"), "results.json");
    writeResultsFile(path, upstreamResults());
    const original = readFileSync(path, "utf8");
    // An upstream file: no taubench stamp in its info (checked structurally: paths may contain the word).
    expect(JSON.parse(original).info.taubench).toBeUndefined();
    const logs: string[] = [];
    const outcome = await executeRun(config(path), {
      ...offline,
      onEvent: (event) => event.type === "note" && logs.push(event.message),
    });
    expect(outcome.ranNow).toBe(9);
    expect(outcome.resumed).toBe(1);
    expect(logs.join("\n")).toContain(
      `Imported ${path} (upstream results, json layout): 1 simulation kept, 1 infrastructure error to re-run; original saved as ${path}.bak`,
    );
    expect(readFileSync(`${path}.bak`, "utf8")).toBe(original);

    const results = readResultsFile(path);
    expect(results.simulations).toHaveLength(10);
    expect(results.simulations[0]!.id).toBe(finished.id);
    expect(new Set(results.simulations.map((s) => s.task_id)).size).toBe(10);
    expect(results.simulations.every((s) => s.termination_reason !== "infrastructure_error")).toBe(true);
    expect(results.timestamp).toBe("2025-06-01T12:00:00.000000");
    expect(results.info.agent_info.implementation).toBe("replay");
    expect(results.info.taubench?.imported_from).toMatchObject({
      source: "upstream",
      git_commit: "a2c0247",
      simulations: 1,
      infrastructure_errors_dropped: 1,
    });
    // From now on the checkpoint is the run: nothing is left to do.
    const again = await executeRun(config(path), offline);
    expect(again.ranNow).toBe(0);
    expect(again.resumed).toBe(10);
    expect(existsSync(`${path}.bak.1`)).toBe(false);
  });

  it("continues an upstream dir-layout run and keeps that layout", async () => {
    const folder = scratch("tau-import-dir-");
    const path = join(folder, "results.json");
    const upstream = upstreamResults();
    writeResultsFile(path, upstream, { format: "dir" });
    const outcome = await executeRun(config(path), offline);
    expect(outcome.ranNow).toBe(9);
    const results = readResultsFile(path);
    expect(results.simulations).toHaveLength(10);
    expect(results.simulation_index).toHaveLength(10);
    // The dropped infrastructure error's file is gone (upstream's index check would fail on it), but backed up.
    expect(readdirSync(join(folder, "simulations"))).toHaveLength(10);
    expect(existsSync(join(folder, "simulations", `${upstream.simulations[1]!.id}.json`))).toBe(false);
    expect(readdirSync(join(folder, "simulations.bak")).sort()).toEqual(
      upstream.simulations.map((s) => `${s.id}.json`).sort(),
    );
    expect(existsSync(`${path}.bak`)).toBe(true);
  });

  it("refuses a file from another run in one line, and leaves it untouched", async () => {
    const cases: [Partial<RunConfig>, (results: Results) => Results, RegExp][] = [
      [{ seed: 301 }, (r) => r, /different settings \(seed: 300 → 301\)/],
      [{ maxSteps: 50 }, (r) => r, /different settings \(max_steps: 200 → 50\)/],
      [{ agent: "replay_solo", user: "dummy_user" }, (r) => r, /agent_info\.implementation: "replay" → /],
      [
        {},
        (r) => ({
          ...r,
          tasks: r.tasks.map((task) =>
            task.id === "create_task_1"
              ? { ...task, user_scenario: { ...task.user_scenario, persona: "changed" } }
              : task,
          ),
        }),
        /^Task 'create_task_1' changed since the run in .* was written/,
      ],
      [
        { taskIds: ["create_task_1"] },
        (r) => r,
        /has tasks this run does not select \(create_task_1_with_env/,
      ],
      [
        {},
        (r) => ({ ...r, info: { ...r.info, seed: null }, simulations: [{ ...r.simulations[0]!, seed: 5 }] }),
        /has seed 5, but --seed 300 gives trial 0 the seed 626729/,
      ],
    ];
    for (const [overrides, edit, message] of cases) {
      const folder = scratch("tau-import-bad-");
      const path = join(folder, "results.json");
      writeResultsFile(path, edit(upstreamResults()));
      const before = readFileSync(path, "utf8");
      const attempt = executeRun(config(path, overrides), offline);
      await expect(attempt).rejects.toBeInstanceOf(UsageError);
      await expect(attempt).rejects.toThrow(message);
      expect(readFileSync(path, "utf8")).toBe(before);
      expect(readdirSync(folder)).toEqual(["results.json"]);
    }
  });

  it("maps upstream's model names end to end, and takes the import back when a model client cannot be built", async () => {
    const folder = scratch("tau-import-llm-");
    const path = join(folder, "results.json");
    const llmInfo = upstreamInfo({
      agent_info: {
        implementation: "llm_agent",
        llm: "gpt-4.1-2025-04-14",
        llm_args: { temperature: new PyFloat(0) },
      },
      user_info: {
        ...upstreamInfo().user_info,
        implementation: "user_simulator",
      },
    });
    writeResultsFile(path, { ...upstreamResults(), info: llmInfo, simulations: [] });
    const before = readFileSync(path, "utf8");
    const logs: string[] = [];
    const attempt = executeRun(config(path, { agent: "llm_agent", user: "user_simulator" }), {
      ...offline,
      onEvent: (event) => event.type === "note" && logs.push(event.message),
      createLlm: () => {
        throw new UsageError("OPENAI_API_KEY is not set");
      },
    });
    await expect(attempt).rejects.toThrow("OPENAI_API_KEY is not set");
    // The settings matched (gpt-4.1-2025-04-14 ≙ openai/gpt-4.1-2025-04-14), so it got as far as importing.
    expect(logs.join("\n")).toContain("(upstream results, json layout): 0 simulations kept");
    expect(readdirSync(folder)).toEqual(["results.json"]);
    expect(readFileSync(path, "utf8")).toBe(before);
  });

  it("refuses a dir-layout folder whose results.json is missing", async () => {
    const folder = scratch("tau-import-orphan-");
    writeResultsFile(join(folder, "results.json"), upstreamResults(), { format: "dir" });
    rmSync(join(folder, "results.json"));
    await expect(executeRun(config(join(folder, "results.json")), offline)).rejects.toThrow(
      /simulations exists but .*results\.json does not/,
    );
  });

  it("continues taubench's own results file whose checkpoint is gone, adding a trial", async () => {
    const path = join(scratch("tau-import-ours-"), "results.json");
    await executeRun(config(path, { taskIds: ["create_task_1", "update_task_with_user_tools"] }), offline);
    rmSync(`${path}l`);
    const logs: string[] = [];
    const outcome = await executeRun(
      config(path, { taskIds: ["create_task_1", "update_task_with_user_tools"], numTrials: 2 }),
      { ...offline, onEvent: (event) => event.type === "note" && logs.push(event.message) },
    );
    expect(logs.join("\n")).toContain("(taubench results, json layout): 2 simulations kept");
    expect(outcome.ranNow).toBe(2);
    const results = readResultsFile(path);
    expect(results.simulations.map((s) => [s.trial, s.seed])).toEqual([
      [0, 626729],
      [0, 626729],
      [1, 373753],
      [1, 373753],
    ]);
    const state = await loadCheckpointState(`${path}l`);
    expect(state.sessions.has("imported:results.json")).toBe(true);
  });

  it("exports what upstream's try_resume reads: Results fields, (trial, task_id, seed) keys, task dumps", async () => {
    const path = join(scratch("tau-export-shape-"), "results.json");
    await executeRun(config(path, { numTrials: 2 }), offline);
    const raw = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    expect(Object.keys(raw)).toEqual(["timestamp", "info", "tasks", "simulations", "simulation_index"]);
    const info = raw.info as Record<string, Record<string, unknown>>;
    // Upstream's Info fields in its order; `taubench` is an extra key pydantic ignores on load.
    expect(Object.keys(info)).toEqual([
      "git_commit",
      "num_trials",
      "max_steps",
      "max_errors",
      "user_info",
      "agent_info",
      "environment_info",
      "seed",
      "text_streaming_config",
      "speech_complexity",
      "audio_native_config",
      "retrieval_config",
      "retrieval_config_kwargs",
      "taubench",
    ]);
    expect(typeof info.git_commit).toBe("string");
    expect(info.num_trials).toBe(2);
    expect(info.seed).toBe(300);
    expect(typeof info.user_info!.implementation).toBe("string");
    expect(typeof info.agent_info!.implementation).toBe("string");
    expect(info.environment_info!.domain_name).toBe("mock");
    expect(typeof info.environment_info!.policy).toBe("string");
    const seeds = trialSeeds(300, 2);
    const simulations = raw.simulations as Record<string, unknown>[];
    expect(simulations).toHaveLength(20);
    for (const simulation of simulations) {
      for (const field of ["id", "task_id", "start_time", "end_time", "termination_reason"])
        expect(typeof simulation[field]).toBe("string");
      expect(typeof simulation.duration).toBe("number");
      expect(Number.isInteger(simulation.trial)).toBe(true);
      expect(simulation.seed).toBe(seeds[simulation.trial as number]);
    }
    // Every duration is written as a Python float, as pydantic's `float` field dumps it.
    const text = readFileSync(path, "utf8");
    const durations = [...text.matchAll(/\n {6}"duration": ([^,\n]+),/g)].map((match) => match[1]!);
    expect(durations).toHaveLength(20);
    expect(durations.filter((value) => !/[.e]/.test(value))).toEqual([]);
    // Tasks dump exactly as upstream's Task model dumps the data's tasks, so its task hash sees no change.
    const dumped = (parsePyJson(text) as Record<string, unknown[]>).tasks!;
    const selected = (await planRun(config(path))).tasks;
    expect(dumped.map((task) => pyDumps(task, { sortKeys: true }))).toEqual(
      selected.map((task) => pyDumps(taskToPy(task), { sortKeys: true })),
    );
  });
});
