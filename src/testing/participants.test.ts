/**
 * The offline participants working together on real domains, driven by a
 * minimal hand-written turn loop (independent of the orchestrator): the
 * replay agent with the scripted user must leave the world exactly as the
 * gold replay does, and `replay_solo` must do the same alone.
 */
import { join } from "node:path";
import { episodeFields } from "./contexts.ts";
import { describe, expect, it } from "vitest";
import { getAgentDefinition } from "../agents/registry.ts";
import type { Agent } from "../agents/types.ts";
import {
  assistantMessage,
  isToolCall,
  type Message,
  type MultiToolMessage,
  type ToolMessage,
} from "../core/messages.ts";
import type { Task } from "../core/task.ts";
import { domainNames, loadDomain } from "../domains/registry.ts";
import type { Domain } from "../domains/types.ts";
import type { Environment } from "../env/environment.ts";
import { applyInitialState, replayGold } from "../evaluation/gold.ts";
import { getUserDefinition } from "../users/registry.ts";
import { isUserStop, type User } from "../users/types.ts";

const dataDir = process.env.TAU_DATA_DIR;

interface Conversation {
  env: Environment;
  trajectory: Message[];
  reason: "agent_stop" | "user_stop";
}

function delivery(results: ToolMessage[]): ToolMessage | MultiToolMessage {
  return results.length === 1 ? results[0]! : { role: "multi_tool", tool_messages: results };
}

/** Routes messages between agent, user and environment until someone stops (spec §2.2, simplified). */
async function converse(
  domain: Domain,
  task: Task,
  agentName: string,
  userName: string,
): Promise<Conversation> {
  const agentDefinition = getAgentDefinition(agentName);
  const solo = agentDefinition.soloMode;
  const env = domain.makeEnvironment({ soloMode: solo });
  applyInitialState(env, task);
  const userTools = env.getUserToolSchemas();
  const agent: Agent = agentDefinition.create({
    domainName: domain.name,
    task,
    tools: solo ? [...env.getToolSchemas(), ...userTools] : env.getToolSchemas(),
    policy: env.policy,
    soloMode: solo,
    llm: null,
    llmArgs: {},
    ...episodeFields(),
  });
  const user: User = getUserDefinition(solo ? "dummy_user" : userName).create({
    domainName: domain.name,
    task,
    tools: userTools.length > 0 ? userTools : null,
    guidelinesDir: join(dataDir ?? "", "user_simulator"),
    llm: null,
    llmArgs: {},
    ...episodeFields(),
  });
  const history = task.initial_state?.message_history ?? [];
  const trajectory: Message[] = [...history];
  let agentState: unknown;
  let userState: unknown;
  let pending: { to: "agent" | "user"; input: unknown };
  if (solo) {
    agentState = agent.initState([]);
    userState = user.initState([]);
    pending = { to: "agent", input: null };
  } else if (history.length === 0) {
    const greeting = assistantMessage({ content: "Hi! How can I help you today?", cost: 0 });
    trajectory.push(greeting);
    agentState = agent.initState([greeting]);
    userState = user.initState([]);
    pending = { to: "user", input: greeting };
  } else {
    const last = history.at(-1)!;
    expect(last.role === "assistant" && !isToolCall(last)).toBe(true);
    agentState = agent.initState(history);
    const userView = history.filter(
      (m) =>
        m.role === "user" ||
        (m.role === "assistant" && !isToolCall(m)) ||
        (m.role === "tool" && m.requestor === "user"),
    );
    userState = user.initState(userView.slice(0, -1));
    pending = { to: "user", input: last };
  }
  for (let step = 0; step < 100; step++) {
    if (pending.to === "agent") {
      const { message, state } = await agent.generate(pending.input as never, agentState);
      agentState = state;
      trajectory.push(message);
      if (agent.isStop(message)) return { env, trajectory, reason: "agent_stop" };
      if (isToolCall(message)) {
        const results = message.tool_calls!.map((call) => env.getResponse(call));
        trajectory.push(...results);
        pending = { to: "agent", input: delivery(results) };
      } else {
        expect(solo, "a solo agent must not talk").toBe(false);
        pending = { to: "user", input: message };
      }
    } else {
      const { message, state } = await user.generate(pending.input as never, userState);
      userState = state;
      trajectory.push(message);
      if (isUserStop(message)) return { env, trajectory, reason: "user_stop" };
      if (isToolCall(message)) {
        const results = message.tool_calls!.map((call) => env.getResponse(call));
        trajectory.push(...results);
        pending = { to: "user", input: delivery(results) };
      } else {
        pending = { to: "agent", input: message };
      }
    }
    env.syncTools();
  }
  throw new Error(`task ${task.id}: no stop within 100 steps`);
}

