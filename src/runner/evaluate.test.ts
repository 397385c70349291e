import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defineAgent } from "../agents/define.ts";
import { ReplayAgent } from "../agents/replay-agent.ts";
import { UsageError } from "../core/errors.ts";
import { pyDumps } from "../core/py-json.ts";
import { readResultsFile } from "../core/results-file.ts";
import { offlineEvaluation } from "../testing/run-config.ts";
import type { RunEvent } from "./events.ts";
import { planEvaluation, runConfigFor, runEvaluation } from "./evaluate.ts";

const dataDir = process.env.TAU_DATA_DIR;

describe("runConfigFor", () => {
  it("fills tau run's defaults and checks numbers, naming the option", () => {
    const config = runConfigFor({ domain: "mock" }, "/data");
    expect(config).toMatchObject({
      split: "base",
      numTrials: 1,
      seed: 300,
      maxSteps: 200,
      maxErrors: 10,
      maxConcurrency: 3,
      maxRetries: 3,
      retryDelayMs: 1000,
      timeoutMs: null,
      agent: "llm_agent",
      user: "user_simulator",
      agentLlm: "openai/gpt-4.1-2025-04-14",
      judgeLlm: "openai/gpt-4.1-2025-04-14",
      enforceCommunicationProtocol: false,
    });
    expect(pyDumps(config.agentLlmArgs)).toBe('{"temperature": 0.0}');
    expect(runConfigFor({ domain: "mock", judge: null }, "/data").judgeLlm).toBeNull();
    expect(runConfigFor({ domain: "mock", judge: "none" }, "/data").judgeLlm).toBeNull();
    expect(() => runConfigFor({ domain: "mock", numTrials: 0 }, "/data")).toThrow(
      new UsageError("numTrials must be an integer ≥ 1, got 0"),
    );
    expect(() => runConfigFor({ domain: "mock", maxConcurrency: 2.5 }, "/data")).toThrow(/maxConcurrency/);
    expect(() => runConfigFor({ domain: "mock", timeoutMs: 0 }, "/data")).toThrow(
      "timeoutMs must be a positive number of milliseconds (or null), got 0",
    );
  });
});

describe.skipIf(!dataDir)("runEvaluation (skipped: TAU_DATA_DIR not set)", () => {
  it("runs an offline evaluation and returns its simulations, info and metrics", async () => {
    const events: RunEvent["type"][] = [];
    const result = await runEvaluation(
      offlineEvaluation({ dataDir: dataDir!, numTrials: 2, onEvent: (event) => events.push(event.type) }),
    );
    expect(result.simulations).toHaveLength(20);
    expect(result.metrics.passHatK[0]).toBeCloseTo(0.8);
    expect(result.metrics.maxK).toBe(2);
    expect(result.metrics.passHatK).toHaveLength(2);
    expect(result.info.agent_info.implementation).toBe("replay");
    expect(existsSync(result.resultsPath)).toBe(true);
    expect(readResultsFile(result.resultsPath).simulations).toHaveLength(20);
    expect(events[0]).toBe("note");
    expect(events.filter((type) => type === "simulation_finished")).toHaveLength(20);
    expect(events.at(-1)).toBe("batch_finished");
  });

  it("takes an agent definition, names the default run after it, and resumes by saveTo", async () => {
    const agent = defineAgent({
      name: "my_replay",
      create: (ctx) => new ReplayAgent(ctx.task, { solo: false }),
    });
    const cwd = mkdtempSync(join(tmpdir(), "tau-eval-"));
    const planned = await planEvaluation({ domain: "mock", dataDir: dataDir!, agent, user: "scripted", cwd });
    expect(planned.config.resultsPath).toMatch(/\/runs\/\d{8}_\d{6}_mock_my_replay_scripted\/results\.json$/);
    const options = offlineEvaluation({ dataDir: dataDir!, agent, taskIds: ["create_task_1"] });
    const first = await runEvaluation(options);
    expect(first.simulations[0]?.reward_info?.reward).toBe(1);
    const again = await runEvaluation(options);
    expect([again.ranNow, again.resumed]).toEqual([0, 1]);
  });

  it("stops on the caller's signal and keeps what finished", async () => {
    const controller = new AbortController();
    let finished = 0;
    const result = await runEvaluation(
      offlineEvaluation({
        dataDir: dataDir!,
        numTrials: 5,
        maxConcurrency: 2,
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === "simulation_finished" && ++finished === 3) controller.abort();
        },
      }),
    );
    expect(result.interrupted).toBe(true);
    expect(result.simulations.length).toBeGreaterThanOrEqual(3);
    expect(result.simulations.length).toBeLessThan(50);
  });

  it("refuses results inside the data folder, and a model that the offline factory would have to build", async () => {
    await expect(
      runEvaluation(offlineEvaluation({ dataDir: dataDir!, saveTo: `${dataDir}/x.json` })),
    ).rejects.toThrow(/Refusing to save results inside the data folder/);
    await expect(
      runEvaluation(offlineEvaluation({ dataDir: dataDir!, agent: "llm_agent", taskIds: ["create_task_1"] })),
    ).rejects.toThrow("offline test: no model expected");
  });
});
