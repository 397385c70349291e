/**
 * Python's built-in operations as the original τ-bench tools apply them to raw
 * JSON values (dicts, lists, str, int, float, bool, None) and to model-sent
 * arguments of any type, with CPython 3.11's exception texts. The tools are
 * written as the Python source reads, so a wrong argument type fails exactly
 * where and how it fails upstream (specs/tau-bench-v1.md §3.3, §14.4).
 */
import {
  compareCodePoints,
  isPyDict,
  PyFloat,
  type PyValue,
  pyDumps,
  pyEquals,
  pyFloat,
  pyRepr,
  pyRound,
  pyTypeName,
} from "../../core/py-json.ts";
import { CowMap } from "../../env/db-state.ts";
import { deepClone, isFrozenValue } from "../../env/model.ts";

/** A Python exception: `message` is `str(e)`, what the env puts after `Error: `. */
export class PyException extends Error {
  constructor(
    readonly pythonType: string,
    message: string,
  ) {
    super(message);
    this.name = pythonType;
  }
}

const typeError = (message: string) => new PyException("TypeError", message);

/** A dict as the tools see it: a top-level collection (copy-on-write) or a nested `Map`. */
export type PyDict = Map<string, PyValue> | CowMap<PyValue>;

/** Python `type(x).__name__`. */
export function typeName(value: unknown): string {
  if (value instanceof CowMap) return "dict";
  return pyTypeName(value);
}

function isDict(value: unknown): value is PyDict {
  return value instanceof Map || value instanceof CowMap;
}

function isUnhashable(value: unknown): boolean {
  return Array.isArray(value) || isDict(value) || isPyDict(value);
}

/** Raises Python's `unhashable type` TypeError for lists and dicts used as keys. */
function assertHashable(key: unknown): void {
  if (isUnhashable(key)) throw typeError(`unhashable type: '${typeName(key)}'`);
}

interface PyNumberValue {
  value: number;
  isFloat: boolean;
}

/** The number behind an int, float or bool (bool is an int in Python), or null. */
function numberOf(value: unknown): PyNumberValue | null {
  if (typeof value === "boolean") return { value: value ? 1 : 0, isFloat: false };
  if (value instanceof PyFloat) return { value: value.value, isFloat: true };
  if (typeof value === "number") return { value, isFloat: !Number.isInteger(value) };
  return null;
}

function makeNumber(value: number, isFloat: boolean): number | PyFloat {
  return isFloat ? pyFloat(value) : value;
}

/** Python `a + b` (`op` names the operator in the error, `+=` for augmented assignment). */
export function add(a: unknown, b: unknown, op = "+"): PyValue {
  const x = numberOf(a);
  const y = numberOf(b);
  if (x && y) return makeNumber(x.value + y.value, x.isFloat || y.isFloat);
  if (typeof a === "string" && typeof b === "string") return a + b;
  if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b] as PyValue[];
  if (typeof a === "string") throw typeError(`can only concatenate str (not "${typeName(b)}") to str`);
  if (Array.isArray(a)) throw typeError(`can only concatenate list (not "${typeName(b)}") to list`);
  throw typeError(`unsupported operand type(s) for ${op}: '${typeName(a)}' and '${typeName(b)}'`);
}

/** Python `a - b`. */
export function sub(a: unknown, b: unknown, op = "-"): PyValue {
  const x = numberOf(a);
  const y = numberOf(b);
  if (x && y) return makeNumber(x.value - y.value, x.isFloat || y.isFloat);
  throw typeError(`unsupported operand type(s) for ${op}: '${typeName(a)}' and '${typeName(b)}'`);
}

function repeat(sequence: string | PyValue[], times: unknown): PyValue {
  const count = numberOf(times);
  if (!count || count.isFloat)
    throw typeError(`can't multiply sequence by non-int of type '${typeName(times)}'`);
  const n = Math.max(0, count.value);
  if (typeof sequence === "string") return sequence.repeat(n);
  const out: PyValue[] = [];
  for (let i = 0; i < n; i++) out.push(...sequence);
  return out;
}

/** Python `a * b` (numbers, and sequence repetition). */
export function mul(a: unknown, b: unknown): PyValue {
  const x = numberOf(a);
  const y = numberOf(b);
  if (x && y) return makeNumber(x.value * y.value, x.isFloat || y.isFloat);
  if (typeof a === "string" || Array.isArray(a)) return repeat(a as string | PyValue[], b);
  if (typeof b === "string" || Array.isArray(b)) return repeat(b as string | PyValue[], a);
  throw typeError(`unsupported operand type(s) for *: '${typeName(a)}' and '${typeName(b)}'`);
}

