/**
 * The half-duplex episode loop (upstream `Orchestrator`, spec §2): one message
 * in flight between agent, user and environment; tool calls routed back to
 * whoever asked (dual control); upstream's termination rules, quirks included.
 */
import { randomUUID } from "node:crypto";
import { InfrastructureError, isInfrastructureFailure, TauError } from "../core/errors.ts";
import {
  type AssistantMessage,
  assistantMessage,
  hasTextContent,
  isToolCall,
  type Message,
  type MultiToolMessage,
  nowIso,
  type ParticipantMessage,
  type ToolMessage,
  type UserMessage,
} from "../core/messages.ts";
import type { SimulationRun, TerminationReason } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import type { Environment } from "../env/environment.ts";
import { deepClone } from "../env/model.ts";
import type { Agent, AgentInput } from "../agents/types.ts";
import { isUserStop, type User, type UserInput } from "../users/types.ts";

/** Who a message is from or for. */
export type Role = "agent" | "user" | "env";

/** The text of the fixed first agent turn of every normal-mode conversation (P1). */
export const GREETING_TEXT = "Hi! How can I help you today?";

/** How long past the wall-clock limit a call in flight is waited for (see `inFlightGraceMs`). */
export const IN_FLIGHT_GRACE_MS = 60_000;

/** Upstream's default `max_steps` for runs (the CLI's; the bare class uses 100). */
export const DEFAULT_MAX_STEPS = 200;

/** Upstream's default `max_errors` (cumulative failed tool calls). */
export const DEFAULT_MAX_ERRORS = 10;

/** The greeting message, a fresh object each time (cost 0.0, timestamped now). */
export function greetingMessage(now = new Date(), text = GREETING_TEXT): AssistantMessage {
  return assistantMessage({ content: text, cost: 0, timestamp: nowIso(now) });
}

/**
 * A message upstream's `validate()` rejects: no text and no tool calls. It is an
 * exception, not a termination reason (P6), so the runner retries the episode.
 */
export class EmptyMessageError extends InfrastructureError {
  constructor(role: "assistant" | "user", taskId?: string) {
    super(
      `The ${role === "assistant" ? "agent" : "user"} produced an empty message (no text, no tool calls)`,
      {
        ...(taskId !== undefined ? { taskId } : {}),
      },
    );
  }
}

/** A broken orchestration invariant (bad message history, routing to nowhere). */
export class OrchestrationError extends InfrastructureError {}

/**
 * An exception from a participant's own code (an agent or user module, a
 * protocol break such as an empty message): the episode ends as that
 * participant's error (`agent_error` / `user_error`, scored 0), as upstream
 * ends a protocol violation, instead of being retried and recorded as an
 * infrastructure error. Provider and transport failures never become this.
 */
export class ParticipantFailure extends TauError {
  constructor(
    readonly role: "agent" | "user",
    readonly error: unknown,
  ) {
    const inner = error instanceof Error ? error : new Error(String(error));
    super(`the ${role} raised ${inner.name}: ${inner.message}`, { cause: error });
  }
}

/** What a simulation records about the participant exception that ended it (`info`). */
function participantFailureInfo(failure: ParticipantFailure): Record<string, unknown> {
  const inner = failure.error instanceof Error ? failure.error : new Error(String(failure.error));
  return {
    error: inner.message,
    error_type: inner.name,
    error_traceback: inner.stack ?? null,
    raised_by: failure.role,
  };
}

/**
 * The participant with every method guarded: an exception that is not an
 * infrastructure failure (nor the run's abort) comes out as a {@link ParticipantFailure}.
 */
function guarded<T extends object>(participant: T, role: "agent" | "user", signal?: AbortSignal): T {
  const wrap = (error: unknown): unknown =>
    signal?.aborted || error instanceof ParticipantFailure || isInfrastructureFailure(error)
      ? error
      : new ParticipantFailure(role, error);
  return new Proxy(participant, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        let result: unknown;
        try {
          result = value.apply(target, args);
        } catch (error) {
          throw wrap(error);
        }
        return result instanceof Promise
          ? result.catch((error: unknown) => {
              throw wrap(error);
            })
          : result;
      };
    },
  });
}

