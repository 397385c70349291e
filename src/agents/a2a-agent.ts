/**
 * An agent that speaks the A2A protocol (`--agent-a2a URL`), through the
 * official `@a2a-js/sdk` client (docs/agent-protocol.md, "A2A"). One A2A
 * context per simulation (its id is the simulation id): the first message
 * carries the episode (policy, tools, the conversation so far) as a data part,
 * every message carries what is new for the agent (the customer's words as
 * text, tool results as a data part), and the agent answers with text for the
 * customer and/or a `tau/tool_calls` data part, which the harness executes.
 * Calls get the provider clients' timeouts, retries and error classes.
 */
import { randomUUID } from "node:crypto";
import {
  type AssistantMessage,
  assistantMessage,
  type Message,
  nowIso,
  type ToolCall,
  type ToolMessage,
} from "../core/messages.ts";
import { PyFloat, type PyValue, parsePyJson } from "../core/py-json.ts";
import { typeNumbersBySchema } from "../env/number-kinds.ts";
import type { ToolSchema } from "../env/toolkit.ts";
import { kindForStatus, LlmError, type LlmErrorKind, parseRetryAfter } from "../llm/errors.ts";
import { DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS, type RetryPolicy, withRetry } from "../llm/retry.ts";
import { parseAgentUrl } from "./chat-completions-agent.ts";
import { AgentError } from "./errors.ts";
import { expandInput } from "./llm-context.ts";
import { AGENT_INSTRUCTION } from "./prompts.ts";
import type { AgentContext, AgentDefinition } from "./registry.ts";
import type { Agent, AgentInput } from "./types.ts";

/** The `type` of taubench's data parts. */
export const A2A_PARTS = {
  /** First message: policy, tools and the conversation so far. */
  episode: "tau/episode",
  /** Results of the agent's tool calls, in call order. */
  toolResults: "tau/tool_results",
  /** The agent's tool calls. */
  toolCalls: "tau/tool_calls",
} as const;

/** Options of {@link a2aAgent}. */
export interface A2aAgentOptions {
  /** The agent's base URL (its card is at `<url>/.well-known/agent-card.json`). */
  url: string;
  /** Sent as `Authorization: Bearer <key>` (the CLI reads `TAU_AGENT_API_KEY`). */
  apiKey?: string;
  /** Recorded as `agent_info.implementation`; default `a2a_agent`. */
  name?: string;
  /** Per-attempt timeout; default 600 000 ms; null = none. */
  timeoutMs?: number | null;
  retry?: Partial<RetryPolicy>;
}

type A2aClient = {
  sendMessage(params: unknown, options?: { signal?: AbortSignal }): Promise<any>;
  getTask(
    params: { tenant: string; id: string; historyLength?: number },
    options?: { signal?: AbortSignal },
  ): Promise<any>;
};

/** One A2A conversation (context) per simulation. */
export interface A2aState {
  contextId: string;
  /** The episode part is sent with the first message only. */
  started: boolean;
  /** A task the agent left waiting for input (`input-required`), continued by the next message. */
  taskId: string;
  /** The conversation before the agent's first turn (greeting, a task's message history). */
  history: readonly Message[];
}

