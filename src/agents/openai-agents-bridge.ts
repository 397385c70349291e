/**
 * The OpenAI Agents SDK bridge: an `Agent` built with `@openai/agents` (its
 * own instructions, model, tools, handoffs, guardrails) plays the agent, run
 * by the SDK's own runner. The domain tools are added to it (and to every
 * agent it can hand off to) as tools that need approval, so the SDK stops at
 * each call to one of them: the bridge hands the calls to the harness, which
 * executes them on the episode's environment and records the tool messages as
 * for any agent; their results resume the run. The SDK is an optional peer,
 * loaded on the first turn.
 */
import { PyFloat, type PyValue, parsePyJson, pyDumps } from "../core/py-json.ts";
import {
  type AssistantMessage,
  assistantMessage,
  type Message,
  nowIso,
  type Usage,
} from "../core/messages.ts";
import type { ToolSchema } from "../env/toolkit.ts";
import { kindForStatus, LlmError } from "../llm/errors.ts";
import type { LlmEventListener } from "../llm/events.ts";
import { lookupPrice, usageCostUsd } from "../llm/prices.ts";
import { AgentError } from "./errors.ts";
import { expandInput } from "./llm-context.ts";
import type { AgentDefinition } from "./registry.ts";
import type { Agent, AgentInput } from "./types.ts";

/** What the bridge needs of an `@openai/agents` `Agent` (kept structural so taubench's types do not require the SDK). */
export interface OpenAIAgentLike {
  name: string;
  model?: unknown;
  instructions?: unknown;
  tools: unknown[];
  handoffs: unknown[];
  clone(config: Record<string, unknown>): OpenAIAgentLike;
}

/** Options of {@link openaiAgentsBridge}. */
export interface OpenAIAgentsBridgeOptions {
  /** Recorded as `agent_info.implementation`; default `openai_agents_sdk`. */
  name?: string;
  description?: string;
  /**
   * The model as `provider/model`, for results and prices; default `openai/<agent.model>` when the
   * agent names its model as a string.
   */
  llm?: string;
  /** The SDK runner's turn limit per agent reply (model calls until text or a domain tool call); default 50. */
  maxTurns?: number;
  /**
   * `append` (default): every agent of the graph gets the domain policy after its own instructions,
   * in a `<policy>` block, as taubench's agents see it; `none`: the agents' instructions as they are.
   */
  policy?: "append" | "none";
  /** Send the SDK's traces to its tracing exporter (off by default: a benchmark run sends nothing but model calls). */
  tracing?: boolean;
}

type Sdk = typeof import("@openai/agents");
let sdkPromise: Promise<Sdk> | undefined;

/** Loads `@openai/agents` once; a missing package is one clear line. */
function loadSdk(): Promise<Sdk> {
  sdkPromise ??= import("@openai/agents").catch((error: unknown) => {
    sdkPromise = undefined;
    throw new AgentError(
      "openai_agents_sdk",
      "the OpenAI Agents SDK is not installed: npm install @openai/agents (0.14.x runs on Node 20)",
      { cause: error },
    );
  });
  return sdkPromise;
}

/** The `provider/model` name the agent's model is priced under, when it can be told. */
function modelNameOf(agent: OpenAIAgentLike, options: OpenAIAgentsBridgeOptions): string | null {
  if (options.llm) return options.llm;
  return typeof agent.model === "string" && agent.model !== "" ? `openai/${agent.model}` : null;
}

