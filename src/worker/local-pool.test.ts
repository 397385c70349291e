import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runTau, runTauSync } from "../cli/e2e-harness.ts";
import type { SimulationRun } from "../core/simulation.ts";
import { runEvaluation } from "../runner/evaluate.ts";
import { type FakeRequest, startFakeProvider } from "../testing/fake-provider.ts";
import { offlineEvaluation } from "../testing/run-config.ts";
import { UnitHost, WorkerRefusedError } from "./host.ts";
import { localWorkers } from "./local-pool.ts";
import { encodeConfig } from "./protocol.ts";
import { planEvaluation } from "../runner/evaluate.ts";

const dataDir = process.env.TAU_DATA_DIR;

/** What must not depend on where a simulation ran: everything but ids and clocks. */
function comparable(simulations: readonly SimulationRun[]) {
  return simulations
    .map((simulation) => ({
      key: `${simulation.trial}/${simulation.task_id}/${simulation.seed}`,
      termination: simulation.termination_reason,
      reward: simulation.reward_info?.reward ?? null,
      db: simulation.reward_info?.db_check ?? null,
    }))
    .sort((a, b) => a.key.localeCompare(b.key));
}

/** Fields set from the clock or a random id: they differ between any two runs. */
const VOLATILE = new Set(["id", "timestamp", "start_time", "end_time", "duration", "created_at"]);

/** A results file's text with every volatile field's value blanked, and its simulations in key order. */
function resultsWithoutClocks(path: string): string {
  const blank = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(blank);
    if (value === null || typeof value !== "object") return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, VOLATILE.has(key) ? "-" : blank(item)]),
    );
  };
  const results = JSON.parse(readFileSync(path, "utf8")) as { simulations: SimulationRun[] };
  results.simulations.sort((a, b) =>
    `${a.trial}/${a.task_id}/${a.seed}`.localeCompare(`${b.trial}/${b.task_id}/${b.seed}`),
  );
  return JSON.stringify(blank(results), null, 1);
}

