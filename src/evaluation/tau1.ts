/**
 * Grading of the original τ-bench (`Env.calculate_reward`,
 * specs/tau-bench-v1.md §8): r_actions from comparing the end state's data
 * hash with the hash after replaying the task's actions on fresh data,
 * r_outputs from the expected outputs in the agent's `respond` messages
 * (lower-cased substring, commas removed from the agent's text only); reward
 * = r_actions × r_outputs. The recorded `info` is upstream's: with outputs,
 * only the outputs part (the database verdict is then visible only through
 * the reward). Also the `tau replay` record and the re-grading of saved
 * trajectories by replaying their tool calls on a fresh database.
 */
import type { Message } from "../core/messages.ts";
import { PyFloat, type PyValue, pyDumps } from "../core/py-json.ts";
import type { RewardInfo, SimulationRun } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import type { Tau1Data } from "../domains/tau1/data.ts";
import {
  RESPOND_ACTION_FIELD_NAME,
  RESPOND_ACTION_NAME,
  type Tau1Action,
  TERMINATE_TOOL,
} from "../domains/tau1/env.ts";
import { type Tau1Domain, type Tau1TaskRecord, taskToRecord } from "../domains/tau1/index.ts";
import { rewardInfo } from "./reward-parts.ts";

/** Upstream's `RewardActionInfo` / `RewardOutputInfo`. */
export type Tau1RewardDetail =
  | { r_actions: number; gt_data_hash: string }
  | { r_outputs: number; outputs: Map<string, boolean> };

/** Upstream's `RewardResult`, plus what the recorded `info` drops (the database verdict and hashes). */
export interface Tau1Grade {
  reward: number;
  info: Tau1RewardDetail;
  /** The task's actions without `respond` ones, as upstream records them. */
  actions: Tau1TaskRecord["actions"];
  /** Whether the end state's hash equalled the gold one (recorded even when `info` is the outputs part). */
  dataMatch: boolean;
  dataHash: string;
  goldDataHash: string;
  /** Per expected output, whether it was said, in task order (null when the task has none). */
  outputs: Map<string, boolean> | null;
}

/** The text of a `respond` action, as upstream reads it (`kwargs["content"]`). */
function respondContent(action: Tau1Action): string {
  const content = action.kwargs[RESPOND_ACTION_FIELD_NAME];
  if (typeof content !== "string")
    throw new TypeError("a respond action without text content cannot be graded");
  return content;
}

/** Replays the task's actions (the terminate tool skipped) on fresh data; returns the gold data. */
export function goldData(
  domain: Tau1Domain,
  record: Tau1TaskRecord,
): { data: Tau1Data; respond: Tau1Action[] } {
  const data = domain.tau1.freshData();
  const respond: Tau1Action[] = [];
  for (const action of record.actions) {
    if (action.name === TERMINATE_TOOL) continue;
    // A gold `respond` would reach the user in upstream's step; no task has one, so it only counts as said.
    if (action.name === RESPOND_ACTION_NAME) respond.push(action);
    else domain.tau1.tools.step(data, action);
  }
  return { data, respond };
}

const goldCache = new WeakMap<Tau1Domain, Map<string, { hash: string; respond: Tau1Action[] }>>();

/** The gold replay's hash and replies; the same actions on the same data always give the same hash, so it is kept. */
function goldOf(domain: Tau1Domain, record: Tau1TaskRecord): { hash: string; respond: Tau1Action[] } {
  let byActions = goldCache.get(domain);
  if (!byActions) {
    byActions = new Map();
    goldCache.set(domain, byActions);
  }
  const key = pyDumps(record.actions);
  let gold = byActions.get(key);
  if (!gold) {
    const replay = goldData(domain, record);
    gold = { hash: replay.data.hash(), respond: replay.respond };
    byActions.set(key, gold);
  }
  return gold;
}

/**
 * Upstream's `calculate_reward` for an episode that ended with `data` as
 * the agent left it and `agentActions` as every action the agent took.
 */
