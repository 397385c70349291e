/**
 * The gold environment, built as upstream's evaluator builds it: fresh and
 * non-solo, the task's initial state applied, then every expected action run
 * in order through `make_tool_call` directly — errors are kept as outputs but
 * otherwise ignored, and there is no sync between the actions.
 */
import { assistantMessage, type Message, type ToolCall, userMessage } from "../core/messages.ts";
import type { Task } from "../core/task.ts";
import type { Domain } from "../domains/types.ts";
import { type Environment, errorText, toolResultContent } from "../env/environment.ts";
import { deepClone } from "../env/model.ts";

/** One executed expected action. */
export interface GoldStep {
  action_id: string;
  requestor: "assistant" | "user";
  name: string;
  arguments: Record<string, unknown>;
  output: string;
  error: boolean;
}

/** The gold environment after the task's expected actions, with what each action returned. */
export interface GoldReplay {
  env: Environment;
  initialAgentDbHash: string;
  initialUserDbHash: string | null;
  steps: GoldStep[];
}

/** Applies a task's initial state to a fresh environment (the task's own history only). */
export function applyInitialState(env: Environment, task: Task): void {
  const initial = task.initial_state;
  env.setState(
    initial?.initialization_data ?? null,
    initial?.initialization_actions ?? null,
    initial?.message_history ?? [],
  );
}

/** Builds the gold environment of a task and runs its expected actions (no hashing: grading needs only the end state). */
export function buildGoldEnvironment(domain: Domain, task: Task): { env: Environment; steps: GoldStep[] } {
  const env = domain.makeEnvironment({ soloMode: false, task });
  applyInitialState(env, task);
  return { env, steps: runGoldActions(env, task) };
}

/** Builds the gold environment of a task and runs its expected actions, recording the hashes before them. */
export function replayGold(domain: Domain, task: Task): GoldReplay {
  const env = domain.makeEnvironment({ soloMode: false, task });
  applyInitialState(env, task);
  const initialAgentDbHash = env.getDbHash();
  const initialUserDbHash = env.getUserDbHash();
  return { env, initialAgentDbHash, initialUserDbHash, steps: runGoldActions(env, task) };
}

function runGoldActions(env: Environment, task: Task): GoldStep[] {
  const steps: GoldStep[] = [];
  for (const action of task.evaluation_criteria?.actions ?? []) {
    let output: string;
    let error = false;
    try {
      output = toolResultContent(env.makeToolCall(action.name, action.requestor, action.arguments));
    } catch (e) {
      output = `Error: ${errorText(e)}`;
      error = true;
    }
    steps.push({
      action_id: action.action_id,
      requestor: action.requestor,
      name: action.name,
      arguments: action.arguments,
      output,
      error,
    });
  }
  return steps;
}

/**
 * The expected actions played as a conversation would play them: the task's
 * history, then each action as a tool call of its requestor answered on a live
 * environment that syncs after every call, as the orchestrator does. This is
 * the "gold trajectory" upstream's evaluator grades (it replays it on the
 * predicted environment); without a history it opens with no messages at all.
 */
export function goldTrajectory(domain: Domain, task: Task): Message[] {
  const messages: Message[] = deepClone([...(task.initial_state?.message_history ?? [])]);
  const env = domain.makeEnvironment({ soloMode: false, task });
  applyInitialState(env, task);
  for (const [index, action] of (task.evaluation_criteria?.actions ?? []).entries()) {
    const call: ToolCall = {
      id: `gold_${index}`,
      name: action.name,
      arguments: deepClone(action.arguments),
      requestor: action.requestor,
    };
    messages.push(
      action.requestor === "user"
        ? userMessage({ tool_calls: [call] })
        : assistantMessage({ tool_calls: [call] }),
    );
    messages.push(env.getResponse(call));
    env.syncTools();
  }
  return messages;
}