/** An agent definition that evaluates an OpenAI Agents SDK `Agent` with the harness executing the domain tools. */
export function openaiAgentsBridge(
  agent: OpenAIAgentLike,
  options: OpenAIAgentsBridgeOptions = {},
): AgentDefinition {
  if (agent === null || typeof agent !== "object" || typeof agent.clone !== "function")
    throw new AgentError("openai_agents_sdk", "openaiAgentsBridge needs an Agent from @openai/agents");
  const name = options.name ?? "openai_agents_sdk";
  // A typo here would silently keep the policy from the agents (or run forever): say so at once.
  if (options.policy !== undefined && options.policy !== "append" && options.policy !== "none")
    throw new AgentError(
      name,
      `openaiAgentsBridge: policy must be "append" or "none", got ${JSON.stringify(options.policy)}`,
    );
  if (options.maxTurns !== undefined && !(Number.isInteger(options.maxTurns) && options.maxTurns >= 1))
    throw new AgentError(
      name,
      `openaiAgentsBridge: maxTurns must be an integer ≥ 1, got ${JSON.stringify(options.maxTurns)}`,
    );
  const llm = modelNameOf(agent, options);
  return {
    name,
    description: options.description ?? `OpenAI Agents SDK agent '${agent.name}'`,
    soloMode: false,
    needsLlm: false,
    ...(typeof agent.instructions === "string" ? { instructions: agent.instructions } : {}),
    origin: { adapter: "openai-agents", llm },
    create: (ctx) =>
      new OpenAIAgentsBridgeAgent(name, agent, ctx.tools, ctx.policy, {
        llm,
        maxTurns: options.maxTurns ?? 50,
        appendPolicy: (options.policy ?? "append") === "append",
        tracing: options.tracing ?? false,
        ...(ctx.onLlmEvent ? { onLlmEvent: ctx.onLlmEvent } : {}),
      }),
  };
}

/** The bridge's per-episode state. */
export interface BridgeState {
  /** The conversation in the SDK's input items, up to the last finished reply. */
  items: unknown[];
  /** The agent that answered last (handoffs move it); null = the entry agent. */
  current: unknown;
  /** A run stopped at domain tool calls, waiting for their results. */
  pending: { state: any; calls: Map<string, unknown>; responsesSeen: number } | null;
}

/** A domain tool's result for the SDK, by call id: filled from the tool messages before a run resumes. */
type ResultSlots = Map<string, string>;

class OpenAIAgentsBridgeAgent implements Agent<BridgeState> {
  private bound: { runner: any; sdk: Sdk; root: any; results: ResultSlots } | null = null;

  constructor(
    readonly name: string,
    private readonly entry: OpenAIAgentLike,
    private readonly tools: readonly ToolSchema[],
    private readonly policy: string,
    private readonly settings: {
      llm: string | null;
      maxTurns: number;
      appendPolicy: boolean;
      tracing: boolean;
      onLlmEvent?: LlmEventListener;
    },
  ) {}

  initState(history: readonly Message[]): BridgeState {
    return { items: history.flatMap(toInputItems), current: null, pending: null };
  }

  isStop(): boolean {
    return false;
  }

  async generate(
    input: AgentInput,
    state: BridgeState,
    signal?: AbortSignal,
  ): Promise<{ message: AssistantMessage; state: BridgeState }> {
    const { runner, root, results } = await this.bind();
    const runOptions = { maxTurns: this.settings.maxTurns, ...(signal ? { signal } : {}) };
    let result: any;
    let seen = 0;
    if (state.pending) {
      // Tool results for the calls the run stopped at: approve each, and the SDK runs our tools,
      // which hand back exactly what the environment answered.
      const messages = expandInput(input).filter((message) => message.role === "tool");
      for (const message of messages) results.set(message.id, message.content ?? "");
      const runState = state.pending.state;
      for (const interruption of runState.getInterruptions()) runState.approve(interruption);
      seen = state.pending.responsesSeen;
      result = await this.call(() => runner.run(root, runState, runOptions));
    } else {
      const items = [...state.items, ...expandInput(input).flatMap(toInputItems)];
      const start = (state.current ?? root) as any;
      result = await this.call(() => runner.run(start, items, runOptions));
    }
    const responses: any[] = result.rawResponses ?? [];
    const usage = this.account(responses.slice(seen));
    const interruptions: any[] = result.interruptions ?? [];
    if (interruptions.length > 0) {
      const foreign = interruptions.find((item) => !this.tools.some((t) => t.function.name === item.name));
      if (foreign)
        throw new AgentError(this.name, `the agent asked for approval of its own tool '${foreign.name}'`);
      const last = responses[responses.length - 1];
      const message = assistantMessage({
        content: outputText(last?.output ?? []),
        tool_calls: interruptions.map((item) => ({
          id: item.rawItem.callId,
          name: item.name,
          arguments: parseArguments(this.name, item.name, item.arguments ?? "{}"),
          requestor: "assistant" as const,
        })),
        timestamp: nowIso(),
        usage: usage.usage,
        cost: usage.cost,
      });
      const pending = { state: result.state, calls: new Map(), responsesSeen: responses.length };
      return { message, state: { ...state, pending } };
    }
    const output = result.finalOutput;
    const text = typeof output === "string" ? output : output === undefined ? null : JSON.stringify(output);
    const message = assistantMessage({
      content: text,
      tool_calls: null,
      timestamp: nowIso(),
      usage: usage.usage,
      cost: usage.cost,
    });
    return { message, state: { items: result.history, current: result.lastAgent ?? null, pending: null } };
  }

