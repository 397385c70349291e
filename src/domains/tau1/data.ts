/**
 * The original τ-bench database: the domain's JSON files as Python's
 * `json.load` gives them (ordered dicts, int vs float kept, no schema), one
 * copy-on-write collection per file, and the data hash
 * `sha256(str(to_hashable(data)))` (specs/tau-bench-v1.md §7) computed
 * incrementally: the base's hashed string is built once per process with
 * sha256 midstates, a fork re-hashes only from its first changed entry.
 */
import { createHash } from "node:crypto";
import { compareCodePoints, type PyValue, pyDumps, pyRepr, pyStringRepr } from "../../core/py-json.ts";
import { type DbDiff, diffPlainValues } from "../../env/db-diff.ts";
import {
  CowMap,
  emitSplicedEntries,
  HashSink,
  type HashedBytes,
  hashWithCheckpoints,
} from "../../env/db-state.ts";
import { deepFreeze, isFrozenValue } from "../../env/model.ts";

// ---------------------------------------------------------------------------
// Python str() of to_hashable(value)

const hashTextCache = new WeakMap<object, string>();

function tupleText(items: string[]): string {
  if (items.length === 0) return "()";
  if (items.length === 1) return `(${items[0]},)`;
  return `(${items.join(", ")})`;
}

function entriesOf(value: object): [string, unknown][] {
  if (value instanceof Map || value instanceof CowMap) return [...value.entries()] as [string, unknown][];
  return Object.entries(value);
}

/**
 * Python `str(to_hashable(value))`: dicts become tuples of `(key, value)`
 * pairs sorted by key, lists tuples, everything else its repr (strings with
 * Python's quoting, printable non-ASCII raw; floats in repr form).
 * Serializations of frozen (shared) objects are cached.
 */