/** Options of an {@link Orchestrator}. */
export interface OrchestratorOptions {
  environment: Environment;
  task: Task;
  agent: Agent;
  user: User;
  soloMode: boolean;
  /** Default {@link DEFAULT_MAX_STEPS}; every hop (user, agent, environment) counts. */
  maxSteps?: number;
  /** Default {@link DEFAULT_MAX_ERRORS}; failed tool calls of both sides, cumulative. */
  maxErrors?: number;
  seed?: number | null;
  /**
   * Wall-clock limit, checked between steps like upstream's `--timeout`: a call that returns after
   * it is still taken (its stop still counts), as upstream waits for it.
   */
  timeoutMs?: number | null;
  /**
   * How long past `timeoutMs` an agent or user call still in flight is waited for before it is
   * abandoned (its signal aborted) and the simulation ends as `timeout`; default
   * {@link IN_FLIGHT_GRACE_MS}. Upstream waits forever, so a call that never returns would hold the
   * simulation for good.
   */
  inFlightGraceMs?: number;
  /** Turn protocol violations (empty or mixed messages, solo text) into agent_error / user_error. */
  enforceCommunicationProtocol?: boolean;
  signal?: AbortSignal;
  /** Simulation id (default: a random uuid). */
  simulationId?: string;
  /** The greeting that opens a fresh conversation (default {@link GREETING_TEXT}; upstream's text when its texts are loaded). */
  greeting?: string;
}

/** Upstream `is_valid_agent_history_message`: what the agent's context keeps from a history. */
export function isAgentHistoryMessage(message: Message): boolean {
  return (
    message.role === "assistant" ||
    (message.role === "user" && !isToolCall(message)) ||
    (message.role === "tool" && message.requestor === "assistant")
  );
}

/** Upstream `is_valid_user_history_message`: what the user's context keeps from a history. */
export function isUserHistoryMessage(message: Message): boolean {
  return (
    message.role === "user" ||
    (message.role === "assistant" && !isToolCall(message)) ||
    (message.role === "tool" && message.requestor === "user")
  );
}

/** Upstream `validate()` of a participant message: text or tool calls are required. */
export function validateParticipantMessage(message: ParticipantMessage, taskId?: string): void {
  if (!hasTextContent(message) && !isToolCall(message)) throw new EmptyMessageError(message.role, taskId);
}

/**
 * Upstream `validate_message_history`: only agent, user and tool messages; n
 * tool calls are answered by tool messages of the same requestor.
 */
export function validateMessageHistory(history: readonly Message[]): void {
  let expected = 0;
  let requestor: "assistant" | "user" | null = null;
  for (const message of history) {
    switch (message.role) {
      case "assistant":
      case "user":
        validateParticipantMessage(message);
        if (isToolCall(message)) {
          if (expected > 0) {
            throw new OrchestrationError(
              `${expected} tool messages are missing. Got ${message.role} message.`,
            );
          }
          expected = message.tool_calls?.length ?? 0;
          requestor = message.role;
        } else {
          // Upstream's reset here is a no-op comparison, so the pending count survives.
          requestor = null;
        }
        break;
      case "tool":
        if (expected === 0 || requestor === null) throw new OrchestrationError("No tool messages expected.");
        if (requestor !== message.requestor) {
          throw new OrchestrationError(`Got tool message from ${message.requestor}, expected ${requestor}.`);
        }
        expected -= 1;
        break;
      case "system":
        throw new OrchestrationError("Invalid message type in history: system");
      default: {
        const never: never = message;
        throw new OrchestrationError(`Invalid message: ${String(never)}`);
      }
    }
  }
}

