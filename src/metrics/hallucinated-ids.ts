/**
 * The τ-bench paper's hallucinated-id counter (§5.2: gpt-4o averages 0.46 per
 * retail task): agent tool calls whose arguments name something that does not
 * exist, read from the tool outputs. Each domain's tools say so in their own
 * words, all ending in an `Error: …` output:
 *
 * - airline: `User 'x' not found`, `Reservation 'x' not found`, `Flight 'x' not found`,
 *   `Flight 'x' not found on date 'd'`, `Payment method … not found`
 * - retail: `Order not found`, `User not found`, `Product not found`, `Variant not found`,
 *   `Payment method not found`, `Item 'x' not found`, `'x' not found` (an item not in the order),
 *   `New item 'x' not found or available`
 * - telecom: `Customer with ID 'x' not found`, `Line with ID … not found`, `Plan …`, `Bill …`,
 *   `Device …`, `Line 'x' not found for customer 'y'`, `Unknown ID format or type: 'x'`
 * - mock: `User x not found`, `Task x not found`, `Notification x not found`
 * - the original τ-bench (`tau1-retail`, `tau1-airline`, the paper's own domains):
 *   `Error: order not found`, `user not found`, `product not found`,
 *   `reservation not found`, `payment method not found`, …
 *
 * Lookups by a person's details rather than an id (retail's `find_user_id_by_email`,
 * `find_user_id_by_name_zip`, whose miss says `User not found`) are left out: a
 * wrong name is not a made-up id. Neither does a call of a tool that does not
 * exist (`Tool 'x' not found`: a schema error, not an id). The user's own
 * tools never count.
 */
import type { Message } from "../core/messages.ts";
import type { SimulationRun } from "../core/simulation.ts";

/** Error outputs that say an id names nothing. */
const NOT_FOUND = /^Error: .*(\bnot found\b|\bUnknown ID format\b)/s;
/** The environment's answer to a tool name it does not know. */
const UNKNOWN_TOOL = /^Error: Tool '[^']*' not found\.?$/;

/** Tools whose "not found" is about personal details, not an id. */
const RETAIL_LOOKUPS = ["find_user_id_by_email", "find_user_id_by_name_zip"];
const LOOKUPS_BY_DETAILS: Readonly<Record<string, readonly string[]>> = {
  retail: RETAIL_LOOKUPS,
  "tau1-retail": RETAIL_LOOKUPS,
};

/** The agent tool calls of one conversation whose output says an id does not exist. */
export function hallucinatedIdCalls(domain: string, messages: readonly Message[]): number {
  const excluded = new Set(LOOKUPS_BY_DETAILS[domain] ?? []);
  const toolNames = new Map<string, string>();
  let count = 0;
  for (const message of messages) {
    if (message.role === "assistant")
      for (const call of message.tool_calls ?? []) toolNames.set(call.id, call.name);
    if (message.role !== "tool" || message.requestor !== "assistant" || !message.error) continue;
    const content = message.content ?? "";
    if (!NOT_FOUND.test(content) || UNKNOWN_TOOL.test(content)) continue;
    if (excluded.has(toolNames.get(message.id) ?? "")) continue;
    count++;
  }
  return count;
}

/** A run's counter: calls per evaluated simulation (one trial of a task), and how many simulations had any. */
export interface HallucinatedIds {
  calls: number;
  simulations: number;
  simulationsWithAny: number;
  /** Calls per simulation (null when none was evaluated). */
  perSimulation: number | null;
}

/** The counter over a run's evaluated simulations (infrastructure errors have no conversation that counts). */
export function hallucinatedIds(domain: string, simulations: readonly SimulationRun[]): HallucinatedIds {
  let calls = 0;
  let evaluated = 0;
  let withAny = 0;
  for (const simulation of simulations) {
    if (simulation.termination_reason === "infrastructure_error") continue;
    evaluated++;
    const count = hallucinatedIdCalls(domain, simulation.messages);
    calls += count;
    if (count > 0) withAny++;
  }
  return {
    calls,
    simulations: evaluated,
    simulationsWithAny: withAny,
    perSimulation: evaluated ? calls / evaluated : null,
  };
}
