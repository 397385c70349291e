/**
 * Cutting a parsed simulation down to the viewer's {@link SimRow}, and
 * parsing simulation text quickly for the index: the native JSON parser, the
 * transcript counted and dropped before the rest is validated.
 */
import { FileFormatError, formatIssuePath } from "../core/errors.ts";
import { parsePyJson } from "../core/py-json.ts";
import { SimulationRun } from "../core/simulation.ts";
import { ownString } from "../runner/compact.ts";
import type { SimRow } from "./wire.ts";

/** Longest error text a row keeps (the run page shows one line). */
const ERROR_CHARS = 240;

type Tokens = SimRow["tokens"];

/** Prompt and completion tokens per role, summed over the messages' `usage`. */
export function countTokens(messages: unknown): Tokens {
  const tokens = { agentIn: 0, agentOut: 0, userIn: 0, userOut: 0 };
  if (!Array.isArray(messages)) return tokens;
  for (const message of messages) {
    if (message === null || typeof message !== "object") continue;
    const { role, usage } = message as { role?: unknown; usage?: unknown };
    if (usage === null || typeof usage !== "object") continue;
    const prompt = Number((usage as { prompt_tokens?: unknown }).prompt_tokens ?? 0) || 0;
    const completion = Number((usage as { completion_tokens?: unknown }).completion_tokens ?? 0) || 0;
    if (role === "assistant") {
      tokens.agentIn += prompt;
      tokens.agentOut += completion;
    } else if (role === "user") {
      tokens.userIn += prompt;
      tokens.userOut += completion;
    }
  }
  return tokens;
}

/** A simulation without its transcript, plus what the transcript tells the row. */
export interface SlimParsed {
  simulation: SimulationRun;
  tokens: Tokens;
  messages: number;
}

/**
 * Parses JSON text with the native parser (fast: the index reads every
 * line), falling back to the Python-JSON parser for Python's `NaN` and
 * `Infinity`; throws the latter's error when neither parses it.
 */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return parsePyJson(text);
  }
}

/** Parses one simulation's JSON text for the index: `where` names the file (and line) in errors. */
export function parseSlimSimulation(text: string, where: string): SlimParsed {
  let raw: unknown;
  try {
    raw = parseJsonText(text);
  } catch (error) {
    throw new FileFormatError(where, `not valid JSON (${(error as Error).message})`, { cause: error });
  }
  return slimOfRaw(raw, where);
}

/** {@link parseSlimSimulation} on an already parsed value. */
export function slimOfRaw(raw: unknown, where: string): SlimParsed {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    throw new FileFormatError(where, "a simulation must be a JSON object");
  const { messages, ...rest } = raw as Record<string, unknown>;
  const parsed = SimulationRun.safeParse({ ...rest, messages: [] });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new FileFormatError(where, `${formatIssuePath(issue.path)}: ${issue.message}`);
  }
  return {
    simulation: parsed.data,
    tokens: countTokens(messages),
    messages: Array.isArray(messages) ? messages.length : 0,
  };
}

function firstLine(value: unknown): string | null {
  if (typeof value !== "string" || value === "") return null;
  return ownString(value.split("\n")[0]!.slice(0, ERROR_CHARS));
}

function ownNumbers(record: Record<string, number> | null | undefined): Record<string, number> | null {
  if (!record) return null;
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(record)) out[key] = value;
  return out;
}

/** The row of a parsed simulation; strings are copied so nothing keeps the file text alive. */
export function rowOf(parsed: SlimParsed, serial: number, taskIndex: number): SimRow {
  const { simulation } = parsed;
  const reward = simulation.termination_reason === "infrastructure_error" ? null : simulation.reward_info;
  const readActions: [number, number] = [0, 0];
  const writeActions: [number, number] = [0, 0];
  for (const check of reward?.action_checks ?? []) {
    const bucket =
      check.tool_type === "read" ? readActions : check.tool_type === "write" ? writeActions : null;
    if (!bucket) continue;
    bucket[1]++;
    if (check.action_match) bucket[0]++;
  }
  const notEvaluated = reward?.info?.not_evaluated;
  const info = simulation.info;
  return {
    serial,
    task: taskIndex,
    trial: simulation.trial ?? 0,
    seed: simulation.seed,
    termination: ownString(simulation.termination_reason) as SimRow["termination"],
    reward: reward ? reward.reward : simulation.termination_reason === "infrastructure_error" ? null : 0,
    breakdown: ownNumbers(reward?.reward_breakdown),
    dbMatch: reward?.db_check ? reward.db_check.db_match : null,
    readActions,
    writeActions,
    notEvaluated:
      Array.isArray(notEvaluated) && notEvaluated.length > 0
        ? notEvaluated.map((item) => ownString(String(item)))
        : null,
    agentCost: simulation.agent_cost,
    userCost: simulation.user_cost,
    tokens: parsed.tokens,
    durationS: simulation.duration,
    messages: parsed.messages,
    error: firstLine(info?.error),
  };
}
