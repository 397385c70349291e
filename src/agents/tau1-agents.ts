/**
 * The original τ-bench agent strategies (specs/tau-bench-v1.md §10):
 * `tool-calling` (function calling, the policy as the whole system prompt),
 * `few-shot` (the same with five example dialogues drawn per episode),
 * `react` and `act` (text actions: `Thought:` and/or `Action:` with a JSON
 * action; tools listed in the prompt). Each takes one action per model call;
 * the episode loop (orchestrator/tau1-episode.ts) executes it.
 */
import { type AssistantMessage, assistantMessage, nowIso, type ToolCall } from "../core/messages.ts";
import { PyFloat, parsePyJson, PyJsonSyntaxError, type PyValue, pyDumps } from "../core/py-json.ts";
import { RESPOND_ACTION_NAME, type Tau1Action } from "../domains/tau1/env.ts";
import type { Tau1Text } from "../domains/tau1/texts.ts";
import type { ToolSchema } from "../env/toolkit.ts";
import type { LlmClient, LlmMessage, LlmResponse } from "../llm/types.ts";
import { AgentError, AgentOutputError } from "./errors.ts";
import { textAgentInstruction } from "./text-agent.ts";

/** The agent strategies of `run.py --agent-strategy`. */
export const TAU1_AGENT_STRATEGIES = ["tool-calling", "act", "react", "few-shot"] as const;
export type Tau1AgentStrategy = (typeof TAU1_AGENT_STRATEGIES)[number];

/** Upstream's default number of few-shot examples per episode. */
export const FEW_SHOT_COUNT = 5;

/** One model call's outcome: the action to execute and the assistant message for the trajectory. */
export interface Tau1AgentTurn {
  action: Tau1Action;
  /** The reply as our trajectory keeps it: only the first tool call; text actions parsed (raw text in `raw_data.text`). */
  message: AssistantMessage;
}

/** One episode's agent (upstream's `Agent.solve` loop body, without the env). */
export interface Tau1Agent {
  readonly strategy: Tau1AgentStrategy;
  /** This episode's system prompt. */
  readonly systemPrompt: string;
  /** Starts from the user's first message (the env's reset observation). */
  begin(firstUserMessage: string): void;
  /** One model call. */
  next(signal?: AbortSignal): Promise<Tau1AgentTurn>;
  /** Adds the action's observation (tool output or the user's reply) to the context. */
  observe(turn: Tau1AgentTurn, observation: string): void;
}

/** What every strategy needs. */
export interface Tau1AgentOptions {
  llm: LlmClient;
  /** Provider arguments (upstream: `temperature`, default 0.0). */
  llmArgs: Record<string, unknown>;
  /** The domain's `wiki.md`. */
  wiki: string;
  /** The domain's function schemas (`tools_info`). */
  toolsInfo: readonly ToolSchema[];
}

function replyMessage(
  response: LlmResponse,
  fields: Partial<Omit<AssistantMessage, "role">>,
): AssistantMessage {
  return assistantMessage({
    content: response.content,
    timestamp: nowIso(),
    cost: response.costUsd,
    usage: response.usage,
    raw_data: response.raw ?? null,
    generation_time_seconds: response.generationTimeSeconds ?? null,
    ...fields,
  });
}

/** The model's context every strategy keeps: the system prompt, the user's first message, then the steps. */
abstract class ContextAgent<S extends Tau1AgentStrategy> {
  protected context: LlmMessage[] = [];

  constructor(
    readonly strategy: S,
    readonly systemPrompt: string,
    protected readonly options: Tau1AgentOptions,
  ) {}

  begin(firstUserMessage: string): void {
    this.context = [
      { role: "system", content: this.systemPrompt },
      { role: "user", content: firstUserMessage },
    ];
  }
}

/** `tool-calling` and `few-shot`: function calling with the policy (plus examples) as the system prompt. */
export class ToolCallingAgent extends ContextAgent<"tool-calling" | "few-shot"> implements Tau1Agent {
  async next(signal?: AbortSignal): Promise<Tau1AgentTurn> {
    const response = await this.options.llm.generate({
      messages: [...this.context],
      tools: [...this.options.toolsInfo],
      args: { ...this.options.llmArgs },
      callName: "agent",
      ...(signal ? { signal } : {}),
    });
    const call = response.toolCalls?.[0];
    if (call) {
      // Only the first tool call is used, and the stored message is cut to it.
      const first: ToolCall = { ...call, requestor: "assistant" };
      return {
        action: { name: call.name, kwargs: call.arguments },
        message: replyMessage(response, { tool_calls: [first] }),
      };
    }
    return {
      action: { name: RESPOND_ACTION_NAME, kwargs: { content: response.content } },
      message: replyMessage(response, { tool_calls: null }),
    };
  }

  observe(turn: Tau1AgentTurn, observation: string): void {
    const call = turn.message.tool_calls?.[0];
    this.context.push({ role: "assistant", content: turn.message.content, toolCalls: call ? [call] : null });
    if (call)
      this.context.push({ role: "tool", content: observation, toolCallId: call.id, toolName: call.name });
    else this.context.push({ role: "user", content: observation });
  }
}