  /** Loads the SDK and binds the domain tools into the agent graph (once per episode). */
  private async bind(): Promise<{ runner: any; sdk: Sdk; root: any; results: ResultSlots }> {
    if (this.bound) return this.bound;
    const sdk = await loadSdk();
    const results: ResultSlots = new Map();
    const domainTools = this.tools.map((schema) =>
      sdk.tool({
        name: schema.function.name,
        description: schema.function.description,
        parameters: schema.function.parameters as any,
        strict: false,
        needsApproval: true,
        execute: async (_input: unknown, _context?: unknown, details?: { toolCall?: { callId: string } }) => {
          const callId = details?.toolCall?.callId;
          const content = callId === undefined ? undefined : results.get(callId);
          if (content === undefined)
            throw new AgentError(this.name, `no environment result for tool call ${String(callId)}`);
          return content;
        },
      }),
    );
    const names = new Set(this.tools.map((schema) => schema.function.name));
    const copies = new Map<unknown, any>();
    const withTools = (agent: any): any => {
      const known = copies.get(agent);
      if (known) return known;
      const copy = agent.clone({
        tools: [...agent.tools.filter((t: any) => !names.has(t?.name)), ...domainTools],
        ...(this.settings.appendPolicy ? { instructions: withPolicy(agent.instructions, this.policy) } : {}),
      });
      copies.set(agent, copy);
      copy.handoffs = agent.handoffs.map((target: any) =>
        target instanceof sdk.Handoff ? target.clone({ agent: withTools(target.agent) }) : withTools(target),
      );
      return copy;
    };
    const runner = new sdk.Runner({ tracingDisabled: !this.settings.tracing });
    this.bound = { runner, sdk, root: withTools(this.entry), results };
    return this.bound;
  }

  /** Runs the SDK, turning its failures into taubench's error classes. */
  private async call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw classifySdkError(error, this.name, this.settings.llm ?? this.entry.name);
    }
  }

  /** Usage and cost of the model calls of one reply; each call is reported to the run's accounting. */
  private account(responses: any[]): { usage: Usage | null; cost: number | null } {
    if (responses.length === 0) return { usage: null, cost: 0 };
    const price = this.settings.llm ? lookupPrice(this.settings.llm) : null;
    const total: Usage = { prompt_tokens: 0, completion_tokens: 0 };
    let cost: number | null = 0;
    for (const response of responses) {
      const usage = toUsage(response.usage);
      total.prompt_tokens += usage.prompt_tokens;
      total.completion_tokens += usage.completion_tokens;
      for (const key of ["cache_read_tokens", "reasoning_tokens"] as const) {
        if (usage[key]) total[key] = (total[key] ?? 0) + usage[key];
      }
      const callCost = price ? usageCostUsd(price, usage) : null;
      cost = cost === null || callCost === null ? null : cost + callCost;
      this.settings.onLlmEvent?.({
        type: "call",
        model: this.settings.llm ?? `openai-agents/${this.entry.name}`,
        callName: "agent",
        usage,
        costUsd: callCost,
        durationMs: 0,
        attempts: 1,
        cached: false,
      });
    }
    return { usage: total, cost };
  }
}

