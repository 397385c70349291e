/**
 * An agent behind a URL that speaks OpenAI Chat Completions (`--agent-url`,
 * docs/agent-protocol.md): every turn POSTs `BASE_URL/chat/completions` with
 * the system prompt of `llm_agent` (instructions + policy), the conversation
 * and the domain tools, plus headers naming the simulation; the reply is text
 * or tool calls, which the harness executes. Calls get the provider clients'
 * timeouts, retries and error classes: an unreachable service is an
 * infrastructure error, a 401/403 stops the run.
 */
import { UsageError } from "../core/errors.ts";
import { LlmError } from "../llm/errors.ts";
import { ProviderLlmClient } from "../llm/provider-client.ts";
import { BUNDLED_PRICES } from "../llm/prices.ts";
import { DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS, type RetryPolicy } from "../llm/retry.ts";
import type { LlmClient, LlmRequest, LlmResponse } from "../llm/types.ts";
import { LlmAgent } from "./llm-agent.ts";
import { AGENT_INSTRUCTION, agentSystemPrompt } from "./prompts.ts";
import type { AgentContext, AgentDefinition } from "./registry.ts";

/** Headers every call carries, so a stateful service can keep its own memory per simulation. */
export const AGENT_HEADERS = {
  simulationId: "x-tau-simulation-id",
  taskId: "x-tau-task-id",
  trial: "x-tau-trial",
  domain: "x-tau-domain",
} as const;

/** Options of {@link chatCompletionsAgent}. */
export interface ChatCompletionsAgentOptions {
  /** Like an OpenAI base URL: `http://host:port/v1` (we POST `<baseUrl>/chat/completions`). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <key>` (the CLI reads `TAU_AGENT_API_KEY`). */
  apiKey?: string;
  /** The request's `model` field (a service may ignore it); default `taubench-agent`. */
  model?: string;
  /** Recorded as `agent_info.implementation`; default `chat_completions_agent`. */
  name?: string;
  /** Per-attempt timeout; default 600 000 ms; null = none. */
  timeoutMs?: number | null;
  retry?: Partial<RetryPolicy>;
}

/** A URL split into what we call and what we record: credentials never reach results or logs. */
export interface AgentEndpoint {
  /** The URL without user info (recorded, and called). */
  url: string;
  /** `Authorization` value made from user info in the URL, if it had any. */
  authorization?: string;
}

/** Parses an agent URL (`http(s)://[user:pass@]host[:port]/path`); one clear line when it is not one. */
export function parseAgentUrl(text: string, flag = "--agent-url"): AgentEndpoint {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${flag} must be an http(s) URL such as http://127.0.0.1:8000/v1, got '${text}'`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`${flag} must be an http(s) URL, got '${text}'`);
  if (url.search !== "" || url.hash !== "")
    throw new UsageError(
      `${flag} takes a base URL without query or fragment, got '${url.origin}${url.pathname}…'`,
    );
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = "";
  url.password = "";
  const clean = url.toString().replace(/\/+$/, "");
  if (user === "" && password === "") return { url: clean };
  return {
    url: clean,
    authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
  };
}

/** Adds fixed headers to every request of a client. */
function withHeaders(client: LlmClient, headers: Record<string, string>): LlmClient {
  return {
    model: client.model,
    generate: (request: LlmRequest): Promise<LlmResponse> =>
      client.generate({ ...request, headers: { ...request.headers, ...headers } }),
  };
}

/** The headers that tell the service which simulation a call belongs to. */
export function simulationHeaders(ctx: AgentContext): Record<string, string> {
  return {
    ...(ctx.simulationId ? { [AGENT_HEADERS.simulationId]: ctx.simulationId } : {}),
    [AGENT_HEADERS.taskId]: ctx.task.id,
    ...(ctx.trial !== undefined ? { [AGENT_HEADERS.trial]: String(ctx.trial) } : {}),
    [AGENT_HEADERS.domain]: ctx.domainName,
  };
}

/**
 * One request that starts no conversation, for the pre-flight: `GET <url><path>` with the agent's
 * credentials. Unreachable, timed out, or 401/403 throws an {@link LlmError} (`network`, `timeout`,
 * `auth`); any other answer means the service is there. Returns the response.
 */
export async function probeAgentService(
  label: string,
  url: string,
  authorization: string | undefined,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<Response> {
  const signals = [AbortSignal.timeout(options.timeoutMs), ...(options.signal ? [options.signal] : [])];
  let response: Response;
  try {
    response = await fetch(url, {
      headers: authorization ? { authorization } : {},
      signal: AbortSignal.any(signals),
    });
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason ?? error;
    const timedOut = (error as Error).name === "TimeoutError";
    const reason = timedOut
      ? `no answer within ${options.timeoutMs / 1000} s`
      : (((error as Error).cause as Error | undefined)?.message ?? (error as Error).message);
    throw new LlmError(`${label}: ${timedOut ? "timeout" : "network error"}: ${reason}`, {
      kind: timedOut ? "timeout" : "network",
      model: label,
      cause: error,
    });
  }
  if (response.status === 401 || response.status === 403) {
    const body = await response.text().catch(() => "");
    throw new LlmError(
      `${label}: HTTP ${response.status} (auth) on GET ${url}: ${body.replace(/\s+/g, " ").slice(0, 200)}`,
      { kind: "auth", model: label, statusCode: response.status },
    );
  }
  return response;
}

/** An agent definition for a Chat Completions agent service. */
export function chatCompletionsAgent(options: ChatCompletionsAgentOptions): AgentDefinition {
  const endpoint = parseAgentUrl(options.baseUrl);
  const name = options.name ?? "chat_completions_agent";
  const modelId = options.model ?? "taubench-agent";
  const label = `agent at ${endpoint.url}`;
  const fixedHeaders: Record<string, string> =
    endpoint.authorization && options.apiKey === undefined ? { authorization: endpoint.authorization } : {};
  return {
    name,
    description: `Agent service at ${endpoint.url} (OpenAI Chat Completions)`,
    soloMode: false,
    needsLlm: false,
    instructions: AGENT_INSTRUCTION,
    origin: { adapter: "chat-completions", llm: null, endpoint: endpoint.url },
    // OpenAI's model list (`GET <url>/models`): served by OpenAI-compatible servers, and no conversation.
    async preflight(check) {
      const response = await probeAgentService(
        label,
        `${endpoint.url}/models`,
        options.apiKey === undefined ? endpoint.authorization : `Bearer ${options.apiKey}`,
        check,
      );
      await response.body?.cancel();
    },
    create: (ctx) => {
      const client = new ProviderLlmClient({
        model: label,
        provider: "local",
        modelId,
        apiKey: options.apiKey,
        apiKeyVariable: undefined,
        baseUrl: endpoint.url,
        promptCache: false,
        priceTable: BUNDLED_PRICES,
        retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
        timeoutMs: options.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : options.timeoutMs,
        onEvent: ctx.onLlmEvent,
      });
      return new LlmAgent({
        name,
        llm: withHeaders(client, { ...fixedHeaders, ...simulationHeaders(ctx) }),
        tools: ctx.tools,
        systemPrompt: agentSystemPrompt(AGENT_INSTRUCTION, ctx.policy),
        llmArgs: ctx.llmArgs,
        toolChoice: "auto",
      });
    },
  };
}
