import { describe, expect, it } from "vitest";
import { Info } from "../core/results.ts";
import { SimulationRun } from "../core/simulation.ts";
import { Task } from "../core/task.ts";
import { hallucinatedIds } from "../metrics/hallucinated-ids.ts";
import { outcomeSymbol, renderSummary, renderTrajectory } from "./summary.ts";

const info = Info.parse({
  git_commit: "abc",
  num_trials: 3,
  max_steps: 200,
  max_errors: 10,
  seed: 300,
  user_info: { implementation: "user_simulator", llm: "openai/gpt-4.1" },
  agent_info: { implementation: "llm_agent", llm: "openai/gpt-4.1" },
  environment_info: { domain_name: "retail", policy: "be nice" },
  taubench: { format_version: 1, version: "0.1.0", judge_llm: null },
});
const tasks = ["t1", "t2"].map((id) => Task.parse({ id, user_scenario: { instructions: id } }));

function sim(taskId: string, trial: number, reward: number | null, extra: Record<string, unknown> = {}) {
  return SimulationRun.parse({
    id: `${taskId}-${trial}`,
    task_id: taskId,
    start_time: "s",
    end_time: "e",
    duration: 12.5,
    termination_reason: reward === null ? "infrastructure_error" : "user_stop",
    reward_info:
      reward === null
        ? null
        : { reward, info: extra.notEvaluated ? { not_evaluated: ["NL_ASSERTION"] } : null },
    agent_cost: reward === null ? null : 0.02,
    trial,
    seed: 1,
    info: reward === null ? { error: "HTTP 500 from provider\nstack…", error_type: "LlmError" } : null,
    messages: [
      { role: "assistant", content: "Hi! How can I help you today?", turn_idx: 0, cost: 0 },
      { role: "user", content: "cancel my order", turn_idx: 1 },
      {
        role: "assistant",
        content: null,
        turn_idx: 2,
        tool_calls: [{ id: "c", name: "cancel_order", arguments: { order_id: "#1" } }],
      },
      { role: "tool", id: "c", content: "x".repeat(50), turn_idx: 3, error: true },
    ],
  });
}

describe("renderSummary", () => {
  const simulations = [
    sim("t1", 0, 1),
    sim("t1", 1, 1),
    sim("t1", 2, 0),
    sim("t2", 0, 1, { notEvaluated: true }),
    sim("t2", 1, null),
    sim("t2", 2, 1),
  ];
  const text = renderSummary({ info, tasks, simulations });

  it("shows pass^k for each k, the interval, costs and terminations", () => {
    expect(text).toContain(
      "Domain retail — agent llm_agent (openai/gpt-4.1), user user_simulator (openai/gpt-4.1)",
    );
    expect(text).toContain(
      "Simulations 6 (5 evaluated, 1 infrastructure errors) · tasks 2 · trials 3 · seed 300",
    );
    // t1: 2/3, t2: 2/2 evaluated; K lowered to 2 (t2 has 2 evaluated trials)
    expect(text).toMatch(/pass\^k\s+k=1\s+k=2\n\s+0\.833\s+0\.667/);
    expect(text).toMatch(/\n95% low\s+0\.\d{3}\s+0\.\d{3}\n95% high\s+1\.000\s+1\.000\n/);
    expect(text).toContain("intervals: 95% percentile bootstrap over 2 tasks (2000 resamples, seed 31243)");
    expect(text).toContain("note: k stops at 2");
    expect(text).toContain("Cost per simulation  agent $0.0200 · user n/a");
    expect(text).toContain("Termination  user_stop 5");
  });

  it("is the same text whatever order the simulations were read in", () => {
    const mixed = [
      ...simulations,
      { ...sim("t1", 3, 0), termination_reason: "max_steps" as const },
      sim("x10", 0, 1),
      sim("x9", 0, 0),
    ];
    const forward = renderSummary({ info, tasks, simulations: mixed });
    expect(renderSummary({ info, tasks, simulations: [...mixed].reverse() })).toBe(forward);
    expect(forward).toContain("Termination  user_stop 7 · max_steps 1");
    // Tasks missing from the task list come after it, in task-id order.
    expect(forward).toMatch(/ {2}t2 .*\n {2}x9 .*\n {2}x10 /);
  });

  it("says NL assertions were not judged, and why", () => {
    expect(text).toContain("NL assertions NOT evaluated in 1 simulation(s) (--judge none)");
  });

  it("lists infrastructure errors apart, first line of the error only", () => {
    expect(text).toContain(
      "Infrastructure errors (not scored, re-run on resume): 1\n  t2 trial 1: HTTP 500 from provider\n",
    );
  });

  it("groups the agent's and user's exceptions by message, most frequent first, each with its first simulation", () => {
    const failed = (taskId: string, trial: number, reason: "agent_error" | "user_error", error: string) =>
      SimulationRun.parse({
        ...sim(taskId, trial, 0),
        termination_reason: reason,
        info: { error: `${error}\n    at stack`, error_type: "TypeError" },
      });
    const summary = renderSummary({
      info,
      tasks,
      simulations: [
        sim("t1", 0, 1),
        failed("t2", 1, "agent_error", "agent.initState is not a function"),
        failed("t1", 2, "agent_error", "agent.initState is not a function"),
        failed("t2", 0, "user_error", "user model said no"),
      ],
    });
    expect(summary).toContain(
      [
        "Agent and user errors (scored 0): 3",
        "  2× agent.initState is not a function (agent; first: t1 trial 2)",
        "  1× user model said no (user; first: t2 trial 0)",
      ].join("\n"),
    );
    expect(text).not.toContain("Agent and user errors");
  });

  it("draws the per-task grid across trials", () => {
    expect(text).toContain("  task  0 1 2\n  t1    ✓ ✓ ✗\n  t2    ✓ ! ✓");
  });

  it("counts outcomes per task instead of one cell per trial when the trials would not fit a line", () => {
    const many = Info.parse({ ...info, num_trials: 40 });
    const runs = Array.from({ length: 40 }, (_, trial) => sim("t1", trial, trial < 30 ? 1 : 0));
    runs.push(sim("t2", 0, null), sim("t2", 1, 1));
    const summary = renderSummary({ info: many, tasks, simulations: runs });
    expect(summary).toContain("Per-task outcomes, counts over 40 trials (");
    expect(summary).toContain("  task   ✓   ✗   !   ·\n  t1    30  10   0   0\n  t2     1   0   1  38");
    expect(summary).not.toContain("0 1 2 3 4 5 6 7 8 9 0");
  });

  it("says which texts the models saw", () => {
    // The stamp predates `prompts`: such runs used taubench's own wording.
    expect(text).toContain(
      "\nPrompts not upstream's exact texts (taubench's own wording, or a participant's own prompts)\n",
    );
    const exact = {
      ...info,
      taubench: { ...info.taubench!, prompts: "upstream", prompts_sha256: "ab".repeat(32) },
    };
    expect(renderSummary({ info: exact, tasks, simulations })).toContain(
      "\nPrompts upstream's exact texts (sha256 abababababab…)\n",
    );
    const { taubench: _stamp, ...upstreamFile } = info;
    expect(renderSummary({ info: upstreamFile, tasks, simulations })).toContain(
      "\nPrompts upstream's (written by tau2)\n",
    );
  });
});

