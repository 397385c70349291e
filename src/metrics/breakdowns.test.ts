import { describe, expect, it } from "vitest";
import { SimulationRun } from "../core/simulation.ts";
import { componentOutcomes, metricsByGroup, telecomTaskFacets } from "./breakdowns.ts";

let counter = 0;
function sim(taskId: string, reward: number | null, breakdown?: Record<string, number>): SimulationRun {
  counter++;
  return SimulationRun.parse({
    id: `sim-${counter}`,
    task_id: taskId,
    start_time: "2025-06-01T10:00:00",
    end_time: "2025-06-01T10:00:01",
    duration: 1,
    termination_reason: reward === null ? "infrastructure_error" : "user_stop",
    reward_info: reward === null ? null : { reward, reward_breakdown: breakdown ?? null },
  });
}

describe("telecom task facets", () => {
  it("reads intent, sub-issues and persona from upstream's composite ids", () => {
    expect(
      telecomTaskFacets("[mobile_data_issue]bad_network_preference|data_mode_off[PERSONA:Hard]"),
    ).toEqual({
      intent: "mobile_data_issue",
      subIssues: ["bad_network_preference", "data_mode_off"],
      persona: "Hard",
    });
    expect(telecomTaskFacets("[service_issue]airplane_mode_on[PERSONA:None]")).toEqual({
      intent: "service_issue",
      subIssues: ["airplane_mode_on"],
      persona: "None",
    });
  });

  it("is null for ids of other domains", () => {
    expect(telecomTaskFacets("12")).toBeNull();
    expect(telecomTaskFacets("[mms_issue]no_persona")).toBeNull();
  });
});

describe("metrics by group", () => {
  it("scores each group as a run of its own and leaves out ungrouped tasks", () => {
    const simulations = [
      sim("a1", 1),
      sim("a1", 0),
      sim("a2", 1),
      sim("a2", 1),
      sim("b1", 0),
      sim("b1", null),
    ];
    const groups = metricsByGroup(simulations, (id) => (id === "x" ? null : id.slice(0, 1)), {
      numTrials: 2,
    });
    expect(groups.map((g) => g.group)).toEqual(["a", "b"]);
    expect(groups[0]!.metrics.passHatK).toEqual([0.75, 0.5]);
    expect(groups[1]!.metrics.passHatK).toEqual([0]);
    expect(groups[1]!.metrics.infraErrorCount).toBe(1);
    expect(metricsByGroup(simulations, () => null)).toEqual([]);
  });
});

describe("component outcomes", () => {
  it("counts passes per component and the sole failing component", () => {
    const outcomes = componentOutcomes([
      sim("a", 1, { DB: 1, COMMUNICATE: 1 }),
      sim("a", 0, { DB: 0, COMMUNICATE: 1 }),
      sim("b", 0, { DB: 0, COMMUNICATE: 0 }),
      sim("b", null),
      sim("c", 0),
    ]);
    expect(outcomes).toEqual([
      { component: "DB", graded: 3, passed: 1, mean: 1 / 3, soleCause: 1 },
      { component: "COMMUNICATE", graded: 3, passed: 2, mean: 2 / 3, soleCause: 0 },
    ]);
  });
});
