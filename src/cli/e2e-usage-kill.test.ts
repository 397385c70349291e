/**
 * Usage survives kill -9: a `tau run` with LLM participants (the fake provider
 * on 127.0.0.1) is killed mid-run, well before its periodic usage save; the
 * checkpoint still holds the killed session's provider calls, tokens and cost
 * for every simulation it recorded, and the resumed run's total covers them all.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SimulationRun } from "../core/simulation.ts";
import { loadCheckpointState } from "../runner/checkpoint-state.ts";
import { type FakeProvider, startFakeProvider } from "../testing/fake-provider.ts";
import { participantOf, repliesSoFar, runTau, TAU_BIN } from "./e2e-harness.ts";

const dataDir = process.env.TAU_DATA_DIR;

/** Cost and provider calls the recorded simulations account for (each priced message is one call). */
function accounted(simulations: Iterable<Pick<SimulationRun, "agent_cost" | "user_cost">>) {
  let cost = 0;
  for (const simulation of simulations) cost += (simulation.agent_cost ?? 0) + (simulation.user_cost ?? 0);
  return cost;
}

describe.skipIf(!dataDir)("provider usage survives kill -9 (skipped: TAU_DATA_DIR not set)", () => {
  let fake: FakeProvider;
  let cwd: string;
  beforeAll(async () => {
    fake = await startFakeProvider({
      latencyMs: 15,
      handler: (request) => {
        if (participantOf(request) === "user")
          return { text: repliesSoFar(request, "user") === 0 ? "Hello, I need help." : "###STOP###" };
        return { text: "Noted." };
      },
    });
    cwd = mkdtempSync(join(tmpdir(), "tau-usage-kill-"));
  });
  afterAll(async () => {
    await fake?.close();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  it("keeps the killed session's calls, tokens and cost for what it recorded", async () => {
    const args = [
      "run",
      "--no-preflight",
      "--domain",
      "mock",
      "--agent-llm",
      "openai/gpt-4.1",
      "--user-llm",
      "openai/gpt-4.1",
      "--num-trials",
      "6",
      "--max-concurrency",
      "3",
      "--judge",
      "none",
      "--data-dir",
      dataDir!,
      "--save-to",
      "usage",
    ];
    const env = { ...process.env, OPENAI_API_KEY: "sk-usage-kill-test", OPENAI_BASE_URL: fake.openaiBaseUrl };
    const checkpoint = join(cwd, "runs", "usage", "results.jsonl");
    const child = spawn(process.execPath, [TAU_BIN, ...args], { cwd, env, stdio: "ignore" });
    const exited = new Promise<void>((done) => child.on("exit", () => done()));
    const deadline = Date.now() + 60_000;
    const recorded = () =>
      existsSync(checkpoint) ? readFileSync(checkpoint, "utf8").split('{"kind": "simulation"').length - 1 : 0;
    while (recorded() < 12) {
      if (Date.now() > deadline) throw new Error("the child run made no progress");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    child.kill("SIGKILL");
    await exited;

    const killed = await loadCheckpointState(checkpoint, { full: true });
    expect(killed.simulations.size).toBeGreaterThanOrEqual(12);
    expect(killed.simulations.size).toBeLessThan(60);
    const sessions = [...killed.sessions.values()];
    expect(sessions).toHaveLength(1);
    const usage = sessions[0]!.usage;
    // Every recorded simulation's calls are in the session record (two user turns, one agent turn each).
    expect(usage.provider_calls).toBeGreaterThanOrEqual(3 * killed.simulations.size);
    expect(usage.cost_usd).toBeGreaterThanOrEqual(accounted(killed.simulations.values()) - 1e-9);
    expect(usage.prompt_tokens).toBeGreaterThan(0);
    expect(sessions[0]!.simulations).toBe(killed.simulations.size);

    const resumed = await runTau(args, {
      cwd,
      env: { OPENAI_API_KEY: "sk-usage-kill-test", OPENAI_BASE_URL: fake.openaiBaseUrl },
    });
    // create_task_1_with_env_assertions asserts on task_2, which this agent never creates: its 6
    // simulations cannot be graded (infrastructure errors), so the run ends with exit 3.
    expect(resumed.status, resumed.stderr).toBe(3);
    expect(resumed.stderr).toContain("6 of 60 simulation(s) ended in an infrastructure error");
    const results = JSON.parse(readFileSync(join(cwd, "runs", "usage", "results.json"), "utf8")) as {
      simulations: SimulationRun[];
      info: { taubench: { llm_usage: { provider_calls: number; cost_usd: number } } };
    };
    expect(results.simulations).toHaveLength(60);
    const total = results.info.taubench.llm_usage;
    expect(total.provider_calls).toBeGreaterThanOrEqual(3 * 60);
    expect(total.cost_usd).toBeGreaterThanOrEqual(accounted(results.simulations) - 1e-9);
    // Only calls of simulations cut short by the kill are missing from the provider's own count.
    expect(fake.callCount - total.provider_calls).toBeLessThanOrEqual(3 * 3);
  });
});
