/**
 * Shared pieces of the reward components: building a `RewardInfo` with
 * upstream's defaults, and pulling tool calls out of a trajectory.
 */
import type { Message, ToolCall } from "../core/messages.ts";
import type { RewardInfo } from "../core/simulation.ts";

/** A `RewardInfo` with every field upstream leaves unset filled with null. */
export function rewardInfo(fields: Partial<RewardInfo> & { reward: number }): RewardInfo {
  return {
    reward: fields.reward,
    db_check: fields.db_check ?? null,
    env_assertions: fields.env_assertions ?? null,
    action_checks: fields.action_checks ?? null,
    nl_assertions: fields.nl_assertions ?? null,
    communicate_checks: fields.communicate_checks ?? null,
    reward_basis: fields.reward_basis ?? null,
    reward_breakdown: fields.reward_breakdown ?? null,
    info: fields.info ?? null,
  };
}

/** Every tool call of the agent and the user, in trajectory order (errored calls included). */
export function trajectoryToolCalls(trajectory: readonly Message[]): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const message of trajectory) {
    if ((message.role === "assistant" || message.role === "user") && message.tool_calls !== null) {
      calls.push(...message.tool_calls);
    }
  }
  return calls;
}
