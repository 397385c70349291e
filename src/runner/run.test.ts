import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { registerAgent } from "../agents/registry.ts";
import { ReplayAgent } from "../agents/replay-agent.ts";
import { InfrastructureError, UsageError } from "../core/errors.ts";
import { TIMESTAMP_PATTERN } from "../core/messages.ts";
import { readResultsFile } from "../core/results-file.ts";
import { computeMetrics } from "../metrics/index.ts";
import { loadCheckpointState } from "./checkpoint-state.ts";
import { parseRunUsage } from "./llm-usage.ts";
import { loadRun } from "./run-file.ts";
import type { LlmClient } from "../llm/types.ts";
import type { RunEvent } from "./events.ts";
import { OFFLINE_RUN_DEPENDENCIES, offlineRunConfig } from "../testing/run-config.ts";
import { executeRun, type RunConfig, type RunDependencies } from "./run.ts";
import { renderSummary, renderTrajectory } from "../cli/summary.ts";

const dataDir = process.env.TAU_DATA_DIR;

/** Every value of a timestamp field (`timestamp`, `*_time`, `*_at`) anywhere in a parsed JSON value. */
function timestampsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(timestampsIn);
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, item]) =>
    /^(timestamp|.+_time|.+_at)$/.test(key) && typeof item === "string" ? [item] : timestampsIn(item),
  );
}

const offline = OFFLINE_RUN_DEPENDENCIES;

function config(overrides: Partial<RunConfig> = {}): RunConfig {
  return offlineRunConfig(dataDir!, { maxConcurrency: 8, maxRetries: 3, ...overrides });
}

// An agent that fails its first `failures` episodes per task, then behaves like `replay`.
const failuresLeft = new Map<string, number>();
registerAgent({
  name: "flaky_replay_for_tests",
  description: "test only",
  soloMode: false,
  needsLlm: false,
  create: (ctx) => {
    const left = failuresLeft.get(ctx.task.id) ?? 0;
    if (left > 0) {
      failuresLeft.set(ctx.task.id, left - 1);
      throw new InfrastructureError(`injected failure for ${ctx.task.id}`);
    }
    return new ReplayAgent(ctx.task, { solo: false });
  },
});

// An agent with a bug in its own code on one task (its second turn), otherwise `replay`.
registerAgent({
  name: "buggy_replay_for_tests",
  description: "test only",
  soloMode: false,
  needsLlm: false,
  create: (ctx) => {
    const replay = new ReplayAgent(ctx.task, { solo: false });
    if (ctx.task.id !== "update_task_1") return replay;
    let turns = 0;
    return Object.assign(Object.create(replay), {
      generate: (...args: Parameters<ReplayAgent["generate"]>) => {
        if (++turns === 2) throw new TypeError("agent bug: undefined is not a function");
        return replay.generate(...args);
      },
    });
  },
});

