/**
 * The function-calling LLM agents (spec §3.2–3.4): `llm_agent`, the gold-plan
 * `llm_agent_gt` and the no-user `llm_agent_solo`. They differ only in system
 * prompt, tool list, tool choice and how a reply is post-processed.
 */
import type { AssistantMessage, Message } from "../core/messages.ts";
import type { Task } from "../core/task.ts";
import type { ToolSchema } from "../env/toolkit.ts";
import type { LlmClient, LlmRequest } from "../llm/types.ts";
import { AgentError } from "./errors.ts";
import { expandInput, responseToAssistantMessage, toLlmMessages } from "./llm-context.ts";
import { type AgentWording, DONE_TOOL, DONE_TOOL_NAME, TAUBENCH_AGENT_WORDING } from "./prompts.ts";
import type { Agent, AgentInput } from "./types.ts";

/** The solo agent's stop token (what a `done` call is rewritten to). */
export const SOLO_STOP_TOKEN = "###STOP###";

/** Whether an assistant message carries the solo stop token (how every solo agent ends an episode). */
export function hasSoloStop(message: AssistantMessage): boolean {
  return typeof message.content === "string" && message.content.includes(SOLO_STOP_TOKEN);
}

/** State of an LLM agent: upstream's system messages plus the conversation. */
export interface LlmAgentState {
  systemPrompt: string;
  messages: Message[];
  /** Provider reasoning of our own replies, by index in `messages`, sent back on later turns. */
  reasoning: Map<number, unknown>;
}

/** How an LLM agent is set up. */
export interface LlmAgentOptions {
  name: string;
  llm: LlmClient;
  tools: ToolSchema[];
  systemPrompt: string;
  llmArgs?: Record<string, unknown>;
  /** `auto` for conversational agents, `required` for the solo agent. */
  toolChoice: "auto" | "required";
  /** Solo post-processing: replies must call tools; `done` becomes the stop token. */
  solo?: boolean;
}

/** The `done` tool added to the solo agent's tools with taubench's wording (see {@link AgentWording.doneTool}). */
export { DONE_TOOL };

/** A function-calling agent over an {@link LlmClient}. */
export class LlmAgent implements Agent<LlmAgentState> {
  readonly name: string;
  readonly tools: ToolSchema[];
  private readonly llm: LlmClient;
  private readonly systemPrompt: string;
  private readonly toolChoice: "auto" | "required";
  private readonly solo: boolean;
  private llmArgs: Record<string, unknown>;

  constructor(options: LlmAgentOptions) {
    this.name = options.name;
    this.llm = options.llm;
    this.tools = options.tools;
    this.systemPrompt = options.systemPrompt;
    this.toolChoice = options.toolChoice;
    this.solo = options.solo ?? false;
    this.llmArgs = { ...(options.llmArgs ?? {}) };
  }

  /** The provider arguments the next call will use (seed included once set). */
  get args(): Readonly<Record<string, unknown>> {
    return this.llmArgs;
  }

  initState(history: readonly Message[]): LlmAgentState {
    return { systemPrompt: this.systemPrompt, messages: [...history], reasoning: new Map() };
  }

  /** The request the next turn would send, given the state after the input was added. */
  buildRequest(state: LlmAgentState, signal?: AbortSignal): LlmRequest {
    return {
      messages: toLlmMessages(this.name, state.systemPrompt, state.messages, state.reasoning),
      ...(this.tools.length > 0 ? { tools: this.tools, toolChoice: this.toolChoice } : {}),
      args: { ...this.llmArgs },
      callName: "agent",
      ...(signal ? { signal } : {}),
    };
  }

  async generate(
    input: AgentInput,
    state: LlmAgentState,
    signal?: AbortSignal,
  ): Promise<{ message: AssistantMessage; state: LlmAgentState }> {
    const messages = [...state.messages, ...expandInput(input)];
    const next: LlmAgentState = { ...state, messages, reasoning: new Map(state.reasoning) };
    const response = await this.llm.generate(this.buildRequest(next, signal));
    let message = responseToAssistantMessage(response);
    if (this.solo) message = this.rewriteSoloReply(message);
    if (response.reasoning !== undefined) next.reasoning.set(messages.length, response.reasoning);
    messages.push(message);
    return { message, state: next };
  }

