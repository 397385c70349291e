/**
 * Recovering Python's int/float distinction for arguments that arrived through
 * `JSON.parse` (the MCP SDK's, an A2A agent's object arguments): `2.0` and `2` are the same JavaScript number,
 * so the kind comes from the tool's parameter schema. A number where the
 * schema allows `number` but not `integer` becomes a float ({@link PyFloat});
 * everything else keeps what JSON.parse gave (an integral value stays an int).
 */
import { PyFloat } from "../core/py-json.ts";
import type { JsonSchema } from "./toolkit.ts";

/** The JSON-schema `type`s a schema fragment admits, following `$ref`, `anyOf`/`oneOf`/`allOf`. */
function admittedTypes(
  schema: JsonSchema | undefined,
  defs: Record<string, JsonSchema>,
  depth = 0,
): Set<string> {
  const out = new Set<string>();
  if (!schema || depth > 20) return out;
  const ref = schema.$ref;
  if (typeof ref === "string") {
    const target = defs[ref.replace(/^#\/\$defs\//, "")];
    return admittedTypes(target, defs, depth + 1);
  }
  const type = schema.type;
  if (typeof type === "string") out.add(type);
  else if (Array.isArray(type)) for (const t of type) out.add(String(t));
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    const parts = schema[key];
    if (Array.isArray(parts))
      for (const part of parts)
        for (const t of admittedTypes(part as JsonSchema, defs, depth + 1)) out.add(t);
  }
  return out;
}

/** The schema fragments a value at this position may follow (a `$ref` resolved, the branches of a union). */
function branches(schema: JsonSchema | undefined, defs: Record<string, JsonSchema>, depth = 0): JsonSchema[] {
  if (!schema || depth > 20) return [];
  const ref = schema.$ref;
  if (typeof ref === "string") return branches(defs[ref.replace(/^#\/\$defs\//, "")], defs, depth + 1);
  const parts = [schema];
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    const list = schema[key];
    if (Array.isArray(list))
      for (const part of list) parts.push(...branches(part as JsonSchema, defs, depth + 1));
  }
  return parts;
}

function retype(value: unknown, schema: JsonSchema | undefined, defs: Record<string, JsonSchema>): unknown {
  if (typeof value === "number") {
    const types = admittedTypes(schema, defs);
    return Number.isInteger(value) && types.has("number") && !types.has("integer")
      ? new PyFloat(value)
      : value;
  }
  if (Array.isArray(value)) {
    const items = branches(schema, defs)
      .map((part) => part.items)
      .find((item) => item && typeof item === "object") as JsonSchema | undefined;
    return value.map((item) => retype(item, items, defs));
  }
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    const parts = branches(schema, defs);
    for (const [key, item] of Object.entries(value)) {
      const property = parts
        .map((part) => (part.properties as Record<string, JsonSchema> | undefined)?.[key])
        .find((fragment) => fragment !== undefined);
      out[key] = retype(item, property, defs);
    }
    return out;
  }
  return value;
}

/** Tool-call arguments with floats restored from the tool's parameter schema (see the module comment). */
export function typeNumbersBySchema(
  args: Record<string, unknown>,
  parameters: JsonSchema,
): Record<string, unknown> {
  const defs = (parameters.$defs ?? {}) as Record<string, JsonSchema>;
  return retype(args, parameters, defs) as Record<string, unknown>;
}
