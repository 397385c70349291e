/**
 * Offline agents that follow a task's expected actions, one per turn: a
 * baseline that needs no model, and a way to exercise the whole pipeline.
 *
 * `replay` calls the assistant actions itself, asks the user to perform the
 * user actions in a fixed machine-readable phrasing (the scripted user obeys
 * it), then states each `communicate_info` string verbatim and closes with a
 * fixed phrase. `replay_solo` calls every action itself (the solo environment
 * routes user tools) and then stops as the solo agent does.
 */
import { type AssistantMessage, assistantMessage, type Message, nowIso } from "../core/messages.ts";
import { REPLAY_CLOSING, userActionRequest } from "../core/offline-protocol.ts";
import type { Action, Task } from "../core/task.ts";
import { deepClone } from "../env/model.ts";
import { hasSoloStop, SOLO_STOP_TOKEN } from "./llm-agent.ts";
import type { Agent, AgentInput } from "./types.ts";

/** One planned turn of a replay agent. */
export type ReplayStep =
  | { kind: "call"; action: Action }
  | { kind: "ask"; action: Action }
  | { kind: "say"; text: string }
  | { kind: "close" }
  | { kind: "done" };

/** The replay agent's plan for a task (non-solo or solo). */
export function replayPlan(task: Task, solo: boolean): ReplayStep[] {
  const actions = task.evaluation_criteria?.actions ?? [];
  if (solo) {
    return [...actions.map((action): ReplayStep => ({ kind: "call", action })), { kind: "done" }];
  }
  return [
    ...actions.map(
      (action): ReplayStep =>
        action.requestor === "user" ? { kind: "ask", action } : { kind: "call", action },
    ),
    ...(task.evaluation_criteria?.communicate_info ?? []).map((text): ReplayStep => ({ kind: "say", text })),
    { kind: "close" },
  ];
}

/** State of a replay agent: the index of the next step. */
export interface ReplayAgentState {
  position: number;
}

/** Follows a task's expected actions without a model. */
export class ReplayAgent implements Agent<ReplayAgentState> {
  readonly name: string;
  readonly plan: readonly ReplayStep[];
  private readonly solo: boolean;

  constructor(task: Task, options: { solo: boolean }) {
    this.solo = options.solo;
    this.name = options.solo ? "replay_solo" : "replay";
    this.plan = replayPlan(task, options.solo);
  }

  initState(_history: readonly Message[]): ReplayAgentState {
    return { position: 0 };
  }

  async generate(
    _input: AgentInput,
    state: ReplayAgentState,
    signal?: AbortSignal,
  ): Promise<{ message: AssistantMessage; state: ReplayAgentState }> {
    signal?.throwIfAborted();
    // Past the end, keep repeating the last step (closing phrase or stop): the user decides when to hang up.
    const index = Math.min(state.position, this.plan.length - 1);
    const step = this.plan[index]!;
    return { message: this.render(step, index), state: { position: state.position + 1 } };
  }

  private render(step: ReplayStep, index: number): AssistantMessage {
    const base = { timestamp: nowIso(), cost: 0 };
    switch (step.kind) {
      case "call":
        return assistantMessage({
          ...base,
          tool_calls: [
            {
              id: `${this.name}_${index}`,
              name: step.action.name,
              arguments: deepClone(step.action.arguments),
              requestor: "assistant",
            },
          ],
        });
      case "ask":
        return assistantMessage({ ...base, content: userActionRequest(step.action) });
      case "say":
        return assistantMessage({ ...base, content: step.text });
      case "close":
        return assistantMessage({ ...base, content: REPLAY_CLOSING });
      case "done":
        return assistantMessage({ ...base, content: SOLO_STOP_TOKEN });
      default: {
        const never: never = step;
        throw new Error(`unknown replay step ${JSON.stringify(never)}`);
      }
    }
  }

  isStop(message: AssistantMessage): boolean {
    return this.solo && hasSoloStop(message);
  }
}
