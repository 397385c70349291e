/**
 * A small type language for domain data models, standing in for upstream's
 * pydantic models: it validates and coerces loaded data (JSON `86` in a float
 * field becomes a float), dumps values in declaration order for tool outputs,
 * and serializes them with sorted keys for DB hashes.
 *
 * Typed values are plain JavaScript: models are objects whose keys follow the
 * declaration order, dicts are `Map`s (key order kept, even for integer-like
 * keys), floats and ints are both `number` — the type says which is which.
 */
import {
  compareCodePoints,
  isPyDict,
  isPyNumber,
  PyFloat,
  parsePyJson,
  type PyValue,
  pyDumps,
  pyJsonNumber,
  pyJsonString,
  pyRepr,
  pyTypeName,
  toNumber,
} from "../core/py-json.ts";

/** One field of a model: name, type, and an optional default (a factory, so mutable defaults are never shared). */
export interface FieldSpec {
  readonly name: string;
  readonly ty: Ty;
  readonly default?: () => unknown;
}

/** A model type (pydantic `BaseModel`). */
export interface ModelTy {
  readonly kind: "model";
  readonly name: string;
  readonly fields: readonly FieldSpec[];
  /** What to do with unknown keys when validating: drop them or fail. */
  readonly extra: "ignore" | "forbid";
  /**
   * As a top-level DB field: fork its dict and list fields copy-on-write instead of copying the
   * whole model (banking's tables). Its other fields must then be immutable values.
   */
  readonly copyOnWrite?: boolean;
}

/** A field type. */
export type Ty =
  | { readonly kind: "str" }
  | { readonly kind: "int" }
  | { readonly kind: "float" }
  | { readonly kind: "bool" }
  /** A `date`, stored as `YYYY-MM-DD`. */
  | { readonly kind: "date" }
  /** A `datetime`, stored as Python `str(datetime)`: `YYYY-MM-DD HH:MM:SS`. */
  | { readonly kind: "datetime" }
  | { readonly kind: "literal"; readonly values: readonly string[] }
  | { readonly kind: "optional"; readonly inner: Ty }
  | { readonly kind: "list"; readonly item: Ty }
  | { readonly kind: "dict"; readonly value: Ty }
  | ModelTy
  | {
      readonly kind: "union";
      readonly discriminator: string;
      readonly variants: Readonly<Record<string, ModelTy>>;
    }
  | { readonly kind: "any" };

/** Builders for {@link Ty} values. */
export const t = {
  str: (): Ty => ({ kind: "str" }),
  int: (): Ty => ({ kind: "int" }),
  float: (): Ty => ({ kind: "float" }),
  bool: (): Ty => ({ kind: "bool" }),
  date: (): Ty => ({ kind: "date" }),
  datetime: (): Ty => ({ kind: "datetime" }),
  literal: (...values: string[]): Ty => ({ kind: "literal", values }),
  optional: (inner: Ty): Ty => ({ kind: "optional", inner }),
  list: (item: Ty): Ty => ({ kind: "list", item }),
  dict: (value: Ty): Ty => ({ kind: "dict", value }),
  any: (): Ty => ({ kind: "any" }),
  union: (discriminator: string, variants: Record<string, ModelTy>): Ty => ({
    kind: "union",
    discriminator,
    variants,
  }),
  /** A model; a field given as `[ty, default]` has a default value (factory or plain immutable value). */
  model: (
    name: string,
    fields: Record<string, Ty | [Ty, unknown]>,
    extra: "ignore" | "forbid" = "ignore",
  ): ModelTy => ({
    kind: "model",
    name,
    extra,
    fields: Object.entries(fields).map(([fieldName, spec]) => {
      if (Array.isArray(spec)) {
        const [ty, def] = spec;
        return {
          name: fieldName,
          ty,
          default: typeof def === "function" ? (def as () => unknown) : () => def,
        };
      }
      return { name: fieldName, ty: spec };
    }),
  }),
};

// ---------------------------------------------------------------------------
// Validation

/** One problem found while validating; `loc` is the path inside the value. */
export interface ValidationIssue {
  loc: (string | number)[];
  type: string;
  msg: string;
  input: unknown;
}

