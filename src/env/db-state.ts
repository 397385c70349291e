/**
 * Copy-on-write database state. A domain's DB is parsed and deep-frozen once
 * per process; each episode forks it in O(1) and copies only the entries it
 * writes. Hashing reuses cached serializations of the untouched (frozen) entries.
 */
import { createHash } from "node:crypto";
import { pyJsonString, type PyValue } from "../core/py-json.ts";
import {
  deepClone,
  deepFreeze,
  dumpTyped,
  isFrozenValue,
  type ModelTy,
  serializeSorted,
  type Ty,
} from "./model.ts";

function byKey(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const sortedKeysCache = new WeakMap<ReadonlyMap<string, unknown>, string[]>();

/**
 * An ordered dict with Python semantics (assignment to an existing key keeps
 * its position, new keys go last) layered over a frozen shared base map.
 */
export class CowMap<V> {
  private own: Map<string, V> | undefined;
  private added: string[] | undefined;

  constructor(private base: ReadonlyMap<string, V>) {}

  get size(): number {
    return this.base.size + (this.added?.length ?? 0);
  }

  has(key: string): boolean {
    return this.base.has(key) || (this.own?.has(key) ?? false);
  }

  /** The current value (frozen when untouched: use {@link mutate} before changing it). */
  get(key: string): V | undefined {
    const own = this.own?.get(key);
    return own !== undefined ? own : this.base.get(key);
  }

  /** The value for `key`, copied into this state first if it is still shared, so it may be changed in place. */
  mutate(key: string): V {
    const value = this.get(key);
    if (value === undefined) throw new Error(`key ${key} not present`);
    if (!isFrozenValue(value)) return value;
    const copy = deepClone(value);
    this.set(key, copy);
    return copy;
  }

  /** Python `d[key] = value`: an existing key keeps its position, a new one goes last. */
  set(key: string, value: V): void {
    if (!this.has(key)) (this.added ??= []).push(key);
    this.own ??= new Map();
    this.own.set(key, value);
  }

  /** Python `del d[key]`. Rare in the domains, so it simply stops sharing the base. */
  delete(key: string): boolean {
    if (!this.has(key)) return false;
    if (this.base.size > 0) {
      const all = new Map(this.entries());
      this.base = EMPTY_MAP as ReadonlyMap<string, V>;
      this.own = all;
      this.added = [...all.keys()];
    }
    this.own?.delete(key);
    this.added = this.added?.filter((k) => k !== key);
    return true;
  }

  *keys(): IterableIterator<string> {
    yield* this.base.keys();
    if (this.added) yield* this.added;
  }

  *values(): IterableIterator<V> {
    for (const key of this.keys()) yield this.get(key) as V;
  }

  *entries(): IterableIterator<[string, V]> {
    for (const key of this.keys()) yield [key, this.get(key) as V];
  }

  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries();
  }

  /** Keys in code-point order (the base's order is computed once and cached). */
  sortedKeys(): string[] {
    let baseSorted = sortedKeysCache.get(this.base);
    if (!baseSorted) {
      baseSorted = [...this.base.keys()].sort(byKey);
      sortedKeysCache.set(this.base, baseSorted);
    }
    if (!this.added || this.added.length === 0) return baseSorted;
    return [...baseSorted, ...this.added].sort(byKey);
  }

  /** An independent copy: shares the frozen base, deep-copies what this state changed. */
  fork(): CowMap<V> {
    const copy = new CowMap<V>(this.base);
    if (this.own) {
      copy.own = new Map();
      for (const [k, v] of this.own) copy.own.set(k, isFrozenValue(v) ? v : deepClone(v));
    }
    if (this.added) copy.added = [...this.added];
    return copy;
  }
}

const EMPTY_MAP: ReadonlyMap<string, unknown> = new Map();

/** A list layered over a frozen shared base array; the element array is copied on the first write. */
export class CowList<V> {
  private items: V[];
  private ownsArray = false;

  constructor(base: readonly V[]) {
    this.items = base as V[];
  }

  get length(): number {
    return this.items.length;
  }

  at(index: number): V | undefined {
    return this.items[index];
  }

  [Symbol.iterator](): IterableIterator<V> {
    return this.items[Symbol.iterator]();
  }

  /** A read-only view of the current elements. */
  toArray(): readonly V[] {
    return this.items;
  }

  find(predicate: (item: V, index: number) => boolean): V | undefined {
    return this.items.find(predicate);
  }

  findIndex(predicate: (item: V, index: number) => boolean): number {
    return this.items.findIndex(predicate);
  }

  filter(predicate: (item: V, index: number) => boolean): V[] {
    return this.items.filter(predicate);
  }

  private writable(): V[] {
    if (!this.ownsArray) {
      this.items = [...this.items];
      this.ownsArray = true;
    }
    return this.items;
  }

  /** The element at `index`, copied first if still shared, so it may be changed in place. */
  mutate(index: number): V {
    const value = this.items[index];
    if (value === undefined) throw new Error(`index ${index} out of range`);
    if (!isFrozenValue(value)) return value;
    const copy = deepClone(value);
    this.writable()[index] = copy;
    return copy;
  }

  /** Finds an element and returns it ready to change in place (see {@link mutate}). */
  mutateWhere(predicate: (item: V, index: number) => boolean): V | undefined {
    const index = this.items.findIndex(predicate);
    return index < 0 ? undefined : this.mutate(index);
  }

