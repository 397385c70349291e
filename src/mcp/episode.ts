/**
 * One τ-bench episode driven from outside: the agent's turns come from an MCP
 * client's tool calls instead of a model. {@link EpisodeDriver} is the agent
 * the orchestrator talks to (its `generate` waits for the client's next
 * action) and the handler of the client's actions (each waits for what the
 * environment or the simulated user answers). The orchestrator, the user
 * simulator and the grading are the runner's, unchanged.
 */
import { TauError } from "../core/errors.ts";
import {
  type AssistantMessage,
  assistantMessage,
  type Message,
  nowIso,
  type ToolCall,
  type ToolMessage,
  type UserMessage,
} from "../core/messages.ts";
import type { AgentDefinition } from "../agents/registry.ts";
import type { Agent, AgentInput } from "../agents/types.ts";

/** What the client does on its turn. */
export type ClientAction =
  | { kind: "tool"; name: string; arguments: Record<string, unknown> }
  | { kind: "say"; text: string }
  | { kind: "end" };

/** What a client action got back before the episode ended. */
export type ActionReply = { kind: "tool"; message: ToolMessage } | { kind: "user"; message: UserMessage };

/** A client action refused (the episode is over, or another action is still being answered). */
export class EpisodeActionError extends TauError {}

/** The text the agent's closing message carries when the client ends the conversation. */
export const CLIENT_STOP = "###STOP###";

interface Waiter<T> {
  resolve(value: T): void;
  reject(error: unknown): void;
}

/** Connects the orchestrator's agent turns to a client's actions (see the module comment). */
export class EpisodeDriver {
  /** The orchestrator's `generate`, waiting for the client's next action. */
  private agentTurn: Waiter<ClientAction> | null = null;
  /** An action the client sent before the orchestrator asked for one. */
  private queued: ClientAction | null = null;
  /** The client's action waiting for its answer. */
  private reply: Waiter<ActionReply | null> | null = null;
  private readonly stops = new WeakSet<AssistantMessage>();
  private calls = 0;
  private opened = false;
  private ended = false;
  private firstInput: Promise<UserMessage>;
  private resolveFirst!: (message: UserMessage) => void;
  private rejectFirst!: (error: unknown) => void;

  constructor(readonly endpoint: string) {
    this.firstInput = new Promise((resolve, reject) => {
      this.resolveFirst = resolve;
      this.rejectFirst = reject;
    });
    // Nobody may be listening yet; a rejection here is read through `opening()`.
    this.firstInput.catch(() => {});
  }

  /** The customer's first message (after the fixed greeting); waits until the user simulator wrote it. */
  opening(): Promise<UserMessage> {
    return this.firstInput;
  }

  /** Whether the episode ended (a further action is refused). */
  get isOver(): boolean {
    return this.ended;
  }

  /**
   * Hands the client's action to the orchestrator and waits for the answer: the tool message, or
   * the user's reply. Null when the episode ended instead (the caller reports the grading).
   */
  act(action: ClientAction): Promise<ActionReply | null> {
    if (this.ended) return Promise.reject(new EpisodeActionError("the episode is over"));
    if (this.reply)
      return Promise.reject(
        new EpisodeActionError("another action is still being answered: call one tool at a time"),
      );
    const answer = new Promise<ActionReply | null>((resolve, reject) => {
      this.reply = { resolve, reject };
    });
    if (this.agentTurn) {
      const turn = this.agentTurn;
      this.agentTurn = null;
      turn.resolve(action);
    } else {
      this.queued = action;
    }
    return answer;
  }

  /** Ends the episode from the runner's side: a waiting action gets null (the grading follows). */
  finish(error?: unknown): void {
    this.ended = true;
    const reply = this.reply;
    this.reply = null;
    if (error !== undefined) {
      reply?.reject(error);
      this.rejectFirst(error);
    } else reply?.resolve(null);
    this.agentTurn?.reject(new EpisodeActionError("the episode is over"));
    this.agentTurn = null;
  }

  /** The agent definition whose agent is this driver (one episode, so one agent). */
  definition(name = "mcp_client"): AgentDefinition {
    return {
      name,
      description: "An MCP client driving the agent's turns through `tau mcp`",
      soloMode: false,
      needsLlm: false,
      origin: { adapter: "mcp", llm: null, endpoint: this.endpoint },
      create: () => this.agent(name),
    };
  }

  private agent(name: string): Agent<null> {
    return {
      name,
      initState: (_history: readonly Message[]) => null,
      isStop: (message) => this.stops.has(message),
      generate: async (input, state, signal) => {
        this.deliver(input);
        const action = await this.nextAction(signal);
        return { message: this.toMessage(action), state };
      },
    };
  }

  /** Passes what the orchestrator delivered to the agent to the action waiting for it. */
  private deliver(input: AgentInput): void {
    if (input === null) return;
    if (input.role === "user" && !this.opened) {
      // The customer's opening answers the greeting, not a client action.
      this.opened = true;
      this.resolveFirst(input);
      return;
    }
    const reply = this.reply;
    this.reply = null;
    if (!reply) return;
    if (input.role === "user") reply.resolve({ kind: "user", message: input });
    else if (input.role === "tool") reply.resolve({ kind: "tool", message: input });
    else reply.resolve({ kind: "tool", message: input.tool_messages[0]! });
  }

  private nextAction(signal: AbortSignal | undefined): Promise<ClientAction> {
    if (this.queued) {
      const action = this.queued;
      this.queued = null;
      return Promise.resolve(action);
    }
    return new Promise((resolve, reject) => {
      this.agentTurn = { resolve, reject };
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
  }

  private toMessage(action: ClientAction): AssistantMessage {
    this.calls++;
    switch (action.kind) {
      case "tool": {
        const call: ToolCall = {
          id: `mcp_call_${this.calls}`,
          name: action.name,
          arguments: action.arguments,
          requestor: "assistant",
        };
        return assistantMessage({ tool_calls: [call], timestamp: nowIso(), cost: 0 });
      }
      case "say":
        return assistantMessage({ content: action.text, timestamp: nowIso(), cost: 0 });
      case "end": {
        const message = assistantMessage({ content: CLIENT_STOP, timestamp: nowIso(), cost: 0 });
        this.stops.add(message);
        return message;
      }
      default: {
        const never: never = action;
        throw new TypeError(`unknown action ${String(never)}`);
      }
    }
  }
}