/** Python unary `-x`. */
export function neg(a: unknown): PyValue {
  const x = numberOf(a);
  if (!x) throw typeError(`bad operand type for unary -: '${typeName(a)}'`);
  return makeNumber(-x.value, x.isFloat);
}

/** Python `abs(x)`. */
export function abs(a: unknown): PyValue {
  const x = numberOf(a);
  if (!x) throw typeError(`bad operand type for abs(): '${typeName(a)}'`);
  return makeNumber(Math.abs(x.value), x.isFloat);
}

/** Python `round(x, digits)`: ints stay ints, floats are rounded correctly (ties to even). */
export function round(a: unknown, digits: number): PyValue {
  const x = numberOf(a);
  if (!x) throw typeError(`type ${typeName(a)} doesn't define __round__ method`);
  if (!x.isFloat) return x.value;
  return pyFloat(x.value === 0 || !Number.isFinite(x.value) ? x.value : pyRound(x.value, digits));
}

/** Python `sum(values)` (start 0, left to right, as CPython 3.11 adds floats). */
export function sum(values: readonly unknown[]): PyValue {
  let total: PyValue = 0;
  for (const value of values) total = add(total, value);
  return total;
}

/** Python's ordering `a < b` (`op` is the operator shown in the error). */
function order(a: unknown, b: unknown, op: string): number {
  const x = numberOf(a);
  const y = numberOf(b);
  if (x && y) return x.value < y.value ? -1 : x.value > y.value ? 1 : 0;
  if (typeof a === "string" && typeof b === "string") return compareCodePoints(a, b);
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (!pyEquals(a[i], b[i])) return order(a[i], b[i], op);
    }
    return a.length - b.length;
  }
  throw typeError(`'${op}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`);
}

/** Python `a < b`. */
export function lt(a: unknown, b: unknown): boolean {
  return order(a, b, "<") < 0;
}

/** Python `a > b`. */
export function gt(a: unknown, b: unknown): boolean {
  return order(a, b, ">") > 0;
}

/** Python `max(a, b)` of two values (the second wins only if it is greater). */
export function max2(a: unknown, b: unknown): PyValue {
  return gt(b, a) ? (b as PyValue) : (a as PyValue);
}

/** Python `a == b`. */
export function eq(a: unknown, b: unknown): boolean {
  return pyEquals(a, b);
}

/** Python `item in container`. */
export function contains(container: unknown, item: unknown): boolean {
  if (isDict(container)) {
    assertHashable(item);
    return typeof item === "string" && container.has(item);
  }
  if (Array.isArray(container)) return container.some((element) => pyEquals(element, item));
  if (typeof container === "string") {
    if (typeof item !== "string")
      throw typeError(`'in <string>' requires string as left operand, not ${typeName(item)}`);
    return container.includes(item);
  }
  throw typeError(`argument of type '${typeName(container)}' is not iterable`);
}

/** Python `container[key]` for dicts, lists and strings. */
export function getItem(container: unknown, key: unknown): PyValue {
  if (isDict(container)) {
    assertHashable(key);
    const value = typeof key === "string" ? container.get(key) : undefined;
    if (value === undefined) throw new PyException("KeyError", pyRepr(key));
    return value;
  }
  if (Array.isArray(container) || typeof container === "string") {
    const index = numberOf(key);
    if (!index || index.isFloat) {
      throw typeError(
        Array.isArray(container)
          ? `list indices must be integers or slices, not ${typeName(key)}`
          : `string indices must be integers, not '${typeName(key)}'`,
      );
    }
    const items = Array.isArray(container) ? container : [...container];
    const i = index.value < 0 ? items.length + index.value : index.value;
    if (i < 0 || i >= items.length)
      throw new PyException(
        "IndexError",
        Array.isArray(container) ? "list index out of range" : "string index out of range",
      );
    return items[i] as PyValue;
  }
  throw typeError(`'${typeName(container)}' object is not subscriptable`);
}

/** Python `container[start:]` with a negative start (the only slice the tools take). */
export function sliceFrom(container: unknown, start: number): PyValue {
  if (typeof container === "string") return [...container].slice(start).join("");
  if (Array.isArray(container)) return container.slice(start) as PyValue[];
  throw typeError(`'${typeName(container)}' object is not subscriptable`);
}

/** Python `d[key] = value` on a dict the caller owns. */
export function setItem(container: unknown, key: unknown, value: PyValue): void {
  if (!isDict(container)) {
    if (Array.isArray(container))
      throw typeError(`list indices must be integers or slices, not ${typeName(key)}`);
    throw typeError(`'${typeName(container)}' object does not support item assignment`);
  }
  assertHashable(key);
  if (typeof key !== "string") throw new Error(`internal: non-string key ${pyRepr(key)} in a JSON dict`);
  container.set(key, value);
}

