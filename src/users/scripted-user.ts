/**
 * An offline user that needs no model (`scripted`). It opens with the task's
 * reason for calling, performs device actions the replay agent asks for in its
 * fixed phrasing, stops once the replay agent closes, and otherwise answers
 * with a short neutral line. The phrasing is shared with the
 * replay agent through `core/offline-protocol.ts`.
 */
import { type Message, nowIso, type ToolMessage, type UserMessage, userMessage } from "../core/messages.ts";
import { parseUserActionRequest, REPLAY_CLOSING } from "../core/offline-protocol.ts";
import type { Task } from "../core/task.ts";
import { reasonForCall } from "./scenario.ts";
import { USER_STOP_TOKENS, type User, type UserInput } from "./types.ts";

/** What the scripted user says when it has nothing to do. */
export const NEUTRAL_REPLY = "Okay, thank you.";
/** How the scripted user ends the conversation. */
export const SCRIPTED_STOP = "###STOP###";

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
    // Free-text instructions (banking_knowledge) may quote the stop tokens; saying them would hang up at once.
    this.opening = USER_STOP_TOKENS.reduce(
      (text, token) => text.replaceAll(token, ""),
      reasonForCall(task.user_scenario),
    );
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
        if (text.includes(REPLAY_CLOSING)) return say(SCRIPTED_STOP);
        const request = parseUserActionRequest(text);
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
