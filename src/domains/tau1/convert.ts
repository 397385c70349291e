/**
 * Upstream's Python data modules → the JSON files of the τ-bench data folder,
 * byte for byte as `../shared/tau-bench-data` holds them: the task lists
 * (`tasks_*.py` → `tasks_*.json`, as pydantic's `Task` keeps them), the tool
 * descriptions (`tools/*.py` `get_info()` in `ALL_TOOLS` order →
 * `tools_info.json`) and the retail rules (`rules.py` → `rules.json`).
 */
import { type PyValue, pyDumps } from "../../core/py-json.ts";
import { RESPOND_ACTION_FIELD_NAME, RESPOND_ACTION_NAME } from "./env.ts";
import {
  functionAssignment,
  methodReturnValue,
  moduleAssignments,
  nameList,
  PyCall,
  type PyLiteral,
  PythonSourceError,
  relativeImports,
} from "./python-source.ts";

/** A conversion problem, naming the source file. */
export class ConversionError extends Error {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`${file}: ${detail}`);
    this.name = "ConversionError";
  }
}

function requireString(file: string, where: string, value: PyLiteral | undefined): string {
  if (typeof value !== "string") throw new ConversionError(file, `${where} must be a string`);
  return value;
}

function requireList(file: string, where: string, value: PyLiteral | undefined): PyLiteral[] {
  if (!Array.isArray(value)) throw new ConversionError(file, `${where} must be a list`);
  return value;
}

function jsonValue(file: string, where: string, value: PyLiteral): PyValue {
  if (value instanceof PyCall)
    throw new ConversionError(file, `${where}: a call of ${value.func} is not data`);
  if (Array.isArray(value)) return value.map((item, i) => jsonValue(file, `${where}[${i}]`, item));
  if (value instanceof Map) {
    const out = new Map<string, PyValue>();
    for (const [k, v] of value) out.set(k, jsonValue(file, `${where}.${k}`, v));
    return out;
  }
  return value as PyValue;
}

function readModule(file: string, source: string, calls: readonly string[] = []): Map<string, PyLiteral> {
  try {
    return moduleAssignments(source, { calls });
  } catch (error) {
    if (error instanceof PythonSourceError) throw new ConversionError(file, error.message);
    throw error;
  }
}

/** `tasks_*.py` → the JSON task list: `{user_id, instruction, actions: [{name, kwargs}], outputs}` per task. */
export function convertTasks(file: string, source: string, variable: string): string {
  const assigned = readModule(file, source, ["Task", "Action"]);
  const list = requireList(file, variable, assigned.get(variable));
  const rows = list.map((item, index) => {
    const where = `${variable}[${index}]`;
    if (!(item instanceof PyCall) || item.func !== "Task" || item.args.length > 0)
      throw new ConversionError(file, `${where} must be Task(...) with keyword arguments`);
    const actions = requireList(file, `${where}.actions`, item.kwargs.get("actions")).map((action, i) => {
      const at = `${where}.actions[${i}]`;
      if (!(action instanceof PyCall) || action.func !== "Action" || action.args.length > 0)
        throw new ConversionError(file, `${at} must be Action(...) with keyword arguments`);
      const kwargs = action.kwargs.get("kwargs");
      if (!(kwargs instanceof Map)) throw new ConversionError(file, `${at}.kwargs must be a dict`);
      return new Map<string, PyValue>([
        ["name", requireString(file, `${at}.name`, action.kwargs.get("name"))],
        ["kwargs", jsonValue(file, `${at}.kwargs`, kwargs)],
      ]);
    });
    const outputs = requireList(file, `${where}.outputs`, item.kwargs.get("outputs")).map((output, i) =>
      requireString(file, `${where}.outputs[${i}]`, output),
    );
    // pydantic drops the fields `Task` does not declare (`annotator`).
    return new Map<string, PyValue>([
      ["user_id", requireString(file, `${where}.user_id`, item.kwargs.get("user_id"))],
      ["instruction", requireString(file, `${where}.instruction`, item.kwargs.get("instruction"))],
      ["actions", actions],
      ["outputs", outputs],
    ]);
  });
  return `${pyDumps(rows, { indent: 2, ensureAscii: false })}\n`;
}

