/** `defineAgent`: the checked, typed way to write an agent definition (for modules and library callers). */
import { checkDefinition } from "../core/definition.ts";
import type { Task } from "../core/task.ts";
import type { AgentContext, AgentDefinition, AgentOrigin } from "./registry.ts";
import type { Agent } from "./types.ts";

/** What {@link defineAgent} takes: a definition whose flags may be left out (they default to false). */
export interface AgentDefinitionInput<Options = Record<string, unknown>> {
  /** Recorded in results as `agent_info.implementation`; letters, digits, `_`, `.`, `-`. */
  name: string;
  version?: string;
  description?: string;
  /** Default false: the agent brings its own model (or none). True: the runner builds `--agent-llm`. */
  needsLlm?: boolean;
  /** Default false. True: solo mode (agent and user tools, a ticket, no user); pair with `dummy_user`. */
  soloMode?: boolean;
  instructions?: string;
  taskFilter?: (task: Task) => boolean;
  /** Set by adapters (AI SDK, URL agents): the adapter, its model and endpoint, recorded in results. */
  origin?: AgentOrigin;
  parseOptions?(options: Record<string, unknown>): Options;
  create(ctx: AgentContext<Options>): Agent;
}

/** The optional fields {@link defineAgent} takes (besides name, version, description and create). */
export const AGENT_FIELDS = {
  booleans: ["needsLlm", "soloMode"],
  strings: ["instructions"],
  functions: ["taskFilter", "parseOptions"],
  objects: ["origin"],
} as const;

/**
 * Checks an agent definition and fills its defaults. Throws a
 * `DefinitionError` (a one-line usage error) naming the field that is wrong.
 * Any value is accepted, so it also checks a module's default export.
 */
export function defineAgent<Options = Record<string, unknown>>(
  definition: AgentDefinitionInput<Options>,
): AgentDefinition<Options> {
  checkDefinition("agent", definition, AGENT_FIELDS);
  const { parseOptions, taskFilter, instructions, version, origin } = definition;
  return {
    name: definition.name,
    ...(version !== undefined ? { version } : {}),
    description: definition.description ?? "",
    needsLlm: definition.needsLlm ?? false,
    soloMode: definition.soloMode ?? false,
    ...(instructions !== undefined ? { instructions } : {}),
    ...(origin ? { origin } : {}),
    ...(taskFilter ? { taskFilter: (task: Task) => taskFilter.call(definition, task) } : {}),
    ...(parseOptions ? { parseOptions: (options) => parseOptions.call(definition, options) } : {}),
    create: (ctx) => definition.create(ctx),
  };
}
