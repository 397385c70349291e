/**
 * The ACTION component (spec §5.5, P10): every expected action must be matched
 * by some tool call of the trajectory. Requestor and order are ignored, one
 * call may satisfy several actions, and calls that errored still count.
 */
import type { Message, ToolCall } from "../core/messages.ts";
import { pyEquals } from "../core/py-json.ts";
import type { ActionCheck, RewardInfo } from "../core/simulation.ts";
import type { Action, Task } from "../core/task.ts";
import type { ToolKind } from "../env/toolkit.ts";
import { rewardInfo, trajectoryToolCalls } from "./reward-parts.ts";

/**
 * Upstream `Action.compare_with_tool_call`. Without `compare_args` the keys
 * compared are the call's own keys, so omitting an argument the action has can
 * still match while an extra argument cannot; `compare_args: []` compares names only.
 */
export function actionMatchesToolCall(action: Action, call: ToolCall): boolean {
  if (action.name !== call.name) return false;
  const callArgs = call.arguments ?? {};
  const keys = action.compare_args ?? Object.keys(callArgs);
  if (keys.length === 0) return true;
  const wanted = new Set(keys);
  const pick = (args: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(args).filter(([key]) => wanted.has(key)));
  return pyEquals(pick(callArgs), pick(action.arguments ?? {}));
}

/** Grades the expected actions of a task against a trajectory. */
export function evaluateActions(
  task: Task,
  trajectory: readonly Message[],
  toolTypes: ReadonlyMap<string, ToolKind> | null,
): RewardInfo {
  const criteria = task.evaluation_criteria;
  if (criteria === null) {
    return rewardInfo({
      reward: 1,
      action_checks: [],
      info: { note: "No evaluation criteria" },
      reward_breakdown: { ACTION: 1 },
    });
  }
  const actions = criteria.actions;
  if (!actions || actions.length === 0) {
    return rewardInfo({
      reward: 1,
      info: { note: "No actions to evaluate" },
      reward_breakdown: { ACTION: 1 },
    });
  }
  const calls = trajectoryToolCalls(trajectory);
  const checks: ActionCheck[] = actions.map((action) => {
    const matched = calls.some((call) => actionMatchesToolCall(action, call));
    return {
      action,
      action_match: matched,
      action_reward: matched ? 1 : 0,
      tool_type: toolTypes?.get(action.name) ?? null,
    };
  });
  const reward = checks.every((check) => check.action_match) ? 1 : 0;
  return rewardInfo({ reward, action_checks: checks, reward_breakdown: { ACTION: reward } });
}
