/**
 * An agent behind a URL (`--agent-url`, `--agent-a2a`) as plain data, so it
 * can cross processes: a queue job carries it and every worker builds the
 * adapter and calls the URL itself. The key is never part of it: each process
 * passes its own (the CLI's and `tau worker`'s come from `TAU_AGENT_API_KEY`).
 */
import { a2aAgent } from "./a2a-agent.ts";
import { chatCompletionsAgent } from "./chat-completions-agent.ts";
import type { AgentDefinition } from "./registry.ts";

/** Which adapter, where, and its per-call timeout (absent: the adapter's default). */
export interface UrlAgentSpec {
  protocol: "chat-completions" | "a2a";
  url: string;
  timeoutMs?: number;
}

/** The adapter's definition for a spec, calling with `apiKey` when given. */
export function urlAgentDefinition(spec: UrlAgentSpec, apiKey: string | undefined): AgentDefinition {
  const common = {
    ...(apiKey ? { apiKey } : {}),
    ...(spec.timeoutMs !== undefined ? { timeoutMs: spec.timeoutMs } : {}),
  };
  return spec.protocol === "chat-completions"
    ? chatCompletionsAgent({ baseUrl: spec.url, ...common })
    : a2aAgent({ url: spec.url, ...common });
}

/** The key an agent behind a URL is called with, from an environment. */
export const agentApiKeyFrom = (env: Record<string, string | undefined>): string | undefined =>
  env.TAU_AGENT_API_KEY?.trim() || undefined;
