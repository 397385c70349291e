import { describe, expect, it } from "vitest";
import { assistantMessage, type Message, userMessage } from "../core/messages.ts";
import type { SimulationRun } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import { loadDomain } from "../domains/registry.ts";
import type { Domain } from "../domains/types.ts";
import { evaluateSimulation } from "./evaluator.ts";
import { goldTrajectory } from "./gold.ts";
import type { NlAssertionJudge } from "./nl-assertions.ts";

const dataDir = process.env.TAU_DATA_DIR;

function simulation(task: Task, messages: Message[]): SimulationRun {
  return {
    id: `sim-${task.id}`,
    task_id: task.id,
    start_time: "2025-01-01T00:00:00.000000",
    end_time: "2025-01-01T00:00:01.000000",
    duration: 1,
    termination_reason: "user_stop",
    agent_cost: null,
    user_cost: null,
    reward_info: null,
    messages,
    trial: 0,
    seed: null,
    mode: "half_duplex",
    info: null,
  };
}

/**
 * The gold trajectory (expected actions as tool calls, synced after each, as the orchestrator
 * plays them) inside a conversation: the greeting and a request before it when the task has no
 * history, and a closing agent message carrying the communicate_info.
 */
function goldConversation(domain: Domain, task: Task): Message[] {
  const opening =
    (task.initial_state?.message_history ?? []).length > 0
      ? []
      : [
          assistantMessage({ content: "Hi! How can I help you today?", cost: 0 }),
          userMessage({ content: "Help me" }),
        ];
  const said = (task.evaluation_criteria?.communicate_info ?? []).join(". ");
  return [
    ...opening,
    ...goldTrajectory(domain, task),
    assistantMessage({ content: `Done. ${said}` }),
    userMessage({ content: "###STOP###" }),
  ];
}

function baseTasks(domain: Domain): Task[] {
  const base = new Set(domain.splits()?.base ?? []);
  return domain.tasks().filter((task) => base.has(task.id));
}

const agreeingJudge = (calls: string[][]): NlAssertionJudge => ({
  async evaluate(_messages, assertions) {
    calls.push([...assertions]);
    return assertions.map((a) => ({ nl_assertion: a, met: true, justification: "met" }));
  },
});

describe.skipIf(!dataDir)("grading gold play in the official domains (skipped: TAU_DATA_DIR not set)", () => {
  it("telecom: every base task scores 1 when the fixes are played; doing nothing scores 0 (every other task)", async () => {
    const domain = loadDomain("telecom", dataDir!);
    const tasks = baseTasks(domain);
    expect(tasks).toHaveLength(114);
    const gold: string[] = [];
    const idle: string[] = [];
    for (const [index, task] of tasks.entries()) {
      const played = await evaluateSimulation({
        simulation: simulation(task, goldConversation(domain, task)),
        task,
        domain,
        soloMode: false,
        judge: null,
      });
      if (played.reward !== 1) gold.push(task.id);
      if (index % 2 === 1) continue;
      const nothing = await evaluateSimulation({
        simulation: simulation(task, [
          assistantMessage({ content: "Hi!" }),
          userMessage({ content: "###STOP###" }),
        ]),
        task,
        domain,
        soloMode: false,
        judge: null,
      });
      if (nothing.reward !== 0) idle.push(task.id);
    }
    expect(gold).toEqual([]);
    expect(idle).toEqual([]);
  });

  it("airline and retail: gold play scores 1 (every sixth base task), the judge is asked only for NL-graded tasks", async () => {
    for (const name of ["airline", "retail"]) {
      const domain = loadDomain(name, dataDir!);
      const tasks = baseTasks(domain).filter((_, index) => index % 6 === 0);
      const calls: string[][] = [];
      let expectedCalls = 0;
      for (const task of tasks) {
        const criteria = task.evaluation_criteria;
        if (criteria?.reward_basis.includes("NL_ASSERTION") && (criteria.nl_assertions?.length ?? 0) > 0) {
          expectedCalls += 1;
        }
        const info = await evaluateSimulation({
          simulation: simulation(task, goldConversation(domain, task)),
          task,
          domain,
          soloMode: false,
          judge: agreeingJudge(calls),
        });
        expect(info.reward, `${name} ${task.id}`).toBe(1);
        expect(info.db_check?.db_match, `${name} ${task.id}`).toBe(true);
      }
      expect(calls.length, name).toBe(expectedCalls);
      if (name === "retail") expect(expectedCalls).toBeGreaterThan(2);
    }
  });
});