/**
 * Costs of a trajectory (spec §9.3): agent = sum over assistant messages, user =
 * sum over user messages; a side is null when any of its messages has no cost.
 */
export function trajectoryCosts(messages: readonly Message[]): {
  agentCost: number | null;
  userCost: number | null;
} {
  let agentCost: number | null = 0;
  let userCost: number | null = 0;
  for (const message of messages) {
    if (message.role === "assistant")
      agentCost = message.cost === null || agentCost === null ? null : agentCost + message.cost;
    else if (message.role === "user")
      userCost = message.cost === null || userCost === null ? null : userCost + message.cost;
  }
  return { agentCost, userCost };
}

/** Python's `datetime.now() - timedelta(seconds=n) + timedelta(seconds=i)`, as upstream back-dates a history. */
function backDated(now: Date, count: number, index: number): string {
  return nowIso(new Date(now.getTime() + (index - count) * 1000));
}

/** A participant call that has not returned yet: what {@link participantCallsInFlight} lists. */
export interface CallInFlight {
  role: "agent" | "user";
  /** The participant's registry name. */
  name: string;
  taskId: string;
}

const callsInFlight = new Set<CallInFlight>();

/**
 * Every agent and user `generate` call of this process that has not returned yet. When the
 * process has nothing left to do while a run still waits, these are the promises that can never
 * settle, and the CLI names them.
 */
export function participantCallsInFlight(): CallInFlight[] {
  return [...callsInFlight];
}

/** What a participant call in flight rejects with when the simulation's wall-clock limit and its grace have passed. */
const DEADLINE_PASSED: unique symbol = Symbol("the simulation's wall-clock limit passed");

/** The wall-clock limit of one {@link Orchestrator.run}: a signal for the calls and a promise to race them with. */
interface Deadline {
  signal: AbortSignal;
  passed: Promise<never>;
  stop(): void;
}

function startDeadline(timeoutMs: number, outer: AbortSignal | undefined): Deadline {
  const controller = new AbortController();
  const onOuterAbort = () => controller.abort(outer?.reason);
  outer?.addEventListener("abort", onOuterAbort, { once: true });
  if (outer?.aborted) onOuterAbort();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const passed = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(DEADLINE_PASSED);
      controller.abort(new Error("the simulation's wall-clock limit (--timeout) passed a while ago"));
    }, timeoutMs);
  });
  // Handled here, so a deadline that passes with no call in flight is not an unhandled rejection.
  passed.catch(() => {});
  return {
    signal: controller.signal,
    passed,
    stop() {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onOuterAbort);
    },
  };
}

/** Runs one episode, step by step (tests drive `initialize`/`step` directly; the runner calls `run`). */
export class Orchestrator {
  readonly simulationId: string;
  fromRole: Role | null = null;
  toRole: Role | null = null;
  /** The message in flight. */
  message: Message | MultiToolMessage | null = null;
  trajectory: Message[] = [];
  stepCount = 0;
  numErrors = 0;
  done = false;
  terminationReason: TerminationReason | null = null;
  agentState: unknown = undefined;
  userState: unknown = undefined;

  private readonly options: OrchestratorOptions;
  private readonly maxSteps: number;
  private readonly maxErrors: number;
  private startPerf = 0;
  private startTime = "";
  /** Set while {@link run} runs with a wall-clock limit. */
  private deadline: Deadline | null = null;

  /** The participant exception that ended the episode, if one did. */
  participantFailure: ParticipantFailure | null = null;

  constructor(options: OrchestratorOptions) {
    // Participants' own exceptions end the episode as their error (see ParticipantFailure).
    this.options = {
      ...options,
      agent: guarded(options.agent, "agent", options.signal),
      user: guarded(options.user, "user", options.signal),
    };
    this.maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
    this.maxErrors = options.maxErrors ?? DEFAULT_MAX_ERRORS;
    this.simulationId = options.simulationId ?? randomUUID();
  }

  private get taskId(): string {
    return this.options.task.id;
  }

