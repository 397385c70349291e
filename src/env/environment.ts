/**
 * The environment of one episode: agent and user toolkits over forked DBs,
 * tool execution to tool messages (upstream's exact content strings), state
 * set-up (`set_state`), env assertions and DB hashes. See specs/common.md.
 */
import type { Message, ToolCall, ToolMessage } from "../core/messages.ts";
import {
  isPyDict,
  type PyValue,
  PyFloat,
  parsePyJson,
  pyDumps,
  pyEquals,
  pyStr,
  RawJson,
} from "../core/py-json.ts";
import type { EnvAssertion, EnvFunctionCall, InitializationData } from "../core/task.ts";
import { DbState } from "./db-state.ts";
import { ModelDump, type ModelTy, validate } from "./model.ts";
import { type ToolSchema, type Toolkit, ToolError } from "./toolkit.ts";

/** Upstream's `to_json_str` of a tool result (common.md §3). */
export function toolResultContent(result: unknown): string {
  if (typeof result === "string") return result;
  if (result instanceof ModelDump) return result.json;
  return pyDumps(processResult(result));
}

function processResult(value: unknown): unknown {
  if (value instanceof ModelDump) return new RawJson(value.json);
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || value instanceof PyFloat)
    return pyStr(value);
  if (Array.isArray(value)) return value.map(processResult);
  if (value instanceof Map) {
    const out = new Map<string, unknown>();
    for (const [k, v] of value) out.set(k, processResult(v));
    return out;
  }
  if (typeof value === "object") {
    const out = new Map<string, unknown>();
    for (const [k, v] of Object.entries(value)) out.set(k, processResult(v));
    return out;
  }
  return String(value);
}

/** The text of an exception as Python would show it after `Error: `. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

function callArguments(call: ToolCall): Record<string, unknown> {
  return call.arguments && typeof call.arguments === "object" ? call.arguments : {};
}

function toolMessage(call: ToolCall, content: string, error: boolean): ToolMessage {
  return {
    role: "tool",
    id: call.id,
    content,
    requestor: call.requestor,
    error,
    turn_idx: null,
    timestamp: null,
  };
}

/** Raised when replaying a trajectory re-executes a write tool and gets a different output (strict mode). */
export class ReplayMismatchError extends Error {
  constructor(
    readonly toolName: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(
      `Tool call ${toolName} returned a different result on replay:\nexpected: ${expected}\nactual: ${actual}`,
    );
    this.name = "ReplayMismatchError";
  }
}

/** Options for building an {@link Environment}. */
export interface EnvironmentInit {
  domainName: string;
  policy: string;
  tools: Toolkit;
  userTools?: Toolkit | undefined;
  soloMode?: boolean;
  /** Runs after every successful tool call, env function call, set-up and orchestrator step (telecom only). */
  sync?: (env: Environment) => void;
}

/** One episode's world. */
export class Environment {
  readonly domainName: string;
  readonly policy: string;
  readonly tools: Toolkit;
  readonly userTools: Toolkit | undefined;
  readonly soloMode: boolean;
  private readonly syncHook: ((env: Environment) => void) | undefined;

  constructor(init: EnvironmentInit) {
    this.domainName = init.domainName;
    this.policy = init.policy;
    this.tools = init.tools;
    this.userTools = init.userTools;
    this.soloMode = init.soloMode ?? false;
    this.syncHook = init.sync;
    if (this.soloMode && this.userTools) {
      const overlap = this.tools.tools.filter((tool) => this.userTools?.hasTool(tool.name));
      if (overlap.length > 0) {
        throw new Error(
          `Agent and user tools overlap in solo mode: ${overlap.map((t) => t.name).join(", ")}`,
        );
      }
    }
  }

  /** Upstream `sync_tools()`. */
  syncTools(): void {
    this.syncHook?.(this);
  }

  /** Function schemas of the agent's tools. */
  getToolSchemas(): ToolSchema[] {
    return this.tools.schemas();
  }

  /** Function schemas of the user's tools (empty when the domain has none), optionally restricted by name. */
  getUserToolSchemas(include?: readonly string[] | null): ToolSchema[] {
    if (!this.userTools) return [];
    const schemas = this.userTools.schemas();
    if (!include) return schemas;
    for (const name of include) {
      if (!this.userTools.hasTool(name) || this.userTools.getTool(name)?.hidden)
        throw new ToolError(`Tool '${name}' not found.`);
    }
    return schemas.filter((s) => include.includes(s.function.name));
  }

