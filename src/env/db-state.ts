/**
 * Copy-on-write database state. A domain's DB is parsed and deep-frozen once
 * per process; each episode forks it in O(1) and copies only the entries it
 * writes. Hashing reuses cached serializations of the untouched (frozen) entries.
 */
import { createHash, type Hash } from "node:crypto";
import { compareCodePoints, pyJsonString, type PyValue } from "../core/py-json.ts";
import {
  deepClone,
  deepFreeze,
  dumpTyped,
  isFrozenValue,
  type ModelTy,
  serializeSorted,
  type Ty,
} from "./model.ts";

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
      baseSorted = [...this.base.keys()].sort(compareCodePoints);
      sortedKeysCache.set(this.base, baseSorted);
    }
    if (!this.added || this.added.length === 0) return baseSorted;
    return [...baseSorted, ...this.added].sort(compareCodePoints);
  }

  /** The shared frozen map this one is layered over. */
  get baseMap(): ReadonlyMap<string, V> {
    return this.base;
  }

  /** Keys whose value this state set (changed or added), in no particular order. */
  changedKeys(): IterableIterator<string> {
    return (this.own ?? EMPTY_MAP).keys();
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

  /** Whether this state has its own copy of the element array (it wrote to the list). */
  get isOwned(): boolean {
    return this.ownsArray;
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

/**
 * Top-level model fields whose type says `copyOnWrite` (banking's tables: `{data: {...}, notes}`)
 * are kept as plain objects whose collection fields are {@link CowMap}s / {@link CowList}s, so they
 * fork in O(1) too. These objects are marked here; their other fields are immutable values.
 */
class CowModel {
  [field: string]: unknown;
}

function isCowModel(ty: Ty): ty is ModelTy {
  return ty.kind === "model" && ty.copyOnWrite === true;
}

function cowModelOf(ty: ModelTy, value: Record<string, unknown>): CowModel {
  const out = new CowModel();
  for (const field of ty.fields) {
    const v = value[field.name];
    if (field.ty.kind === "dict") out[field.name] = new CowMap(v as Map<string, unknown>);
    else if (field.ty.kind === "list") out[field.name] = new CowList(v as unknown[]);
    else out[field.name] = v;
  }
  return out;
}

function forkValue(value: unknown): unknown {
  if (value instanceof CowMap || value instanceof CowList) return value.fork();
  if (value instanceof CowModel) {
    const out = new CowModel();
    for (const name in value) {
      const v = value[name];
      out[name] = v instanceof CowMap || v instanceof CowList ? v.fork() : v;
    }
    return out;
  }
  return deepClone(value);
}

/** Whether a copy-on-write model still equals the base it was forked from (nothing written). */
function untouchedModel(value: unknown, base: unknown): boolean {
  if (!(value instanceof CowModel)) return false;
  if (base === null || typeof base !== "object") return false;
  const baseFields = base as Record<string, unknown>;
  for (const [name, v] of Object.entries(value)) {
    const b = baseFields[name];
    if (v instanceof CowMap) {
      if (!(b instanceof CowMap) || v.baseMap !== b.baseMap || !v.changedKeys().next().done) return false;
    } else if (v instanceof CowList) {
      if (!(b instanceof CowList) || v.isOwned || v.toArray() !== b.toArray()) return false;
    } else if (v !== b) return false;
  }
  return true;
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
    /** The frozen base shared by every fork of one loaded DB, with its cached hash stream. */
    private readonly lineage: Lineage,
  ) {}

  /** Wraps a validated value as the frozen shared base of a DB. */
  static fromValidated<R extends object>(ty: ModelTy, value: Record<string, unknown>): DbState<R> {
    deepFreeze(value);
    const fields: Record<string, unknown> = {};
    for (const field of ty.fields) {
      const v = value[field.name];
      if (field.ty.kind === "dict") fields[field.name] = new CowMap(v as Map<string, unknown>);
      else if (field.ty.kind === "list") fields[field.name] = new CowList(v as unknown[]);
      else if (isCowModel(field.ty)) fields[field.name] = cowModelOf(field.ty, v as Record<string, unknown>);
      else fields[field.name] = v;
    }
    return new DbState<R>(ty, fields, { fields: { ...fields }, stream: undefined }).fork();
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
    for (const [name, v] of Object.entries(this.fields)) fields[name] = forkValue(v);
    return new DbState<Root>(this.ty, fields, this.lineage);
  }

  /**
   * An identity of this state's content while nothing was written since it was forked from its
   * shared base (the same object for every such fork), else undefined. Lets callers cache what
   * they derive from a pristine state, such as a task's initial data merged into it.
   */
  pristineKey(): object | undefined {
    for (const [name, v] of Object.entries(this.fields)) {
      const base = this.lineage.fields[name];
      if (v instanceof CowMap) {
        if (!(base instanceof CowMap) || v.baseMap !== base.baseMap || !v.changedKeys().next().done)
          return undefined;
      } else if (v instanceof CowList) {
        if (!(base instanceof CowList) || v.isOwned || v.toArray() !== base.toArray()) return undefined;
      } else if (!untouchedModel(v, base)) return undefined;
    }
    return this.lineage;
  }

  /** `model_dump()` as a Python JSON value (declaration order). */
  dump(): PyValue {
    const out = new Map<string, PyValue>();
    for (const field of this.ty.fields)
      out.set(field.name, dumpTyped(field.ty, typedView(this.fields[field.name])));
    return out;
  }

  /**
   * sha256 of `json.dumps(model_dump(), sort_keys=True, default=str)`, as
   * upstream's `get_db_hash`. The serialization of the shared base is kept as
   * bytes with sha256 midstates every {@link CHECKPOINT_BYTES}; a fork's hash
   * resumes from the last midstate before its first change and hashes the
   * rest as base byte ranges plus its changed entries.
   */
  hash(): string {
    const stream = (this.lineage.stream ??= buildBaseStream(this.ty, this.lineage.fields));
    const sink = new HashSink(stream);
    sink.base(0, 1);
    for (const layout of stream.fields) {
      sink.base(layout.headerStart, layout.valueStart);
      const value = this.fields[layout.name];
      if (value instanceof CowMap) emitMap(sink, layout, value);
      else if (value instanceof CowList) emitList(sink, layout, value);
      else if (untouchedModel(value, this.lineage.fields[layout.name]))
        sink.base(layout.valueStart, layout.valueEnd);
      else {
        const text = serializeSorted(layout.ty, value);
        if (text === layout.baseText) sink.base(layout.valueStart, layout.valueEnd);
        else sink.text(text);
      }
    }
    sink.base(stream.bytes.length - 1, stream.bytes.length);
    return sink.digest();
  }

  /**
   * Whether this state and `other` have equal {@link hash}es, decided without hashing: field by
   * field, where both fork one base only the entries either of them set are serialized and
   * compared (grading compares a predicted and a gold DB this way instead of hashing the rest of a
   * 7 MB stream after each one's first change).
   */
  sameContent(other: DbState<object>): boolean {
    if (other.ty !== this.ty) return this.hash() === other.hash();
    return this.ty.fields.every((field) =>
      sameSerialization(field.ty, this.fields[field.name], other.fields[field.name]),
    );
  }

  /** The straightforward full serialization hash (reference for {@link hash}; used by tests). */
  hashFull(): string {
    const plain: Record<string, unknown> = {};
    for (const [name, v] of Object.entries(this.fields)) plain[name] = typedView(v);
    return createHash("sha256").update(serializeSorted(this.ty, plain), "latin1").digest("hex");
  }
}

/** A top-level field as the typed serializers read it: they take dicts through `entries()`, lists as arrays. */
function typedView(value: unknown): unknown {
  return value instanceof CowList ? value.toArray() : value;
}

/** Whether two values of type `ty` serialize alike; over one shared base, only the entries set since are serialized. */
function sameSerialization(ty: Ty, a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof CowMap && b instanceof CowMap && a.baseMap === b.baseMap) {
    const valueTy = (ty as Extract<Ty, { kind: "dict" }>).value;
    for (const changed of [a, b])
      for (const key of changed.changedKeys()) {
        if (!a.has(key) || !b.has(key)) return false;
        const left = a.get(key);
        const right = b.get(key);
        if (left !== right && serializeSorted(valueTy, left) !== serializeSorted(valueTy, right))
          return false;
      }
    return true;
  }
  if (a instanceof CowList && b instanceof CowList && a.toArray() === b.toArray()) return true;
  if (a instanceof CowModel && b instanceof CowModel && ty.kind === "model")
    return ty.fields.every((field) => sameSerialization(field.ty, a[field.name], b[field.name]));
  return serializeSorted(ty, typedView(a)) === serializeSorted(ty, typedView(b));
}

