/**
 * Copies of parsed data that share no storage with the text they came from,
 * for records a long run keeps (one per finished simulation).
 *
 * V8 represents a substring as a view of its parent string, and a
 * concatenation as a pair of its parts: the JSON parser's strings are views
 * of the checkpoint line (itself a view of a 64 KB read chunk), so one kept
 * `id` keeps a whole chunk of the file alive, and a key built with `+` keeps
 * its parts.
 */
import { pyDumps } from "../core/py-json.ts";

/**
 * A flat string with storage of its own. Property keys are internalized: V8
 * copies the characters into its string table rather than keep a view or a
 * pair, and equal texts (termination reasons, task ids) share one copy.
 */
export function ownString(text: string): string {
  return Object.keys({ [text]: 0 })[0]!;
}

/** Deep copy of JSON-like data (plain objects, arrays, Maps) with {@link ownString} strings; class instances (PyFloat) are kept. */
export function ownCopy<T>(value: T): T {
  if (typeof value === "string") return ownString(value) as T;
  if (Array.isArray(value)) return value.map(ownCopy) as T;
  if (value instanceof Map)
    return new Map([...value].map(([key, item]) => [ownCopy(key), ownCopy(item)])) as T;
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    // Property keys are internalized already; values are copied.
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = ownCopy(item);
    return out as T;
  }
  return value;
}

/** Most distinct values {@link sharedCopy} keeps; past it, values are copied, not shared (memory stays bounded either way). */
const SHARED_LIMIT = 10_000;
const shared = new Map<string, unknown>();

/**
 * An {@link ownCopy} of `value` that equal values share, frozen because it is
 * shared. Grading parts repeat across simulations (the same action checks,
 * DB check and reward breakdown for every trial of a task that passes), so a
 * run keeps one copy per distinct part instead of one per simulation.
 */
export function sharedCopy<T>(value: T): T {
  if (value === null || typeof value !== "object") return ownCopy(value);
  const text = pyDumps(value);
  const known = shared.get(text);
  if (known !== undefined) return known as T;
  const copy = deepFreeze(ownCopy(value));
  if (shared.size < SHARED_LIMIT) shared.set(ownString(text), copy);
  return copy;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of value instanceof Map ? value.values() : Object.values(value)) deepFreeze(item);
  }
  return value;
}