export function gradeTau1(
  domain: Tau1Domain,
  record: Tau1TaskRecord,
  data: Tau1Data,
  agentActions: readonly Tau1Action[],
): Tau1Grade {
  const dataHash = data.hash();
  let reward = 1;
  const actions = record.actions.filter((action) => action.name !== RESPOND_ACTION_NAME);
  const gold = goldOf(domain, record);
  const goldDataHash = gold.hash;
  const dataMatch = dataHash === goldDataHash;
  let info: Tau1RewardDetail = { r_actions: dataMatch ? 1 : 0, gt_data_hash: goldDataHash };
  if (!dataMatch) reward = 0;
  let outputs: Map<string, boolean> | null = null;
  if (record.outputs.length > 0) {
    // The gold replay's steps join the env's action list before the outputs are checked.
    const said = [...agentActions, ...gold.respond]
      .filter((action) => action.name === RESPOND_ACTION_NAME)
      .map((action) => respondContent(action).toLowerCase().replaceAll(",", ""));
    let rOutputs = 1;
    outputs = new Map();
    for (const output of record.outputs) {
      const found = said.some((text) => text.includes(output.toLowerCase()));
      outputs.set(output, found);
      if (!found) {
        rOutputs = 0;
        reward = 0;
      }
    }
    info = { r_outputs: rOutputs, outputs };
  }
  return { reward, info, actions, dataMatch, dataHash, goldDataHash, outputs };
}

/** Upstream's `RewardResult.model_dump()` of a grade (floats as floats, upstream's key order). */
export function tau1RewardResultToPy(grade: Pick<Tau1Grade, "reward" | "info" | "actions">): PyValue {
  const info =
    "r_actions" in grade.info
      ? new Map<string, PyValue>([
          ["r_actions", new PyFloat(grade.info.r_actions)],
          ["gt_data_hash", grade.info.gt_data_hash],
        ])
      : new Map<string, PyValue>([
          ["r_outputs", new PyFloat(grade.info.r_outputs)],
          ["outputs", new Map(grade.info.outputs)],
        ]);
  return new Map<string, PyValue>([
    ["reward", new PyFloat(grade.reward)],
    ["info", info],
    ["actions", grade.actions.map(actionToPy)],
  ]);
}

/**
 * Upstream's `reward_info` of a graded episode, rebuilt from our reward
 * record (see {@link tau1RewardInfo}) and the task; null when the episode was
 * not graded (step limit).
 */
export function tau1RewardResultFromInfo(reward: RewardInfo | null, record: Tau1TaskRecord): PyValue {
  const goldDataHash = reward?.info?.gold_data_hash;
  if (!reward || typeof goldDataHash !== "string") return null;
  const actions = record.actions.filter((action) => action.name !== RESPOND_ACTION_NAME);
  if (record.outputs.length === 0) {
    const match = reward.db_check?.db_match === true;
    return tau1RewardResultToPy({
      reward: reward.reward,
      info: { r_actions: match ? 1 : 0, gt_data_hash: goldDataHash },
      actions,
    });
  }
  const outputs = new Map<string, boolean>();
  for (const check of reward.communicate_checks ?? []) outputs.set(check.info, check.met);
  return tau1RewardResultToPy({
    reward: reward.reward,
    info: { r_outputs: [...outputs.values()].every(Boolean) ? 1 : 0, outputs },
    actions,
  });
}

/** An `Action.model_dump()`. */
export function actionToPy(action: { name: string; kwargs: Record<string, unknown> }): PyValue {
  return new Map<string, PyValue>([
    ["name", action.name],
    ["kwargs", action.kwargs as PyValue],
  ]);
}

/**
 * Our reward record of a graded v1 episode: the database and outputs
 * components, the two hashes in `info` (upstream's `reward_info` is rebuilt
 * from it by {@link tau1RewardResultFromInfo}).
 */
