import { describe, expect, it } from "vitest";
import type { SimulationRun } from "../core/simulation.ts";
import { runEvaluation } from "../runner/evaluate.ts";
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

describe.skipIf(!dataDir)("tau run --workers (skipped: TAU_DATA_DIR not set)", () => {
  it("two local worker processes give the results one process gives, the coordinator writing them", async () => {
    const options = { dataDir: dataDir!, numTrials: 3, maxConcurrency: 6 };
    const single = await runEvaluation(offlineEvaluation(options));
    const notes: string[] = [];
    const pooled = await runEvaluation(
      offlineEvaluation({
        ...options,
        executor: localWorkers(2, {}),
        onEvent: (event) => {
          if (event.type === "note") notes.push(event.message);
        },
      }),
    );
    expect(pooled.ranNow).toBe(single.ranNow);
    expect(single.ranNow).toBeGreaterThan(6);
    expect(comparable(pooled.simulations)).toEqual(comparable(single.simulations));
    expect(pooled.metrics.avgReward).toBe(single.metrics.avgReward);
    expect(notes.filter((note) => note.includes("exited"))).toEqual([]);
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