describe.skipIf(!dataDir)("tau run --workers (skipped: TAU_DATA_DIR not set)", () => {
  it("worker processes give the results one process gives, the coordinator writing them", async () => {
    const options = { dataDir: dataDir!, numTrials: 3, maxConcurrency: 6 };
    const single = await runEvaluation(offlineEvaluation(options));
    expect(single.ranNow).toBeGreaterThan(6);
    // Every simulation through a worker (the coordinator kept out), then the default: it runs some too.
    for (const coordinatorRuns of [false, true]) {
      const notes: string[] = [];
      const pooled = await runEvaluation(
        offlineEvaluation({
          ...options,
          executor: localWorkers(2, {}, { coordinatorRuns }),
          onEvent: (event) => {
            if (event.type === "note") notes.push(event.message);
          },
        }),
      );
      expect(pooled.ranNow).toBe(single.ranNow);
      expect(comparable(pooled.simulations)).toEqual(comparable(single.simulations));
      expect(pooled.metrics.avgReward).toBe(single.metrics.avgReward);
      // The results file, every field but ids and clocks, is the one-process run's.
      expect(resultsWithoutClocks(pooled.resultsPath)).toBe(resultsWithoutClocks(single.resultsPath));
      expect(notes.filter((note) => note.includes("exited") || note.includes("could not"))).toEqual([]);
      const split = notes
        .map((note) =>
          /^local workers: (\d+) simulation\(s\) ran in this process, ([\d +]+) in the worker/.exec(note),
        )
        .find((match) => match !== null);
      expect(split, "the pool's note of where simulations ran").toBeDefined();
      const [here, ...workers] = [Number(split![1]), ...split![2]!.split(" + ").map(Number)];
      expect(here + workers.reduce((a, b) => a + b, 0)).toBe(single.ranNow);
      if (!coordinatorRuns) {
        expect(here).toBe(0);
        expect(workers.every((count) => count > 0)).toBe(true);
      }
    }
  });

  it("a worker of another taubench version or other data is refused with one line", async () => {
    const plan = await planEvaluation(offlineEvaluation({ dataDir: dataDir! }));
    const descriptor = {
      runId: "r1",
      config: encodeConfig(plan.config),
      llm: {},
      version: "0.0.0-other",
      digest: null,
    };
    const onLlmEvent = () => {};
    await expect(UnitHost.open(descriptor, { onLlmEvent })).rejects.toThrow(
      /^worker refused run r1: taubench \S+ here, 0\.0\.0-other on the coordinator/,
    );
    const version = (await import("../core/results-file.ts")).packageVersion();
    const otherData = { ...descriptor, version, digest: "0".repeat(64) };
    const refusal = await UnitHost.open(otherData, { onLlmEvent }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(WorkerRefusedError);
    expect((refusal as Error).message).toMatch(/data in .* differs from the coordinator's/);
    expect((refusal as Error).message).not.toContain("\n");
  });
});

describe.skipIf(!dataDir)("tau run --workers from the command line (skipped: TAU_DATA_DIR not set)", () => {
  it("runs every unit with --workers 2 (this process and a worker) and exports the results", () => {
    const folder = mkdtempSync(join(tmpdir(), "tau-workers-cli-"));
    const base = ["run", "--domain", "mock", "--agent", "replay", "--user", "scripted", "--judge", "none"];
    const result = runTauSync(
      [...base, "--num-trials", "2", "--workers", "2", "--save-to", join(folder, "r.json")],
      {
        env: { TAU_DATA_DIR: dataDir },
      },
    );
    expect(result.stderr).not.toContain("Error");
    expect(result.status).toBe(0);
    const results = JSON.parse(readFileSync(join(folder, "r.json"), "utf8"));
    expect(results.simulations.length).toBeGreaterThan(4);
    expect(new Set(results.simulations.map((s: SimulationRun) => `${s.trial}/${s.task_id}`)).size).toBe(
      results.simulations.length,
    );
    const both = runTauSync([...base, "--workers", "2", "--queue", "redis://127.0.0.1:1/0"], {
      env: { TAU_DATA_DIR: dataDir },
    });
    expect(both.status).toBe(2);
    expect(both.stderr.trim()).toBe(
      "tau: --workers and --queue exclude each other (queue workers are started with tau worker)",
    );
  }, 120_000);

  it("an --agent-url agent runs with --workers 2: the coordinator and the worker each call the URL", async () => {
    const agentCalls = new Map<string, number>();
    // Three calls per conversation: the user opens, the agent answers, the user stops.
    // Slow enough that the worker (started from the sources, through tsx) is ready before the end.
    const fake = await startFakeProvider({
      record: false,
      latencyMs: 300,
      handler: (request: FakeRequest) => {
        const messages = request.body.messages ?? [];
        const system = String(messages[0]?.content ?? "");
        if (!system.includes("###STOP###")) {
          const key = `${request.model} ${request.headers.authorization}`;
          agentCalls.set(key, (agentCalls.get(key) ?? 0) + 1);
          return { text: "Noted, thank you." };
        }
        return { text: messages.length <= 2 ? "Hello, I need help." : "That is all. ###STOP###" };
      },
    });
    try {
      const folder = mkdtempSync(join(tmpdir(), "tau-workers-url-"));
      const tasks = ["create_task_1", "update_task_1", "impossible_task_1"];
      const result = await runTau(
        [
          "run",
          "--domain",
          "mock",
          "--task-ids",
          ...tasks,
          "--num-trials",
          "20",
          "--agent-url",
          fake.openaiBaseUrl,
          "--user-llm",
          "local/fake",
          "--llm-base-url",
          fake.openaiBaseUrl,
          "--judge",
          "none",
          "--no-preflight",
          "--max-concurrency",
          "12",
          "--workers",
          "2",
          "--save-to",
          join(folder, "r.json"),
        ],
        { cwd: folder, env: { TAU_DATA_DIR: dataDir!, TAU_AGENT_API_KEY: "agent-key" } },
      );
      expect(result.status, result.stderr).toBe(0);
      const results = JSON.parse(readFileSync(join(folder, "r.json"), "utf8"));
      expect(results.info.agent_info.implementation).toBe("chat_completions_agent");
      expect(results.simulations).toHaveLength(60);
      expect(results.simulations.every((s: SimulationRun) => s.termination_reason === "user_stop")).toBe(
        true,
      );
      // Every agent turn reached the URL with the key, from both processes (the split is in the note).
      expect([...agentCalls.keys()]).toEqual(["taubench-agent Bearer agent-key"]);
      expect(agentCalls.get("taubench-agent Bearer agent-key")).toBe(60);
      const split = /local workers: (\d+) .*, (\d+) in/.exec(result.stderr);
      expect(Number(split![1]) + Number(split![2])).toBe(60);
      expect(Number(split![2])).toBeGreaterThan(0);
    } finally {
      await fake.close();
    }
  }, 120_000);
});