describe.skipIf(!dataDir)("replay agent + scripted user on mock (skipped: TAU_DATA_DIR not set)", () => {
  const domain = () => loadDomain("mock", dataDir!);

  it("ends every mock task with the user's stop and the gold DB state", async () => {
    for (const task of domain().tasks()) {
      const { env, trajectory, reason } = await converse(domain(), task, "replay", "scripted");
      expect(reason, task.id).toBe("user_stop");
      const gold = replayGold(domain(), task).env;
      expect(env.getDbHash(), task.id).toBe(gold.getDbHash());
      expect(env.getUserDbHash(), task.id).toBe(gold.getUserDbHash());
      const said = trajectory.filter((m) => m.role === "assistant").map((m) => m.content);
      for (const info of task.evaluation_criteria?.communicate_info ?? [])
        expect(said, task.id).toContain(info);
      const fresh = trajectory.slice(task.initial_state?.message_history?.length ?? 0);
      const calls = fresh.flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []) : []));
      const expected = (task.evaluation_criteria?.actions ?? []).filter((a) => a.requestor === "assistant");
      expect(
        calls.map((c) => c.name),
        task.id,
      ).toEqual(expected.map((a) => a.name));
    }
  });

  it("replay_solo reaches the gold DB state on the mock tasks solo mode accepts", async () => {
    const filter = getAgentDefinition("replay_solo").taskFilter!;
    const tasks = domain().tasks().filter(filter);
    expect(tasks.length).toBeGreaterThan(0);
    for (const task of tasks) {
      const { env, trajectory, reason } = await converse(domain(), task, "replay_solo", "dummy_user");
      expect(reason, task.id).toBe("agent_stop");
      expect(trajectory.at(-1)!.content).toBe("###STOP###");
      expect(env.getDbHash(), task.id).toBe(replayGold(domain(), task).env.getDbHash());
    }
  });
});

describe.skipIf(!dataDir || !domainNames().includes("telecom"))(
  "replay agent + scripted user on telecom (skipped: TAU_DATA_DIR not set or telecom not registered)",
  () => {
    it("performs the user's device actions and meets every env assertion", async () => {
      const domain = loadDomain("telecom", dataDir!);
      const base = new Set(domain.splits()?.base ?? []);
      const tasks = domain
        .tasks()
        .filter(
          (task) =>
            base.has(task.id) &&
            (task.evaluation_criteria?.actions ?? []).some((a) => a.requestor === "user"),
        )
        .slice(0, 6);
      expect(tasks.length).toBe(6);
      for (const task of tasks) {
        const { env, trajectory, reason } = await converse(domain, task, "replay", "scripted");
        expect(reason, task.id).toBe("user_stop");
        const userCalls = trajectory.flatMap((m) => (m.role === "user" ? (m.tool_calls ?? []) : []));
        const expectedUser = task.evaluation_criteria!.actions!.filter((a) => a.requestor === "user");
        expect(
          userCalls.map((c) => c.name),
          task.id,
        ).toEqual(expectedUser.map((a) => a.name));
        expect(userCalls.every((c) => c.requestor === "user")).toBe(true);
        const userResults = trajectory.filter(
          (m): m is ToolMessage => m.role === "tool" && m.requestor === "user",
        );
        expect(
          userResults.every((m) => !m.error),
          task.id,
        ).toBe(true);
        for (const assertion of task.evaluation_criteria!.env_assertions ?? []) {
          expect(env.runEnvAssertion(assertion), `${task.id} ${assertion.func_name}`).toBe(
            assertion.assert_value,
          );
        }
      }
    }, 60_000);
  },
);
