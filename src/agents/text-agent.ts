/**
 * The τ-bench paper's text-format baselines (§5 "Methods"): ReAct (`react`)
 * writes `Thought:` then `Action:` with a JSON action; Act (`act`) writes only
 * the action. No function calling: tools are listed in the system prompt,
 * results come back as text observations, and the user is answered through
 * the `respond` action.
 */
import {
  type AssistantMessage,
  assistantMessage,
  type Message,
  nowIso,
  type ToolCall,
} from "../core/messages.ts";
import { PyFloat, parsePyJson, pyDumps } from "../core/py-json.ts";
import type { ToolSchema } from "../env/toolkit.ts";
import type { LlmClient, LlmMessage } from "../llm/types.ts";
import { AgentError, AgentOutputError } from "./errors.ts";
import { expandInput } from "./llm-context.ts";
import type { Agent, AgentInput } from "./types.ts";

/** The two text formats. */
export type TextAgentStyle = "react" | "act";

/** Name of the pseudo-action that sends a message to the user. */
export const RESPOND_ACTION = "respond";

/** Prefix of a tool result shown to the model (the user's own words are shown as they are). */
export const OBSERVATION_PREFIX = "API output: ";

/** State of a text agent: its own text transcript (what the model sees) and a call counter. */
export interface TextAgentState {
  transcript: LlmMessage[];
  /** Tool calls issued so far; numbers the ids we invent (no provider ids without function calling). */
  callCount: number;
}

/** One parsed action. */
export interface TextAction {
  name: string;
  arguments: Record<string, unknown>;
}

const EXAMPLE_TOOL = {
  type: "function",
  function: {
    name: "get_current_weather",
    description: "Get the current weather",
    parameters: {
      type: "object",
      properties: {
        location: { type: "string", description: "The city and state, e.g. San Francisco, CA" },
        format: {
          type: "string",
          enum: ["celsius", "fahrenheit"],
          description: "The temperature unit to use. Infer this from the user's location.",
        },
      },
      required: ["location", "format"],
    },
  },
};

/** The format instructions after the tool list (also the original τ-bench ReAct/Act agents' fallback wording). */
export function textAgentInstruction(style: TextAgentStyle): string {
  const react = style === "react";
  const format = react
    ? [
        "Thought:",
        "<one line of reasoning about the conversation so far that decides what to do next; no extra lines>",
        "Action:",
        '{"name": <the name of the action>, "arguments": <the arguments of the action, as a JSON object>}',
      ]
    : [
        "Action:",
        '{"name": <the name of the action>, "arguments": <the arguments of the action, as a JSON object>}',
      ];
  const toolTurn = react
    ? [
        "Thought:",
        "The user wants the weather in San Francisco in Fahrenheit, so I call get_current_weather with that location and format.",
        "Action:",
        '{"name": "get_current_weather", "arguments": {"location": "San Francisco, CA", "format": "fahrenheit"}}',
      ]
    : [
        "Action:",
        '{"name": "get_current_weather", "arguments": {"location": "San Francisco, CA", "format": "fahrenheit"}}',
      ];
  const answerTurn = react
    ? [
        "Thought:",
        "I have what I need to answer the user.",
        "Action:",
        '{"name": "respond", "arguments": {"content": "It is currently 70F in San Francisco."}}',
      ]
    : ["Action:", '{"name": "respond", "arguments": {"content": "It is currently 70F in San Francisco."}}'];
  return [
    "# Instruction",
    "You are an agent who uses the tools above to help the user, following the policy above.",
    "",
    "Every reply you write must have exactly this format:",
    ...format,
    "",
    "The action is read by a program, so it must be valid JSON.",
    `To send a message to the user, use the action "${RESPOND_ACTION}" with one argument, "content", holding the message.`,
    `Each tool result comes back to you as a message starting with "${OBSERVATION_PREFIX.trim()}"; the user's messages come back as they are.`,
    "Never use invented or placeholder argument values.",
    "",
    "For example, suppose the user says they want to know the current weather in San Francisco, and this tool is available:",
    JSON.stringify(EXAMPLE_TOOL, null, 2),
    "",
    "Your reply could then be:",
    ...toolTurn,
    "",
    'If the tool then returns "70F", your next reply could be:',
    ...answerTurn,
    "",
    "Be helpful and follow the policy at all times.",
  ].join("\n");
}

/** The text agent's system prompt: policy, the tool list as JSON, then the format instructions. */
export function textAgentSystemPrompt(
  style: TextAgentStyle,
  policy: string,
  tools: readonly ToolSchema[],
): string {
  return `${policy}\n#Available tools\n${pyDumps(tools, { ensureAscii: false })}\n${textAgentInstruction(style)}`;
}

/** Renders an action the way the model is asked to write it (used for history the model did not write). */
export function formatAction(action: TextAction): string {
  return `Action:\n${pyDumps({ name: action.name, arguments: action.arguments }, { ensureAscii: false })}`;
}

/** The text after the last `Action:` marker, with markdown code fences removed. */
function actionText(reply: string): string | null {
  const marker = reply.lastIndexOf("Action:");
  if (marker < 0) return null;
  let text = reply.slice(marker + "Action:".length).trim();
  const fenced = /^```[a-zA-Z]*\s*\n?([\s\S]*?)\n?```/.exec(text);
  if (fenced) text = fenced[1]!.trim();
  return text;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Map) &&
    !(value instanceof PyFloat)
  );
}

/**
 * Parses the action of a ReAct/Act reply. Numbers keep Python int/float
 * distinctions. Throws {@link AgentOutputError} with the reason on failure.
 */