export function tau1RewardInfo(grade: Tau1Grade): RewardInfo {
  const breakdown: Record<string, number> = { DB: grade.dataMatch ? 1 : 0 };
  if (grade.outputs) breakdown.COMMUNICATE = [...grade.outputs.values()].every(Boolean) ? 1 : 0;
  return rewardInfo({
    reward: grade.reward,
    db_check: { db_match: grade.dataMatch, db_reward: grade.dataMatch ? 1 : 0 },
    communicate_checks: grade.outputs
      ? [...grade.outputs].map(([info, met]) => ({ info, met, justification: null }))
      : null,
    reward_basis: grade.outputs ? ["DB", "COMMUNICATE"] : ["DB"],
    reward_breakdown: breakdown,
    info: { data_hash: grade.dataHash, gold_data_hash: grade.goldDataHash },
  });
}

// ---------------------------------------------------------------------------
// `tau replay`

/** One expected action as `tau replay` writes it. */
export interface Tau1ReplayStep {
  name: string;
  arguments: Record<string, unknown>;
  output: string;
  error: boolean;
}

/** One `tau replay` line for an original τ-bench task (the line format of `../golden-sample-v1`). */
export interface Tau1ReplayRecord {
  id: number;
  initial_data_hash: string;
  steps: Tau1ReplayStep[];
  final_data_hash: string;
}

/** Replays a task's expected actions in order through the env's step on fresh data. */
export function tau1ReplayRecord(domain: Tau1Domain, task: Task): Tau1ReplayRecord {
  const record = domain.tau1.record(task);
  const data = domain.tau1.freshData();
  const initial = data.hash();
  const steps = record.actions.map((action) => {
    const { observation } = domain.tau1.tools.step(data, action);
    return {
      name: action.name,
      arguments: action.kwargs,
      output: observation,
      error: observation.startsWith("Error"),
    };
  });
  return { id: Number(task.id), initial_data_hash: initial, steps, final_data_hash: data.hash() };
}

// ---------------------------------------------------------------------------
// Re-grading a saved episode

/** The actions an agent took, read from our trajectory: a tool call (the first of a message) or a reply. */
export function actionsFromMessages(messages: readonly Message[]): Tau1Action[] {
  const actions: Tau1Action[] = [];
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    const call = message.tool_calls?.[0];
    if (call) actions.push({ name: call.name, kwargs: call.arguments });
    else actions.push({ name: RESPOND_ACTION_NAME, kwargs: { content: message.content } });
  }
  return actions;
}

/** The database a saved episode left: its tool actions replayed on fresh data, up to a terminating one. */
export function replayedTau1Data(domain: Tau1Domain, actions: readonly Tau1Action[]): Tau1Data {
  const data = domain.tau1.freshData();
  for (const action of actions) {
    if (action.name === RESPOND_ACTION_NAME) continue;
    if (domain.tau1.tools.step(data, action).done) break;
  }
  return data;
}

/** Termination reasons after which upstream grades (the user's `###STOP###`, the transfer). */
const GRADED = new Set(["user_stop", "agent_stop"]);

/**
 * Re-grades an episode by replaying its tool actions on a fresh database (so
 * the end state comes from this code, not from the file). Episodes that hit
 * the step limit (or any other stop) are not graded and score 0, as upstream.
 */
export function regradeTau1Actions(
  domain: Tau1Domain,
  record: Tau1TaskRecord,
  actions: readonly Tau1Action[],
): Tau1Grade {
  return gradeTau1(domain, record, replayedTau1Data(domain, actions), actions);
}

/** Our evaluator's entry for a tau1 simulation (used by `tau evaluate-trajs`). */
export function evaluateTau1Simulation(
  domain: Tau1Domain,
  task: Task,
  simulation: SimulationRun,
): RewardInfo {
  if (!GRADED.has(simulation.termination_reason)) {
    return rewardInfo({
      reward: 0,
      info: {
        note: `Simulation terminated prematurely. Termination reason: ${simulation.termination_reason}`,
      },
    });
  }
  // The task as the saved run has it (its expected actions and outputs), as the other domains re-grade.
  const userId = (simulation.info?.tau1 as { user_id?: string } | undefined)?.user_id ?? "";
  const grade = regradeTau1Actions(
    domain,
    taskToRecord(task, userId),
    actionsFromMessages(simulation.messages),
  );
  return tau1RewardInfo(grade);
}
