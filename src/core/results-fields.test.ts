/**
 * The zod schemas are the single source of truth of the results format: every
 * field of every schema reachable from `Results` must be written by the
 * dumper. A sample with every field set is generated from the schemas
 * themselves, so a field added to a schema is covered without touching this test.
 */
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { Results, resultsToPy } from "./results.ts";

/** The parts of zod's internal definition the sampler reads. */
interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  options?: z.ZodType[];
  out?: z.ZodType;
  values?: unknown[];
  entries?: Record<string, unknown>;
  valueType?: z.ZodType;
}

const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Objects the sampler built from an object schema (only these must come out with every key). */
const fromObjectSchema = new WeakSet<object>();

/** A value for `schema` with every field set; an array of a union holds one item per option. */
function sample(schema: z.ZodType, path: string): unknown {
  const def = defOf(schema);
  switch (def.type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(def.shape!)) out[key] = sample(field, `${path}.${key}`);
      fromObjectSchema.add(out);
      return out;
    }
    case "array": {
      const element = defOf(def.element!);
      const items = element.type === "union" ? element.options! : [def.element!];
      return items.map((item, index) => sample(item, `${path}[${index}]`));
    }
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
      return sample(def.innerType!, path);
    case "pipe":
      return sample(def.out!, path);
    case "union":
      return sample(def.options![0]!, path);
    case "literal":
      return def.values![0];
    case "enum":
      return Object.values(def.entries!)[0];
    case "record":
      return { key: sample(def.valueType!, `${path}.key`) };
    case "string":
      return `${path} text`;
    case "number":
    case "int":
      return 2.5;
    case "boolean":
      return true;
    case "any":
    case "unknown":
      return { any: path };
    default:
      throw new Error(`${path}: the sampler does not know zod type '${def.type}'; teach it`);
  }
}

const keysOf = (value: unknown): Set<string> =>
  new Set(value instanceof Map ? [...value.keys()] : Object.keys(value as object));
const childOf = (value: unknown, key: string): unknown =>
  value instanceof Map ? value.get(key) : (value as Record<string, unknown>)[key];

/** Paths of sampled schema fields missing from the dump. */
function missingFields(sampled: unknown, dumped: unknown, path: string, out: string[]): string[] {
  if (Array.isArray(sampled)) {
    for (const [index, item] of sampled.entries())
      missingFields(item, (dumped as unknown[] | null)?.[index], `${path}[${index}]`, out);
  } else if (sampled !== null && typeof sampled === "object" && fromObjectSchema.has(sampled)) {
    if (dumped === null || typeof dumped !== "object") {
      out.push(`${path} (not written as an object)`);
      return out;
    }
    const written = keysOf(dumped);
    for (const [key, value] of Object.entries(sampled)) {
      if (!written.has(key)) out.push(`${path}.${key}`);
      else missingFields(value, childOf(dumped, key), `${path}.${key}`, out);
    }
  }
  return out;
}

describe("results fields come from the zod schemas", () => {
  it("writes every field of every schema reachable from Results", () => {
    const results = sample(Results, "results") as Results;
    const dumped = resultsToPy(results);
    expect(missingFields(results, dumped, "results", [])).toEqual([]);
    // The sample reaches deep: a message of each role inside a simulation, and a task's issue.
    const simulation = (dumped as Map<string, unknown[]>).get("simulations")![0] as Map<string, unknown>;
    const roles = (simulation.get("messages") as Map<string, unknown>[]).map((message) =>
      message.get("role"),
    );
    expect(roles).toEqual(["assistant", "user", "tool", "system"]);
  });

  it("catches a field the writer does not know", () => {
    const results = sample(Results, "results") as Results;
    const dumped = resultsToPy(results) as Map<string, unknown>;
    const info = dumped.get("info") as Map<string, unknown>;
    info.delete("max_errors");
    expect(missingFields(results, dumped, "results", [])).toEqual(["results.info.max_errors"]);
  });
});
