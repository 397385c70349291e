/**
 * Checks of the fields every participant definition shares (agents and
 * users), at the boundary where a definition enters taubench: `defineAgent`,
 * `defineUser`, and the default export of an agent or user module. A bad
 * definition is one {@link DefinitionError} line naming the field.
 */
import { UsageError } from "./errors.ts";

/** A participant name: what results record and run folders are named after. */
export const PARTICIPANT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** A definition that cannot be used; `detail` is the reason without the prefix. */
export class DefinitionError extends UsageError {
  constructor(
    readonly kind: "agent" | "user",
    readonly detail: string,
  ) {
    super(`invalid ${kind} definition: ${detail}`);
  }
}

/** The type of a field's kind of value, for messages. */
function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value);
  return typeof value;
}

/** Which optional fields a kind of definition has, besides name, version, description and create. */
export interface DefinitionFields {
  booleans: readonly string[];
  strings: readonly string[];
  functions: readonly string[];
  /** Plain objects (an adapter's `origin`). */
  objects: readonly string[];
}

/**
 * Throws a {@link DefinitionError} unless `value` is an object with a valid
 * `name`, optional non-empty `version`, optional `description`, a `create`
 * function, the given optional fields, and nothing else (a misspelt field is
 * an error, not silently ignored).
 */
export function checkDefinition(kind: "agent" | "user", value: unknown, fields: DefinitionFields): void {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new DefinitionError(kind, `expected an object, got ${describe(value)}`);
  const record = value as Record<string, unknown>;
  const name = record.name;
  if (typeof name !== "string" || !PARTICIPANT_NAME.test(name))
    throw new DefinitionError(
      kind,
      `name must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit (got ${describe(name)})`,
    );
  const fail = (detail: string): never => {
    throw new DefinitionError(kind, `'${name}': ${detail}`);
  };
  if (typeof record.create !== "function") fail(`create must be a function (got ${describe(record.create)})`);
  if (record.version !== undefined && (typeof record.version !== "string" || record.version.trim() === ""))
    fail(`version must be a non-empty string (got ${describe(record.version)})`);
  for (const field of ["description", ...fields.strings])
    if (record[field] !== undefined && typeof record[field] !== "string")
      fail(`${field} must be a string (got ${describe(record[field])})`);
  for (const field of fields.booleans)
    if (record[field] !== undefined && typeof record[field] !== "boolean")
      fail(`${field} must be true or false (got ${describe(record[field])})`);
  for (const field of fields.functions)
    if (record[field] !== undefined && typeof record[field] !== "function")
      fail(`${field} must be a function (got ${describe(record[field])})`);
  for (const field of fields.objects) {
    const value = record[field];
    if (value !== undefined && (value === null || typeof value !== "object" || Array.isArray(value)))
      fail(`${field} must be an object (got ${describe(value)})`);
  }
  const known = new Set(["name", "version", "description", "create", ...Object.values(fields).flat()]);
  const unknown = Object.keys(record).filter((key) => !known.has(key));
  if (unknown.length > 0)
    fail(
      `unknown field${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} (known: ${[...known].join(", ")})`,
    );
}