/** Python `len(x)`. */
export function len(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  if (typeof value === "string") return [...value].length;
  if (isDict(value)) return value.size;
  throw typeError(`object of type '${typeName(value)}' has no len()`);
}

/** The elements `for x in value` visits (strings by code point, dicts by key). */
export function iterate(value: unknown): PyValue[] {
  if (Array.isArray(value)) return value as PyValue[];
  if (typeof value === "string") return [...value];
  if (isDict(value)) return [...value.keys()];
  throw typeError(`'${typeName(value)}' object is not iterable`);
}

/** Python `zip(a, b)`. */
export function zip(a: unknown, b: unknown): [PyValue, PyValue][] {
  const left = iterate(a);
  const right = iterate(b);
  return Array.from({ length: Math.min(left.length, right.length) }, (_, i) => [left[i]!, right[i]!]);
}

function attributeError(value: unknown, name: string): PyException {
  return new PyException("AttributeError", `'${typeName(value)}' object has no attribute '${name}'`);
}

/** Python `seq.count(item)` for lists and strings. */
export function count(container: unknown, item: unknown): number {
  if (Array.isArray(container)) return container.filter((element) => pyEquals(element, item)).length;
  if (typeof container === "string") {
    if (typeof item !== "string") throw typeError(`must be str, not ${typeName(item)}`);
    if (item === "") return [...container].length + 1;
    return container.split(item).length - 1;
  }
  throw attributeError(container, "count");
}

/** Python `s.lower()`. */
export function lower(value: unknown): string {
  if (typeof value !== "string") throw attributeError(value, "lower");
  return value.toLowerCase();
}

/** Python `sorted(iterable)` (code-point order for strings, numeric for numbers). */
export function sorted(value: unknown): PyValue[] {
  const items = [...iterate(value)];
  // CPython's sort compares each new element with earlier ones (`item < other`), so a mixed
  // list fails comparing a later element to an earlier one.
  for (let i = 1; i < items.length; i++) order(items[i], items[i - 1], "<");
  return items.sort((a, b) => order(a, b, "<"));
}

/** Python `int(x)` for the string slices the airline search parses. */
export function toInt(value: unknown): number {
  const x = numberOf(value);
  if (x) return Math.trunc(x.value);
  if (typeof value === "string") {
    const text = value.trim();
    if (/^[+-]?\d+(?:_\d+)*$/.test(text)) return Number(text.replaceAll("_", ""));
    throw new PyException("ValueError", `invalid literal for int() with base 10: ${pyRepr(value)}`);
  }
  throw typeError(
    `int() argument must be a string, a bytes-like object or a real number, not '${typeName(value)}'`,
  );
}

/** Python `append` on a list the caller owns. */
export function append(list: unknown, value: PyValue): void {
  if (!Array.isArray(list)) throw attributeError(list, "append");
  list.push(value);
}

/** Python `extend` on a list the caller owns. */
export function extend(list: unknown, values: readonly PyValue[]): void {
  if (!Array.isArray(list)) throw attributeError(list, "extend");
  list.push(...values);
}

/** Python `copy.deepcopy` of a JSON value. */
export function deepcopy<T>(value: T): T {
  return deepClone(value);
}

/** Python `bool(x)` (truthiness). */
export function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false) return false;
  if (value === true) return true;
  const x = numberOf(value);
  if (x) return x.value !== 0;
  if (typeof value === "string" || Array.isArray(value)) return value.length > 0;
  if (isDict(value)) return value.size > 0;
  return true;
}

/**
 * A JSON value as Python's `json.loads` builds it, with every object as an
 * ordered `Map` (model-sent arguments arrive as plain objects).
 */
export function toPyValue(value: unknown): PyValue {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map(toPyValue);
  if (value instanceof Map) {
    const out = new Map<string, PyValue>();
    for (const [k, v] of value) out.set(k, toPyValue(v));
    return out;
  }
  if (value instanceof PyFloat || typeof value !== "object") return value as PyValue;
  const out = new Map<string, PyValue>();
  for (const [k, v] of Object.entries(value)) out.set(k, toPyValue(v));
  return out;
}

const dumpsCache = new WeakMap<object, string>();

/**
 * Python `json.dumps(value)` with its defaults. The text of a shared (frozen,
 * never changed) database entry is computed once and kept, so reading an
 * untouched order or user costs a lookup.
 */
export function dumps(value: unknown): string {
  if (value === null || typeof value !== "object" || !isFrozenValue(value)) return pyDumps(value);
  let text = dumpsCache.get(value);
  if (text === undefined) {
    text = pyDumps(value);
    dumpsCache.set(value, text);
  }
  return text;
}
