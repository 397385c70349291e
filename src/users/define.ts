/** `defineUser`: the checked, typed way to write a user definition (for modules and library callers). */
import { checkDefinition } from "../core/definition.ts";
import type { UserContext, UserDefinition } from "./registry.ts";
import type { User } from "./types.ts";

/** What {@link defineUser} takes: a definition whose flags may be left out (they default to false). */
export interface UserDefinitionInput<Options = Record<string, unknown>> {
  /** Recorded in results as `user_info.implementation`; letters, digits, `_`, `.`, `-`. */
  name: string;
  version?: string;
  description?: string;
  /** Default false. True: the runner builds the `--user-llm` client for it. */
  needsLlm?: boolean;
  /** Default false. True: only valid with a solo agent (the user never speaks). */
  requiresSoloAgent?: boolean;
  parseOptions?(options: Record<string, unknown>): Options;
  create(ctx: UserContext<Options>): User;
}

/** The optional fields {@link defineUser} takes (besides name, version, description and create). */
export const USER_FIELDS = {
  booleans: ["needsLlm", "requiresSoloAgent"],
  strings: [],
  functions: ["parseOptions"],
  objects: [],
} as const;

/**
 * Checks a user definition and fills its defaults. Throws a
 * `DefinitionError` (a one-line usage error) naming the field that is wrong.
 * Any value is accepted, so it also checks a module's default export.
 */
export function defineUser<Options = Record<string, unknown>>(
  definition: UserDefinitionInput<Options>,
): UserDefinition<Options> {
  checkDefinition("user", definition, USER_FIELDS);
  const { parseOptions, version } = definition;
  return {
    name: definition.name,
    ...(version !== undefined ? { version } : {}),
    description: definition.description ?? "",
    needsLlm: definition.needsLlm ?? false,
    ...(definition.requiresSoloAgent ? { requiresSoloAgent: true } : {}),
    ...(parseOptions ? { parseOptions: (options) => parseOptions.call(definition, options) } : {}),
    create: (ctx) => definition.create(ctx),
  };
}