/** `rules.py` → `rules.json` (the `RULES` list). */
export function convertRules(file: string, source: string): string {
  const rules = requireList(file, "RULES", readModule(file, source).get("RULES")).map((rule, i) =>
    requireString(file, `RULES[${i}]`, rule),
  );
  return `${pyDumps(rules, { indent: 2 })}\n`;
}

/**
 * A domain's `tools/` package → `tools_info.json`: every class of
 * `ALL_TOOLS` in order, its `get_info()` literal. `readFile` gives a file of
 * the package by name (`__init__.py`, `calculate.py`, …).
 */
export function convertToolsInfo(folder: string, readFile: (name: string) => string): string {
  const init = readFile("__init__.py");
  let classes: string[];
  try {
    classes = nameList(init, "ALL_TOOLS");
  } catch (error) {
    if (error instanceof PythonSourceError) throw new ConversionError(`${folder}/__init__.py`, error.message);
    throw error;
  }
  const modules = relativeImports(init);
  const infos = classes.map((className) => {
    const module = modules.get(className);
    if (!module)
      throw new ConversionError(`${folder}/__init__.py`, `${className} is not imported from a tool module`);
    const file = `${folder}/${module}.py`;
    try {
      return jsonValue(
        file,
        `${className}.get_info()`,
        methodReturnValue(readFile(`${module}.py`), className, "get_info"),
      );
    } catch (error) {
      if (error instanceof PythonSourceError) throw new ConversionError(file, error.message);
      throw error;
    }
  });
  return `${pyDumps(infos, { indent: 2 })}\n`;
}

/** The names upstream's agent module imports from `tau_bench.types` (the same protocol constants as ours). */
const TYPES_SCOPE = new Map([
  ["RESPOND_ACTION_NAME", RESPOND_ACTION_NAME],
  ["RESPOND_ACTION_FIELD_NAME", RESPOND_ACTION_FIELD_NAME],
]);

/** Where each prompt text of the original τ-bench is in its sources, and how it is read. */
export const TAU1_TEXT_SOURCES = {
  react_instruction: {
    file: "tau_bench/agents/chat_react_agent.py",
    read: (source: string) => moduleAssignments(source, { scope: TYPES_SCOPE }).get("REACT_INSTRUCTION"),
  },
  act_instruction: {
    file: "tau_bench/agents/chat_react_agent.py",
    read: (source: string) => moduleAssignments(source, { scope: TYPES_SCOPE }).get("ACT_INSTRUCTION"),
  },
  // The user simulators' templates keep their f-string fields as `{name}` for the caller to fill.
  user_llm_system: {
    file: "tau_bench/envs/user.py",
    read: (source: string) =>
      methodReturnValue(source, "LLMUserSimulationEnv", "build_system_prompt", { templates: true }),
  },
  user_react_system: {
    file: "tau_bench/envs/user.py",
    read: (source: string) =>
      methodReturnValue(source, "ReactUserSimulationEnv", "build_system_prompt", { templates: true }),
  },
  user_verify_prompt: {
    file: "tau_bench/envs/user.py",
    read: (source: string) => functionAssignment(source, "verify", "prompt", { templates: true }),
  },
  user_reflection_prompt: {
    file: "tau_bench/envs/user.py",
    read: (source: string) => functionAssignment(source, "reflect", "prompt", { templates: true }),
  },
} as const;

/** A prompt text from its source file (see {@link TAU1_TEXT_SOURCES}). */
export function extractTau1Text(name: keyof typeof TAU1_TEXT_SOURCES, file: string, source: string): string {
  let value: PyLiteral | undefined;
  try {
    value = TAU1_TEXT_SOURCES[name].read(source);
  } catch (error) {
    if (error instanceof PythonSourceError) throw new ConversionError(file, `${name}: ${error.message}`);
    throw error;
  }
  return requireString(file, name, value);
}
