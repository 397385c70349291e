/**
 * Tools and toolkits: a tool is a plain function with a name, parameters, a
 * description and a kind. Calls are bound like Python keyword calls (no type
 * validation, upstream's TypeError texts for missing or unexpected arguments).
 */
import { compareCodePoints } from "../core/py-json.ts";
import type { DbState } from "./db-state.ts";

/** Upstream's `ToolType`. */
export type ToolKind = "read" | "write" | "think" | "generic";

/** A JSON-schema fragment for one parameter (pydantic layout; keys are sorted when emitted). */
export type JsonSchema = { [key: string]: unknown };

/** One parameter of a tool or helper function. */
export interface ParamSpec {
  readonly name: string;
  /** Type keywords of the JSON schema, e.g. `{type: "string"}`. */
  readonly schema: JsonSchema;
  readonly description?: string;
  /** Present when the parameter is optional; the value used when the caller omits it. */
  readonly default?: { value: unknown };
}

/** What a tool or helper receives when called. */
export interface ToolContext<State = unknown> {
  /** The DB of the toolkit the function belongs to (which upstream may re-point, see P19). */
  readonly db: DbState<any>;
  /**
   * Per-toolkit state kept outside the DB (e.g. telecom's draft-bill id generator). Passing it here
   * instead of closing over it lets a domain build its tool definitions once per process.
   */
  readonly state: State;
  /** Aborts a tool that waits on something (a sandboxed command, an embedding request). */
  readonly signal?: AbortSignal | undefined;
}

/** A callable function of a toolkit: a tool offered to the LLM, or a helper (assertions, set-up). */
export interface FunctionDef<State = unknown> {
  readonly name: string;
  readonly params: readonly ParamSpec[];
  readonly run: (ctx: ToolContext<State>, args: Record<string, unknown>) => unknown;
}

/** A tool offered to the LLM. */
export interface ToolDef<State = unknown> extends FunctionDef<State> {
  readonly kind: ToolKind;
  /** Replayed during evaluation; defaults to `kind === "write"`. */
  readonly mutatesState?: boolean;
  readonly description: string;
  /** Extra `$defs` of the parameter schema (enums, sub-models). */
  readonly defs?: Record<string, JsonSchema>;
  /**
   * A discoverable tool (banking_knowledge): dispatchable by name like any tool, but never offered
   * to the LLM, so it has no schema in {@link Toolkit.schemas} and no kind in the evaluator's tool types.
   */
  readonly hidden?: boolean;
  /**
   * The Python class that defines the tool, when it is not the toolkit's own class (banking's
   * composed toolkits: `KnowledgeTools`, `KBSearchMixin`, …): CPython's TypeError texts name it.
   */
  readonly owner?: string;
}

/** Helper for declaring a parameter. */
export function param(
  name: string,
  schema: JsonSchema,
  description?: string,
  options: { default?: unknown } = {},
): ParamSpec {
  return {
    name,
    schema,
    ...(description !== undefined ? { description } : {}),
    ...("default" in options ? { default: { value: options.default } } : {}),
  };
}

/** Raised by tool code for an expected failure; the caller sees `Error: <message>`. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}

/** Upstream's error text for a call whose argument names do not fit the signature. */
export class PyTypeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TypeError";
  }
}

function quoteList(names: string[]): string {
  const quoted = names.map((n) => `'${n}'`);
  if (quoted.length === 1) return quoted[0]!;
  if (quoted.length === 2) return `${quoted[0]} and ${quoted[1]}`;
  return `${quoted.slice(0, -1).join(", ")}, and ${quoted[quoted.length - 1]}`;
}

/** Binds keyword arguments like a Python call; throws {@link PyTypeError} with CPython's wording. */
export function bindArguments(
  className: string,
  fn: Pick<FunctionDef, "name" | "params">,
  args: Record<string, unknown>,
): Record<string, unknown> {
  const known = new Set(fn.params.map((p) => p.name));
  for (const key of Object.keys(args)) {
    if (!known.has(key)) {
      throw new PyTypeError(`${className}.${fn.name}() got an unexpected keyword argument '${key}'`);
    }
  }
  const missing = fn.params.filter((p) => !p.default && !Object.hasOwn(args, p.name)).map((p) => p.name);
  if (missing.length > 0) {
    const plural = missing.length === 1 ? "argument" : "arguments";
    throw new PyTypeError(
      `${className}.${fn.name}() missing ${missing.length} required positional ${plural}: ${quoteList(missing)}`,
    );
  }
  const bound: Record<string, unknown> = {};
  for (const p of fn.params) bound[p.name] = Object.hasOwn(args, p.name) ? args[p.name] : p.default?.value;
  return bound;
}

/**
 * pydantic's `GenerateJsonSchema.sort`: every dict's keys sorted by code point, except a dict directly
 * under `properties` (field order) or `default` (the value's own order); a list passes its key on.
 */
function sortKeysDeep(value: unknown, parentKey: string | null = null): unknown {
  if (Array.isArray(value)) return value.map((item) => sortKeysDeep(item, parentKey));
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value as Record<string, unknown>);
  if (parentKey !== "properties" && parentKey !== "default")
    entries.sort((a, b) => compareCodePoints(a[0], b[0]));
  return Object.fromEntries(entries.map(([key, item]) => [key, sortKeysDeep(item, key)]));
}

/** Python `str.title()`: a cased character after an uncased one is upper-cased, every other one lower-cased. */
function pyTitle(text: string): string {
  let out = "";
  let previousCased = false;
  for (const ch of text) {
    const cased = ch.toLowerCase() !== ch.toUpperCase();
    out += cased ? (previousCased ? ch.toLowerCase() : ch.toUpperCase()) : ch;
    previousCased = cased;
  }
  return out;
}

