/**
 * An offline user that needs no model (`scripted`). It opens with the task's
 * reason for calling, performs device actions the replay agent asks for in its
 * fixed phrasing, stops once the replay agent closes, and otherwise answers
 * with a short neutral line. The phrasing is duplicated from
 * `agents/replay-agent.ts` (users may not import agents); a test in
 * `src/testing/` checks that the two stay in step.
 */
import { type Message, nowIso, type ToolMessage, type UserMessage, userMessage } from "../core/messages.ts";
import { parsePyJson } from "../core/py-json.ts";
import type { Task } from "../core/task.ts";
import { reasonForCall } from "./scenario.ts";
import type { User, UserInput } from "./types.ts";

/** Prefix of the replay agent's request for a user action (`name(<JSON arguments>)` follows). */
export const ACTION_REQUEST_PREFIX = "Please perform this action on your device: ";
/** The replay agent's closing phrase, answered with `###STOP###`. */
export const CLOSING_PHRASE = "All requested actions have been completed. Thank you, goodbye!";
/** What the scripted user says when it has nothing to do. */
export const NEUTRAL_REPLY = "Okay, thank you.";
/** How the scripted user ends the conversation. */
export const SCRIPTED_STOP = "###STOP###";

/** A requested device action, or null when the text is not a request. */
export function readActionRequest(text: string): { name: string; arguments: Record<string, unknown> } | null {
  const trimmed = text.trim();
  if (!trimmed.startsWith(ACTION_REQUEST_PREFIX)) return null;
  const match = /^([A-Za-z_][A-Za-z0-9_]*)\(([\s\S]*)\)$/.exec(trimmed.slice(ACTION_REQUEST_PREFIX.length));
  if (!match) return null;
  const inner = match[2]!.trim();
  if (inner === "") return { name: match[1]!, arguments: {} };
  try {
    const value = parsePyJson(inner);
    if (typeof value !== "object" || value === null || Array.isArray(value) || value instanceof Map)
      return null;
    return { name: match[1]!, arguments: value as Record<string, unknown> };
  } catch {
    return null;
  }
}

/** State of the scripted user. */
export interface ScriptedUserState {
  /** Whether the user already spoke (opening given, or a history with user turns). */
  opened: boolean;
  /** Tool calls made so far; numbers the call ids. */
  callCount: number;
}

/** The offline scripted user. */
export class ScriptedUser implements User<ScriptedUserState> {
  readonly name = "scripted";
  private readonly opening: string;

  constructor(task: Task) {
    this.opening = reasonForCall(task.user_scenario);
  }

  initState(history: readonly Message[]): ScriptedUserState {
    return { opened: history.some((message) => message.role === "user"), callCount: 0 };
  }

  async generate(
    input: UserInput,
    state: ScriptedUserState,
    signal?: AbortSignal,
  ): Promise<{ message: UserMessage; state: ScriptedUserState }> {
    signal?.throwIfAborted();
    const say = (content: string, next: ScriptedUserState = state) => ({
      message: userMessage({ content, timestamp: nowIso(), cost: 0 }),
      state: next,
    });
    switch (input.role) {
      case "tool":
      case "multi_tool":
        return say(resultReply(input.role === "tool" ? [input] : input.tool_messages), state);
      case "assistant": {
        if (!state.opened) return say(this.opening, { ...state, opened: true });
        const text = input.content ?? "";
        if (text.includes(CLOSING_PHRASE)) return say(SCRIPTED_STOP);
        const request = readActionRequest(text);
        if (request === null) return say(NEUTRAL_REPLY);
        const callCount = state.callCount + 1;
        const message = userMessage({
          tool_calls: [
            {
              id: `scripted_user_${callCount}`,
              name: request.name,
              arguments: request.arguments,
              requestor: "user",
            },
          ],
          timestamp: nowIso(),
          cost: 0,
        });
        return { message, state: { ...state, callCount } };
      }
      default: {
        const never: never = input;
        throw new Error(`unknown user input ${JSON.stringify(never)}`);
      }
    }
  }
}

/** The short reply after the user's own tool results. */
function resultReply(results: readonly ToolMessage[]): string {
  const text = results.map((result) => result.content ?? "").join("\n");
  const failed = results.some((result) => result.error);
  return failed ? `I tried, but it did not work: ${text}` : `Done. Here is what I see: ${text}`;
}