// ---------------------------------------------------------------------------
// Incremental hashing

/** Distance between stored sha256 midstates in the base stream. */
const CHECKPOINT_BYTES = 32 * 1024;

interface Lineage {
  /** The top-level fields as loaded (CowMaps/CowLists over the frozen base, other values as loaded). */
  readonly fields: Record<string, unknown>;
  stream: BaseStream | undefined;
}

/** Where one top-level field sits in the base stream. */
interface FieldLayout {
  readonly name: string;
  readonly ty: Ty;
  /** Offset of `{"name": ` / `, "name": `. */
  readonly headerStart: number;
  readonly valueStart: number;
  readonly valueEnd: number;
  /** Dict fields: the base map, its sorted keys, and entry offsets (entry i = `{`/`, ` + key + `: ` + value). */
  readonly baseMap?: ReadonlyMap<string, unknown>;
  readonly sortedKeys?: readonly string[];
  readonly keyIndex?: ReadonlyMap<string, number>;
  /** List fields: the base element array; entry i = `[`/`, ` + element. */
  readonly baseItems?: readonly unknown[];
  /** Start offsets of the entries, plus one final offset where the closing bracket starts. */
  readonly entryOffsets?: Int32Array;
  /** Other fields: the base serialization. */
  readonly baseText?: string;
}

