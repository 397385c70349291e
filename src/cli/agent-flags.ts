/**
 * `tau run --agent-url URL` / `--agent-a2a URL`: an agent behind a URL
 * (docs/agent-protocol.md) instead of a named one. The key comes from
 * `TAU_AGENT_API_KEY`, never from the command line (it would land in the
 * recorded resume command).
 */
import { parseAgentUrl } from "../agents/chat-completions-agent.ts";
import type { AgentDefinition } from "../agents/registry.ts";
import { agentApiKeyFrom, type UrlAgentSpec, urlAgentDefinition } from "../agents/url-agent.ts";
import { UsageError } from "../core/errors.ts";
import { parseNumberOption } from "./options.ts";

/** The agent flags of `tau run`. */
export interface AgentUrlFlags {
  agent?: string;
  agentUrl?: string;
  agentA2a?: string;
  /** Seconds per call to the agent (default 600). */
  agentTimeout?: string;
}

/** The agent the URL flags ask for, as data (validated), or null when neither is given. */
export function urlAgentSpecFromFlags(flags: AgentUrlFlags): UrlAgentSpec | null {
  if (flags.agentUrl !== undefined && flags.agentA2a !== undefined)
    throw new UsageError("--agent-url and --agent-a2a exclude each other: pick one agent");
  const url = flags.agentUrl ?? flags.agentA2a;
  if (url === undefined) {
    if (flags.agentTimeout !== undefined)
      throw new UsageError(
        "--agent-timeout limits calls to an --agent-url or --agent-a2a agent; this run has none (--timeout limits a whole simulation)",
      );
    return null;
  }
  if (flags.agent !== undefined && flags.agent !== "llm_agent")
    throw new UsageError(
      `--agent ${flags.agent} and --agent-${flags.agentUrl ? "url" : "a2a"} exclude each other`,
    );
  const flag = flags.agentUrl !== undefined ? "--agent-url" : "--agent-a2a";
  if (parseAgentUrl(url, flag).authorization)
    throw new UsageError(
      `${flag}: put credentials in TAU_AGENT_API_KEY, not in the URL (the command line is recorded to resume the run)`,
    );
  const timeoutMs =
    flags.agentTimeout === undefined
      ? undefined
      : parseNumberOption("--agent-timeout", flags.agentTimeout) * 1000;
  if (timeoutMs === 0) throw new UsageError("--agent-timeout must be more than 0 seconds");
  return {
    protocol: flags.agentUrl !== undefined ? "chat-completions" : "a2a",
    url,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  };
}

/** The definition the URL flags ask for, or null when neither is given. */
export function urlAgentFromFlags(
  flags: AgentUrlFlags,
  env: Record<string, string | undefined>,
): AgentDefinition | null {
  const spec = urlAgentSpecFromFlags(flags);
  return spec === null ? null : urlAgentDefinition(spec, agentApiKeyFrom(env));
}
