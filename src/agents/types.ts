/** The agent seam: anything that produces the assistant's next message. */
import type {
  AssistantMessage,
  Message,
  MultiToolMessage,
  ToolMessage,
  UserMessage,
} from "../core/messages.ts";

/** What an agent receives: a user message, tool results, or nothing (first turn of a solo agent). */
export type AgentInput = UserMessage | ToolMessage | MultiToolMessage | null;

/** A half-duplex agent (upstream `HalfDuplexAgent`); `S` is its private state. */
export interface Agent<S = unknown> {
  /** Registry name, recorded in results (`agent_info.implementation`). */
  readonly name: string;
  /** Starting state, given the conversation so far (the greeting, or a task's message history). */
  initState(history: readonly Message[]): S;
  /** The next assistant message. */
  generate(
    input: AgentInput,
    state: S,
    signal?: AbortSignal,
  ): Promise<{ message: AssistantMessage; state: S }>;
  /** Whether this message ends the conversation (solo `done`, `###STOP###`). */
  isStop(message: AssistantMessage): boolean;
  /** Seed forwarded to the model (upstream puts it into `llm_args.seed`). */
  setSeed?(seed: number): void;
}
