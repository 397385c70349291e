import { describe, expect, it } from "vitest";
import type { SimulationReviewRecord } from "../core/review-records.ts";
import { Review, ReviewError } from "../core/reviews.ts";
import type { SimulationRun } from "../core/simulation.ts";
import { faultAudit, firstCriticalSource, renderFaultAudit } from "./fault-audit.ts";
import { computeMetrics } from "./index.ts";

const sim = (id: string, reward: number) =>
  ({
    id,
    task_id: id,
    trial: 0,
    termination_reason: "user_stop",
    reward_info: { reward },
    messages: [],
  }) as unknown as SimulationRun;

const error = (source: "agent" | "user", severity: string, turn: number, tags: string[]) =>
  ReviewError.parse({ source, severity, turn_idx: turn, error_tags: tags, reasoning: "r" });

function reviewed(id: string, errors: ReviewError[], cost = 0.01): SimulationReviewRecord {
  return {
    kind: "simulation",
    status: "reviewed",
    version: 1,
    simulation_id: id,
    task_id: id,
    trial: 0,
    reward: null,
    cost_usd: cost,
    finished_at: "t",
    review: Review.parse({ has_errors: errors.length > 0, errors }),
    auth_classification: { status: "succeeded", reasoning: "", cost: null },
  };
}

describe("faultAudit", () => {
  it("counts user and agent errors, sets apart only failures whose first critical error is the user's", () => {
    const simulations = [sim("a", 0), sim("b", 0), sim("c", 1), sim("d", 1), sim("e", 0)];
    const records = new Map<string, SimulationReviewRecord>([
      ["a", reviewed("a", [error("user", "critical_hindered", 1, ["hallucination"])])],
      [
        "b",
        reviewed("b", [
          error("user", "critical_helped", 5, ["revealed_info_early"]),
          error("agent", "critical", 2, ["guideline_violation", "wrong_sequence"]),
        ]),
      ],
      ["c", reviewed("c", [error("user", "minor", 1, ["hallucination"])])],
      [
        "d",
        {
          kind: "simulation",
          status: "failed",
          version: 1,
          simulation_id: "d",
          task_id: "d",
          trial: 0,
          reward: 1,
          cost_usd: 0.02,
          finished_at: "t",
          failure: { error: "the reply is empty", attempts: 3, last_reply: null },
        },
      ],
    ]);
    const audit = faultAudit("full", simulations, records, { numTrials: 1 });
    expect(audit).toMatchObject({
      reviewed: 3,
      reviewFailures: 1,
      userErrorSimulations: 3,
      userCriticalSimulations: 2,
      agentErrorSimulations: 1,
      agentCriticalSimulations: 1,
      userCausedFailures: 1,
      auth: { succeeded: 3, failed: 0, notNeeded: 0 },
    });
    expect(audit.costUsd).toBeCloseTo(0.05);
    expect(audit.userTags).toEqual([
      { tag: "hallucination", count: 2, critical: 1 },
      { tag: "revealed_info_early", count: 1, critical: 1 },
    ]);
    // Standard pass^1 2/5; with a set apart: 2/4.
    const standard = computeMetrics(simulations, { numTrials: 1 });
    expect(standard.passHatK[0]).toBeCloseTo(0.4);
    expect(audit.withoutUserCausedFailures?.passHatK[0]).toBeCloseTo(0.5);
    const lines = renderFaultAudit(audit, standard);
    expect(lines[0]).toBe(
      "Fault audit (LLM review of 3 simulation(s); 1 review failure(s), not counted; review cost $0.0500)",
    );
    expect(lines).toContain(
      "  Agent error tags       guideline_violation 1 (1 critical) · wrong_sequence 1 (1 critical)",
    );
    expect(lines.at(-2)).toBe("  standard                0.400");
    expect(lines.at(-1)).toBe("  user faults set apart   0.500");
  });

  it("finds the first critical error by turn, ignoring minor ones", () => {
    const review = Review.parse({
      has_errors: true,
      errors: [
        error("agent", "minor", 0, []),
        error("agent", "critical", 4, []),
        error("user", "critical_hindered", 3, []),
      ],
    });
    expect(firstCriticalSource(review)).toBe("user");
    expect(firstCriticalSource(Review.parse({ has_errors: false }))).toBeNull();
  });
});