/** An agent definition for an A2A agent at `url`. */
export function a2aAgent(options: A2aAgentOptions): AgentDefinition {
  const endpoint = parseAgentUrl(options.url, "--agent-a2a");
  const name = options.name ?? "a2a_agent";
  const label = `A2A agent at ${endpoint.url}`;
  const authorization = options.apiKey ? `Bearer ${options.apiKey}` : endpoint.authorization;
  const settings = {
    label,
    retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    timeoutMs: options.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : options.timeoutMs,
  };
  let client: Promise<A2aClient> | undefined;
  const connect = (signal?: AbortSignal): Promise<A2aClient> => {
    client ??= createClient(endpoint.url, label, authorization, settings, signal).catch((error: unknown) => {
      client = undefined;
      throw error;
    });
    return client;
  };
  return {
    name,
    description: `A2A agent at ${endpoint.url}`,
    soloMode: false,
    needsLlm: false,
    instructions: AGENT_INSTRUCTION,
    origin: { adapter: "a2a", llm: null, endpoint: endpoint.url },
    // A2A's own discovery (the agent card), then an authenticated call that starts nothing: `tasks/get` of a
    // task that does not exist. Its "task not found" means the agent is there and took the credentials.
    async preflight(check) {
      const once = { retry: { ...settings.retry, maxRetries: 0 }, timeoutMs: check.timeoutMs };
      const probe = await createClient(endpoint.url, label, authorization, once, check.signal);
      try {
        await probe.getTask(
          { tenant: "", id: `taubench-preflight-${randomUUID()}`, historyLength: 0 },
          {
            signal: AbortSignal.any([
              AbortSignal.timeout(check.timeoutMs),
              ...(check.signal ? [check.signal] : []),
            ]),
          },
        );
      } catch (error) {
        if (error instanceof LlmError) throw error;
        if (check.signal?.aborted) throw error;
        if ((error as Error).name === "TimeoutError")
          throw new LlmError(`${label}: timeout: no answer to tasks/get within ${check.timeoutMs / 1000} s`, {
            kind: "timeout",
            model: label,
            cause: error,
          });
        // An A2A error (task not found, or not supported): the agent answered.
      }
    },
    create: (ctx) => new A2aAgent(name, ctx, connect, settings),
  };
}

/** A fetch that turns HTTP failures into {@link LlmError}s, so retries and run stops work as for providers. */
function classifyingFetch(label: string, authorization: string | undefined): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    if (authorization && !headers.has("authorization")) headers.set("authorization", authorization);
    let response: Response;
    try {
      response = await fetch(input, { ...init, headers });
    } catch (error) {
      if (init?.signal?.aborted) throw init.signal.reason ?? error;
      const reason =
        error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : "";
      throw new LlmError(`${label}: network error: ${reason}`, {
        kind: "network",
        model: label,
        cause: error,
      });
    }
    if (response.ok) return response;
    const body = await response.text().catch(() => "");
    const kind = kindForStatus(response.status, body);
    const retryAfterMs = parseRetryAfter(Object.fromEntries(response.headers));
    throw new LlmError(
      `${label}: HTTP ${response.status} (${kind.replace("_", " ")}): ${body.replace(/\s+/g, " ").slice(0, 200)}`,
      {
        kind,
        model: label,
        statusCode: response.status,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      },
    );
  };
}

/** Any other failure of the SDK (a malformed card or reply, a JSON-RPC error) as an infrastructure error. */
function classify(label: string) {
  return (error: unknown): LlmError =>
    error instanceof LlmError
      ? error
      : new LlmError(`${label}: ${error instanceof Error ? error.message : String(error)}`, {
          kind: "invalid_response",
          model: label,
          cause: error,
        });
}

async function createClient(
  url: string,
  label: string,
  authorization: string | undefined,
  settings: { retry: RetryPolicy; timeoutMs: number | null },
  signal: AbortSignal | undefined,
): Promise<A2aClient> {
  const sdk = await import("@a2a-js/sdk/client");
  const fetchImpl = classifyingFetch(label, authorization);
  const factory = new sdk.ClientFactory(
    sdk.ClientFactoryOptions.createFrom(sdk.ClientFactoryOptions.default, {
      transports: [
        new sdk.JsonRpcTransportFactory({ fetchImpl }),
        new sdk.RestTransportFactory({ fetchImpl }),
      ],
      cardResolver: new sdk.DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  // What is not an HTTP failure here is the card itself (not JSON, no interface the client speaks):
  // it would fail every simulation alike, so the pre-flight stops on it (kind bad_request).
  const unusableCard = (error: unknown): LlmError =>
    error instanceof LlmError
      ? error
      : new LlmError(
          `${label}: its agent card (${cardUrl}) cannot be used: ${error instanceof Error ? error.message : String(error)}`,
          { kind: "bad_request", model: label, cause: error },
        );
  // The SDK resolves the card path against the URL: with a trailing slash it stays under the URL's path.
  const base = `${url.replace(/\/$/, "")}/`;
  const cardUrl = new URL(".well-known/agent-card.json", base).href;
  const { value } = await withRetry(() => factory.createFromUrl(base), {
    model: label,
    policy: settings.retry,
    timeoutMs: settings.timeoutMs,
    signal,
    classify: unusableCard,
  });
  return value as unknown as A2aClient;
}

/** A text part and a data part in the SDK's (v1.0 protobuf) shape. */
const textPart = (text: string) => ({
  content: { $case: "text", value: text },
  metadata: undefined,
  filename: "",
  mediaType: "text/plain",
});
const dataPart = (value: unknown) => ({
  content: { $case: "data", value },
  metadata: undefined,
  filename: "",
  mediaType: "application/json",
});

/** Our messages in the episode part's `history` (OpenAI-like, plain JSON). */
function historyEntry(message: Message): Record<string, unknown> {
  switch (message.role) {
    case "assistant":
    case "user":
      return {
        role: message.role,
        content: message.content,
        ...(message.tool_calls
          ? {
              tool_calls: message.tool_calls.map(({ id, name, arguments: args }) => ({
                id,
                name,
                arguments: args,
              })),
            }
          : {}),
      };
    case "tool":
      return { role: "tool", id: message.id, content: message.content, error: message.error };
    case "system":
      return { role: "system", content: message.content };
    default: {
      const never: never = message;
      throw new TypeError(`unknown message ${String(never)}`);
    }
  }
}

/** A JSON value with PyFloats as plain numbers (the wire is JSON). */
function plain(value: unknown): unknown {
  if (value instanceof PyFloat) return value.value;
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plain(item)]));
  return value;
}

