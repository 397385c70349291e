/**
 * One episode of the original τ-bench (an agent's `solve` over `Env`,
 * specs/tau-bench-v1.md §3, §10): the user speaks first (the env's reset), then
 * up to 30 agent steps, each one model call and one action — a tool call
 * runs on the episode's database, a `respond` goes to the simulated user. The
 * episode ends when the user's reply contains `###STOP###` or the agent calls
 * `transfer_to_human_agents`, and is then graded on the spot; at the step
 * limit it ends ungraded with reward 0. The result is our simulation record;
 * upstream's `info` fields ride along in `info.tau1`.
 */
import { randomUUID } from "node:crypto";
import { type Message, nowIso, type ToolMessage, type UserMessage, userMessage } from "../core/messages.ts";
import type { SimulationRun, TerminationReason } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import { RESPOND_ACTION_NAME, type Tau1Action } from "../domains/tau1/env.ts";
import type { Tau1Domain } from "../domains/tau1/index.ts";
import { deepClone } from "../env/model.ts";
import { rewardInfo } from "../evaluation/reward-parts.ts";
import { gradeTau1, tau1RewardInfo } from "../evaluation/tau1.ts";
import { AgentError } from "../agents/errors.ts";
import type { Tau1Agent } from "../agents/tau1-agents.ts";
import type { Tau1User, Tau1UserReply } from "../users/tau1-users.ts";
import { trajectoryCosts } from "./orchestrator.ts";

/** Upstream's `max_num_steps`: model calls of the agent per episode. */
export const TAU1_MAX_STEPS = 30;

/** The stop token of the simulated user. */
export const TAU1_STOP_TOKEN = "###STOP###";

/** Everything one episode needs. */
export interface Tau1EpisodeOptions {
  domain: Tau1Domain;
  task: Task;
  agent: Tau1Agent;
  user: Tau1User;
  /** Agent model calls before the episode ends ungraded (upstream 30). */
  maxSteps: number;
  seed: number | null;
  trial: number;
  /** Wall-clock limit, checked between steps (ends the episode ungraded, `timeout`). */
  timeoutMs?: number | null;
  /** Extra fields for `info.tau1` (the few-shot draw). */
  extraInfo?: Record<string, unknown>;
  signal?: AbortSignal;
  simulationId?: string;
}

/** What upstream keeps of an episode in its results `info`, besides the task and the grading. */
export interface Tau1EpisodeInfo {
  /** The task's `user_id`. */
  user_id: string;
  /** The last action's source: `user` for a reply, else the tool's name. */
  source: string;
  /** The user's last model call's cost, set when the episode ended graded (upstream's quirk). */
  user_cost: number | null;
}

function userTurn(reply: Tau1UserReply): UserMessage {
  return userMessage({ content: reply.text, cost: reply.costUsd, usage: reply.usage, timestamp: nowIso() });
}

function toolTurn(id: string, content: string): ToolMessage {
  return {
    role: "tool",
    id,
    content,
    requestor: "assistant",
    // v1 has no error flag; its errors are the `Error: …` strings.
    error: content.startsWith("Error"),
    turn_idx: null,
    timestamp: nowIso(),
  };
}

/** Runs one episode and grades it as upstream's env does when it ends. */
export async function runTau1Episode(options: Tau1EpisodeOptions): Promise<SimulationRun> {
  const { domain, task, agent, user, signal } = options;
  const record = domain.tau1.record(task);
  const startTime = nowIso();
  const started = performance.now();
  const data = domain.tau1.freshData();
  const messages: Message[] = [];
  const actions: Tau1Action[] = [];
  const info: Tau1EpisodeInfo = { user_id: record.user_id, source: "user", user_cost: null };

  const first = await user.reset(record.instruction, signal);
  messages.push(userTurn(first));
  agent.begin(first.text);

  let reason: TerminationReason | null = null;
  let lastReply = first;
  for (let step = 0; step < options.maxSteps && reason === null; step++) {
    signal?.throwIfAborted();
    if (options.timeoutMs != null && performance.now() - started >= options.timeoutMs) {
      reason = "timeout";
      break;
    }
    const turn = await agent.next(signal);
    messages.push(turn.message);
    actions.push(turn.action);
    let observation: string;
    if (turn.action.name === RESPOND_ACTION_NAME) {
      const content = turn.action.kwargs.content;
      if (typeof content !== "string")
        throw new AgentError(agent.strategy, "the model replied with neither text nor a tool call");
      lastReply = await user.step(content, signal);
      observation = lastReply.text;
      messages.push(userTurn(lastReply));
      info.source = "user";
      if (observation.includes(TAU1_STOP_TOKEN)) reason = "user_stop";
    } else {
      const result = domain.tau1.tools.step(data, turn.action);
      observation = result.observation;
      messages.push(toolTurn(turn.message.tool_calls?.[0]?.id ?? "", observation));
      info.source = turn.action.name;
      if (result.done) reason = "agent_stop";
    }
    agent.observe(turn, observation);
  }

  const graded = reason === "user_stop" || reason === "agent_stop";
  const grade = graded ? gradeTau1(domain, record, data, actions) : null;
  if (graded) info.user_cost = lastReply.lastCallCostUsd;
  const trajectory = messages.map((message, index) => ({ ...deepClone(message), turn_idx: index }));
  const { agentCost, userCost } = trajectoryCosts(trajectory);
  const endTime = nowIso();
  const termination: TerminationReason = reason ?? "max_steps";
  return {
    id: options.simulationId ?? randomUUID(),
    task_id: task.id,
    timestamp: endTime,
    start_time: startTime,
    end_time: endTime,
    duration: (performance.now() - started) / 1000,
    termination_reason: termination,
    agent_cost: agentCost,
    user_cost: userCost,
    reward_info: grade
      ? tau1RewardInfo(grade)
      : rewardInfo({
          reward: 0,
          info: { note: `Simulation terminated prematurely. Termination reason: ${termination}` },
        }),
    messages: trajectory,
    trial: options.trial,
    seed: options.seed,
    mode: "half_duplex",
    info: { tau1: { ...info, ...(options.extraInfo ?? {}) } },
    policy: domain.tau1.wiki(),
  };
}
