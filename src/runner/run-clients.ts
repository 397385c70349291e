/**
 * The model clients of a run: one per model name, shared by every simulation
 * and routed through the per-provider scheduler, so all traffic to a provider
 * shares one adaptive limit. The judge wraps its client.
 */
import { createLlmJudge, type NlAssertionJudge } from "../evaluation/nl-assertions.ts";
import { TauError, UsageError } from "../core/errors.ts";
import type { LlmEvent, LlmEventListener } from "../llm/events.ts";
import type { LlmClient } from "../llm/types.ts";
import { ProviderScheduler } from "./concurrency.ts";
import type { RunPlan } from "./plan.ts";

/** A role a run's model plays. */
export type ModelUse = "agent" | "user" | "judge";

/** How model clients are made (injected so tests stay offline). */
export interface LlmFactory {
  /**
   * Builds a model client; the listener receives its events (calls, retries, 429s). `uses` are
   * the roles that share it (so an error, a missing key say, can name who needs the model).
   */
  createLlm(model: string, onEvent: LlmEventListener, uses: readonly ModelUse[]): LlmClient;
  /** Queue key of a model (`providerKey` of the LLM layer). */
  providerKey(model: string): string;
}

/** The model-side pieces one simulation uses; null where a participant needs no model. */
export interface SimulationClients {
  agentLlm: LlmClient | null;
  userLlm: LlmClient | null;
  /** The judge's model client (recorded for its endpoint); null like {@link judge}. */
  judgeLlm: LlmClient | null;
  /** Null when no selected task needs one, or with `--judge none`. */
  judge: NlAssertionJudge | null;
}

/** No model clients at all (offline participants, or a run with nothing left to do). */
export const NO_CLIENTS: SimulationClients = { agentLlm: null, userLlm: null, judgeLlm: null, judge: null };

/**
 * A client from the factory, checked: a factory's own exception names the model and its roles,
 * and what is not a client (a Promise from an async factory, an object without `generate`) is
 * said so, instead of a TypeError at the first call.
 */
function built(
  factory: Pick<LlmFactory, "createLlm">,
  model: string,
  onEvent: LlmEventListener,
  uses: readonly ModelUse[],
): LlmClient {
  const roles = uses.length > 0 ? uses.join(" and ") : "model";
  let client: unknown;
  try {
    client = factory.createLlm(model, onEvent, uses);
  } catch (error) {
    if (error instanceof TauError) throw error;
    throw new UsageError(
      `createLlm failed for the ${roles} model ${model}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const shape = client as { generate?: unknown; then?: unknown } | null;
  if (shape === null || typeof shape !== "object" || typeof shape.generate !== "function")
    throw new UsageError(
      `createLlm returned ${typeof shape?.then === "function" ? "a Promise (it must return the client itself)" : "no client (an object with model and generate(request))"} for the ${roles} model ${model}`,
    );
  return client as LlmClient;
}

/**
 * Builds the agent's, the user's and the judge's clients, in that order (a
 * missing key is reported for the first role that needs the model). `onEvent`
 * receives every provider event; a 429 also slows the model's queue. With
 * `needed` false nothing is built (a finished run needs no key to be looked at).
 */
export function createRunClients(
  plan: RunPlan,
  factory: LlmFactory,
  onEvent: LlmEventListener,
  needed = true,
  /** The per-provider limits to route through (a worker passes its own, to feed it other workers' 429s). */
  scheduler = new ProviderScheduler({ maxConcurrency: plan.config.maxConcurrency }, factory.providerKey),
): SimulationClients {
  if (!needed) return NO_CLIENTS;
  const { config } = plan;
  const onLlmEvent = (event: LlmEvent) => {
    onEvent(event);
    if (event.type === "rate_limited") scheduler.rateLimited(event.model);
  };
  const wanted: [ModelUse, string | null][] = [
    ["agent", plan.agent.needsLlm ? config.agentLlm : null],
    ["user", plan.user.needsLlm ? config.userLlm : null],
    ["judge", plan.needsJudge ? config.judgeLlm : null],
  ];
  const clients = new Map<string, LlmClient>();
  const client = (model: string) => {
    let existing = clients.get(model);
    if (!existing) {
      const uses = wanted.filter(([, wantedModel]) => wantedModel === model).map(([use]) => use);
      existing = scheduler.wrap(built(factory, model, onLlmEvent, uses));
      clients.set(model, existing);
    }
    return existing;
  };
  const [agentModel, userModel, judgeModel] = wanted.map(([, model]) => model);
  const agentLlm = agentModel ? client(agentModel) : null;
  const userLlm = userModel ? client(userModel) : null;
  const judgeLlm = judgeModel ? client(judgeModel) : null;
  const judge = judgeLlm ? createLlmJudge(judgeLlm, config.judgeLlmArgs, plan.prompts.texts) : null;
  return { agentLlm, userLlm, judgeLlm, judge };
}

/** The endpoint each role's client reaches (`{agent: url, …}`), or null when no client reports one. */
export function clientEndpoints(plan: RunPlan, clients: SimulationClients): Record<string, string> | null {
  const { config } = plan;
  const roles: [string, LlmClient | null, Record<string, unknown>][] = [
    ["agent", clients.agentLlm, config.agentLlmArgs],
    ["user", clients.userLlm, config.userLlmArgs],
    ["judge", clients.judgeLlm, config.judgeLlmArgs],
  ];
  const out: Record<string, string> = {};
  for (const [role, client, args] of roles) if (client?.endpoint) out[role] = client.endpoint(args);
  return Object.keys(out).length > 0 ? out : null;
}