  /** Applies the task's initial state, seeds the participants and sets up who speaks first (spec §2.4). */
  async initialize(): Promise<void> {
    const { environment, task, agent, user, soloMode } = this.options;
    this.startTime = nowIso();
    this.startPerf = performance.now();
    const initial = task.initial_state;
    const now = new Date();
    const history: Message[] = (initial?.message_history ?? []).map((message, index, all) => ({
      ...deepClone(message),
      turn_idx: null,
      timestamp: backDated(now, all.length, index),
    }));
    if (soloMode && !environment.soloMode) {
      throw new OrchestrationError("Solo mode needs an environment built in solo mode");
    }
    environment.setState(
      initial?.initialization_data ?? null,
      initial?.initialization_actions ?? null,
      history,
    );
    const seed = this.options.seed;
    if (seed !== null && seed !== undefined) {
      agent.setSeed?.(seed);
      user.setSeed?.(seed);
    }

    const last = history[history.length - 1];
    if (last !== undefined) {
      validateMessageHistory(history);
      const agentView = (upToLast: boolean) =>
        (upToLast ? history : history.slice(0, -1)).filter(isAgentHistoryMessage);
      const userView = (upToLast: boolean) =>
        (upToLast ? history : history.slice(0, -1)).filter(isUserHistoryMessage);
      switch (last.role) {
        case "assistant":
          this.fromRole = "agent";
          this.toRole = isToolCall(last) ? "env" : "user";
          this.agentState = agent.initState(agentView(true));
          this.userState = user.initState(userView(false));
          if (agent.isStop(last)) this.finish("agent_stop");
          break;
        case "user":
          this.fromRole = "user";
          this.toRole = isToolCall(last) ? "env" : "agent";
          this.userState = user.initState(userView(true));
          this.agentState = agent.initState(agentView(false));
          if (isUserStop(last)) this.finish("user_stop");
          break;
        case "tool":
          this.fromRole = "env";
          if (last.requestor === "assistant") {
            this.toRole = "agent";
            this.agentState = agent.initState(agentView(false));
            this.userState = user.initState(userView(true));
          } else {
            this.toRole = "user";
            this.agentState = agent.initState(agentView(true));
            this.userState = user.initState(userView(false));
          }
          break;
        case "system":
          throw new OrchestrationError("A message history cannot end with a system message");
        default: {
          const never: never = last;
          throw new OrchestrationError(`Invalid message: ${String(never)}`);
        }
      }
      this.message = last;
      this.trajectory = history;
    } else {
      this.userState = user.initState([]);
      if (!soloMode) {
        const greeting = greetingMessage(new Date(), this.options.greeting);
        this.agentState = agent.initState([greeting]);
        this.trajectory = [greeting];
        this.message = greeting;
        this.fromRole = "agent";
        this.toRole = "user";
      } else {
        // The solo agent's first turn happens here and is not counted as a step (P22).
        this.agentState = agent.initState([]);
        const first = await this.callAgent(null);
        this.trajectory = [first];
        this.message = first;
        this.fromRole = "agent";
        if (!isToolCall(first)) {
          this.toRole = "user";
          this.finish(agent.isStop(first) ? "agent_stop" : "agent_error");
        } else {
          this.toRole = "env";
          if (agent.isStop(first)) {
            this.toRole = "user";
            this.finish("agent_stop");
          }
        }
      }
    }
    if (this.options.enforceCommunicationProtocol) this.checkCommunication();
    environment.syncTools();
  }

  private finish(reason: TerminationReason): void {
    this.done = true;
    this.terminationReason = reason;
  }

  /** A participant call, listed as in flight until it settles and raced with the wall-clock limit when there is one. */
  private async tracked<T>(role: "agent" | "user", name: string, call: Promise<T>): Promise<T> {
    const entry: CallInFlight = { role, name, taskId: this.taskId };
    callsInFlight.add(entry);
    try {
      return await (this.deadline === null ? call : Promise.race([call, this.deadline.passed]));
    } finally {
      callsInFlight.delete(entry);
    }
  }

