/**
 * Pre-flight of a run's endpoints: before the first simulation, one short
 * call to each distinct model endpoint (a model and where it is reached),
 * with the role's own `llm_args`, and the agent service's own check when the
 * agent is one (`--agent-url`: `GET <url>/models`; `--agent-a2a`: the agent
 * card and a `tasks/get` that starts nothing). A dead endpoint, rejected credentials, an
 * unknown model or arguments the provider refuses stop the run there, in one
 * line, instead of failing every simulation after retries. A transient answer
 * (429, 5xx) is only noted: the run's retries deal with those.
 */
import { TauError } from "../core/errors.ts";
import { LlmError, type LlmErrorKind } from "../llm/errors.ts";
import type { LlmClient } from "../llm/types.ts";
import type { RunPlan } from "./plan.ts";
import type { SimulationClients } from "./run-clients.ts";

/** Exit code of a run stopped by its pre-flight (nothing was evaluated). */
export const PREFLIGHT_EXIT_CODE = 4;

/** How long the pre-flight waits for one answer (a slow local server can skip the check: `--no-preflight`). */
export const PREFLIGHT_TIMEOUT_S = 60;

/** Kinds that mean the endpoint cannot serve the run. */
const FATAL_KINDS: ReadonlySet<LlmErrorKind> = new Set([
  "auth",
  "not_found",
  "quota",
  "bad_request",
  "network",
  "timeout",
]);

/** A run's endpoint failed its pre-flight call. */
export class PreflightError extends TauError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, exitCode: PREFLIGHT_EXIT_CODE });
  }
}

interface Target {
  client: LlmClient;
  args: Record<string, unknown>;
  roles: string[];
}

const ROLE_NAMES = { agent: "the agent", user: "the user simulator", judge: "the judge" } as const;

/** The distinct (model, endpoint) pairs of the run's clients, with the roles that share each. */
function targets(plan: RunPlan, clients: SimulationClients): Target[] {
  const { config } = plan;
  const roles: [keyof typeof ROLE_NAMES, LlmClient | null, Record<string, unknown>][] = [
    ["agent", clients.agentLlm, config.agentLlmArgs],
    ["user", clients.userLlm, config.userLlmArgs],
    ["judge", clients.judgeLlm, config.judgeLlmArgs],
  ];
  const byKey = new Map<string, Target>();
  for (const [role, client, args] of roles) {
    if (!client) continue;
    const key = `${client.model}\u0000${client.endpoint?.(args) ?? ""}`;
    const existing = byKey.get(key);
    if (existing) existing.roles.push(ROLE_NAMES[role]);
    else byKey.set(key, { client, args, roles: [ROLE_NAMES[role]] });
  }
  return [...byKey.values()];
}

/**
 * Calls every distinct endpoint once (in parallel); throws a {@link PreflightError} naming the
 * model, its endpoint and the roles that use it when one cannot serve the run; `note` hears the rest.
 */
export async function preflightEndpoints(
  plan: RunPlan,
  clients: SimulationClients,
  note: (line: string) => void,
  signal?: AbortSignal,
): Promise<void> {
  /** Runs one check: a fatal failure throws a {@link PreflightError} naming `who`; a transient one is noted. */
  const check = async (who: string, call: () => Promise<unknown>): Promise<void> => {
    try {
      await call();
    } catch (error) {
      if (signal?.aborted) throw error;
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof LlmError && !FATAL_KINDS.has(error.kind)) {
        note(`note: pre-flight: ${who} answered with an error the run will retry: ${message}`);
        return;
      }
      if (error instanceof LlmError || !(error instanceof TauError))
        throw new PreflightError(
          `pre-flight: ${who} cannot be used: ${message}; nothing was run. Fix it and run again, or skip this check with --no-preflight`,
          { cause: error },
        );
      throw error;
    }
  };
  const checks = targets(plan, clients).map(({ client, args, roles }) => {
    const where = client.endpoint ? ` at ${client.endpoint(args)}` : "";
    return check(`${roles.join(" and ")} (${client.model}${where})`, () =>
      client.generate({
        messages: [{ role: "user", content: "This is a connection check. Reply with OK." }],
        args: { ...args, num_retries: 1, timeout: PREFLIGHT_TIMEOUT_S },
        callName: "preflight",
        ...(signal ? { signal } : {}),
      }),
    );
  });
  // A service agent (URL, A2A): its own check, which starts no conversation.
  const agent = plan.agent;
  if (agent.preflight)
    checks.push(
      check(`the agent (${agent.origin?.endpoint ?? agent.name})`, () =>
        agent.preflight!({ timeoutMs: PREFLIGHT_TIMEOUT_S * 1000, ...(signal ? { signal } : {}) }),
      ),
    );
  const outcomes = await Promise.allSettled(checks);
  const failed = outcomes.find((outcome) => outcome.status === "rejected");
  if (failed) throw failed.reason;
}
