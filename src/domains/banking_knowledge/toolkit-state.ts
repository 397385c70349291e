/**
 * What banking's toolkits keep outside the DB, and the helpers every banking
 * tool module shares: tool declarations, JSON arguments parsed the way the
 * discoverable dispatchers parse them, Python's keyword binding.
 */
import { isPyDict, PyFloat, type PyValue, parsePyJson, pyTypeName } from "../../core/py-json.ts";
import type { DbState } from "../../env/db-state.ts";
import {
  bindArguments,
  type JsonSchema,
  type ParamSpec,
  PyTypeError,
  param,
  type ToolContext,
  type ToolDef,
  type ToolKind,
} from "../../env/toolkit.ts";
import type { BankingTexts } from "./texts.ts";

/** The agent toolkit's own state (upstream keeps it on the `KnowledgeTools` instance). */
export interface AgentToolsState {
  /** Agent discoverable tools unlocked in this environment (in memory only, spec §5.1). */
  readonly unlocked: Set<string>;
  /** Read discoverable tools whose wrapper calls are logged anyway (#329, spec §5.4). */
  readonly allowlist: ReadonlySet<string>;
  readonly texts: BankingTexts;
  /** The retrieval tools' back ends (pipelines, sandbox), or null for the plain toolkit. */
  readonly retrieval: unknown;
}

/** The user toolkit's own state. */
export interface UserToolsState {
  readonly texts: BankingTexts;
}

/** Parameter schemas of the Python annotations the tools use. */
export const STR: JsonSchema = { type: "string" };
export const BOOL: JsonSchema = { type: "boolean" };
export const NUM: JsonSchema = { type: "number" };
export const INT: JsonSchema = { type: "integer" };

/** A parameter: `[name, schema]` or `[name, schema, default]`. */
export type ParamShape = readonly [string, JsonSchema] | readonly [string, JsonSchema, unknown];

/** Parameter specs (without descriptions) from shapes. */
export function params(shapes: readonly ParamShape[]): ParamSpec[] {
  return shapes.map((shape) =>
    shape.length === 3
      ? param(shape[0], shape[1], undefined, { default: shape[2] })
      : param(shape[0], shape[1]),
  );
}

/** A discoverable tool: dispatchable by name, never offered, documented by its docstring. */
export function discoverable<State>(
  owner: string,
  name: string,
  kind: ToolKind,
  shapes: readonly ParamShape[],
  run: (db: DbState<any>, args: Record<string, unknown>, ctx: ToolContext<State>) => string,
): ToolDef<State> {
  return {
    name,
    kind,
    owner,
    hidden: true,
    description: "",
    params: params(shapes),
    run: (ctx, args) => run(ctx.db, args, ctx),
  };
}

/**
 * `json.loads(text, parse_int=float)` (or plain `json.loads`): a non-string raises Python's
 * TypeError; a syntax error is returned as its message (the dispatchers print it).
 */
export function loadArguments(
  text: unknown,
  intsAsFloats: boolean,
): { ok: true; value: PyValue } | { ok: false; error: string } {
  if (typeof text !== "string")
    throw new PyTypeError(`the JSON object must be str, bytes or bytearray, not ${pyTypeName(text)}`);
  try {
    const value = parsePyJson(text, { maps: true });
    return { ok: true, value: intsAsFloats ? intsToFloats(value) : value };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

function intsToFloats(value: PyValue): PyValue {
  if (typeof value === "number") return Number.isInteger(value) ? new PyFloat(value) : value;
  if (Array.isArray(value)) return value.map(intsToFloats);
  if (value instanceof Map) {
    const out = new Map<string, PyValue>();
    for (const [k, v] of value) out.set(k, intsToFloats(v));
    return out;
  }
  return value;
}

/** A parsed JSON object as keyword arguments (insertion order kept). */
export function keywordArguments(value: PyValue): Record<string, unknown> | null {
  if (!(value instanceof Map)) return isPyDict(value) ? { ...(value as Record<string, unknown>) } : null;
  const out: Record<string, unknown> = {};
  for (const [k, v] of value) {
    if (k === "__proto__") Object.defineProperty(out, k, { value: v, enumerable: true, writable: true });
    else out[k] = v;
  }
  return out;
}

/**
 * `method(**value)` binding as CPython does it for a bound method: a non-mapping, an unexpected
 * keyword (`self` included) or a missing argument raises its TypeError.
 */
export function bindKeywords(
  owner: string,
  tool: Pick<ToolDef, "name" | "params">,
  value: PyValue,
): Record<string, unknown> {
  const args = keywordArguments(value);
  if (args === null) {
    throw new PyTypeError(
      `tau2.domains.banking_knowledge.tools.${owner}.${tool.name}() argument after ** must be a mapping, not ${pyTypeName(value)}`,
    );
  }
  if (Object.hasOwn(args, "self"))
    throw new PyTypeError(`${owner}.${tool.name}() got multiple values for argument 'self'`);
  return bindArguments(owner, tool, args);
}