describe.skipIf(!dataDir)("executeRun on mock (skipped: TAU_DATA_DIR not set)", () => {
  it("replay agent + scripted user: 8 of 10 tasks at 1.0, pass^1 0.8, exported as upstream's results", async () => {
    const run = config({ numTrials: 2 });
    const outcome = await executeRun(run, offline);
    expect(outcome.interrupted).toBe(false);
    expect(outcome.simulations).toHaveLength(20);
    const metrics = computeMetrics(outcome.simulations, { numTrials: 2 });
    expect(metrics.passHatK[0]).toBeCloseTo(0.8);
    expect(metrics.perTask.filter((t) => t.successes === 2)).toHaveLength(8);
    expect(new Set(outcome.simulations.map((s) => s.seed))).toEqual(new Set([626729, 373753]));
    const results = readResultsFile(run.resultsPath);
    expect(results.simulations).toHaveLength(20);
    expect(results.tasks).toHaveLength(10);
    expect(results.info.agent_info.implementation).toBe("replay");
    expect(results.info.num_trials).toBe(2);
    // upstream writes llm_args with a float temperature
    expect(readFileSync(run.resultsPath, "utf8")).toContain('"temperature": 0.0');
    expect(results.simulations.every((s) => s.messages.length > 0 && typeof s.policy === "string")).toBe(
      true,
    );
    // One timestamp format (upstream's get_now) in every file the run wrote.
    const stamps = [
      ...timestampsIn(JSON.parse(readFileSync(run.resultsPath, "utf8"))),
      ...readFileSync(`${run.resultsPath}l`, "utf8")
        .trim()
        .split("\n")
        .flatMap((line) => timestampsIn(JSON.parse(line))),
    ];
    expect(stamps.length).toBeGreaterThan(100);
    expect(stamps.filter((stamp) => !TIMESTAMP_PATTERN.test(stamp))).toEqual([]);
  });

  it("resumes: nothing re-runs when complete; more trials only run the new ones", async () => {
    const run = config();
    const first = await executeRun(run, offline);
    expect(first.ranNow).toBe(10);
    const again = await executeRun(run, offline);
    expect(again.ranNow).toBe(0);
    expect(again.resumed).toBe(10);
    const more = await executeRun({ ...run, numTrials: 3 }, offline);
    expect(more.ranNow).toBe(20);
    expect(more.simulations).toHaveLength(30);
    expect(more.info.num_trials).toBe(3);
    const state = await loadCheckpointState(`${run.resultsPath}l`);
    expect(state.duplicates).toBe(0);
    expect(state.simulations.size).toBe(30);
  });

  it("one writer per run: a second run on the same results path is refused while the first goes on", async () => {
    const run = config({ numTrials: 20 });
    const first = executeRun(run, offline);
    // The second start happens while the first is still running (its lock is taken synchronously).
    await expect(executeRun(run, offline)).rejects.toThrow(
      /is being written by another tau run \(pid \d+ on this host/,
    );
    const done = await first;
    expect(done.ranNow).toBe(200);
    const state = await loadCheckpointState(`${run.resultsPath}l`);
    expect(state.duplicates).toBe(0);
    expect(state.simulations.size).toBe(200);
    // Released at the end: the next invocation resumes normally.
    expect((await executeRun(run, offline)).ranNow).toBe(0);
    expect(existsSync(`${run.resultsPath}l.lock`)).toBe(false);
  });

  it("refuses to resume with settings that change what a simulation means", async () => {
    const run = config({ taskIds: ["create_task_1"] });
    await executeRun(run, offline);
    await expect(executeRun({ ...run, maxSteps: 50 }, offline)).rejects.toThrow(
      /different settings \(max_steps: 200 → 50\)/,
    );
    await expect(executeRun({ ...run, seed: 1 }, offline)).rejects.toBeInstanceOf(UsageError);
    // Concurrency and retry settings do not matter.
    const ok = await executeRun({ ...run, maxConcurrency: 1, maxRetries: 0 }, offline);
    expect(ok.ranNow).toBe(0);
  });

  it("a listener that throws or whose promise rejects does not stop the run", async () => {
    let heard = 0;
    const rejecting = async () => {
      heard++;
      throw new Error("listener boom");
    };
    const run = config({ taskIds: ["create_task_1", "update_task_1"] });
    const outcome = await executeRun(run, { ...offline, onEvent: rejecting as never });
    expect(heard).toBeGreaterThan(2);
    expect(outcome.simulations).toHaveLength(2);
    const throwing = config({ taskIds: ["create_task_1"] });
    const done = await executeRun(throwing, {
      ...offline,
      onEvent: () => {
        throw new Error("sync boom");
      },
    });
    expect(done.simulations).toHaveLength(1);
  });

  it("a createLlm that throws or returns no client is one line naming the model and its role", async () => {
    const run = config({ taskIds: ["create_task_1"], user: "user_simulator", userLlm: "openai/gpt-4.1" });
    await expect(
      executeRun(run, {
        ...offline,
        createLlm: () => {
          throw new Error("factory boom");
        },
      }),
    ).rejects.toThrow("createLlm failed for the user model openai/gpt-4.1: factory boom");
    await expect(executeRun(run, { ...offline, createLlm: (async () => ({})) as never })).rejects.toThrow(
      "createLlm returned a Promise (it must return the client itself) for the user model openai/gpt-4.1",
    );
    expect(existsSync(`${run.resultsPath}l`)).toBe(false);
  });

  it("refuses a run of more than a million simulations before drawing its seeds", async () => {
    const run = config({ numTrials: 100_001 });
    await expect(executeRun(run, offline)).rejects.toThrow(
      "100001 trials × 10 tasks = 1000010 simulations; a run holds at most 1000000 (fewer trials, or several runs with different --seed)",
    );
    expect(existsSync(run.resultsPath)).toBe(false);
  });

  it("refuses to resume when what the participants are sent changed, one line per difference; allowChanged continues and records it", async () => {
    const copy = (name: string) => {
      const dir = join(mkdtempSync(join(tmpdir(), `tau-sent-${name}-`)), "data");
      cpSync(dataDir!, dir, {
        recursive: true,
        filter: (path) => !/domains[/\\](?!mock)/.test(path),
      });
      return dir;
    };
    const before = copy("before");
    const run = config({ dataDir: before, taskIds: ["create_task_1", "update_task_1"] });
    await executeRun({ ...run, taskIds: ["create_task_1"] }, offline);
    // Another data folder where the policy, the DB, a guideline file and one task differ.
    const after = copy("after");
    const mock = join(after, "domains", "mock");
    writeFileSync(join(mock, "policy.md"), `${readFileSync(join(mock, "policy.md"), "utf8")}\nBe brief.\n`);
    writeFileSync(
      join(mock, "db.json"),
      readFileSync(join(mock, "db.json"), "utf8").replace("user_1", "user_01"),
    );
    writeFileSync(join(after, "user_simulator", "simulation_guidelines.md"), "Say hello.\n");
    const tasks = JSON.parse(readFileSync(join(mock, "tasks.json"), "utf8")) as { description: object }[];
    tasks[0]!.description = { purpose: "edited" };
    writeFileSync(join(mock, "tasks.json"), JSON.stringify(tasks));
    const changed = { ...run, dataDir: after };
    const refusal = await executeRun(changed, offline).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(UsageError);
    const lines = (refusal as Error).message.split("\n");
    expect(lines[0]).toMatch(
      /results\.jsonl: what the participants are sent changed since this run started:$/,
    );
    expect(lines.slice(1, -1)).toEqual([
      expect.stringMatching(/^ {2}- the policy changed \(sha256 [0-9a-f]{12}… → [0-9a-f]{12}…\)$/),
      expect.stringMatching(/^ {2}- data file domains\/mock\/db\.json changed/),
      expect.stringMatching(/^ {2}- data file domains\/mock\/policy\.md changed/),
      expect.stringMatching(/^ {2}- data file domains\/mock\/tasks\.json changed/),
      expect.stringMatching(/^ {2}- data file user_simulator\/simulation_guidelines\.md changed/),
      "  - task 'create_task_1' changed",
    ]);
    expect(lines.at(-1)).toContain("--allow-changed");
    // The unchanged folder still resumes quietly.
    expect((await executeRun({ ...run, dataDir: before, taskIds: ["create_task_1"] }, offline)).ranNow).toBe(
      0,
    );

    const notes: string[] = [];
    const onEvent = (event: RunEvent) => {
      if (event.type === "note") notes.push(event.message);
    };
    const allowed = await executeRun({ ...changed, allowChanged: true }, { ...offline, onEvent });
    expect(allowed.ranNow).toBe(1);
    expect(notes).toContain("note: continuing although task 'create_task_1' changed (--allow-changed)");
    const recorded = readResultsFile(run.resultsPath).info.taubench as Record<string, unknown>;
    expect(recorded.allowed_changes).toEqual([
      {
        at: expect.stringMatching(TIMESTAMP_PATTERN),
        differences: expect.arrayContaining(["task 'create_task_1' changed"]),
      },
    ]);
    expect((recorded.data_hashes as Record<string, string>)["domains/mock/policy.md"]).toMatch(
      /^[0-9a-f]{64}$/,
    );
    // Now the run is of the new data: resuming with it again is quiet.
    expect((await executeRun(changed, offline)).ranNow).toBe(0);
  });

  it("a run folder that cannot be made is one line naming it, the operation and what to do next", async () => {
    const parent = mkdtempSync(join(tmpdir(), "tau-io-"));
    writeFileSync(join(parent, "file"), "not a folder");
    const resultsPath = join(parent, "file", "run", "results.json");
    const run = config({ resultsPath, resumeCommand: "tau run --save-to x" });
    await expect(executeRun(run, offline)).rejects.toThrow(
      `cannot create the run folder ${join(parent, "file", "run")}: a part of the path is a file, not a folder (ENOTDIR); nothing of the run was written; once the folder can be written, run: tau run --save-to x`,
    );
  });

  it("an exception in an agent's own code is that agent's failure: agent_error, scored 0, in pass^k, not re-run", async () => {
    const run = config({
      agent: "buggy_replay_for_tests",
      maxRetries: 3,
      taskIds: ["create_task_1", "update_task_1"],
    });
    const outcome = await executeRun(run, offline);
    const byTask = new Map(outcome.simulations.map((s) => [s.task_id, s]));
    const failed = byTask.get("update_task_1")!;
    expect(failed.termination_reason).toBe("agent_error");
    expect(failed.reward_info?.reward).toBe(0);
    expect(byTask.get("create_task_1")?.reward_info?.reward).toBe(1);
    const metrics = computeMetrics(outcome.simulations);
    expect(metrics.infraErrorCount).toBe(0);
    expect(metrics.passHatK[0]).toBe(0.5);
    expect(renderSummary(outcome)).not.toContain("simulation re-runs");
    // A resume keeps it: it is a finished simulation, not an infrastructure error to re-run.
    expect((await executeRun(run, offline)).ranNow).toBe(0);
    const saved = readResultsFile(run.resultsPath).simulations.find((s) => s.task_id === "update_task_1")!;
    expect(saved.info).toMatchObject({ error: "agent bug: undefined is not a function", raised_by: "agent" });
    const shown = renderTrajectory(saved);
    expect(shown).toContain("Error (TypeError raised by the agent): agent bug: undefined is not a function");
  });

  it("retries whole simulations, records infrastructure errors, and re-runs them on resume", async () => {
    const run = config({
      agent: "flaky_replay_for_tests",
      maxRetries: 1,
      taskIds: ["create_task_1", "update_task_1"],
    });
    failuresLeft.set("create_task_1", 1); // recovers on the retry
    failuresLeft.set("update_task_1", 5); // exhausts 1 + 1 attempts
    const first = await executeRun(run, offline);
    const byTask = new Map(first.simulations.map((s) => [s.task_id, s]));
    expect(byTask.get("create_task_1")?.reward_info?.reward).toBe(1);
    const infra = byTask.get("update_task_1")!;
    expect(infra.termination_reason).toBe("infrastructure_error");
    expect(infra.info).toMatchObject({ failed_after_attempts: 2, error_type: "InfrastructureError" });
    expect(renderSummary(first)).toContain("Infrastructure errors (not scored, re-run on resume): 1");
    // One re-run of create_task_1 and one of update_task_1 before it was given up.
    expect(parseRunUsage(first.info.taubench?.llm_usage)?.simulation_retries).toBe(2);
    expect(renderSummary(first)).toMatch(/· simulation re-runs 2$/m);
    expect(computeMetrics(first.simulations).passHatK[0]).toBe(1); // infra errors are not scored
    failuresLeft.set("update_task_1", 0);
    const second = await executeRun(run, offline);
    expect(second.ranNow).toBe(1);
    expect(second.simulations.map((s) => s.termination_reason)).toEqual(["user_stop", "user_stop"]);
    const exported = readResultsFile(run.resultsPath);
    expect(exported.simulations).toHaveLength(2);
  });

  it("drives LLM participants through the provider queue, counting tokens, cost and 429s", async () => {
    let calls = 0;
    let open = 0;
    let peak = 0;
    const events: RunEvent[] = [];
    const run = config({
      agent: "llm_agent",
      user: "user_simulator",
      numTrials: 4,
      maxConcurrency: 6,
      taskIds: ["create_task_1", "update_task_1"],
    });
    const outcome = await executeRun(run, {
      providerKey: (model) => model,
      createLlm: (model, onEvent): LlmClient => ({
        model,
        async generate(request) {
          const index = ++calls;
          peak = Math.max(peak, ++open);
          await new Promise((resolve) => setTimeout(resolve, 2));
          open--;
          if (index % 5 === 0) onEvent({ type: "rate_limited", model, retryAfterMs: 1 });
          const usage = { prompt_tokens: 100, completion_tokens: 5 };
          onEvent({
            type: "call",
            model,
            callName: request.callName,
            usage,
            costUsd: 0.001,
            durationMs: 2,
            attempts: 1,
            cached: false,
          });
          const system = request.messages[0]?.role === "system" ? request.messages[0].content : "";
          const isUser = system.includes("###STOP###");
          const text = !isUser ? "Noted." : request.messages.length <= 2 ? "Hello there." : "Bye ###STOP###";
          return { content: text, toolCalls: null, usage, costUsd: 0.001 };
        },
      }),
      onEvent: (event) => events.push(event),
    });
    expect(outcome.simulations).toHaveLength(8);
    expect(outcome.simulations.every((s) => s.termination_reason === "user_stop")).toBe(true);
    expect(calls).toBe(24); // user, agent, user per conversation
    expect(peak).toBeLessThanOrEqual(6);
    // The events tell the same story: 8 units, each started and finished once, every call reported.
    const types = events.map((event) => event.type);
    expect(events.find((event) => event.type === "run_started")).toMatchObject({ total: 8, toRun: 8 });
    expect(types.filter((type) => type === "simulation_started")).toHaveLength(8);
    expect(types.filter((type) => type === "simulation_finished")).toHaveLength(8);
    expect(types.at(-1)).toBe("batch_finished");
    const llm = events.flatMap((event) => (event.type === "llm" ? [event.event] : []));
    const callEvents = llm.flatMap((event) => (event.type === "call" ? [event] : []));
    expect(callEvents.reduce((sum, call) => sum + (call.usage.prompt_tokens ?? 0), 0)).toBe(24 * 100);
    expect(callEvents.reduce((sum, call) => sum + (call.costUsd ?? 0), 0)).toBeCloseTo(0.024);
    expect(llm.filter((event) => event.type === "rate_limited")).toHaveLength(4);
    // The models and their arguments are recorded as upstream does.
    const results = readResultsFile(run.resultsPath);
    expect(results.info.agent_info.llm).toBe("openai/gpt-4.1-2025-04-14");
    expect(results.simulations[0]!.seed).toBe(626729);
  });

  it("records provider usage per session in the checkpoint, sums it into info.taubench and the summary", async () => {
    let calls = 0;
    const run = config({
      agent: "llm_agent",
      user: "user_simulator",
      userLlm: "openai/user-model",
      numTrials: 2,
      taskIds: ["create_task_1", "update_task_1"],
    });
    const deps: RunDependencies = {
      providerKey: (model) => model,
      usageSaveIntervalMs: 1,
      createLlm: (model, onEvent): LlmClient => ({
        model,
        async generate(request) {
          const index = ++calls;
          await new Promise((resolve) => setTimeout(resolve, 2));
          if (index % 5 === 0) {
            onEvent({ type: "rate_limited", model, retryAfterMs: 1 });
            onEvent({
              type: "retry",
              model,
              attempt: 1,
              delayMs: 1,
              reason: "429",
              kind: "rate_limit",
              statusCode: 429,
            });
          }
          if (index === 3) onEvent({ type: "error", model, kind: "server", message: "lost, then answered" });
          const usage = {
            prompt_tokens: 100,
            completion_tokens: 5,
            cache_read_tokens: 60,
            cache_write_tokens: 10,
          };
          onEvent({
            type: "call",
            model,
            callName: request.callName,
            usage,
            costUsd: 0.001,
            durationMs: 2,
            attempts: 1,
            cached: index % 4 === 0,
          });
          const system = request.messages[0]?.role === "system" ? request.messages[0].content : "";
          const isUser = system.includes("###STOP###");
          const text = !isUser ? "Noted." : request.messages.length <= 2 ? "Hello there." : "Bye ###STOP###";
          return { content: text, toolCalls: null, usage, costUsd: 0.001 };
        },
      }),
    };
    const first = await executeRun(run, deps);
    expect(calls).toBe(12);
    // 12 calls: 3 from the cache (4, 8, 12), 429 + retry on 5 and 10, one failure event.
    expect(parseRunUsage(first.info.taubench?.llm_usage)).toMatchObject({
      provider_calls: 9,
      cached_calls: 3,
      failed_calls: 1,
      retries: 2,
      rate_limited: 2,
      prompt_tokens: 900,
      completion_tokens: 45,
      cache_read_tokens: 540,
      cache_write_tokens: 90,
      simulation_retries: 0,
    });
    const checkpoint = `${run.resultsPath}l`;
    const afterFirst = await loadCheckpointState(checkpoint);
    expect(afterFirst.sessions.size).toBe(1);
    expect([...afterFirst.sessions.values()][0]!.simulations).toBe(4);

    const second = await executeRun({ ...run, numTrials: 3 }, deps);
    expect(second.ranNow).toBe(2);
    const line =
      "Provider calls 14 (+4 from cache, 1 failed) · retries 3 · 429s 3 · tokens in/out/cache-read 1400/70/840 · cache-write 140 · cost $0.0140";
    expect(renderSummary(second)).toContain(line);
    const state = await loadCheckpointState(checkpoint);
    expect(state.sessions.size).toBe(2);
    // The exported results carry the sum of both sessions, the cost as a Python float.
    const results = readResultsFile(run.resultsPath);
    const recorded = parseRunUsage(results.info.taubench?.llm_usage)!;
    expect(recorded.provider_calls).toBe(14);
    expect(recorded.cost_usd).toBeCloseTo(0.014);
    expect(Object.keys(recorded.by_model).sort()).toEqual(["openai/gpt-4.1-2025-04-14", "openai/user-model"]);
    expect(recorded.by_model["openai/user-model"]!.provider_calls).toBeGreaterThan(0);
    expect(readFileSync(run.resultsPath, "utf8")).toContain('"simulation_retries": 0,');
    // `tau view` on either file prints the same line.
    expect(renderSummary(await loadRun(checkpoint))).toContain(line);
    expect(renderSummary(await loadRun(run.resultsPath))).toContain(line);
  });

  it("never overwrites a file without a checkpoint that is not a results file (it is imported only when it is one)", async () => {
    const run = config();
    writeFileSync(run.resultsPath, "{}");
    await expect(executeRun(run, offline)).rejects.toThrow(
      `${run.resultsPath}: info: missing required field`,
    );
    expect(readFileSync(run.resultsPath, "utf8")).toBe("{}");
    expect(existsSync(`${run.resultsPath}l`)).toBe(false);
    expect(existsSync(`${run.resultsPath}.bak`)).toBe(false);
  });

  it("rejects solo mode on an agent that is not solo, and unknown task ids", async () => {
    await expect(executeRun(config({ solo: true }), offline)).rejects.toThrow(/not a solo agent/);
    await expect(executeRun(config({ taskIds: ["nope"] }), offline)).rejects.toThrow(
      "Unknown task id for domain 'mock' (split 'base'): nope",
    );
  });

  it("stops on abort, keeps finished simulations and resumes to completion", async () => {
    const run = config({ numTrials: 5, maxConcurrency: 2 });
    const controller = new AbortController();
    let seen = 0;
    const partial = await executeRun(run, {
      ...offline,
      signal: controller.signal,
      // On the 6th start, not the 6th finish: workers run ahead of the checkpoint's writes, so under
      // load all 50 could finish before the 6th write is durable. By the 6th start at concurrency 2,
      // at least 4 simulations have finished running, and a finished one is always written.
      onEvent: (event) => {
        if (event.type === "simulation_started" && ++seen === 6) controller.abort();
      },
    });
    expect(partial.interrupted).toBe(true);
    expect(partial.simulations.length).toBeGreaterThan(0);
    expect(partial.simulations.length).toBeLessThan(50);
    const rest = await executeRun(run, offline);
    expect(rest.simulations).toHaveLength(50);
    expect(rest.ranNow + rest.resumed).toBe(50);
  });
});

describe.skipIf(!dataDir)("run plan (skipped: TAU_DATA_DIR not set)", () => {
  it("records sha256 hashes of the agent instructions, the policy and the user guidelines", async () => {
    const { planRun } = await import("./plan.ts");
    const { createHash } = await import("node:crypto");
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    const llm = await planRun(config({ agent: "llm_agent", user: "user_simulator" }));
    const hashes = llm.info.taubench?.prompt_hashes as Record<string, string | null>;
    expect(hashes.policy).toBe(sha(llm.domain.policy()));
    expect(hashes.agent_instructions).toMatch(/^[0-9a-f]{64}$/);
    const guidelines = readFileSync(
      join(dataDir!, "user_simulator", "simulation_guidelines_tools.md"),
      "utf8",
    );
    expect(hashes.user_guidelines).toBe(sha(guidelines)); // mock's user has tools
    const offlineHashes = (await planRun(config())).info.taubench?.prompt_hashes as Record<
      string,
      string | null
    >;
    expect(offlineHashes.agent_instructions).toBeNull();
    expect(offlineHashes.user_guidelines).toBeNull();
    const solo = await planRun(config({ agent: "llm_agent_solo", user: "dummy_user" }));
    expect((solo.info.taubench!.prompt_hashes as Record<string, string>).policy).not.toBe(hashes.policy);
  });

  it("hashes the guideline file each task is sent: a task whose user has no tools gets the plain file", async () => {
    const { planRun } = await import("./plan.ts");
    const { createHash } = await import("node:crypto");
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    const copy = mkdtempSync(join(tmpdir(), "tau-guidelines-"));
    cpSync(join(dataDir!, "domains", "mock"), join(copy, "domains", "mock"), { recursive: true });
    cpSync(join(dataDir!, "user_simulator"), join(copy, "user_simulator"), { recursive: true });
    const tasksPath = join(copy, "domains", "mock", "tasks.json");
    const tasks = JSON.parse(readFileSync(tasksPath, "utf8")) as { user_tools?: string[] }[];
    writeFileSync(tasksPath, JSON.stringify(tasks.map((task) => ({ ...task, user_tools: [] }))));
    const plain = readFileSync(join(copy, "user_simulator", "simulation_guidelines.md"), "utf8");
    const plan = await planRun(config({ agent: "llm_agent", user: "user_simulator", dataDir: copy }));
    expect((plan.info.taubench!.prompt_hashes as Record<string, string>).user_guidelines).toBe(sha(plain));
  });

  it("refuses a solo agent paired with a talking user", async () => {
    const { planRun } = await import("./plan.ts");
    await expect(planRun(config({ agent: "replay_solo", user: "scripted" }))).rejects.toThrow(
      /--user dummy_user/,
    );
  });
});
