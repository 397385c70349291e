/** The user seam: anything that produces the (simulated) user's next message. */
import type {
  AssistantMessage,
  Message,
  MultiToolMessage,
  ToolMessage,
  UserMessage,
} from "../core/messages.ts";

/** What a user receives: the agent's message, or results of the user's own tool calls. */
export type UserInput = AssistantMessage | ToolMessage | MultiToolMessage;

/** The three tokens that end a conversation from the user's side. */
export const USER_STOP_TOKENS = ["###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"] as const;

/** Upstream `UserSimulator.is_stop`: not a tool call, and the text contains a stop token. */
export function isUserStop(message: UserMessage): boolean {
  if (message.tool_calls !== null) return false;
  const content = message.content;
  return typeof content === "string" && USER_STOP_TOKENS.some((token) => content.includes(token));
}

/** A half-duplex user (upstream `HalfDuplexUser`); `S` is its private state. */
export interface User<S = unknown> {
  /** Registry name, recorded in results (`user_info.implementation`). */
  readonly name: string;
  initState(history: readonly Message[]): S;
  generate(input: UserInput, state: S, signal?: AbortSignal): Promise<{ message: UserMessage; state: S }>;
  setSeed?(seed: number): void;
}