  /** The signal participant calls get: the run's, or one that also aborts at the wall-clock limit. */
  private get callSignal(): AbortSignal | undefined {
    return this.deadline?.signal ?? this.options.signal;
  }

  private async callAgent(input: AgentInput): Promise<AssistantMessage> {
    const { agent } = this.options;
    const { message, state } = await this.tracked(
      "agent",
      agent.name,
      agent.generate(input, this.agentState, this.callSignal),
    );
    this.agentState = state;
    message.timestamp ??= nowIso();
    this.validateFrom("agent", message);
    return message;
  }

  private async callUser(input: UserInput): Promise<UserMessage> {
    const { user } = this.options;
    const { message, state } = await this.tracked(
      "user",
      user.name,
      user.generate(input, this.userState, this.callSignal),
    );
    this.userState = state;
    message.timestamp ??= nowIso();
    this.validateFrom("user", message);
    return message;
  }

  /**
   * Upstream's `validate()` of a participant's message. An empty message from a model is caught by
   * the LLM layer first (an infrastructure error, P6); one that reaches this point came from the
   * participant's own code, a protocol break that is its failure.
   */
  private validateFrom(role: "agent" | "user", message: ParticipantMessage): void {
    try {
      validateParticipantMessage(message, this.taskId);
    } catch (error) {
      throw new ParticipantFailure(role, error);
    }
  }

  /** Delivers the message in flight once (spec §2.2), then counts the step and syncs the environment. */
  async step(): Promise<void> {
    if (this.done) throw new OrchestrationError("The simulation is already done");
    this.options.signal?.throwIfAborted();
    const { agent, environment, soloMode } = this.options;
    const from = this.fromRole;
    const to = this.toRole;
    if (to === "user" && (from === "agent" || from === "env")) {
      const message = await this.callUser(this.message as UserInput);
      if (isUserStop(message)) this.finish("user_stop");
      this.trajectory.push(message);
      this.message = message;
      this.fromRole = "user";
      this.toRole = isToolCall(message) ? "env" : "agent";
    } else if (to === "agent" && (from === "user" || from === "env")) {
      const message = await this.callAgent(this.message as AgentInput);
      const stop = agent.isStop(message);
      if (stop) this.finish("agent_stop");
      this.trajectory.push(message);
      this.message = message;
      this.fromRole = "agent";
      if (isToolCall(message)) {
        this.toRole = "env";
      } else {
        this.toRole = "user";
        if (soloMode && !stop) this.finish("agent_error");
      }
    } else if (to === "env" && (from === "agent" || from === "user")) {
      const request = this.message;
      if (
        request === null ||
        (request.role !== "assistant" && request.role !== "user") ||
        !request.tool_calls
      ) {
        throw new OrchestrationError("Only a tool call can be sent to the environment");
      }
      if (request.tool_calls.length === 0) {
        throw new OrchestrationError("A tool-call message with no tool calls cannot be answered");
      }
      const results: ToolMessage[] = [];
      for (const call of request.tool_calls) {
        const result = await environment.respond(call, this.options.signal);
        result.timestamp = nowIso();
        if (result.error) this.numErrors += 1;
        results.push(result);
      }
      this.trajectory.push(...results);
      this.message = results.length > 1 ? { role: "multi_tool", tool_messages: results } : results[0]!;
      this.toRole = from;
      this.fromRole = "env";
    } else {
      throw new OrchestrationError(`Invalid role combination. From role: ${from}, To role: ${to}`);
    }
    if (this.options.enforceCommunicationProtocol) this.checkCommunication();
    this.stepCount += 1;
    environment.syncTools();
  }