/** A byte stream with its sha256 and stored midstates, so a hash of a changed copy can resume mid-way. */
export interface HashedBytes {
  readonly bytes: Buffer;
  /** sha256 states after `offset` bytes, every CHECKPOINT_BYTES. */
  readonly checkpoints: readonly { offset: number; hash: Hash }[];
  readonly digest: string;
}

interface BaseStream extends HashedBytes {
  readonly fields: readonly FieldLayout[];
}

/** Hashes `bytes` once, keeping a sha256 midstate every {@link CHECKPOINT_BYTES}. */
export function hashWithCheckpoints(bytes: Buffer): HashedBytes {
  const checkpoints: { offset: number; hash: Hash }[] = [];
  const hasher = createHash("sha256");
  for (let offset = 0; offset < bytes.length; offset += CHECKPOINT_BYTES) {
    checkpoints.push({ offset, hash: hasher.copy() });
    hasher.update(bytes.subarray(offset, Math.min(bytes.length, offset + CHECKPOINT_BYTES)));
  }
  return { bytes, checkpoints, digest: hasher.digest("hex") };
}

function buildBaseStream(ty: ModelTy, fields: Record<string, unknown>): BaseStream {
  const parts: string[] = [];
  let length = 0;
  const push = (text: string) => {
    parts.push(text);
    length += text.length;
  };
  const layouts: FieldLayout[] = [];
  push("{");
  const sorted = [...ty.fields].sort((a, b) => compareCodePoints(a.name, b.name));
  sorted.forEach((field, i) => {
    const headerStart = length;
    push(`${i > 0 ? ", " : ""}${pyJsonString(field.name)}: `);
    const valueStart = length;
    const value = fields[field.name];
    if (value instanceof CowMap) {
      const valueTy = (field.ty as Extract<Ty, { kind: "dict" }>).value;
      const keys = value.sortedKeys();
      const offsets = new Int32Array(keys.length + 1);
      keys.forEach((key, j) => {
        offsets[j] = length;
        push(`${j === 0 ? "{" : ", "}${pyJsonString(key)}: ${serializeSorted(valueTy, value.get(key))}`);
      });
      offsets[keys.length] = length;
      push(keys.length === 0 ? "{}" : "}");
      layouts.push({
        name: field.name,
        ty: field.ty,
        headerStart,
        valueStart,
        valueEnd: length,
        baseMap: value.baseMap,
        sortedKeys: keys,
        keyIndex: new Map(keys.map((key, j) => [key, j])),
        entryOffsets: offsets,
      });
    } else if (value instanceof CowList) {
      const itemTy = (field.ty as Extract<Ty, { kind: "list" }>).item;
      const items = value.toArray();
      const offsets = new Int32Array(items.length + 1);
      items.forEach((item, j) => {
        offsets[j] = length;
        push(`${j === 0 ? "[" : ", "}${serializeSorted(itemTy, item)}`);
      });
      offsets[items.length] = length;
      push(items.length === 0 ? "[]" : "]");
      layouts.push({
        name: field.name,
        ty: field.ty,
        headerStart,
        valueStart,
        valueEnd: length,
        baseItems: items,
        entryOffsets: offsets,
      });
    } else {
      const text = serializeSorted(field.ty, value);
      push(text);
      layouts.push({
        name: field.name,
        ty: field.ty,
        headerStart,
        valueStart,
        valueEnd: length,
        baseText: text,
      });
    }
  });
  push("}");
  // Serializations are ASCII (json.dumps escapes everything else), so characters and bytes coincide.
  const bytes = Buffer.from(parts.join(""), "latin1");
  return { ...hashWithCheckpoints(bytes), fields: layouts };
}