export function parseTextAction(agentName: string, reply: string): TextAction {
  const text = actionText(reply);
  if (text === null) throw new AgentOutputError(agentName, 'the reply has no "Action:" line', reply);
  if (text === "") throw new AgentOutputError(agentName, 'nothing follows "Action:"', reply);
  let value: unknown;
  try {
    value = parsePyJson(text);
  } catch (error) {
    // Models often add a sentence after the JSON: retry on the outermost braces.
    const start = text.indexOf("{");
    const end = text.lastIndexOf("}");
    if (start < 0 || end <= start) {
      throw new AgentOutputError(agentName, "the action is not a JSON object", reply, { cause: error });
    }
    try {
      value = parsePyJson(text.slice(start, end + 1));
    } catch (inner) {
      const detail = inner instanceof Error ? inner.message : String(inner);
      throw new AgentOutputError(agentName, `the action is not valid JSON (${detail})`, reply, {
        cause: inner,
      });
    }
  }
  if (!isPlainObject(value)) throw new AgentOutputError(agentName, "the action is not a JSON object", reply);
  const name = value.name;
  if (typeof name !== "string" || name === "") {
    throw new AgentOutputError(agentName, 'the action has no "name" string', reply);
  }
  const args = value.arguments ?? {};
  if (!isPlainObject(args)) {
    throw new AgentOutputError(agentName, 'the action\'s "arguments" is not a JSON object', reply);
  }
  return { name, arguments: args };
}

/** A ReAct or Act agent over an {@link LlmClient} (plain text in, plain text out). */
export class TextAgent implements Agent<TextAgentState> {
  readonly name: string;
  readonly style: TextAgentStyle;
  private readonly llm: LlmClient;
  private readonly systemPrompt: string;
  private llmArgs: Record<string, unknown>;

  constructor(options: {
    style: TextAgentStyle;
    llm: LlmClient;
    tools: ToolSchema[];
    policy: string;
    llmArgs?: Record<string, unknown>;
  }) {
    this.style = options.style;
    this.name = options.style;
    this.llm = options.llm;
    this.systemPrompt = textAgentSystemPrompt(options.style, options.policy, options.tools);
    this.llmArgs = { ...(options.llmArgs ?? {}) };
  }

  /** The provider arguments the next call will use. */
  get args(): Readonly<Record<string, unknown>> {
    return this.llmArgs;
  }

  initState(history: readonly Message[]): TextAgentState {
    const transcript: LlmMessage[] = [{ role: "system", content: this.systemPrompt }];
    for (const message of history) transcript.push(...this.render(message));
    return { transcript, callCount: 0 };
  }

  /** How a trajectory message appears in the model's text transcript. */
  private render(message: Message): LlmMessage[] {
    switch (message.role) {
      case "user":
        return message.content !== null ? [{ role: "user", content: message.content }] : [];
      case "assistant": {
        const actions: TextAction[] = (message.tool_calls ?? []).map((call) => ({
          name: call.name,
          arguments: call.arguments,
        }));
        if (message.tool_calls === null && message.content !== null) {
          actions.push({ name: RESPOND_ACTION, arguments: { content: message.content } });
        }
        return actions.length > 0
          ? [{ role: "assistant", content: actions.map(formatAction).join("\n") }]
          : [];
      }
      case "tool":
        return [{ role: "user", content: `${OBSERVATION_PREFIX}${message.content ?? ""}` }];
      case "system":
        return [];
      default: {
        const never: never = message;
        throw new AgentError(this.name, `unsupported message ${JSON.stringify(never)}`);
      }
    }
  }

  async generate(
    input: AgentInput,
    state: TextAgentState,
    signal?: AbortSignal,
  ): Promise<{ message: AssistantMessage; state: TextAgentState }> {
    const transcript = [...state.transcript];
    for (const message of expandInput(input)) transcript.push(...this.render(message));
    const response = await this.llm.generate({
      messages: transcript,
      args: { ...this.llmArgs },
      callName: "agent",
      ...(signal ? { signal } : {}),
    });
    const reply = response.content ?? "";
    if (reply.trim() === "")
      throw new AgentOutputError(this.name, "the model returned an empty reply", reply);
    const action = parseTextAction(this.name, reply);
    let callCount = state.callCount;
    let content: string | null = null;
    let toolCalls: ToolCall[] | null = null;
    if (action.name === RESPOND_ACTION) {
      const text = action.arguments.content;
      if (typeof text !== "string" || text.trim() === "") {
        throw new AgentOutputError(
          this.name,
          `the "${RESPOND_ACTION}" action needs a non-empty "content" string`,
          reply,
        );
      }
      content = text;
    } else {
      callCount += 1;
      toolCalls = [
        {
          id: `${this.name}_call_${callCount}`,
          name: action.name,
          arguments: action.arguments,
          requestor: "assistant",
        },
      ];
    }
    const message = assistantMessage({
      content,
      tool_calls: toolCalls,
      timestamp: nowIso(),
      cost: response.costUsd,
      usage: response.usage,
      // The Thought lives only in the model's text: keep it with the provider body.
      raw_data: { text: reply, ...(response.raw !== undefined ? { response: response.raw } : {}) },
      generation_time_seconds: response.generationTimeSeconds ?? null,
    });
    transcript.push({ role: "assistant", content: reply });
    return { message, state: { transcript, callCount } };
  }

  isStop(_message: AssistantMessage): boolean {
    return false;
  }

  setSeed(seed: number): void {
    this.llmArgs = { ...this.llmArgs, seed };
  }
}
