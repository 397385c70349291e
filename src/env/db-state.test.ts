import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { pyDumps } from "../core/py-json.ts";
import { type CowList, type CowMap, DbState } from "./db-state.ts";
import { t, validate } from "./model.ts";

const Item = t.model("Item", { name: t.str(), price: t.float(), tags: t.list(t.str()) });
const Db = t.model("Db", {
  items: t.dict(Item),
  log: t.list(t.str()),
  settings: t.model("Settings", { mode: t.str(), limit: t.int() }),
  empty: t.dict(t.int()),
});

interface Root {
  items: CowMap<{ name: string; price: number; tags: string[] }>;
  log: CowList<string>;
  settings: { mode: string; limit: number };
  empty: CowMap<number>;
}

function load(): DbState<Root> {
  const items: Record<string, unknown> = {};
  for (let i = 10; i < 60; i++) items[`k${i}`] = { name: `item ${i}`, price: i, tags: [`t${i % 3}`] };
  return DbState.fromValidated<Root>(
    Db,
    validate(Db, { items, log: ["a", "b", "c"], settings: { mode: "x", limit: 3 }, empty: {} }),
  );
}

/** Python's hash of the dump, computed independently of DbState's streaming code. */
function reference(db: DbState<Root>): string {
  return createHash("sha256")
    .update(pyDumps(db.dump(), { sortKeys: true }))
    .digest("hex");
}

/** Small deterministic generator so failures reproduce. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

describe("DbState.hash", () => {
  it("equals the full serialization hash for fresh and forked states", () => {
    const base = load();
    expect(base.hash()).toBe(reference(base));
    expect(base.fork().hash()).toBe(base.hash());
  });

  it("stays equal to the full hash under random writes, inserts, deletes and list edits", () => {
    const base = load();
    const next = random(7);
    for (let round = 0; round < 60; round++) {
      const db = base.fork();
      const root = db.root;
      const steps = 1 + Math.floor(next() * 6);
      for (let s = 0; s < steps; s++) {
        const pick = next();
        const key = `k${Math.floor(next() * 70)}`;
        if (pick < 0.3 && root.items.has(key)) root.items.mutate(key).price += 0.5;
        else if (pick < 0.5)
          root.items.set(key.replace("k", next() < 0.5 ? "a" : "z"), { name: "new", price: 1, tags: [] });
        else if (pick < 0.6) root.items.delete(key);
        else if (pick < 0.7) root.log.push("d");
        else if (pick < 0.75) root.log.set(0, "changed");
        else if (pick < 0.8) root.log.splice(0, root.log.length);
        else if (pick < 0.85) root.empty.set("x", 1);
        else if (pick < 0.9) db.setField("settings", { mode: "y", limit: 4 });
        else root.items.set(key, root.items.get(key) ?? { name: "same", price: 2, tags: ["q"] });
      }
      expect(db.hash(), `round ${round}`).toBe(reference(db));
      expect(db.hash()).toBe(db.hashFull());
      // A fork of a changed state hashes the same as its parent.
      expect(db.fork().hash()).toBe(db.hash());
    }
    expect(base.fork().hash()).toBe(reference(base));
  });

  it("handles a key sorted before every base key", () => {
    const db = load().fork();
    db.root.items.set("a0", { name: "first", price: 0, tags: [] });
    expect(db.hash()).toBe(reference(db));
  });
});

describe("DbState.sameContent", () => {
  /** A few random writes, drawn from a small set so that two forks often end up alike. */
  function scribble(db: DbState<Root>, next: () => number): void {
    const root = db.root;
    const steps = Math.floor(next() * 3);
    for (let s = 0; s < steps; s++) {
      const pick = next();
      const key = `k${10 + Math.floor(next() * 3)}`;
      if (!root.items.has(key)) root.items.set(key, { name: "back", price: 2, tags: [] });
      else if (pick < 0.25) root.items.mutate(key).price = 100;
      else if (pick < 0.4)
        root.items.mutate(key).price += 0; // copied, content unchanged
      else if (pick < 0.55) root.items.set("a1", { name: "new", price: 1, tags: [] });
      else if (pick < 0.65) root.items.delete(key);
      else if (pick < 0.75) root.log.set(0, "a");
      else if (pick < 0.85) root.empty.set("x", 1);
      else db.setField("settings", { mode: next() < 0.5 ? "x" : "y", limit: 3 });
    }
  }

  it("agrees with comparing hashes for forks with random, often equal, writes", () => {
    const base = load();
    const next = random(11);
    let equal = 0;
    for (let round = 0; round < 300; round++) {
      const a = base.fork();
      const b = base.fork();
      scribble(a, next);
      scribble(b, next);
      const expected = a.hash() === b.hash();
      if (expected) equal++;
      expect(a.sameContent(b), `round ${round}`).toBe(expected);
      expect(b.sameContent(a), `round ${round}`).toBe(expected);
      expect(a.sameContent(a.fork())).toBe(true);
    }
    // Both outcomes occur often enough for the comparison to mean something.
    expect(equal).toBeGreaterThan(30);
    expect(equal).toBeLessThan(270);
  });

  it("compares states of different models by their hashes", () => {
    const Other = t.model("Other", { items: t.dict(Item) });
    const other = DbState.fromValidated(Other, validate(Other, { items: {} }));
    expect(load().sameContent(other)).toBe(false);
    expect(other.sameContent(other.fork())).toBe(true);
  });
});

describe("DbState with copy-on-write model fields", () => {
  const Table = {
    ...t.model("Table", { data: t.dict(t.dict(t.any())), notes: [t.str(), ""] }),
    copyOnWrite: true,
  };
  const TablesDb = t.model("TablesDb", { users: Table, cards: Table });
  interface TablesRoot {
    users: { data: CowMap<Map<string, unknown>>; notes: string };
    cards: { data: CowMap<Map<string, unknown>>; notes: string };
  }
  const tablesRef = (db: DbState<TablesRoot>) =>
    createHash("sha256")
      .update(pyDumps(db.dump(), { sortKeys: true }))
      .digest("hex");
  const loadTables = () =>
    DbState.fromValidated<TablesRoot>(
      TablesDb,
      validate(TablesDb, {
        users: { data: { "123": { name: "a" }, u2: { name: "b" } }, notes: "n" },
        cards: { data: {} },
      }),
    );

  it("forks a table without copying it, isolates writes, and hashes like the full dump", () => {
    const base = loadTables();
    const a = base.fork();
    const b = base.fork();
    expect(a.pristineKey()).toBeDefined();
    expect(a.pristineKey()).toBe(b.pristineKey());
    a.root.users.data.mutate("123").set("name", "changed");
    a.root.cards.data.set("c1", new Map([["n", 1]]));
    expect(a.pristineKey()).toBeUndefined();
    expect(a.hash()).toBe(tablesRef(a));
    expect(b.hash()).toBe(tablesRef(b));
    expect(b.hash()).toBe(base.hash());
    expect(a.hash()).not.toBe(b.hash());
    expect([...a.root.users.data.keys()]).toEqual(["123", "u2"]);
    expect(b.root.users.data.get("123")?.get("name")).toBe("a");
    expect(a.fork().hash()).toBe(a.hash());
    expect(a.sameContent(b)).toBe(false);
    expect(b.sameContent(base.fork())).toBe(true);
    const c = base.fork();
    c.root.users.data.mutate("123").set("name", "changed");
    c.root.cards.data.set("c1", new Map([["n", 1]]));
    expect(c.sameContent(a)).toBe(true);
  });
});