  /** Upstream `LLMSoloAgent`: a reply must call tools; a `done` call becomes the stop token. */
  private rewriteSoloReply(message: AssistantMessage): AssistantMessage {
    if (message.tool_calls === null) {
      throw new AgentError(this.name, "the solo agent replied without a tool call (it may only call tools)");
    }
    if (message.tool_calls.some((call) => call.name === DONE_TOOL_NAME)) {
      return { ...message, content: SOLO_STOP_TOKEN, tool_calls: null };
    }
    return message;
  }

  isStop(message: AssistantMessage): boolean {
    return this.solo && hasSoloStop(message);
  }

  setSeed(seed: number): void {
    this.llmArgs = { ...this.llmArgs, seed };
  }
}

/** Builds the plain `llm_agent`. */
export function createLlmAgent(options: {
  llm: LlmClient;
  tools: ToolSchema[];
  policy: string;
  llmArgs?: Record<string, unknown>;
  /** Upstream's texts or taubench's own (the default). */
  wording?: AgentWording;
}): LlmAgent {
  return new LlmAgent({
    name: "llm_agent",
    llm: options.llm,
    tools: options.tools,
    systemPrompt: (options.wording ?? TAUBENCH_AGENT_WORDING).systemPrompt(options.policy),
    llmArgs: options.llmArgs ?? {},
    toolChoice: "auto",
  });
}

/** Builds `llm_agent_gt`: the plain agent told the task's expected actions. */
export function createGoldPlanAgent(options: {
  llm: LlmClient;
  tools: ToolSchema[];
  policy: string;
  task: Task;
  llmArgs?: Record<string, unknown>;
  wording?: AgentWording;
}): LlmAgent {
  return new LlmAgent({
    name: "llm_agent_gt",
    llm: options.llm,
    tools: options.tools,
    systemPrompt: (options.wording ?? TAUBENCH_AGENT_WORDING).goldPlanSystemPrompt(
      options.policy,
      options.task,
    ),
    llmArgs: options.llmArgs ?? {},
    toolChoice: "auto",
  });
}

/** Builds `llm_agent_solo`: agent and user tools plus `done`, tool calls required. */
export function createSoloAgent(options: {
  llm: LlmClient;
  tools: ToolSchema[];
  policy: string;
  task: Task;
  llmArgs?: Record<string, unknown>;
  wording?: AgentWording;
}): LlmAgent {
  const wording = options.wording ?? TAUBENCH_AGENT_WORDING;
  return new LlmAgent({
    name: "llm_agent_solo",
    llm: options.llm,
    tools: [...options.tools.filter((tool) => tool.function.name !== DONE_TOOL_NAME), wording.doneTool],
    systemPrompt: wording.soloSystemPrompt(options.policy, options.task.ticket),
    llmArgs: options.llmArgs ?? {},
    toolChoice: "required",
    solo: true,
  });
}

/** Upstream `LLMGTAgent.check_valid_task`: the task has at least one expected action. */
export function hasExpectedActions(task: Task): boolean {
  return (task.evaluation_criteria?.actions ?? []).length > 0;
}

/**
 * Upstream `LLMSoloAgent.check_valid_task`, as written: with an initial state,
 * any history without user messages or assistant text qualifies (the ticket is
 * not checked); otherwise a ticket and at least one expected action are needed.
 */
export function isSoloTask(task: Task): boolean {
  if (task.initial_state !== null) {
    for (const message of task.initial_state.message_history ?? []) {
      if (message.role === "user") return false;
      if (message.role === "assistant" && message.tool_calls === null) return false;
    }
    return true;
  }
  if (task.ticket === null) return false;
  return hasExpectedActions(task);
}