/**
 * Receives the hash stream as base byte ranges and new text. While the
 * output still equals the base stream it only tracks the offset; at the
 * first difference it resumes hashing from the nearest stored midstate.
 */
export class HashSink {
  private hasher: Hash | undefined;
  private pendingStart = 0;
  private pendingEnd = 0;

  constructor(private readonly stream: HashedBytes) {}

  base(start: number, end: number): void {
    if (start >= end) return;
    if (start === this.pendingEnd) {
      this.pendingEnd = end;
      return;
    }
    this.flush();
    this.pendingStart = start;
    this.pendingEnd = end;
  }

  /** New text (UTF-8; the JSON serializations are ASCII, where UTF-8 and Latin-1 agree). */
  text(text: string): void {
    this.flush();
    this.hasher!.update(text, "utf8");
  }

  private flush(): void {
    if (!this.hasher) {
      // Everything so far is the base stream's prefix [0, pendingEnd).
      const checkpoints = this.stream.checkpoints;
      let index = Math.min(checkpoints.length - 1, Math.floor(this.pendingEnd / CHECKPOINT_BYTES));
      while (index > 0 && checkpoints[index]!.offset > this.pendingEnd) index--;
      const checkpoint = checkpoints[index];
      this.hasher = checkpoint ? checkpoint.hash.copy() : createHash("sha256");
      this.pendingStart = checkpoint ? checkpoint.offset : 0;
    }
    if (this.pendingEnd > this.pendingStart) {
      this.hasher.update(this.stream.bytes.subarray(this.pendingStart, this.pendingEnd));
    }
    this.pendingStart = this.pendingEnd;
  }

  digest(): string {
    if (!this.hasher && this.pendingStart === 0 && this.pendingEnd === this.stream.bytes.length) {
      return this.stream.digest;
    }
    this.flush();
    return this.hasher!.digest("hex");
  }
}