  push(...values: V[]): void {
    this.writable().push(...values);
  }

  set(index: number, value: V): void {
    this.writable()[index] = value;
  }

  splice(start: number, deleteCount: number, ...values: V[]): V[] {
    return this.writable().splice(start, deleteCount, ...values);
  }

  fork(): CowList<V> {
    const copy = new CowList<V>(this.items);
    if (this.ownsArray) {
      copy.items = this.items.map((v) => (isFrozenValue(v) ? v : deepClone(v)));
      copy.ownsArray = true;
    }
    return copy;
  }
}

/** Raised when a tool reads a field the current DB does not have (Python `AttributeError`). */
export class AttributeError extends Error {
  constructor(modelName: string, field: string) {
    super(`'${modelName}' object has no attribute '${field}'`);
    this.name = "AttributeError";
  }
}

/**
 * A domain database as one episode sees it. Top-level dict fields are
 * {@link CowMap}s, top-level list fields {@link CowList}s, and other top-level
 * fields (small models) are copied on fork.
 */
export class DbState<Root extends object = Record<string, unknown>> {
  private constructor(
    readonly ty: ModelTy,
    private readonly fields: Record<string, unknown>,
  ) {}

  /** Wraps a validated value as the frozen shared base of a DB. */
  static fromValidated<R extends object>(ty: ModelTy, value: Record<string, unknown>): DbState<R> {
    deepFreeze(value);
    const fields: Record<string, unknown> = {};
    for (const field of ty.fields) {
      const v = value[field.name];
      if (field.ty.kind === "dict") fields[field.name] = new CowMap(v as Map<string, unknown>);
      else if (field.ty.kind === "list") fields[field.name] = new CowList(v as unknown[]);
      else fields[field.name] = v;
    }
    return new DbState<R>(ty, fields).fork();
  }

  /** The model's name (e.g. `MockDB`). */
  get modelName(): string {
    return this.ty.name;
  }

  /**
   * The top-level fields. Reading a field the model does not declare throws
   * {@link AttributeError}, as a Python attribute access would.
   */
  get root(): Root {
    const fields = this.fields;
    const modelName = this.ty.name;
    return new Proxy(fields, {
      get(target, prop) {
        if (typeof prop === "string" && !(prop in target)) throw new AttributeError(modelName, prop);
        return Reflect.get(target, prop);
      },
    }) as Root;
  }

  /** Field accessor without the proxy (hot paths). */
  field<T>(name: string): T {
    if (!(name in this.fields)) throw new AttributeError(this.ty.name, name);
    return this.fields[name] as T;
  }

  /** Replaces a non-collection top-level field. */
  setField(name: string, value: unknown): void {
    this.fields[name] = value;
  }

  /** O(1) copy for a new episode (plus copies of what this state already changed). */
  fork(): DbState<Root> {
    const fields: Record<string, unknown> = {};
    for (const [name, v] of Object.entries(this.fields)) {
      if (v instanceof CowMap || v instanceof CowList) fields[name] = v.fork();
      else fields[name] = deepClone(v);
    }
    return new DbState<Root>(this.ty, fields);
  }

  /** `model_dump()` as a Python JSON value (declaration order). */
  dump(): PyValue {
    const out = new Map<string, PyValue>();
    for (const field of this.ty.fields) {
      const v = this.fields[field.name];
      if (v instanceof CowMap) out.set(field.name, dumpTyped(field.ty, new Map(v.entries())));
      else if (v instanceof CowList) out.set(field.name, dumpTyped(field.ty, [...v.toArray()]));
      else out.set(field.name, dumpTyped(field.ty, v));
    }
    return out;
  }

  /** sha256 of `json.dumps(model_dump(), sort_keys=True, default=str)`, as upstream's `get_db_hash`. */
  hash(): string {
    const hasher = createHash("sha256");
    const fields = [...this.ty.fields].sort((a, b) => byKey(a.name, b.name));
    hasher.update("{");
    fields.forEach((field, i) => {
      if (i > 0) hasher.update(", ");
      hasher.update(`${pyJsonString(field.name)}: `);
      const v = this.fields[field.name];
      if (v instanceof CowMap) hashMap(hasher, field.ty, v);
      else if (v instanceof CowList) {
        const itemTy = (field.ty as Extract<Ty, { kind: "list" }>).item;
        const items = v.toArray();
        hasher.update("[");
        items.forEach((item, j) => {
          if (j > 0) hasher.update(", ");
          hasher.update(serializeSorted(itemTy, item), "latin1");
        });
        hasher.update("]");
      } else hasher.update(serializeSorted(field.ty, v), "latin1");
    });
    hasher.update("}");
    return hasher.digest("hex");
  }
}

function hashMap(hasher: ReturnType<typeof createHash>, ty: Ty, map: CowMap<unknown>): void {
  const valueTy = (ty as Extract<Ty, { kind: "dict" }>).value;
  const keys = map.sortedKeys();
  if (keys.length === 0) {
    hasher.update("{}");
    return;
  }
  const chunk: string[] = [];
  keys.forEach((key, i) => {
    chunk.push(i > 0 ? ", " : "{", pyJsonString(key), ": ", serializeSorted(valueTy, map.get(key)));
    if (chunk.length >= 512) {
      hasher.update(chunk.join(""), "latin1");
      chunk.length = 0;
    }
  });
  chunk.push("}");
  hasher.update(chunk.join(""), "latin1");
}