/**
 * Task states in which the service gave up on the conversation (A2A `TaskState`), and how each fails
 * the call. `rejected` is not among them: an agent that refuses a task has failed it (agent_error,
 * scored 0), or refusing hard tasks would drop them from its pass^k.
 */
const ENDED_STATES: Record<number, { name: string; kind: LlmErrorKind }> = {
  4: { name: "failed", kind: "server" },
  5: { name: "canceled", kind: "server" },
  8: { name: "auth-required", kind: "auth" },
};

class A2aAgent implements Agent<A2aState> {
  private readonly schemas: Map<string, ToolSchema>;

  constructor(
    readonly name: string,
    private readonly ctx: AgentContext,
    private readonly connect: (signal?: AbortSignal) => Promise<A2aClient>,
    private readonly settings: { label: string; retry: RetryPolicy; timeoutMs: number | null },
  ) {
    this.schemas = new Map(ctx.tools.map((tool) => [tool.function.name, tool]));
  }

  initState(history: readonly Message[]): A2aState {
    return { contextId: this.ctx.simulationId ?? randomUUID(), started: false, taskId: "", history };
  }

  isStop(): boolean {
    return false;
  }

  async generate(
    input: AgentInput,
    state: A2aState,
    signal?: AbortSignal,
  ): Promise<{ message: AssistantMessage; state: A2aState }> {
    const parts: unknown[] = [];
    if (!state.started)
      parts.push(
        dataPart({
          type: A2A_PARTS.episode,
          domain: this.ctx.domainName,
          task_id: this.ctx.task.id,
          policy: this.ctx.policy,
          tools: this.ctx.tools,
          history: plain(state.history.map(historyEntry)),
        }),
      );
    const delivered = expandInput(input);
    const results = delivered.filter((message): message is ToolMessage => message.role === "tool");
    if (results.length > 0)
      parts.push(
        dataPart({
          type: A2A_PARTS.toolResults,
          results: results.map((result) => ({ id: result.id, content: result.content, error: result.error })),
        }),
      );
    for (const message of delivered)
      if (message.role === "user" && message.content) parts.push(textPart(message.content));
    const request = {
      tenant: "",
      message: {
        messageId: randomUUID(),
        contextId: state.contextId,
        taskId: state.taskId,
        role: 1, // ROLE_USER: taubench speaks for the customer and the environment
        parts,
        metadata: {
          "tau/simulation_id": state.contextId,
          "tau/task_id": this.ctx.task.id,
          ...(this.ctx.trial !== undefined ? { "tau/trial": this.ctx.trial } : {}),
        },
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata: undefined,
    };
    const client = await this.connect(signal);
    const started = performance.now();
    const { value: result } = await withRetry(
      (attemptSignal) => client.sendMessage(request, { signal: attemptSignal }),
      {
        model: this.settings.label,
        policy: this.settings.retry,
        timeoutMs: this.settings.timeoutMs,
        signal,
        onEvent: this.ctx.onLlmEvent,
        classify: classify(this.settings.label),
      },
    );
    const reply = this.readReply(result);
    if (reply.text === null && reply.calls.length === 0)
      throw this.badReply("it has neither text nor tool calls", "empty_response");
    const message = assistantMessage({
      content: reply.text,
      tool_calls: reply.calls.length > 0 ? reply.calls : null,
      timestamp: nowIso(),
      cost: null,
      generation_time_seconds: (performance.now() - started) / 1000,
    });
    return { message, state: { ...state, started: true, taskId: reply.waitingTaskId } };
  }

  /** The agent's answer: a Message, or a Task whose status message and artifacts carry it. */
  private readReply(result: any): { text: string | null; calls: ToolCall[]; waitingTaskId: string } {
    const isTask = result && typeof result === "object" && "status" in result && "artifacts" in result;
    const parts: any[] = isTask
      ? [
          ...(result.artifacts ?? []).flatMap((artifact: any) => artifact.parts ?? []),
          ...(result.status?.message?.parts ?? []),
        ]
      : (result?.parts ?? []);
    // TASK_STATE_INPUT_REQUIRED (6): the agent waits for the next message within the same task.
    const waitingTaskId = isTask && result.status?.state === 6 ? String(result.id) : "";
    const texts: string[] = [];
    const calls: ToolCall[] = [];
    for (const part of parts) {
      const content = part?.content;
      if (content?.$case === "text") texts.push(content.value);
      else if (content?.$case === "data" && content.value?.type === A2A_PARTS.toolCalls) {
        if (!Array.isArray(content.value.calls))
          throw this.badReply(
            `its ${A2A_PARTS.toolCalls} part has no calls list (calls: ${JSON.stringify(content.value.calls) ?? "missing"})`,
          );
        for (const call of content.value.calls) calls.push(this.toolCall(call));
      }
    }
    const text = texts.join("\n");
    const state = isTask ? (result.status?.state as number | undefined) : undefined;
    if (state === 7 || (state !== undefined && state in ENDED_STATES)) {
      // What the agent said with the state, as one short line.
      const said = text.trim() === "" ? "" : `: ${text.replace(/\s+/g, " ").slice(0, 200)}`;
      if (state === 7) throw new AgentError(this.name, `the agent rejected the task${said}`);
      const ended = ENDED_STATES[state]!;
      throw new LlmError(`${this.settings.label}: the agent's task ended as ${ended.name}${said}`, {
        kind: ended.kind,
        model: this.settings.label,
      });
    }
    return { text: text.trim() === "" ? null : text, calls, waitingTaskId };
  }

  /** A reply that breaks the protocol: an infrastructure error like a provider's unreadable reply (docs/agent-protocol.md). */
  private badReply(what: string, kind: LlmErrorKind = "invalid_response", cause?: unknown): LlmError {
    return new LlmError(`${this.settings.label}: the agent's reply is not valid: ${what}`, {
      kind,
      model: this.settings.label,
      ...(cause === undefined ? {} : { cause }),
    });
  }

  /** One call of a `tau/tool_calls` part; string arguments are read like an LLM's (`2.0` stays a float). */
  private toolCall(call: any): ToolCall {
    if (!call || typeof call.name !== "string" || call.name === "")
      throw this.badReply(`a ${A2A_PARTS.toolCalls} entry has no name: ${JSON.stringify(call)}`);
    let args: unknown = call.arguments ?? {};
    if (typeof args === "string") {
      try {
        args = parsePyJson(args === "" ? "{}" : args) as PyValue;
      } catch (error) {
        throw this.badReply(
          `tool call ${call.name} has arguments that are not valid JSON`,
          "invalid_tool_arguments",
          error,
        );
      }
    } else if (args !== null && typeof args === "object" && !Array.isArray(args)) {
      const schema = this.schemas.get(call.name);
      if (schema) args = typeNumbersBySchema(args as Record<string, unknown>, schema.function.parameters);
    }
    if (args === null || typeof args !== "object" || Array.isArray(args) || args instanceof PyFloat)
      throw this.badReply(`tool call ${call.name} has arguments that are not a JSON object`);
    return {
      id: typeof call.id === "string" && call.id !== "" ? call.id : `a2a_${randomUUID()}`,
      name: call.name,
      arguments: args as Record<string, unknown>,
      requestor: "assistant",
    };
  }
}