function emitFullText(sink: HashSink, layout: FieldLayout, value: CowMap<unknown> | CowList<unknown>): void {
  sink.text(serializeSorted(layout.ty, typedView(value)));
}

/** Where `key` goes among code-point-sorted `keys` (binary search). */
export function lowerBound(keys: readonly string[], key: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (compareCodePoints(keys[middle]!, key) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

function emitMap(sink: HashSink, layout: FieldLayout, map: CowMap<unknown>): void {
  const offsets = layout.entryOffsets;
  const keys = layout.sortedKeys;
  if (map.baseMap !== layout.baseMap || !offsets || !keys || keys.length === 0) {
    emitFullText(sink, layout, map);
    return;
  }
  const changed = [...map.changedKeys()];
  if (changed.length === 0) {
    sink.base(layout.valueStart, layout.valueEnd);
    return;
  }
  const valueTy = (layout.ty as Extract<Ty, { kind: "dict" }>).value;
  emitSplicedEntries(
    sink,
    { sortedKeys: keys, keyIndex: layout.keyIndex!, entryOffsets: offsets, valueEnd: layout.valueEnd },
    changed,
    "{",
    (key) => `${pyJsonString(key)}: ${serializeSorted(valueTy, map.get(key))}`,
  );
}

/** Where a sorted map's entries lie in the base stream: entry `j` starts at `entryOffsets[j]`. */
export interface SortedEntriesLayout {
  readonly sortedKeys: readonly string[];
  readonly keyIndex: ReadonlyMap<string, number>;
  /** One offset per entry (each entry's text starts with `open` or ", "), then the end of the last. */
  readonly entryOffsets: ArrayLike<number>;
  /** The end of the map's text (its closing bracket included). */
  readonly valueEnd: number;
}

/**
 * Emits a map of sorted keys whose base has at least one entry: base byte ranges for the untouched
 * entries, `entryText(key)` for the `changed` ones (set or added; none deleted), in key order.
 * `open` is the bracket the first entry starts with.
 */
export function emitSplicedEntries(
  sink: HashSink,
  layout: SortedEntriesLayout,
  changed: string[],
  open: string,
  entryText: (key: string) => string,
): void {
  const { sortedKeys: keys, keyIndex, entryOffsets: offsets } = layout;
  changed.sort(compareCodePoints);
  let cursor = 0;
  let emitted = false;
  const emitBase = (end: number) => {
    if (cursor >= end) return;
    if (cursor === 0 && emitted) {
      // The first base entry opens with the bracket; after an inserted key it needs a separator instead.
      sink.text(", ");
      sink.base(offsets[0]! + 1, offsets[end]!);
    } else sink.base(offsets[cursor]!, offsets[end]!);
    cursor = end;
    emitted = true;
  };
  for (const key of changed) {
    const index = keyIndex.get(key);
    emitBase(index ?? lowerBound(keys, key));
    sink.text(`${emitted ? ", " : open}${entryText(key)}`);
    emitted = true;
    if (index !== undefined) cursor = index + 1;
  }
  emitBase(keys.length);
  sink.base(offsets[keys.length]!, layout.valueEnd);
}

function emitList(sink: HashSink, layout: FieldLayout, list: CowList<unknown>): void {
  const offsets = layout.entryOffsets;
  const baseItems = layout.baseItems;
  if (!list.isOwned) {
    sink.base(layout.valueStart, layout.valueEnd);
    return;
  }
  const items = list.toArray();
  if (!offsets || !baseItems || baseItems.length === 0 || items.length === 0) {
    emitFullText(sink, layout, list);
    return;
  }
  const itemTy = (layout.ty as Extract<Ty, { kind: "list" }>).item;
  // Same index, same element: the base bytes (separator included) still apply.
  items.forEach((item, i) => {
    if (i < baseItems.length && item === baseItems[i]) sink.base(offsets[i]!, offsets[i + 1]!);
    else sink.text(`${i === 0 ? "[" : ", "}${serializeSorted(itemTy, item)}`);
  });
  sink.text("]");
}
