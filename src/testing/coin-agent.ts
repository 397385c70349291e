/**
 * An offline agent with a chosen success rate, for tests of comparisons: the
 * replay agent on a coin flip. With chance `rate` (drawn from the task id and
 * the trial seed, so a resume draws the same) it replays the task; otherwise
 * it only closes, and a task that needs actions fails.
 */
import { createHash } from "node:crypto";
import { defineAgent } from "../agents/define.ts";
import type { AgentDefinition } from "../agents/registry.ts";
import { ReplayAgent } from "../agents/replay-agent.ts";
import type { Task } from "../core/task.ts";

/** The mock tasks the replay agent solves (on them only the coin decides a coin agent's outcome). */
export const REPLAY_SOLVED_MOCK_TASKS = [
  "create_task_1",
  "impossible_task_1",
  "update_task_1",
  "update_task_with_initialization_actions",
  "update_task_with_initialization_data",
  "update_task_with_message_history",
];

/** The replay agent that replays with chance `rate` (named `coin_replay_RATE`). */
export function coinReplayAgent(rate: number): AgentDefinition {
  return defineAgent({
    name: `coin_replay_${rate}`,
    create(ctx) {
      const digest = createHash("sha256").update(`${ctx.task.id}/${ctx.seed}`).digest();
      const closeOnly: Task = {
        ...ctx.task,
        evaluation_criteria: {
          ...ctx.task.evaluation_criteria,
          actions: [],
          communicate_info: [],
        } as Task["evaluation_criteria"],
      };
      return new ReplayAgent(digest.readUInt32BE(0) / 2 ** 32 < rate ? ctx.task : closeOnly, { solo: false });
    },
  });
}
