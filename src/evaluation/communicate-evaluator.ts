/**
 * The COMMUNICATE component (spec §5.6, P9): each required string must occur
 * in some assistant message with text. Both sides are lower-cased but only the
 * message loses its commas, so an expected string with a comma never matches.
 */
import type { Message } from "../core/messages.ts";
import { hasTextContent } from "../core/messages.ts";
import type { CommunicateCheck, RewardInfo } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import { rewardInfo } from "./reward-parts.ts";

/** Checks each `communicate_info` string against the assistant's messages (greeting included). */
export function checkCommunicateInfo(
  trajectory: readonly Message[],
  communicateInfo: readonly string[],
): CommunicateCheck[] {
  return communicateInfo.map((info) => {
    const needle = info.toLowerCase();
    const found = trajectory.find(
      (message) =>
        message.role === "assistant" &&
        hasTextContent(message) &&
        (message.content as string).toLowerCase().replaceAll(",", "").includes(needle),
    );
    return found
      ? {
          info,
          met: true,
          justification: `Information '${info}' communicated in the message:\n '${found.content}'`,
        }
      : { info, met: false, justification: `Information '${info}' not communicated.` };
  });
}

/** Grades the `communicate_info` of a task against a trajectory. */
export function evaluateCommunicate(task: Task, trajectory: readonly Message[]): RewardInfo {
  const criteria = task.evaluation_criteria;
  if (criteria === null) {
    // Upstream's key really is "notes" on this path.
    return rewardInfo({
      reward: 1,
      info: { notes: "No evaluation criteria" },
      reward_breakdown: { COMMUNICATE: 1 },
    });
  }
  const info = criteria.communicate_info;
  if (!info || info.length === 0) {
    return rewardInfo({
      reward: 1,
      info: { note: "No communicate_info to evaluate" },
      reward_breakdown: { COMMUNICATE: 1 },
    });
  }
  const checks = checkCommunicateInfo(trajectory, info);
  const reward = checks.every((check) => check.met) ? 1 : 0;
  return rewardInfo({ reward, communicate_checks: checks, reward_breakdown: { COMMUNICATE: reward } });
}