export function hashableText(value: unknown): string {
  if (value === null || typeof value !== "object") return pyRepr(value);
  if (!(value instanceof CowMap) && !Array.isArray(value) && !(value instanceof Map) && !isPlainObject(value))
    return pyRepr(value);
  const cached = hashTextCache.get(value);
  if (cached !== undefined) return cached;
  let text: string;
  if (Array.isArray(value)) text = tupleText(value.map(hashableText));
  else {
    const entries = entriesOf(value).sort((a, b) => compareCodePoints(a[0], b[0]));
    text = tupleText(entries.map(([k, v]) => `(${pyStringRepr(k)}, ${hashableText(v)})`));
  }
  if (isFrozenValue(value)) hashTextCache.set(value, text);
  return text;
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The data hash of a plain value (the reference the incremental {@link Tau1Data.hash} must equal). */
export function dataHashOf(value: unknown): string {
  return createHash("sha256").update(hashableText(value), "utf8").digest("hex");
}

// ---------------------------------------------------------------------------
// The database

/** Where one collection sits in the base stream. */
interface CollectionLayout {
  readonly name: string;
  readonly baseMap: ReadonlyMap<string, PyValue>;
  readonly sortedKeys: readonly string[];
  readonly keyIndex: ReadonlyMap<string, number>;
  /** Byte offset of `(`/`, (` + the collection's name. */
  readonly headerStart: number;
  readonly valueStart: number;
  /** Byte offsets of the entries, plus one where the closing bracket starts. */
  readonly entryOffsets: Float64Array;
  readonly valueEnd: number;
}

interface BaseStream extends HashedBytes {
  readonly collections: readonly CollectionLayout[];
}

/** The loaded files of a domain, frozen and shared by every fork. */
interface Lineage {
  /** Collection names in file (`load_data`) order. */
  readonly names: readonly string[];
  readonly base: ReadonlyMap<string, CowMap<PyValue>>;
  stream: BaseStream | undefined;
}

const byteLength = (text: string) => Buffer.byteLength(text, "utf8");

function entryText(key: string, value: unknown): string {
  return `(${pyStringRepr(key)}, ${hashableText(value)})`;
}

function buildBaseStream(lineage: Lineage): BaseStream {
  const parts: string[] = [];
  let length = 0;
  const push = (text: string) => {
    parts.push(text);
    length += byteLength(text);
  };
  const collections: CollectionLayout[] = [];
  push("(");
  const names = [...lineage.names].sort(compareCodePoints);
  names.forEach((name, i) => {
    const map = lineage.base.get(name)!;
    const headerStart = length;
    push(`${i > 0 ? ", " : ""}(${pyStringRepr(name)}, `);
    const valueStart = length;
    const keys = map.sortedKeys();
    const offsets = new Float64Array(keys.length + 1);
    keys.forEach((key, j) => {
      offsets[j] = length;
      push(`${j === 0 ? "(" : ", "}${entryText(key, map.get(key))}`);
    });
    offsets[keys.length] = length;
    push(keys.length === 0 ? "()" : keys.length === 1 ? ",)" : ")");
    collections.push({
      name,
      baseMap: map.baseMap,
      sortedKeys: keys,
      keyIndex: new Map(keys.map((key, j) => [key, j])),
      headerStart,
      valueStart,
      entryOffsets: offsets,
      valueEnd: length,
    });
    push(")");
  });
  push(names.length === 1 ? ",)" : ")");
  return { ...hashWithCheckpoints(Buffer.from(parts.join(""), "utf8")), collections };
}

/** Emits one collection of a fork: base byte ranges for untouched entries, new text for changed ones. */
function emitCollection(sink: HashSink, layout: CollectionLayout, map: CowMap<PyValue>): void {
  const keys = layout.sortedKeys;
  const changed = [...map.changedKeys()];
  if (changed.length === 0 && map.baseMap === layout.baseMap) {
    sink.base(layout.valueStart, layout.valueEnd);
    return;
  }
  // A replaced base (a deletion) or a base too small to have a ", " between entries: write it all.
  if (map.baseMap !== layout.baseMap || keys.length < 2) {
    sink.text(hashableText(map));
    return;
  }
  emitSplicedEntries(sink, layout, changed, "(", (key) => entryText(key, map.get(key)));
}

/**
 * One episode's database: `data[name]` is a {@link CowMap} over the frozen
 * loaded file. Tools read entries as they are and call `mutate(key)` before
 * changing one (it copies the entry into this state first).
 */
export class Tau1Data {
  private constructor(
    private readonly lineage: Lineage,
    private readonly collections: Map<string, CowMap<PyValue>>,
  ) {}

  /** Freezes loaded collections (name → top-level dict, in load order) as the shared base. */
  static fromCollections(collections: ReadonlyMap<string, Map<string, PyValue>>): Tau1Data {
    const base = new Map<string, CowMap<PyValue>>();
    for (const [name, value] of collections) base.set(name, new CowMap(deepFreeze(value)));
    const lineage: Lineage = { names: [...collections.keys()], base, stream: undefined };
    return new Tau1Data(lineage, new Map(base)).fork();
  }

  /** `data[name]`; a name the domain does not load is Python's KeyError. */
  collection(name: string): CowMap<PyValue> {
    const map = this.collections.get(name);
    if (!map) throw new Error(`no collection '${name}' in this database`);
    return map;
  }

  /** Collection names in load order. */
  get names(): readonly string[] {
    return this.lineage.names;
  }

  /** A fresh episode's state in O(1) (what upstream's reload of the files gives). */
  fresh(): Tau1Data {
    return new Tau1Data(this.lineage, new Map(this.lineage.base)).fork();
  }

  /** An independent copy of this state. */
  fork(): Tau1Data {
    const collections = new Map<string, CowMap<PyValue>>();
    for (const [name, map] of this.collections) collections.set(name, map.fork());
    return new Tau1Data(this.lineage, collections);
  }

  /** Upstream's `get_data_hash()`. */
  hash(): string {
    const stream = (this.lineage.stream ??= buildBaseStream(this.lineage));
    const sink = new HashSink(stream);
    sink.base(0, 1);
    for (const layout of stream.collections) {
      sink.base(layout.headerStart, layout.valueStart);
      emitCollection(sink, layout, this.collection(layout.name));
      sink.base(layout.valueEnd, layout.valueEnd + 1);
    }
    sink.base(stream.bytes.length - (stream.collections.length === 1 ? 2 : 1), stream.bytes.length);
    return sink.digest();
  }

  /** The straightforward full hash (reference for {@link hash}; used by tests). */
  hashFull(): string {
    return dataHashOf(new Map(this.collections));
  }

  /**
   * Differences from this state to `other` (a fork of the same load), field
   * by field; entries both still share with the load are skipped by identity.
   */
  diff(other: Tau1Data, limit = 500): DbDiff {
    const out: DbDiff = { differences: [], truncated: false };
    for (const name of this.names) {
      const a = this.collection(name);
      const b = other.collection(name);
      for (const key of a.keys()) {
        if (out.truncated) return out;
        const left = a.get(key)!;
        if (!b.has(key)) {
          if (out.differences.length >= limit) out.truncated = true;
          else out.differences.push({ path: [name, key], kind: "removed", before: pyDumps(left) });
          continue;
        }
        const right = b.get(key)!;
        if (left !== right) diffPlainValues([name, key], left, right, out, limit);
      }
      for (const key of b.keys()) {
        if (a.has(key)) continue;
        if (out.differences.length >= limit) {
          out.truncated = true;
          return out;
        }
        out.differences.push({ path: [name, key], kind: "added", after: pyDumps(b.get(key)!) });
      }
    }
    return out;
  }

  /** The state as one plain Python value (`{name: dict}`), for tests and diffs. */
  toValue(): Map<string, Map<string, PyValue>> {
    const out = new Map<string, Map<string, PyValue>>();
    for (const [name, map] of this.collections) out.set(name, new Map(map.entries()));
    return out;
  }
}
