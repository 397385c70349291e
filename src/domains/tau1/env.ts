/**
 * The original τ-bench environment step (`Env.step`, specs/tau-bench-v1.md
 * §3.3) for tool actions: unknown names, Python exceptions turned into
 * `Error: …` observations, and the terminate tool. The `respond` action goes
 * to the simulated user, which is the episode loop's business
 * (orchestrator/tau1-episode.ts); grading is evaluation/tau1.ts.
 */
import { TauError } from "../../core/errors.ts";
import type { PyValue } from "../../core/py-json.ts";
import { AttributeError } from "../../env/db-state.ts";
import { PyTypeError, ToolError } from "../../env/toolkit.ts";
import { PythonError } from "../python-eval.ts";
import type { Tau1Data } from "./data.ts";
import { PyException, toPyValue } from "./py.ts";
import { invokeTool, type Tau1Tool } from "./tool.ts";

/** Upstream's `RESPOND_ACTION_NAME`: the action that sends `kwargs.content` to the user. */
export const RESPOND_ACTION_NAME = "respond";

/** Upstream's `RESPOND_ACTION_FIELD_NAME`. */
export const RESPOND_ACTION_FIELD_NAME = "content";

/** The tool whose call ends the episode (both domains' `terminate_tools`). */
export const TERMINATE_TOOL = "transfer_to_human_agents";

/** An agent's action (upstream `Action`): a tool name or `respond`, with its keyword arguments. */
export interface Tau1Action {
  name: string;
  kwargs: Record<string, unknown>;
}

/** What a tool step returns. */
export interface ToolStepResult {
  observation: string;
  /** The terminate tool was called: the episode ends and is graded. */
  done: boolean;
}

/**
 * The env raised outside a tool's own error handling: upstream's `step`
 * fails (for example a tool returned `None`, which `EnvResponse` rejects) and
 * the task is recorded as an error.
 */
export class Tau1EnvError extends TauError {}

/** Exceptions the tools raise on purpose (Python's, emulated): the env shows them as `Error: …`. */
function isPythonException(error: unknown): error is Error {
  return (
    error instanceof PyException ||
    error instanceof PythonError ||
    error instanceof PyTypeError ||
    error instanceof AttributeError ||
    error instanceof ToolError
  );
}

/** The tools of a domain by name, with the domain's database. */
export class Tau1ToolRunner {
  private readonly byName: ReadonlyMap<string, Tau1Tool>;

  constructor(readonly tools: readonly Tau1Tool[]) {
    this.byName = new Map(tools.map((tool) => [tool.name, tool]));
  }

  /** Whether `name` is one of the domain's tools. */
  has(name: string): boolean {
    return this.byName.has(name);
  }

  /**
   * Runs a non-`respond` action on `data` as upstream's `step` does: unknown
   * names give `Unknown action {name}`, a raised exception `Error: {str(e)}`.
   */
  step(data: Tau1Data, action: Tau1Action): ToolStepResult {
    const tool = this.byName.get(action.name);
    if (!tool) return { observation: `Unknown action ${action.name}`, done: false };
    let observation: string | null;
    try {
      const kwargs: Record<string, PyValue> = {};
      for (const [key, value] of Object.entries(action.kwargs)) kwargs[key] = toPyValue(value);
      observation = invokeTool(tool, data, kwargs);
    } catch (error) {
      if (!isPythonException(error)) throw error;
      observation = `Error: ${error.message}`;
    }
    if (observation === null) {
      throw new Tau1EnvError(
        `${action.name} returned None, which upstream's EnvResponse rejects (1 validation error for EnvResponse: observation should be a valid string)`,
      );
    }
    return { observation, done: action.name === TERMINATE_TOOL };
  }
}
