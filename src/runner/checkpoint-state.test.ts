import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pyDumps } from "../core/py-json.ts";
import { readResultsFile } from "../core/results-file.ts";
import type { SimulationRun } from "../core/simulation.ts";
import { computeMetrics } from "../metrics/index.ts";
import { slimSimulation } from "./checkpoint-state.ts";
import { renderSummary } from "../cli/summary.ts";

const upstream = join(import.meta.dirname, "..", "core", "fixtures", "results-upstream.json");

/** A fixture simulation made heavy in every part the slim copy should drop. */
function heavy(simulation: SimulationRun): SimulationRun {
  const long = "x".repeat(10_000);
  return {
    ...simulation,
    messages: Array.from({ length: 200 }, () => simulation.messages[0]!).filter(Boolean),
    policy: long,
    info: { ...simulation.info, error: `first line\n${long}`, error_traceback: long, extra: long },
    voice_recording: long,
    reward_info: simulation.reward_info && {
      ...simulation.reward_info,
      nl_assertions: [{ nl_assertion: long, met: true, justification: long }],
      communicate_checks: [{ info: long, met: false, justification: long }],
      info: { ...simulation.reward_info.info, env: long, not_evaluated: ["NL_ASSERTION"] },
    },
  };
}

describe("slimSimulation", () => {
  const results = readResultsFile(upstream);
  const full = results.simulations.map(heavy);
  const slim = full.map(slimSimulation);

  it("keeps what the summary and the metrics read: both come out the same as from full simulations", () => {
    const input = { info: results.info, tasks: results.tasks };
    expect(renderSummary({ ...input, simulations: slim })).toBe(
      renderSummary({ ...input, simulations: full }),
    );
    expect(computeMetrics(slim)).toEqual(computeMetrics(full));
    expect(slim.map((s) => [s.id, s.task_id, s.trial, s.seed, s.duration, s.agent_cost])).toEqual(
      full.map((s) => [s.id, s.task_id, s.trial, s.seed, s.duration, s.agent_cost]),
    );
  });

  it("is small whatever the transcript, policy, error traceback or judge texts weigh", () => {
    for (const [index, simulation] of slim.entries()) {
      expect(pyDumps(full[index]).length).toBeGreaterThan(20_000);
      expect(pyDumps(simulation).length).toBeLessThan(2_000);
      expect(simulation.messages).toHaveLength(0);
      expect("policy" in simulation || "voice_recording" in simulation).toBe(false);
    }
    const infra = slim.find((s) => s.termination_reason === "infrastructure_error")!;
    // Texts clipped to their first line (at most 200 characters), the traceback dropped, numbers kept.
    expect(infra.info).toEqual({
      error: "first line",
      error_type: "APIError",
      failed_after_attempts: 4,
      extra: "x".repeat(200),
    });
  });
});
