/**
 * The LLM user simulator (`user_simulator`, spec §4): the upstream guideline
 * file plus the rendered scenario as system prompt, the conversation with
 * roles flipped (the simulator speaks as `assistant`), optional user tools.
 */
import { join } from "node:path";
import { hasTextContent, type Message, nowIso, type UserMessage, userMessage } from "../core/messages.ts";
import { readText } from "../domains/files.ts";
import type { UpstreamTexts } from "../domains/texts/store.ts";
import { TAU2_TEXT } from "../domains/texts/tau2.ts";
import type { ToolSchema } from "../env/toolkit.ts";
import { replyToolCalls, toLlmContext } from "../llm/context.ts";
import type { LlmClient, LlmMessage, LlmRequest } from "../llm/types.ts";
import { UserError } from "./errors.ts";
import type { User, UserInput } from "./types.ts";

/** Guideline file used when the user has tools (mock, telecom). */
export const GUIDELINES_WITH_TOOLS_FILE = "simulation_guidelines_tools.md";
/** Guideline file used when the user has no tools (airline, retail). */
export const GUIDELINES_FILE = "simulation_guidelines.md";

/** The guideline file a user with these tools reads (the one place that choice is made). */
export function guidelinesFileFor(tools: readonly ToolSchema[] | null): string {
  return tools !== null && tools.length > 0 ? GUIDELINES_WITH_TOOLS_FILE : GUIDELINES_FILE;
}

/** Guideline texts already read, by path: a run reads each file once, not once per simulation. */
const guidelineTexts = new Map<string, string>();

/** Reads upstream's guideline text from the data folder's `user_simulator/` (never shipped with us). */
export function readGuidelines(guidelinesDir: string, tools: readonly ToolSchema[] | null): string {
  const path = join(guidelinesDir, guidelinesFileFor(tools));
  let text = guidelineTexts.get(path);
  if (text === undefined) {
    text = readText(path);
    guidelineTexts.set(path, text);
  }
  return text;
}

/** Upstream `SYSTEM_PROMPT` of the user simulator (upstream's own template when its texts are given). */
export function userSystemPrompt(
  guidelines: string,
  instructions: string,
  texts: UpstreamTexts | null = null,
): string {
  if (texts) return texts.format(TAU2_TEXT.userSystemPrompt, { guidelines, instructions });
  return `${guidelines}\n\n<scenario>\n${instructions}\n</scenario>`;
}

/** State of the simulator: its system prompt and the conversation from its side. */
export interface UserSimulatorState {
  systemPrompt: string;
  messages: Message[];
  /** Provider reasoning of the simulator's own replies, by index in `messages`. */
  reasoning: Map<number, unknown>;
}

/** Messages an incoming user input adds to the state (spec §4.2 step 1). */
export function expandUserInput(input: UserInput): Message[] {
  switch (input.role) {
    case "multi_tool":
      return [...input.tool_messages];
    case "tool":
      return [input];
    case "assistant":
      return hasTextContent(input) || input.tool_calls !== null ? [input] : [];
    default: {
      const never: never = input;
      throw new Error(`unknown user input ${JSON.stringify(never)}`);
    }
  }
}

/**
 * Upstream `UserState.flip_roles`: the simulator's messages become `assistant`
 * turns, the agent's text becomes `user` turns, the user's tool results stay
 * `tool` messages. An agent tool call or an agent-side tool result is an error.
 */
export function flipRoles(
  messages: readonly Message[],
  reasoning: ReadonlyMap<number, unknown> = new Map(),
  userName = "user_simulator",
): LlmMessage[] {
  return toLlmContext(messages, {
    self: "user",
    reasoning,
    fail: (problem) => new UserError(userName, problem),
  });
}

/** How an LLM user simulator is set up. */
export interface UserSimulatorOptions {
  llm: LlmClient;
  /** Upstream guideline text (see {@link readGuidelines}). */
  guidelines: string;
  /** The rendered scenario (`renderUserScenario(task.user_scenario)`). */
  instructions: string;
  /** The user's tools, or null when the user has none. */
  tools: ToolSchema[] | null;
  llmArgs?: Record<string, unknown>;
  /** Upstream's texts (its system prompt template); taubench's copy of the layout without them. */
  texts?: UpstreamTexts | null;
}

/** An LLM playing the customer. */
export class UserSimulator implements User<UserSimulatorState> {
  readonly name = "user_simulator";
  readonly systemPrompt: string;
  readonly tools: ToolSchema[] | null;
  private readonly llm: LlmClient;
  private llmArgs: Record<string, unknown>;

  constructor(options: UserSimulatorOptions) {
    this.llm = options.llm;
    this.tools = options.tools;
    this.systemPrompt = userSystemPrompt(options.guidelines, options.instructions, options.texts ?? null);
    this.llmArgs = { ...(options.llmArgs ?? {}) };
  }

  /** The provider arguments the next call will use (seed included once set). */
  get args(): Readonly<Record<string, unknown>> {
    return this.llmArgs;
  }

  initState(history: readonly Message[]): UserSimulatorState {
    return { systemPrompt: this.systemPrompt, messages: [...history], reasoning: new Map() };
  }

  /** The request the next turn sends, given the state after the input was added. */
  buildRequest(state: UserSimulatorState, signal?: AbortSignal): LlmRequest {
    return {
      messages: [
        { role: "system", content: state.systemPrompt },
        ...flipRoles(state.messages, state.reasoning, this.name),
      ],
      ...(this.tools && this.tools.length > 0 ? { tools: this.tools } : {}),
      args: { ...this.llmArgs },
      callName: "user",
      ...(signal ? { signal } : {}),
    };
  }

  async generate(
    input: UserInput,
    state: UserSimulatorState,
    signal?: AbortSignal,
  ): Promise<{ message: UserMessage; state: UserSimulatorState }> {
    const messages = [...state.messages, ...expandUserInput(input)];
    const next: UserSimulatorState = { ...state, messages, reasoning: new Map(state.reasoning) };
    const response = await this.llm.generate(this.buildRequest(next, signal));
    // Upstream copies content, cost, usage and raw data, but not the generation time.
    const message = userMessage({
      content: response.content,
      tool_calls: replyToolCalls(response.toolCalls, "user"),
      timestamp: nowIso(),
      cost: response.costUsd,
      usage: response.usage,
      raw_data: response.raw ?? null,
    });
    if (response.reasoning !== undefined) next.reasoning.set(messages.length, response.reasoning);
    messages.push(message);
    return { message, state: next };
  }

  setSeed(seed: number): void {
    this.llmArgs = { ...this.llmArgs, seed };
  }
}