/** What a ReAct/Act reply asks for, as upstream parses it. */
export function parseTau1TextAction(agentName: string, reply: string): Tau1Action {
  // The text after the last "Action:" (or the whole reply), stripped.
  const actionText = (reply.split("Action:").pop() ?? "").trim();
  let parsed: PyValue;
  try {
    parsed = parsePyJson(actionText);
  } catch (error) {
    if (!(error instanceof PyJsonSyntaxError)) throw error;
    // Upstream's fallback: a reply that is not a JSON action is said to the user as it is.
    return { name: RESPOND_ACTION_NAME, kwargs: { content: actionText } };
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed) || parsed instanceof PyFloat)
    throw new AgentOutputError(agentName, "the action is JSON but not an object", reply);
  const action = parsed as Record<string, PyValue>;
  if (!("name" in action) || !("arguments" in action))
    throw new AgentOutputError(agentName, 'the action lacks "name" or "arguments"', reply);
  const { name, arguments: args } = action;
  if (typeof name !== "string")
    throw new AgentOutputError(agentName, 'the action\'s "name" is not a string', reply);
  if (args === null || typeof args !== "object" || Array.isArray(args) || args instanceof PyFloat)
    throw new AgentOutputError(agentName, 'the action\'s "arguments" is not an object', reply);
  return { name, kwargs: args as Record<string, unknown> };
}

/** Upstream's prefix of a tool result shown to a ReAct/Act model (the user's replies are shown as they are). */
export const API_OUTPUT_PREFIX = "API output: ";

/** `react` and `act`: actions written as text, tools described in the system prompt. */
export class TextActionAgent extends ContextAgent<"react" | "act"> implements Tau1Agent {
  private calls = 0;

  async next(signal?: AbortSignal): Promise<Tau1AgentTurn> {
    const response = await this.options.llm.generate({
      messages: [...this.context],
      args: { ...this.options.llmArgs },
      callName: "agent",
      ...(signal ? { signal } : {}),
    });
    const reply = response.content;
    if (reply === null) throw new AgentError(this.strategy, "the model returned no text");
    const action = parseTau1TextAction(this.strategy, reply);
    const raw = { text: reply, ...(response.raw !== undefined ? { response: response.raw } : {}) };
    if (action.name === RESPOND_ACTION_NAME) {
      const content = action.kwargs.content;
      if (typeof content !== "string")
        throw new AgentOutputError(this.strategy, 'the respond action needs a "content" string', reply);
      return { action, message: replyMessage(response, { content, tool_calls: null, raw_data: raw }) };
    }
    this.calls += 1;
    const call: ToolCall = {
      id: `${this.strategy}_call_${this.calls}`,
      name: action.name,
      arguments: action.kwargs,
      requestor: "assistant",
    };
    return { action, message: replyMessage(response, { content: null, tool_calls: [call], raw_data: raw }) };
  }

  observe(turn: Tau1AgentTurn, observation: string): void {
    this.context.push({ role: "assistant", content: textOf(turn.message) });
    const tool = turn.message.tool_calls !== null;
    this.context.push({ role: "user", content: tool ? `${API_OUTPUT_PREFIX}${observation}` : observation });
  }
}

/** The model's own text of a ReAct/Act reply (kept in `raw_data.text`). */
export function textOf(message: AssistantMessage): string {
  const raw = message.raw_data as { text?: unknown } | null;
  return typeof raw?.text === "string" ? raw.text : (message.content ?? "");
}

/** The ReAct/Act system prompt: the policy, the tools as `json.dumps(tools_info)`, the format instructions. */
export function textActionSystemPrompt(
  wiki: string,
  toolsInfo: readonly ToolSchema[],
  instruction: string,
): string {
  return `${wiki}\n#Available tools\n${pyDumps(toolsInfo)}${instruction}`;
}

/** Our wording of the ReAct/Act instruction block (upstream's opens and ends with a newline). */
export function tau1InstructionFallback(style: "react" | "act"): string {
  return `\n${textAgentInstruction(style)}\n`;
}

/** The few-shot system prompt: the policy, then `Example i:` blocks. */
export function fewShotSystemPrompt(wiki: string, displays: readonly string[]): string {
  return `${wiki}\n\n${displays.map((display, i) => `Example ${i + 1}:\n${display}`).join("\n\n")}`;
}

/** `random.sample(population, k)` with our seeded generator: k distinct indices. */
export function sampleIndices(size: number, k: number, random: () => number): number[] {
  const pool = Array.from({ length: size }, (_, i) => i);
  const out: number[] = [];
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(random() * (size - i));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
    out.push(pool[i]!);
  }
  return out;
}

/** Everything a strategy's factory gets. */
export interface Tau1AgentSetup extends Tau1AgentOptions {
  strategy: Tau1AgentStrategy;
  /** The ReAct/Act instruction block (upstream's text or ours). */
  instruction: Tau1Text;
  /** The few-shot agent's displays, and the draw for this episode. */
  fewShot?: { displays: readonly string[]; indices: readonly number[] };
}

/** Builds one episode's agent. */
export function createTau1Agent(setup: Tau1AgentSetup): Tau1Agent {
  switch (setup.strategy) {
    case "tool-calling":
      return new ToolCallingAgent("tool-calling", setup.wiki, setup);
    case "few-shot": {
      if (!setup.fewShot) throw new AgentError("few-shot", "no example dialogues given");
      const displays = setup.fewShot.indices.map((index) => setup.fewShot!.displays[index]!);
      return new ToolCallingAgent("few-shot", fewShotSystemPrompt(setup.wiki, displays), setup);
    }
    case "react":
    case "act":
      return new TextActionAgent(
        setup.strategy,
        textActionSystemPrompt(setup.wiki, setup.toolsInfo, setup.instruction.text),
        setup,
      );
    default: {
      const never: never = setup.strategy;
      throw new AgentError(String(never), "unknown agent strategy");
    }
  }
}
