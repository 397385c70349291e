/**
 * A tool of the original τ-bench: a static `invoke(data, **kwargs)` that
 * returns a string (errors included, as `Error: …` strings), plus the function
 * schema the agent sees. The schema here is our own wording; a data folder
 * with upstream's `tools_info.json` replaces it at load time.
 */
import type { PyValue } from "../../core/py-json.ts";
import { bindArguments } from "../../env/toolkit.ts";
import type { Tau1Data } from "./data.ts";
import { PyException } from "./py.ts";

/** A JSON-schema fragment. */
export type JsonObject = { [key: string]: unknown };

/** The OpenAI function schema of a tool (upstream's `get_info()`). */
export interface Tau1ToolInfo {
  type: "function";
  function: { name: string; description: string; parameters: JsonObject };
}

/** One tool. */
export interface Tau1Tool {
  /** The function name the agent calls. */
  readonly name: string;
  /** Upstream's class (`CancelPendingOrder`), shown in Python's argument errors. */
  readonly className: string;
  /** Upstream's module path of the class, shown when a `data` argument collides with the env's. */
  readonly qualifiedName: string;
  /** Keyword parameters after `data`, in signature order (all required). */
  readonly params: readonly string[];
  /** Our description of the tool and its parameters (used when the data folder has no tools_info.json). */
  readonly info: Tau1ToolInfo;
  /** The tool body; `null` is Python's `None` (airline `send_certificate` with no free id). */
  invoke(data: Tau1Data, args: Readonly<Record<string, PyValue>>): string | null;
}

/** A parameter schema in upstream's key order (`type`, then `description`, then the rest). */
export function parameter(type: string, description: string, extra: JsonObject = {}): JsonObject {
  return { type, description, ...extra };
}

/** Builds the function schema: `type: object`, the properties, every one of them required. */
export function functionInfo(name: string, description: string, properties: JsonObject): Tau1ToolInfo {
  return {
    type: "function",
    function: {
      name,
      description,
      parameters: { type: "object", properties, required: Object.keys(properties) },
    },
  };
}

/**
 * Calls a tool as `Tool.invoke(data=data, **kwargs)` does: the keyword
 * arguments are bound by name with CPython's TypeError texts, nothing is
 * validated or converted.
 */
export function invokeTool(
  tool: Tau1Tool,
  data: Tau1Data,
  kwargs: Readonly<Record<string, PyValue>>,
): string | null {
  if (Object.hasOwn(kwargs, "data")) {
    throw new PyException(
      "TypeError",
      `${tool.qualifiedName}.invoke() got multiple values for keyword argument 'data'`,
    );
  }
  const bound = bindArguments(
    tool.className,
    { name: "invoke", params: tool.params.map((name) => ({ name, schema: {} })) },
    kwargs,
  );
  return tool.invoke(data, bound as Record<string, PyValue>);
}
