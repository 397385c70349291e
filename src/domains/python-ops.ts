/**
 * Python built-ins as upstream's tools apply them to unvalidated arguments
 * (`x in dict`, `len`, iteration, `list.count`, `sorted`, `str.lower`, number
 * comparison, slicing), with CPython's error texts for the wrong types a model may send.
 */
import { compareCodePoints, isPyDict, PyFloat, pyEquals, pyTypeName } from "../core/py-json.ts";
import { AttributeError } from "../env/db-state.ts";
import { PyTypeError, ToolError } from "../env/toolkit.ts";

/** `key in d` for a dict with string keys: unhashable keys raise, other non-strings are simply absent. */
export function hasKey(map: { has(key: string): boolean }, key: unknown): key is string {
  if (Array.isArray(key) || isPyDict(key)) throw new PyTypeError(`unhashable type: '${pyTypeName(key)}'`);
  return typeof key === "string" && map.has(key);
}

/** Upstream's `if key not in d: raise ValueError(message)` then `d[key]` (unhashable keys raise first). */
export function getOrRaise<V>(
  map: { has(key: string): boolean; get(key: string): V | undefined },
  key: unknown,
  message: string,
): V {
  if (!hasKey(map, key)) throw new ToolError(message);
  return map.get(key)!;
}

/** `value in {a, b}` for a set of strings. */
export function inStringSet(value: unknown, members: readonly string[]): boolean {
  return hasKey({ has: (key) => members.includes(key) }, value);
}

/** The elements `for x in value` visits (strings by code point, dicts by key). */
export function pyIterate(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === "string") return [...value];
  if (value instanceof Map) return [...value.keys()];
  if (isPyDict(value)) return Object.keys(value as object);
  throw new PyTypeError(`'${pyTypeName(value)}' object is not iterable`);
}

/** `len(value)`. */
export function pyLen(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  if (typeof value === "string") return [...value].length;
  if (value instanceof Map) return value.size;
  if (isPyDict(value)) return Object.keys(value as object).length;
  throw new PyTypeError(`object of type '${pyTypeName(value)}' has no len()`);
}

/** `container.count(item)` for a list (Python equality) or a string (non-overlapping substrings). */
export function pyCount(container: unknown, item: unknown): number {
  if (Array.isArray(container)) return container.filter((element) => pyEquals(element, item)).length;
  if (typeof container === "string") {
    if (typeof item !== "string") {
      throw new PyTypeError(`must be str, not ${pyTypeName(item)}`);
    }
    if (item === "") return [...container].length + 1;
    return container.split(item).length - 1;
  }
  throw new AttributeError(pyTypeName(container), "count");
}

/**
 * `sorted(value)` for the id lists the tools sort (code-point order, duplicates
 * kept). The tools only sort lists whose elements already matched string ids,
 * so a non-string element is reported as Python reports a mixed comparison.
 */
export function pySortedStrings(value: unknown): string[] {
  const items = pyIterate(value);
  const odd = items.find((item) => typeof item !== "string");
  if (odd !== undefined) {
    throw new PyTypeError(`'<' not supported between instances of '${pyTypeName(odd)}' and 'str'`);
  }
  return [...(items as string[])].sort(compareCodePoints);
}

/** `value.lower()`: only strings have it. */
export function pyLower(value: unknown): string {
  if (typeof value !== "string") throw new AttributeError(pyTypeName(value), "lower");
  return value.toLowerCase();
}

/** A number argument as Python would compare it; other types raise the `<`/`<=` TypeError text. */
export function pyNumberOperand(value: unknown, operator: string, other: string): number {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number") return value;
  if (value instanceof PyFloat) return value.value;
  throw new ToolError(
    `'${operator}' not supported between instances of '${pyTypeName(value)}' and '${other}'`,
  );
}

/** Python `seq[:limit]` for a list. */
export function pySliceTo<T>(items: readonly T[], limit: unknown): T[] {
  if (limit === null || limit === undefined) return [...items];
  let n: number;
  if (typeof limit === "boolean") n = limit ? 1 : 0;
  else if (typeof limit === "number" && Number.isInteger(limit)) n = limit;
  else throw new ToolError("slice indices must be integers or None or have an __index__ method");
  return items.slice(0, n < 0 ? Math.max(items.length + n, 0) : n);
}