/** An agent's instructions (text or the SDK's function form) followed by the domain policy. */
function withPolicy(instructions: unknown, policy: string): unknown {
  const block = `<policy>\n${policy}\n</policy>`;
  const join = (text: unknown) =>
    typeof text === "string" && text.trim() !== "" ? `${text}\n${block}` : block;
  if (typeof instructions === "function")
    return async (...args: unknown[]) => join(await instructions(...args));
  return join(instructions);
}

function toUsage(usage: any): Usage {
  const out: Usage = { prompt_tokens: usage?.inputTokens ?? 0, completion_tokens: usage?.outputTokens ?? 0 };
  const sum = (details: unknown, key: string) =>
    (Array.isArray(details) ? details : []).reduce((n: number, d: any) => n + (Number(d?.[key]) || 0), 0);
  const cached = sum(usage?.inputTokensDetails, "cached_tokens");
  const reasoning = sum(usage?.outputTokensDetails, "reasoning_tokens");
  if (cached) out.cache_read_tokens = cached;
  if (reasoning) out.reasoning_tokens = reasoning;
  return out;
}

/** The text of a model response's message items, or null. */
function outputText(output: any[]): string | null {
  const texts: string[] = [];
  for (const item of output) {
    if (item?.type !== "message" || item.role !== "assistant") continue;
    for (const part of item.content ?? []) if (part?.type === "output_text") texts.push(part.text);
  }
  const text = texts.join("");
  return text.trim() === "" ? null : text;
}

/** Tool-call arguments as Python's `json.loads` reads the model's text (`2.0` stays a float). */
function parseArguments(agentName: string, tool: string, text: string): Record<string, unknown> {
  let value: PyValue;
  try {
    value = parsePyJson(text === "" ? "{}" : text);
  } catch (error) {
    throw new LlmError(`${agentName}: tool call ${tool} has arguments that are not valid JSON`, {
      kind: "invalid_tool_arguments",
      model: agentName,
      cause: error,
    });
  }
  if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof PyFloat)
    throw new LlmError(`${agentName}: tool call ${tool} has arguments that are not a JSON object`, {
      kind: "invalid_tool_arguments",
      model: agentName,
    });
  return value as Record<string, unknown>;
}

/** Our trajectory messages as the SDK's input items. */
function toInputItems(message: Message): unknown[] {
  switch (message.role) {
    case "user":
      return [{ role: "user", content: message.content ?? "" }];
    case "assistant": {
      const items: unknown[] = [];
      if (message.content)
        items.push({
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: message.content }],
        });
      for (const call of message.tool_calls ?? [])
        items.push({
          type: "function_call",
          callId: call.id,
          name: call.name,
          arguments: pyDumps(call.arguments as PyValue),
          status: "completed",
        });
      return items;
    }
    case "tool":
      return [
        {
          type: "function_call_result",
          callId: message.id,
          name: "",
          status: "completed",
          output: { type: "text", text: message.content ?? "" },
        },
      ];
    case "system":
      return [{ role: "system", content: message.content ?? "" }];
    default: {
      const never: never = message;
      throw new TypeError(`unknown message ${String(never)}`);
    }
  }
}

/** An SDK or OpenAI client failure as an {@link LlmError} (transport, HTTP) or an {@link AgentError} (the agent's own). */
function classifySdkError(error: unknown, agentName: string, model: string): Error {
  if (error instanceof LlmError || error instanceof AgentError) return error;
  for (let e: any = error, depth = 0; e && depth < 5; e = e.cause, depth++) {
    if (typeof e.status === "number") {
      const kind = kindForStatus(e.status, String(e.message ?? ""));
      return new LlmError(
        `${model}: HTTP ${e.status} (${kind.replace("_", " ")}): ${oneLine(String(e.message))}`,
        {
          kind,
          model,
          statusCode: e.status,
          cause: error,
        },
      );
    }
    if (/Connection|fetch failed|ECONNREFUSED|ETIMEDOUT/i.test(`${e.name} ${e.message} ${e.code ?? ""}`))
      return new LlmError(`${model}: network error: ${oneLine(String(e.message))}`, {
        kind: "network",
        model,
        cause: error,
      });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new AgentError(agentName, oneLine(message), { cause: error });
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