/** Title pydantic gives a parameter, `name.title().replace("_", " ").strip()`: `user_id` → `User Id`, `KB_search` → `Kb Search`. */
export function paramTitle(name: string): string {
  return pyTitle(name).replace(/_/g, " ").trim();
}

/** The OpenAI function schema of a tool, laid out as upstream's pydantic-generated one. */
export interface ToolSchema {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema };
}

/** Builds the function schema the LLM sees for a tool. */
export function toolSchema(tool: Pick<ToolDef, "name" | "description" | "params" | "defs">): ToolSchema {
  const properties: Record<string, unknown> = {};
  for (const p of tool.params) {
    properties[p.name] = {
      ...p.schema,
      title: paramTitle(p.name),
      ...(p.description !== undefined ? { description: p.description } : {}),
      ...(p.default ? { default: p.default.value ?? null } : {}),
    };
  }
  const required = tool.params.filter((p) => !p.default).map((p) => p.name);
  const parameters: JsonSchema = {
    ...(tool.defs && Object.keys(tool.defs).length > 0 ? { $defs: tool.defs } : {}),
    properties,
    ...(required.length > 0 ? { required } : {}),
    title: "parameters",
    type: "object",
  };
  return {
    type: "function",
    function: {
      name: tool.name,
      description: tool.description,
      parameters: sortKeysDeep(parameters) as JsonSchema,
    },
  };
}

interface NameMaps<State> {
  tools: Map<string, ToolDef<State>>;
  functions: Map<string, FunctionDef<State>>;
}

/**
 * Name maps per (tools, helpers) array pair. Domains declare their arrays once per process, so every
 * environment's toolkit reuses the same maps instead of rebuilding them on each fork.
 */
const nameMapsCache = new WeakMap<
  readonly ToolDef<any>[],
  WeakMap<readonly FunctionDef<any>[], NameMaps<any>>
>();

const NO_HELPERS: readonly FunctionDef<any>[] = Object.freeze([]);

function nameMaps<State>(
  tools: readonly ToolDef<State>[],
  helpers: readonly FunctionDef<State>[],
): NameMaps<State> {
  let byHelpers = nameMapsCache.get(tools);
  if (!byHelpers) {
    byHelpers = new WeakMap();
    nameMapsCache.set(tools, byHelpers);
  }
  // Domains without helpers often pass a fresh `[]`: key all of those by one array.
  const helperKey = helpers.length === 0 ? NO_HELPERS : helpers;
  let maps = byHelpers.get(helperKey);
  if (!maps) {
    maps = {
      tools: new Map(tools.map((tool) => [tool.name, tool])),
      functions: new Map<string, FunctionDef<State>>([
        ...tools.map((tool) => [tool.name, tool] as const),
        ...helpers.map((fn) => [fn.name, fn] as const),
      ]),
    };
    byHelpers.set(helperKey, maps);
  }
  return maps;
}

/**
 * A set of tools plus helper functions working on one DB; `className` appears in Python error texts.
 * `State` is the per-toolkit state handed to every function in its context (`undefined` when unused).
 * The tool and helper arrays must not change after the first toolkit is built from them (their name
 * maps are cached).
 */
export class Toolkit<State = any> {
  private readonly toolsByName: Map<string, ToolDef<State>>;
  private readonly functionsByName: Map<string, FunctionDef<State>>;

  constructor(
    readonly className: string,
    readonly tools: readonly ToolDef<State>[],
    helpers: readonly FunctionDef<State>[],
    /** The DB the toolkit works on; upstream can re-point it (P19). */
    public db: DbState<any>,
    /** Per-toolkit state passed to every function (see {@link ToolContext.state}). */
    readonly state: State = undefined as State,
  ) {
    const maps = nameMaps(tools, helpers);
    this.toolsByName = maps.tools;
    this.functionsByName = maps.functions;
  }

  hasTool(name: string): boolean {
    return this.toolsByName.has(name);
  }

  getTool(name: string): ToolDef<State> | undefined {
    return this.toolsByName.get(name);
  }

  /** Whether replaying a call to this tool changes state (unknown names count as mutating, as upstream). */
  mutatesState(name: string): boolean {
    const tool = this.toolsByName.get(name);
    if (!tool) return true;
    return tool.mutatesState ?? tool.kind === "write";
  }

  /**
   * Calls a tool by name (`use_tool`); unknown names raise `Tool '<name>' not found.` A tool that
   * waits on the outside world returns a promise; `signal` lets the caller abort it.
   */
  useTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): unknown {
    const tool = this.toolsByName.get(name);
    if (!tool) throw new ToolError(`Tool '${name}' not found.`);
    return tool.run(this.contextNow(signal), bindArguments(tool.owner ?? this.className, tool, args));
  }

  /** Calls any function (tool or helper) by name, as `initialization_actions` and `env_assertions` do. */
  callFunction(name: string, args: Record<string, unknown>): unknown {
    const fn = this.functionsByName.get(name);
    if (!fn) throw new ToolError(`'${this.className}' object has no attribute '${name}'`);
    return fn.run(this.contextNow(), bindArguments(this.className, fn, args));
  }

  private contextNow(signal?: AbortSignal): ToolContext<State> {
    // The DB is read at call time because set-up may re-point it (P19).
    return { db: this.db, state: this.state, signal };
  }

  /** The tools offered to the LLM (discoverable ones left out), in declaration order. */
  offeredTools(): ToolDef<State>[] {
    return this.tools.filter((tool) => !tool.hidden);
  }

  /** The function schemas offered to the LLM, in declaration order. */
  schemas(): ToolSchema[] {
    return this.offeredTools().map(toolSchema);
  }
}
