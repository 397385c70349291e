/**
 * Field-level differences between two database states of one domain (the gold
 * and the predicted environment, say): what makes their hashes differ. Entries
 * both states still share with the loaded base are skipped by identity, so
 * diffing a 7 MB DB after a few writes touches only the written entries.
 */
import { isPyDict, PyFloat, type PyValue, pyDumps } from "../core/py-json.ts";
import { CowList, CowMap, type DbState } from "./db-state.ts";
import { dumpTyped, type Ty } from "./model.ts";

/** One difference. Values are Python JSON text (so `1` and `1.0` stay apart, as the hash sees them). */
export interface DbDifference {
  /** From the DB root: field names, dict keys and list indices. */
  path: (string | number)[];
  /** `added`: only in the second state; `removed`: only in the first. */
  kind: "changed" | "added" | "removed";
  /** The value in the first state (absent when added). */
  before?: string;
  /** The value in the second state (absent when removed). */
  after?: string;
}

/** Options of {@link diffDbStates}. */
export interface DbDiffOptions {
  /** Stop after this many differences (default 500); `truncated` says so. */
  limit?: number;
}

/** The differences, in field order, and whether the list stopped at the limit. */
export interface DbDiff {
  differences: DbDifference[];
  truncated: boolean;
}

const text = (value: PyValue): string => pyDumps(value);

class Collector {
  readonly differences: DbDifference[] = [];
  truncated = false;
  constructor(private readonly limit: number) {}

  get full(): boolean {
    return this.truncated;
  }

  add(difference: DbDifference): void {
    if (this.differences.length >= this.limit) {
      this.truncated = true;
      return;
    }
    this.differences.push(difference);
  }
}

function entriesOf(value: Map<string, PyValue> | { [key: string]: PyValue }): [string, PyValue][] {
  return value instanceof Map ? [...value.entries()] : Object.entries(value);
}

function sameLeaf(a: PyValue, b: PyValue): boolean {
  if (a instanceof PyFloat || b instanceof PyFloat) {
    // An int and a float of the same value still serialize differently (`1` vs `1.0`).
    return a instanceof PyFloat && b instanceof PyFloat && a.value === b.value;
  }
  return a === b;
}

/** Walks two dumped values and records where they differ. */
function diffValues(path: (string | number)[], a: PyValue, b: PyValue, out: Collector): void {
  if (out.full) return;
  if (isPyDict(a) && isPyDict(b)) {
    const right = new Map(entriesOf(b));
    for (const [key, value] of entriesOf(a)) {
      if (!right.has(key)) out.add({ path: [...path, key], kind: "removed", before: text(value) });
      else diffValues([...path, key], value, right.get(key)!, out);
      right.delete(key);
    }
    for (const [key, value] of right) out.add({ path: [...path, key], kind: "added", after: text(value) });
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const shared = Math.min(a.length, b.length);
    for (let i = 0; i < shared; i++) diffValues([...path, i], a[i]!, b[i]!, out);
    for (let i = shared; i < a.length; i++)
      out.add({ path: [...path, i], kind: "removed", before: text(a[i]!) });
    for (let i = shared; i < b.length; i++)
      out.add({ path: [...path, i], kind: "added", after: text(b[i]!) });
    return;
  }
  if (!sameLeaf(a, b)) out.add({ path, kind: "changed", before: text(a), after: text(b) });
}

/**
 * Differences from `first` to `second`, two plain Python values (dicts, lists,
 * leaves) below `path`, added to `into` (a DB without a typed model: the
 * original τ-bench's). Returns whether the limit was reached.
 */
export function diffPlainValues(
  path: (string | number)[],
  first: PyValue,
  second: PyValue,
  into: DbDiff,
  limit = 500,
): boolean {
  const out = new Collector(limit);
  out.differences.push(...into.differences);
  out.truncated = into.truncated;
  diffValues(path, first, second, out);
  into.differences = out.differences;
  into.truncated = out.truncated;
  return out.truncated;
}

function valueTy(ty: Ty): Ty {
  if (ty.kind === "optional") return valueTy(ty.inner);
  if (ty.kind === "dict") return ty.value;
  if (ty.kind === "list") return ty.item;
  return ty;
}

/**
 * Differences from `first` to `second`, two states of the same DB model.
 * Entries held by identity in both (untouched since the load) are not
 * compared; the rest are dumped as `model_dump()` would and compared field by field.
 */
export function diffDbStates(first: DbState<any>, second: DbState<any>, options: DbDiffOptions = {}): DbDiff {
  const out = new Collector(options.limit ?? 500);
  if (first.ty.name !== second.ty.name)
    throw new TypeError(`cannot diff a ${first.ty.name} against a ${second.ty.name}`);
  for (const field of first.ty.fields) {
    if (out.full) break;
    const a = first.field<unknown>(field.name);
    const b = second.field<unknown>(field.name);
    if (a instanceof CowMap && b instanceof CowMap) {
      const itemTy = valueTy(field.ty);
      for (const key of a.keys()) {
        if (out.full) break;
        const left = a.get(key);
        if (!b.has(key)) {
          out.add({ path: [field.name, key], kind: "removed", before: text(dumpTyped(itemTy, left)) });
          continue;
        }
        const right = b.get(key);
        if (left === right) continue;
        diffValues([field.name, key], dumpTyped(itemTy, left), dumpTyped(itemTy, right), out);
      }
      for (const key of b.keys())
        if (!a.has(key))
          out.add({ path: [field.name, key], kind: "added", after: text(dumpTyped(itemTy, b.get(key))) });
      continue;
    }
    if (a instanceof CowList && b instanceof CowList) {
      if (a.toArray() === b.toArray()) continue;
      const itemTy = valueTy(field.ty);
      const left = a.toArray();
      const right = b.toArray();
      const shared = Math.min(left.length, right.length);
      for (let i = 0; i < shared; i++)
        if (left[i] !== right[i])
          diffValues([field.name, i], dumpTyped(itemTy, left[i]), dumpTyped(itemTy, right[i]), out);
      for (let i = shared; i < left.length; i++)
        out.add({ path: [field.name, i], kind: "removed", before: text(dumpTyped(itemTy, left[i])) });
      for (let i = shared; i < right.length; i++)
        out.add({ path: [field.name, i], kind: "added", after: text(dumpTyped(itemTy, right[i])) });
      continue;
    }
    if (a === b) continue;
    diffValues([field.name], dumpTyped(field.ty, a), dumpTyped(field.ty, b), out);
  }
  return { differences: out.differences, truncated: out.truncated };
}
