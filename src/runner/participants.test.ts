import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { defineAgent } from "../agents/define.ts";
import type { AgentContext, AgentDefinition } from "../agents/registry.ts";
import { ReplayAgent } from "../agents/replay-agent.ts";
import { UsageError } from "../core/errors.ts";
import { readResultsFile } from "../core/results-file.ts";
import { OFFLINE_RUN_DEPENDENCIES, offlineRunConfig } from "../testing/run-config.ts";
import { defineUser } from "../users/define.ts";
import type { UserContext } from "../users/registry.ts";
import { ScriptedUser } from "../users/scripted-user.ts";
import { loadCheckpointState } from "./checkpoint-state.ts";
import { executeRun, type RunConfig } from "./run.ts";

const dataDir = process.env.TAU_DATA_DIR;
const offline = OFFLINE_RUN_DEPENDENCIES;
const TASKS = ["create_task_1", "update_task_1"];

describe.skipIf(!dataDir)("agent and user definitions in a run (skipped: TAU_DATA_DIR not set)", () => {
  function probes() {
    const agents: AgentContext[] = [];
    const users: UserContext[] = [];
    const agent = defineAgent({
      name: "probe_agent",
      version: "1.0",
      create(ctx) {
        agents.push(ctx);
        return new ReplayAgent(ctx.task, { solo: false });
      },
    });
    const user = defineUser({
      name: "probe_user",
      create(ctx) {
        users.push(ctx);
        return new ScriptedUser(ctx.task);
      },
    });
    return { agents, users, agent, user };
  }

  it("gives each episode its signal, simulation id, trial, seed and options, and records the definitions", async () => {
    const { agents, users, agent, user } = probes();
    const run: RunConfig = offlineRunConfig(dataDir!, {
      agent,
      user,
      agentOptions: { depth: 2 },
      userOptions: { mood: "calm" },
      numTrials: 2,
      taskIds: TASKS,
    });
    const outcome = await executeRun(run, offline);
    expect(outcome.simulations.map((s) => s.reward_info?.reward)).toEqual([1, 1, 1, 1]);
    expect(agents).toHaveLength(4);
    expect(users).toHaveLength(4);
    const byId = new Map(outcome.simulations.map((s) => [s.id, s]));
    for (const [index, ctx] of agents.entries()) {
      const simulation = byId.get(ctx.simulationId)!;
      expect(simulation).toBeDefined();
      expect([ctx.trial, ctx.seed, ctx.task.id]).toEqual([
        simulation.trial,
        simulation.seed,
        simulation.task_id,
      ]);
      expect(ctx.signal).toBeInstanceOf(AbortSignal);
      expect(ctx.options).toEqual({ depth: 2 });
      // The user of the same episode saw the same id, trial and seed.
      const peer = users.find((u) => u.simulationId === ctx.simulationId)!;
      expect([peer.trial, peer.seed, peer.options]).toEqual([ctx.trial, ctx.seed, { mood: "calm" }]);
      expect(agents.findIndex((other) => other.simulationId === ctx.simulationId)).toBe(index);
    }
    const results = readResultsFile(run.resultsPath);
    expect(results.info.agent_info.implementation).toBe("probe_agent");
    expect(results.info.user_info.implementation).toBe("probe_user");
    expect(results.info.taubench?.agent).toEqual({
      name: "probe_agent",
      version: "1.0",
      source: "object",
      options: { depth: 2 },
    });
    expect(results.info.taubench?.user).toMatchObject({
      name: "probe_user",
      version: null,
      options: { mood: "calm" },
    });
    const state = await loadCheckpointState(`${run.resultsPath}l`);
    expect(state.run?.fingerprint).toMatchObject({ agent_version: "1.0", agent_options: { depth: 2 } });
  });

  it("refuses to resume with other options or another version of the agent", async () => {
    const { agent, user } = probes();
    const run = offlineRunConfig(dataDir!, { agent, user, agentOptions: { depth: 2 }, taskIds: TASKS });
    await executeRun(run, offline);
    await expect(executeRun({ ...run, agentOptions: { depth: 3 } }, offline)).rejects.toThrow(
      /different settings \(agent_options: \{"depth": 2\} → \{"depth": 3\}\)/,
    );
    await expect(executeRun({ ...run, agentOptions: undefined }, offline)).rejects.toThrow(
      /agent_options: \{"depth": 2\} → null/,
    );
    await expect(executeRun({ ...run, agent: { ...agent, version: "1.1" } }, offline)).rejects.toThrow(
      /agent_version: "1\.0" → "1\.1"/,
    );
    expect((await executeRun(run, offline)).ranNow).toBe(0);
  });

  it("stops before anything runs when the definition rejects its options", async () => {
    const agent = defineAgent({
      name: "strict_agent",
      parseOptions(options) {
        if (typeof options.depth !== "number") throw new Error("depth must be a number");
        return options;
      },
      create: (ctx) => new ReplayAgent(ctx.task, { solo: false }),
    });
    const run = offlineRunConfig(dataDir!, { agent, agentOptions: { depth: "deep" }, taskIds: TASKS });
    const attempt = executeRun(run, offline);
    await expect(attempt).rejects.toBeInstanceOf(UsageError);
    await expect(attempt).rejects.toThrow(
      "agent 'strict_agent' rejected its options (--agent-options): depth must be a number",
    );
  });

  it("checks a definition object given as it is (not through defineAgent) and fills its left-out flags", async () => {
    const plain = {
      name: "plain_agent",
      create: (ctx: AgentContext) => new ReplayAgent(ctx.task, { solo: false }),
    } as unknown as AgentDefinition;
    const run = offlineRunConfig(dataDir!, { agent: plain, taskIds: TASKS });
    const outcome = await executeRun(run, offline);
    expect(outcome.simulations).toHaveLength(TASKS.length);
    // The checkpoint it wrote reads back (a left-out soloMode used to make it unreadable).
    expect(readResultsFile(run.resultsPath).simulations).toHaveLength(TASKS.length);
    expect((await executeRun(run, offline)).ranNow).toBe(0);

    const misspelt = { ...plain, name: "misspelt_agent", needLlm: true } as unknown as AgentDefinition;
    const refused = offlineRunConfig(dataDir!, { agent: misspelt, taskIds: TASKS });
    await expect(executeRun(refused, offline)).rejects.toThrow(
      "invalid agent definition: 'misspelt_agent': unknown field needLlm",
    );
    expect(existsSync(refused.resultsPath)).toBe(false);
  });

  it("refuses options for a built-in that reads none, before anything runs", async () => {
    const agent = offlineRunConfig(dataDir!, { agent: "replay", agentOptions: { depth: 2 }, taskIds: TASKS });
    await expect(executeRun(agent, offline)).rejects.toThrow(
      `agent 'replay' takes no options, so --agent-options {"depth":2} would change nothing; leave the flag out`,
    );
    const user = offlineRunConfig(dataDir!, {
      agent: "replay",
      user: "scripted",
      userOptions: { x: 1 },
      taskIds: TASKS,
    });
    await expect(executeRun(user, offline)).rejects.toBeInstanceOf(UsageError);
    expect(existsSync(agent.resultsPath)).toBe(false);

    // A run that recorded such options before they were refused resumes with them as it was.
    const before = offlineRunConfig(dataDir!, { agent: "replay", user: "scripted", taskIds: TASKS });
    await executeRun(before, offline);
    const checkpoint = `${before.resultsPath}l`;
    const [head, ...rest] = readFileSync(checkpoint, "utf8").split("\n");
    const recorded = head!.replace(
      '"enforce_communication_protocol": false}',
      '"enforce_communication_protocol": false, "user_options": {"x": 1}}',
    );
    expect(recorded).not.toBe(head);
    writeFileSync(checkpoint, [recorded, ...rest].join("\n"));
    expect((await executeRun({ ...before, userOptions: { x: 1 } }, offline)).ranNow).toBe(0);
  });

  it("aborts the signal an agent was given when the run is stopped", async () => {
    const seen: AbortSignal[] = [];
    const controller = new AbortController();
    const agent = defineAgent({
      name: "waiting_agent",
      create(ctx) {
        seen.push(ctx.signal);
        const replay = new ReplayAgent(ctx.task, { solo: false });
        return {
          name: "waiting_agent",
          initState: (history) => replay.initState(history),
          isStop: (message) => replay.isStop(message),
          // Never answers: only the abort ends the episode.
          generate: () =>
            new Promise((_, reject) => {
              controller.abort();
              ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true });
            }),
        };
      },
    });
    const outcome = await executeRun(
      offlineRunConfig(dataDir!, { agent, taskIds: TASKS, maxConcurrency: 1 }),
      {
        ...offline,
        signal: controller.signal,
      },
    );
    expect(outcome.interrupted).toBe(true);
    expect(outcome.ranNow).toBe(0);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((signal) => signal.aborted)).toBe(true);
  });

  it("writes no new fingerprint or info keys for built-in participants", async () => {
    const run = offlineRunConfig(dataDir!, { taskIds: TASKS });
    await executeRun(run, offline);
    const text = readFileSync(`${run.resultsPath}l`, "utf8");
    expect(text).not.toMatch(/agent_version|agent_options|user_options|"agent": \{/);
    expect(readResultsFile(run.resultsPath).info.taubench).not.toHaveProperty("agent");
  });
});