describe("renderTrajectory", () => {
  it("prints the header, the grading and the conversation with clipped tool output", () => {
    const text = renderTrajectory(sim("t1", 2, 0), { maxToolChars: 10 });
    expect(text.split("\n")[0]).toBe("Task t1 · trial 2 · seed 1 · ✗ reward 0.000 · user_stop");
    expect(text).toContain('    → cancel_order({"order_id":"#1"})');
    expect(text).toContain("[3] tool ERROR → assistant\n    xxxxxxxxxx… (50 chars)");
  });
  it("shows the error of an infrastructure failure", () => {
    expect(renderTrajectory(sim("t2", 1, null))).toContain("Error (LlmError): HTTP 500 from provider");
  });
});

describe("outcomeSymbol", () => {
  it("marks success, failure, infrastructure errors and missing runs", () => {
    expect([sim("a", 0, 1), sim("a", 0, 0.5), sim("a", 0, null), undefined].map(outcomeSymbol)).toEqual([
      "✓",
      "✗",
      "!",
      "·",
    ]);
  });
});

describe("renderSummary: the papers' counters", () => {
  it("prints hallucinated ids per task when the caller counted them from full simulations", () => {
    const missing = (taskId: string, trial: number) => {
      const base = sim(taskId, trial, 0);
      return SimulationRun.parse({
        ...base,
        messages: [
          ...base.messages.slice(0, 3),
          { role: "tool", id: "c", content: "Error: Order not found", requestor: "assistant", error: true },
        ],
      });
    };
    const simulations = [missing("t1", 0), missing("t1", 1), sim("t2", 0, 1), sim("t2", 1, 1)];
    const text = renderSummary({
      info,
      tasks,
      simulations,
      hallucinatedIds: hallucinatedIds("retail", simulations),
    });
    expect(text).toContain(
      "Hallucinated ids  0.50 per task (2 tool call(s) naming an id that does not exist, in 2 of 4 simulations)",
    );
    expect(renderSummary({ info, tasks, simulations })).not.toContain("Hallucinated ids");
  });

  it("breaks a telecom run down by intent, persona and number of sub-issues; other domains get none", () => {
    const ids = [
      "[mobile_data_issue]airplane_mode_on|data_mode_off[PERSONA:Easy]",
      "[mobile_data_issue]airplane_mode_on[PERSONA:Hard]",
      "[service_issue]lock_sim_card_pin[PERSONA:None]",
    ];
    const telecomInfo = {
      ...info,
      num_trials: 1,
      environment_info: { ...info.environment_info, domain_name: "telecom" },
    };
    const simulations = ids.map((id, index) => sim(id, 0, index === 1 ? 0 : 1));
    const text = renderSummary({
      info: telecomInfo,
      tasks: ids.map((id) => Task.parse({ id, user_scenario: { instructions: id } })),
      simulations,
    });
    expect(text).toContain("Telecom breakdowns");
    expect(text).toContain("  intent     mobile_data_issue 0.500 (2) · service_issue 1.000 (1)");
    expect(text).toContain("  persona    Easy 1.000 (1) · Hard 0.000 (1) · None 1.000 (1)");
    expect(text).toContain("  sub-issues 1 0.500 (2) · 2 1.000 (1)");
    expect(renderSummary({ info, tasks, simulations: [sim("t1", 0, 1)] })).not.toContain(
      "Telecom breakdowns",
    );
  });
});