  /** Upstream `check_communication_error` (only with protocol enforcement on). */
  private checkCommunication(): void {
    if (this.fromRole === "env" || this.fromRole === null) return;
    const message = this.message;
    if (message === null || (message.role !== "assistant" && message.role !== "user")) return;
    const reason: TerminationReason = this.fromRole === "user" ? "user_error" : "agent_error";
    const text = hasTextContent(message);
    const tools = isToolCall(message);
    if ((!tools && !text) || (tools && text)) {
      this.finish(reason);
      return;
    }
    if (
      this.fromRole === "agent" &&
      this.options.soloMode &&
      text &&
      !this.options.agent.isStop(message as AssistantMessage)
    ) {
      this.finish(reason);
    }
  }

  /**
   * Upstream `_check_termination`: skipped while a tool result is pending; max
   * steps, then too many errors — each may overwrite an earlier reason, even
   * user_stop (P3) — then the timeout, which upstream only applies while the
   * episode is still running (`_check_timeout` tests `not self.done`).
   */
  checkTermination(): void {
    if (this.toRole === "env") return;
    if (this.stepCount >= this.maxSteps) this.finish("max_steps");
    if (this.numErrors >= this.maxErrors) this.finish("too_many_errors");
    const timeoutMs = this.options.timeoutMs;
    if (
      !this.done &&
      timeoutMs !== null &&
      timeoutMs !== undefined &&
      performance.now() - this.startPerf >= timeoutMs
    ) {
      this.finish("timeout");
    }
  }

  /**
   * Runs the episode to its end and returns the (ungraded) simulation. A participant's own
   * exception ends it as `agent_error` / `user_error` with the error in `info`; provider and
   * transport failures propagate (the runner retries them, then records an infrastructure error).
   */
  async run(): Promise<SimulationRun> {
    const { timeoutMs } = this.options;
    if (timeoutMs !== null && timeoutMs !== undefined)
      this.deadline = startDeadline(
        timeoutMs + (this.options.inFlightGraceMs ?? IN_FLIGHT_GRACE_MS),
        this.options.signal,
      );
    try {
      await this.initialize();
      while (!this.done) {
        await this.step();
        this.checkTermination();
      }
    } catch (error) {
      if (error === DEADLINE_PASSED) {
        this.finish("timeout");
      } else {
        if (!(error instanceof ParticipantFailure)) throw error;
        this.participantFailure = error;
        this.finish(error.role === "agent" ? "agent_error" : "user_error");
      }
    } finally {
      this.deadline?.stop();
      this.deadline = null;
    }
    return this.finalize();
  }

  /**
   * The trajectory as recorded: copies numbered 0..n-1 (insertion order, which is timestamp order).
   * Shallow: the episode is over when this is called, nothing changes its messages any more.
   */
  getTrajectory(): Message[] {
    const trajectory = this.trajectory;
    const out = new Array<Message>(trajectory.length);
    for (let index = 0; index < trajectory.length; index++)
      out[index] = { ...trajectory[index]!, turn_idx: index };
    return out;
  }

  /** Builds the `SimulationRun` (spec §2.8); `reward_info` stays null until graded. */
  finalize(): SimulationRun {
    const reason = this.terminationReason;
    if (reason === null) throw new OrchestrationError("The simulation has not ended");
    if (this.toRole === "env" && reason !== "agent_error" && reason !== "user_error") {
      throw new OrchestrationError("The environment should not receive the last message");
    }
    const messages = this.getTrajectory();
    const { agentCost, userCost } = trajectoryCosts(messages);
    const endTime = nowIso();
    return {
      id: this.simulationId,
      task_id: this.taskId,
      timestamp: endTime,
      start_time: this.startTime,
      end_time: endTime,
      duration: (performance.now() - this.startPerf) / 1000,
      termination_reason: reason,
      agent_cost: agentCost,
      user_cost: userCost,
      reward_info: null,
      messages,
      trial: null,
      seed: this.options.seed ?? null,
      mode: "half_duplex",
      info: this.participantFailure ? participantFailureInfo(this.participantFailure) : null,
    };
  }
}