/** A pydantic-style validation failure; its message follows pydantic v2's layout. */
export class ModelValidationError extends Error {
  constructor(
    readonly modelName: string,
    readonly issues: ValidationIssue[],
  ) {
    super(formatValidationMessage(modelName, issues));
    this.name = "ModelValidationError";
  }
}

function formatValidationMessage(modelName: string, issues: ValidationIssue[]): string {
  const head = `${issues.length} validation error${issues.length === 1 ? "" : "s"} for ${modelName}`;
  const body = issues.map((issue) => {
    const loc = issue.loc.join(".");
    const input = pyRepr(issue.input);
    return `${loc}\n  ${issue.msg} [type=${issue.type}, input_value=${input}, input_type=${pyTypeName(issue.input)}]\n    For further information visit https://errors.pydantic.dev/2.12/v/${issue.type}`;
  });
  return [head, ...body].join("\n");
}

function entriesOfInput(value: unknown): [string, unknown][] | undefined {
  if (value instanceof Map) return [...value.entries()];
  if (isPyDict(value)) return Object.entries(value);
  return undefined;
}

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME_RE = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)(\.\d+)?$/;

/** Records a validation issue; returns undefined so a failing branch can `return fail(...)`. */
function fail(issues: ValidationIssue[], loc: Loc, input: unknown, type: string, msg: string): undefined {
  issues.push({ loc: locPath(loc), type, msg, input });
  return undefined;
}

/**
 * Where a value sits, as a chain from the innermost key outwards: one small object per value
 * validated, turned into a path only for an issue (a 7 MB DB validates without copying paths).
 */
type Loc = { readonly parent: Loc; readonly key: string | number } | null;

function locPath(loc: Loc): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at = loc; at !== null; at = at.parent) path.push(at.key);
  return path.reverse();
}

/** A model's input as entries of a Map, or of a plain object read in place (no copy of its entries). */
function fieldsOfInput(value: unknown): { has(key: string): boolean; get(key: string): unknown } | undefined {
  if (value instanceof Map) return value;
  if (!isPyDict(value)) return undefined;
  const record = value as Record<string, unknown>;
  return { has: (key) => Object.hasOwn(record, key), get: (key) => record[key] };
}