  /**
   * Upstream `make_tool_call`: dispatches by requestor; throws on failure. The result of a tool
   * that waits on the outside world (banking's retrieval tools) is a promise.
   */
  makeToolCall(
    name: string,
    requestor: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): unknown {
    if (requestor === "user") {
      if (this.soloMode) throw new ToolError("User tool calls are not allowed in solo mode");
      if (!this.userTools) throw new ToolError("User tools not available");
      return this.userTools.useTool(name, args, signal);
    }
    if (requestor === "assistant") {
      if (this.soloMode && this.userTools?.hasTool(name)) return this.userTools.useTool(name, args, signal);
      return this.tools.useTool(name, args, signal);
    }
    throw new ToolError(`Invalid requestor: ${requestor}`);
  }

  /**
   * Upstream `get_response`: executes a tool call and returns the tool message (never throws).
   * Synchronous: an asynchronous tool answers with an error here (use {@link respond}).
   */
  getResponse(call: ToolCall): ToolMessage {
    try {
      const result = this.makeToolCall(call.name, call.requestor, callArguments(call));
      if (result instanceof Promise) {
        result.catch(() => {});
        throw new ToolError(`Tool '${call.name}' is asynchronous and cannot be called here`);
      }
      this.syncTools();
      return toolMessage(call, toolResultContent(result), false);
    } catch (e) {
      return toolMessage(call, `Error: ${errorText(e)}`, true);
    }
  }

  /** {@link getResponse} for any tool, awaiting the asynchronous ones (what the orchestrator uses). */
  async respond(call: ToolCall, signal?: AbortSignal): Promise<ToolMessage> {
    try {
      let result = this.makeToolCall(call.name, call.requestor, callArguments(call), signal);
      if (result instanceof Promise) result = await result;
      this.syncTools();
      return toolMessage(call, toolResultContent(result), false);
    } catch (e) {
      return toolMessage(call, `Error: ${errorText(e)}`, true);
    }
  }

  /** Whether a tool name exists in either toolkit. */
  hasToolAnywhere(name: string): boolean {
    return this.tools.hasTool(name) || (this.userTools?.hasTool(name) ?? false);
  }

  /** Whether replay must re-execute a call to this tool. */
  toolMutatesState(name: string, requestor: string): boolean {
    const toolkit =
      requestor === "user" || (this.soloMode && this.userTools?.hasTool(name)) ? this.userTools : this.tools;
    if (toolkit?.hasTool(name)) return toolkit.mutatesState(name);
    const other = toolkit === this.tools ? this.userTools : this.tools;
    return other ? other.mutatesState(name) : true;
  }

  /** Upstream `run_env_function_call`: calls any toolkit function by name, then syncs. */
  runEnvFunctionCall(call: EnvFunctionCall): unknown {
    const toolkit = call.env_type === "user" ? this.userTools : this.tools;
    if (!toolkit) throw new ToolError(`No toolkit for env_type ${call.env_type}`);
    const result = toolkit.callFunction(call.func_name, call.arguments ?? {});
    this.syncTools();
    return result;
  }

  /** Runs an assertion function; its result must be a boolean. Returns whether it equals `assert_value`. */
  runEnvAssertion(assertion: EnvAssertion): boolean {
    const result = this.runEnvFunctionCall(assertion);
    if (typeof result !== "boolean") {
      throw new ToolError(`Function ${assertion.func_name} returned ${typeof result} instead of bool`);
    }
    return result === assertion.assert_value;
  }

  /** The agent DB's hash (upstream `get_db_hash`). */
  getDbHash(): string {
    return this.tools.db.hash();
  }

  /** The user DB's hash, or null when the domain has no user toolkit. */
  getUserDbHash(): string | null {
    return this.userTools ? this.userTools.db.hash() : null;
  }

  /**
   * Whether both DBs equal `other`'s, as upstream's grading compares them (`get_db_hash` and
   * `get_user_db_hash` alike); decided without hashing (see {@link DbState.sameContent}).
   */
  sameDbsAs(other: Environment): boolean {
    if (!this.tools.db.sameContent(other.tools.db)) return false;
    if (!this.userTools || !other.userTools) return !this.userTools && !other.userTools;
    return this.userTools.db.sameContent(other.userTools.db);
  }

