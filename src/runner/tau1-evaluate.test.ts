/**
 * The library API on the original τ-bench: runEvaluation applies upstream
 * τ-bench's defaults on tau1-* domains, and a run goes through the runner
 * seam (planRun → SimulationRunner → executePlan) to our checkpoint and
 * τ-bench's results list; the human user's terminal rides along as an option.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defineAgent } from "../agents/define.ts";
import { ReplayAgent } from "../agents/replay-agent.ts";
import { pyDumps } from "../core/py-json.ts";
import { loadDomain } from "../domains/registry.ts";
import { isTau1Domain } from "../domains/tau1/index.ts";
import type { LlmClient } from "../llm/types.ts";
import { ScriptedLlmClient, type ScriptedResponder } from "../testing/scripted-model.ts";
import { planEvaluation, runConfigFor, runEvaluation } from "./evaluate.ts";

const dataDir = process.env.TAU1_DATA_DIR;
const hasData = Boolean(dataDir && existsSync(join(dataDir, "retail")));

describe("runConfigFor on tau1-* domains (no data needed)", () => {
  it("takes upstream τ-bench's defaults there and keeps τ²-bench's elsewhere", () => {
    const config = runConfigFor({ domain: "tau1-retail" }, "/data");
    expect(config).toMatchObject({
      agent: "tool-calling",
      user: "llm",
      userLlm: "openai/gpt-4o",
      seed: 10,
      maxSteps: 30,
    });
    expect(pyDumps(config.userLlmArgs)).toBe("{}");
    expect(pyDumps(config.agentLlmArgs)).toBe('{"temperature": 0.0}');
    expect(runConfigFor({ domain: "retail" }, "/data")).toMatchObject({
      agent: "llm_agent",
      user: "user_simulator",
      seed: 300,
      maxSteps: 200,
    });
  });
});

describe.skipIf(!hasData)("runEvaluation on tau1-retail (skipped: TAU1_DATA_DIR not set)", () => {
  const loaded = hasData ? loadDomain("tau1-retail", dataDir!) : null;
  const domain = loaded && isTau1Domain(loaded) ? loaded : null;
  const taskId = 5;

  /** An agent model that plays the task's gold actions, then says its outputs. */
  function goldAgent(): ScriptedResponder {
    const record = domain!.tau1.record(domain!.tau1.tasksOf("test")[taskId]!);
    return (request) => {
      const turn = request.messages.filter((message) => message.role === "assistant").length;
      const action = record.actions[turn];
      if (action)
        return {
          toolCalls: [
            { id: `call_${turn}`, name: action.name, arguments: action.kwargs, requestor: "assistant" },
          ],
        };
      return { content: `Done. ${record.outputs.join(", ")}` };
    };
  }

  it("runs through the seam with τ-bench's defaults and writes both results formats", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau1-eval-"));
    const models = new Map<string, LlmClient>();
    const result = await runEvaluation({
      domain: "tau1-retail",
      dataDir: dataDir!,
      taskIds: [String(taskId)],
      agentLlm: "local/agent",
      saveTo: "lib",
      cwd,
      createLlm: (model) => {
        const client =
          model === "local/agent"
            ? new ScriptedLlmClient(goldAgent(), { model })
            : new ScriptedLlmClient(
                (_, index) => ({ content: index === 0 ? "Hi, I need help." : "###STOP###" }),
                {
                  model,
                },
              );
        models.set(model, client);
        return client;
      },
    });
    // The user model is τ-bench's default, asked without a temperature.
    expect([...models.keys()]).toEqual(["local/agent", "openai/gpt-4o"]);
    const user = models.get("openai/gpt-4o") as ScriptedLlmClient;
    expect(user.requests[0]!.messages[0]!.role).toBe("system");
    expect(result.simulations.map((s) => s.reward_info?.reward)).toEqual([1]);
    expect(result.info.agent_info.implementation).toBe("tool-calling");
    expect(result.info.user_info.implementation).toBe("llm");
    expect(result.info.seed).toBe(10);
    expect(result.info.max_steps).toBe(30);
    expect((result.info.taubench as { tau1?: { agent_strategy?: string } }).tau1?.agent_strategy).toBe(
      "tool-calling",
    );
    const entries = JSON.parse(readFileSync(result.resultsPath, "utf8")) as {
      task_id: number;
      reward: number;
    }[];
    expect(entries.map((entry) => [entry.task_id, entry.reward])).toEqual([[taskId, 1]]);
    expect(existsSync(result.checkpointPath)).toBe(true);
    expect(result.metrics.passHatK[0]).toBe(1);
  });

  it("gives the human user's terminal to the episode, and refuses definitions in one line", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau1-eval-human-"));
    const asked: string[] = [];
    const result = await runEvaluation({
      domain: "tau1-retail",
      dataDir: dataDir!,
      taskIds: [String(taskId)],
      agentLlm: "local/agent",
      user: "human",
      saveTo: "human",
      cwd,
      humanUser: {
        ask: async (prompt) => {
          asked.push(prompt);
          return asked.length === 1 ? "I need help." : "###STOP###";
        },
      },
      createLlm: (model) => new ScriptedLlmClient(goldAgent(), { model }),
    });
    expect(asked.length).toBe(2);
    expect(result.simulations.map((s) => s.reward_info?.reward)).toEqual([1]);
    expect(result.info.user_info.llm).toBeNull();

    const agent = defineAgent({ name: "mine", create: (ctx) => new ReplayAgent(ctx.task, { solo: false }) });
    await expect(planEvaluation({ domain: "tau1-retail", dataDir: dataDir!, agent, cwd })).rejects.toThrow(
      /^Domain 'tau1-retail' runs the original τ-bench's agent and user strategies by name/,
    );
  });
});