function coerceInto(ty: Ty, value: unknown, loc: Loc, issues: ValidationIssue[]): unknown {
  switch (ty.kind) {
    case "str":
      return typeof value === "string"
        ? value
        : fail(issues, loc, value, "string_type", "Input should be a valid string");
    case "int": {
      if (typeof value === "boolean" || !isPyNumber(value)) {
        if (typeof value === "string") {
          if (/^\s*-?\d+\s*$/.test(value)) return Number(value);
          return fail(
            issues,
            loc,
            value,
            "int_parsing",
            "Input should be a valid integer, unable to parse string as an integer",
          );
        }
        return fail(issues, loc, value, "int_type", "Input should be a valid integer");
      }
      const n = toNumber(value);
      return Number.isInteger(n)
        ? n
        : fail(
            issues,
            loc,
            value,
            "int_from_float",
            "Input should be a valid integer, got a number with a fractional part",
          );
    }
    case "float": {
      if (typeof value === "boolean") return value ? 1 : 0;
      if (isPyNumber(value)) return toNumber(value);
      if (typeof value === "string" && value.trim() !== "" && !Number.isNaN(Number(value)))
        return Number(value);
      return fail(issues, loc, value, "float_type", "Input should be a valid number");
    }
    case "bool":
      return typeof value === "boolean"
        ? value
        : fail(issues, loc, value, "bool_type", "Input should be a valid boolean");
    case "date":
      if (typeof value === "string" && DATE_RE.test(value)) return value;
      if (value instanceof Date) return value.toISOString().slice(0, 10);
      return fail(issues, loc, value, "date_type", "Input should be a valid date");
    case "datetime": {
      if (value instanceof Date) return value.toISOString().slice(0, 19).replace("T", " ");
      const m = typeof value === "string" ? DATETIME_RE.exec(value) : null;
      if (!m) return fail(issues, loc, value, "datetime_type", "Input should be a valid datetime");
      const time = m[2]!.length === 5 ? `${m[2]}:00` : m[2];
      return `${m[1]} ${time}${m[3] ? m[3].padEnd(7, "0") : ""}`;
    }
    case "literal":
      if (typeof value === "string" && ty.values.includes(value)) return value;
      return fail(
        issues,
        loc,
        value,
        "literal_error",
        `Input should be ${ty.values
          .map((v) => `'${v}'`)
          .join(", ")
          .replace(/, ([^,]*)$/, " or $1")}`,
      );
    case "optional":
      return value === null || value === undefined ? null : coerceInto(ty.inner, value, loc, issues);
    case "list":
      if (!Array.isArray(value)) return fail(issues, loc, value, "list_type", "Input should be a valid list");
      return value.map((item, i) => coerceInto(ty.item, item, { parent: loc, key: i }, issues));
    case "dict": {
      const entries = entriesOfInput(value);
      if (!entries) return fail(issues, loc, value, "dict_type", "Input should be a valid dictionary");
      const out = new Map<string, unknown>();
      for (const [k, v] of entries) out.set(k, coerceInto(ty.value, v, { parent: loc, key: k }, issues));
      return out;
    }
    case "model": {
      const input = fieldsOfInput(value);
      if (!input)
        return fail(
          issues,
          loc,
          value,
          "model_type",
          `Input should be a valid dictionary or instance of ${ty.name}`,
        );
      const out: Record<string, unknown> = {};
      for (const field of ty.fields) {
        if (input.has(field.name))
          out[field.name] = coerceInto(
            field.ty,
            input.get(field.name),
            { parent: loc, key: field.name },
            issues,
          );
        else if (field.default) out[field.name] = field.default();
        else fail(issues, { parent: loc, key: field.name }, value, "missing", "Field required");
      }
      if (ty.extra === "forbid") {
        for (const [k, v] of entriesOfInput(value)!) {
          if (!ty.fields.some((f) => f.name === k)) {
            fail(issues, { parent: loc, key: k }, v, "extra_forbidden", "Extra inputs are not permitted");
          }
        }
      }
      return out;
    }
    case "union": {
      const entries = entriesOfInput(value);
      const tag = entries?.find(([k]) => k === ty.discriminator)?.[1];
      const variant = typeof tag === "string" ? ty.variants[tag] : undefined;
      if (!variant) {
        return fail(
          issues,
          loc,
          value,
          "union_tag_invalid",
          `Input tag '${String(tag)}' found using '${ty.discriminator}' does not match any of the expected tags: ${Object.keys(
            ty.variants,
          )
            .map((k) => `'${k}'`)
            .join(", ")}`,
        );
      }
      return coerceInto(variant, value, { parent: loc, key: tag as string }, issues);
    }
    case "any":
      return value;
    default:
      return assertNever(ty);
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected type ${JSON.stringify(value)}`);
}

/** Validates and coerces `value` as `ty` (pydantic lax mode); throws {@link ModelValidationError}. */
export function validate<T = unknown>(ty: Ty, value: unknown, title?: string): T {
  const issues: ValidationIssue[] = [];
  const out = coerceInto(ty, value, null, issues);
  if (issues.length > 0)
    throw new ModelValidationError(title ?? (ty.kind === "model" ? ty.name : ty.kind), issues);
  return out as T;
}

// ---------------------------------------------------------------------------
// Dumping and serialization

/**
 * `model_dump()`: a Python JSON value in declaration order with floats boxed,
 * ready for {@link pyDumps}.
 */
export function dumpTyped(ty: Ty, value: unknown): PyValue {
  if (value === null || value === undefined) return null;
  // A tool may assign an unvalidated value to a field (pydantic does not validate assignment);
  // pydantic then dumps the value as it is, and so do we.
  if (!fitsKind(ty, value)) return value as PyValue;
  switch (ty.kind) {
    case "float":
      return typeof value === "number" && Number.isInteger(value) ? new PyFloat(value) : (value as PyValue);
    case "str":
    case "int":
    case "bool":
    case "date":
    case "datetime":
    case "literal":
    case "any":
      return value as PyValue;
    case "optional":
      return dumpTyped(ty.inner, value);
    case "list":
      return (value as unknown[]).map((item) => dumpTyped(ty.item, item));
    case "dict": {
      const out = new Map<string, PyValue>();
      for (const [k, v] of mapEntries(value)) out.set(k, dumpTyped(ty.value, v));
      return out;
    }
    case "model": {
      const obj = value as Record<string, unknown>;
      const out = new Map<string, PyValue>();
      for (const field of ty.fields) out.set(field.name, dumpTyped(field.ty, obj[field.name]));
      return out;
    }
    case "union":
      return dumpTyped(variantOf(ty, value), value);
    default:
      return assertNever(ty);
  }
}

function variantOf(ty: Extract<Ty, { kind: "union" }>, value: unknown): ModelTy {
  const tag = (value as Record<string, unknown>)[ty.discriminator];
  const variant = ty.variants[tag as string];
  if (!variant) throw new Error(`no variant '${String(tag)}' in union`);
  return variant;
}

/** Entries of a dict value: a `Map`, or anything with an `entries()` method such as a copy-on-write map. */
function mapEntries(value: unknown): Iterable<[string, unknown]> {
  if (value instanceof Map) return value.entries();
  if (value && typeof (value as { entries?: unknown }).entries === "function") {
    return (value as { entries(): Iterable<[string, unknown]> }).entries();
  }
  return Object.entries(value as Record<string, unknown>);
}

/**
 * Whether a value has the JavaScript shape its type stores (a cheap check,
 * not validation): false for values a tool assigned without validation,
 * such as a float argument written to an int field.
 */
function fitsKind(ty: Ty, value: unknown): boolean {
  switch (ty.kind) {
    case "str":
    case "date":
    case "datetime":
    case "literal":
      return typeof value === "string";
    case "int":
      return typeof value === "number" && Number.isInteger(value);
    case "float":
      return typeof value === "number";
    case "bool":
      return typeof value === "boolean";
    case "list":
      return Array.isArray(value);
    case "model":
    case "union":
      return typeof value === "object" && !Array.isArray(value) && !(value instanceof PyFloat);
    case "dict":
    case "optional":
    case "any":
      return true;
    default:
      return assertNever(ty);
  }
}

/** Objects known to be frozen for caching purposes (Maps cannot be `Object.freeze`d). */
const frozenObjects = new WeakSet<object>();

/** Marks a loaded value as shared and immutable: deep-freezes it and lets serializations of it be cached. */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== "object" || frozenObjects.has(value)) return value;
  frozenObjects.add(value);
  if (value instanceof Map) {
    for (const v of value.values()) deepFreeze(v);
  } else if (Array.isArray(value)) {
    for (const v of value) deepFreeze(v);
    Object.freeze(value);
  } else if (!(value instanceof PyFloat)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** True for values that {@link deepFreeze} marked. */
export function isFrozenValue(value: unknown): boolean {
  return value !== null && typeof value === "object" && frozenObjects.has(value);
}

/** Caches of serializations of frozen (shared, never mutated) objects: sorted keys, and declaration order. */
const sortedCache = new WeakMap<object, string>();
const dumpCache = new WeakMap<object, string>();

const sortedFieldsCache = new WeakMap<ModelTy, FieldSpec[]>();
function sortedFields(ty: ModelTy): FieldSpec[] {
  let fields = sortedFieldsCache.get(ty);
  if (!fields) {
    fields = [...ty.fields].sort((a, b) => compareCodePoints(a.name, b.name));
    sortedFieldsCache.set(ty, fields);
  }
  return fields;
}

const fieldKeys = new Map<string, string>();
/** `"name": ` for a field name, computed once per name. */
function fieldKey(name: string): string {
  let key = fieldKeys.get(name);
  if (key === undefined) {
    key = `${pyJsonString(name)}: `;
    fieldKeys.set(name, key);
  }
  return key;
}

function byKey(a: [string, unknown], b: [string, unknown]): number {
  return compareCodePoints(a[0], b[0]);
}

/**
 * `json.dumps(model_dump(), sort_keys=…, default=str)` of a typed value without
 * building the intermediate dump; serializations of frozen subtrees are cached.
 */
function serialize(ty: Ty, value: unknown, sortKeys: boolean): string {
  if (value === null || value === undefined) return "null";
  if (!fitsKind(ty, value)) return pyDumps(value, { sortKeys });
  switch (ty.kind) {
    case "float":
      return pyJsonNumber(value as number, true);
    case "int":
      return pyJsonNumber(value as number, false);
    case "bool":
      return value ? "true" : "false";
    case "str":
    case "date":
    case "datetime":
    case "literal":
      return pyJsonString(value as string);
    case "any":
      return pyDumps(value, { sortKeys });
    case "optional":
      return serialize(ty.inner, value, sortKeys);
    case "union":
      return serialize(variantOf(ty, value), value, sortKeys);
    default:
      break;
  }
  const obj = value as object;
  const cache = sortKeys ? sortedCache : dumpCache;
  const cacheable = frozenObjects.has(obj);
  if (cacheable) {
    const hit = cache.get(obj);
    if (hit !== undefined) return hit;
  }
  // String concatenation (V8 ropes) is cheaper here than collecting parts and joining.
  let out: string;
  if (ty.kind === "list") {
    const items = value as unknown[];
    out = "[";
    for (let i = 0; i < items.length; i++)
      out += (i > 0 ? ", " : "") + serialize(ty.item, items[i], sortKeys);
    out += "]";
  } else if (ty.kind === "dict") {
    let entries: Iterable<[string, unknown]> = mapEntries(value);
    if (sortKeys) entries = [...entries].sort(byKey);
    out = "{";
    let first = true;
    for (const [k, v] of entries) {
      out += `${first ? "" : ", "}${pyJsonString(k)}: ${serialize(ty.value, v, sortKeys)}`;
      first = false;
    }
    out += "}";
  } else {
    const record = value as Record<string, unknown>;
    const fields = sortKeys ? sortedFields(ty) : ty.fields;
    out = "{";
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i]!;
      out += `${i > 0 ? ", " : ""}${fieldKey(field.name)}${serialize(field.ty, record[field.name], sortKeys)}`;
    }
    out += "}";
  }
  if (cacheable) cache.set(obj, out);
  return out;
}

/** `json.dumps(model_dump(), sort_keys=True, default=str)` of a typed value (what DB hashes digest). */
export function serializeSorted(ty: Ty, value: unknown): string {
  return serialize(ty, value, true);
}

/**
 * `json.dumps(model_dump(), default=str)` of a typed value (declaration order,
 * dicts in insertion order). Same text as `pyDumps(dumpTyped(ty, value))`.
 */
export function serializeTyped(ty: Ty, value: unknown): string {
  return serialize(ty, value, false);
}

/** A model dump that the tool-output serializer must not "process" (numbers stay numbers). */
export class ModelDump {
  constructor(
    /** `json.dumps` of the dump, as the tool message shows it. */
    readonly json: string,
  ) {}

  /** The `model_dump()` value as it was when the tool returned (parsed back from {@link json}). */
  get value(): PyValue {
    return parsePyJson(this.json, { maps: true });
  }
}

/**
 * Marks a typed value as a pydantic model result of a tool (see common.md §3).
 * The value is serialized right away, so later writes to the DB cannot change it.
 */
export function modelResult(ty: Ty, value: unknown): ModelDump {
  return new ModelDump(serializeTyped(ty, value));
}

/** Deep copy of a typed value (objects, arrays, Maps; PyFloat boxes are immutable and shared). */
export function deepClone<T>(value: T): T {
  if (value === null || typeof value !== "object" || value instanceof PyFloat) return value;
  // Plain loops: this runs on every first write to a DB entry, so it avoids per-object temporaries.
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = deepClone(value[i]);
    return out as T;
  }
  if (value instanceof Map) {
    const out = new Map();
    for (const [k, v] of value) out.set(k, deepClone(v));
    return out as T;
  }
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k in source) out[k] = deepClone(source[k]);
  return out as T;
}