  /**
   * Upstream `set_state`: merge initialization data, run initialization
   * actions, replay the write tool calls of a message history (comparing
   * outputs; strict mode throws {@link ReplayMismatchError}), then sync.
   */
  setState(
    initializationData: InitializationData | null | undefined,
    initializationActions: readonly EnvFunctionCall[] | null | undefined,
    history: readonly Message[],
    strict = true,
    onMismatch?: (error: ReplayMismatchError) => void,
  ): void {
    if (this.soloMode && history.some((m) => m.role === "user")) {
      throw new Error("User messages are not allowed in solo mode");
    }
    if (initializationData?.agent_data) {
      this.tools.db = mergeInto(this.tools.db, initializationData.agent_data);
      if (this.userTools) this.userTools.db = this.tools.db;
    }
    if (initializationData?.user_data) {
      if (!this.userTools) {
        throw new ToolError(
          `Task has initialization_data.user_data, but domain ${this.domainName} has no user DB`,
        );
      }
      this.userTools.db = mergeInto(this.userTools.db, initializationData.user_data);
      this.tools.db = this.userTools.db;
    }
    for (const action of initializationActions ?? []) this.runEnvFunctionCall(action);
    this.replayHistory(history, strict, onMismatch);
    this.syncTools();
  }

  private replayHistory(
    history: readonly Message[],
    strict: boolean,
    onMismatch?: (error: ReplayMismatchError) => void,
  ): void {
    for (let i = 0; i < history.length; i++) {
      const message = history[i]!;
      if (message.role === "tool")
        throw new Error(`Tool message without a preceding tool call at index ${i}`);
      if (message.role !== "assistant" && message.role !== "user") continue;
      const calls = message.tool_calls;
      if (!calls || calls.length === 0) continue;
      for (let j = 0; j < calls.length; j++) {
        const call = calls[j]!;
        const result = history[i + 1 + j];
        if (result?.role !== "tool" || result.id !== call.id) {
          throw new Error(`Tool call ${call.name} (id ${call.id}) is not followed by its tool message`);
        }
        if (!this.hasToolAnywhere(call.name)) continue;
        if (!this.toolMutatesState(call.name, call.requestor)) continue;
        const replayed = this.getResponse(call);
        if (!sameContent(replayed.content ?? "", result.content ?? "")) {
          const mismatch = new ReplayMismatchError(call.name, result.content ?? "", replayed.content ?? "");
          if (strict) throw mismatch;
          onMismatch?.(mismatch);
        }
      }
      i += calls.length;
    }
  }
}

function tryParse(text: string): { ok: true; value: PyValue } | { ok: false } {
  try {
    return { ok: true, value: parsePyJson(text) };
  } catch {
    return { ok: false };
  }
}

/** Upstream compares replayed outputs after `json.loads`, falling back to string equality. */
function sameContent(a: string, b: string): boolean {
  const pa = tryParse(a);
  const pb = tryParse(b);
  if (pa.ok && pb.ok) return pyEquals(pa.value, pb.value);
  return a === b;
}

/** Addict-style deep merge: nested dicts merge, everything else is replaced. */
export function deepMerge(target: PyValue, update: unknown): PyValue {
  if (!isPyDict(target) || !isPyDict(update)) return update as PyValue;
  const out = new Map<string, PyValue>(target instanceof Map ? target : Object.entries(target));
  const entries = update instanceof Map ? [...update.entries()] : Object.entries(update as object);
  for (const [k, v] of entries) {
    const current = out.get(k);
    out.set(
      k,
      current !== undefined && isPyDict(current) && isPyDict(v) ? deepMerge(current, v) : (v as PyValue),
    );
  }
  return out;
}

/** Merged bases by update object and pristine source: a task's live, predicted and gold environments merge the same data. */
const mergedBases = new WeakMap<object, WeakMap<object, DbState<any>>>();

function mergeInto(db: DbState<any>, update: unknown): DbState<any> {
  const source = db.pristineKey();
  const cacheable = source !== undefined && update !== null && typeof update === "object";
  const cached = cacheable ? mergedBases.get(update as object)?.get(source) : undefined;
  if (cached) return cached.fork();
  const merged = deepMerge(db.dump(), update);
  const ty: ModelTy = db.ty;
  const result = DbState.fromValidated(ty, validate<Record<string, unknown>>(ty, merged));
  if (!cacheable) return result;
  let bySource = mergedBases.get(update as object);
  if (!bySource) {
    bySource = new WeakMap();
    mergedBases.set(update as object, bySource);
  }
  bySource.set(source, result);
  return result.fork();
}
