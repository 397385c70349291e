import { describe, expect, it } from "vitest";
import { PyFloat } from "../core/py-json.ts";
import { diffDbStates } from "./db-diff.ts";
import { type CowList, type CowMap, DbState } from "./db-state.ts";
import { t, validate } from "./model.ts";

const Item = t.model("Item", { name: t.str(), price: t.float(), stock: t.int(), tags: t.list(t.str()) });
const Db = t.model("Db", {
  items: t.dict(Item),
  log: t.list(t.str()),
  settings: t.model("Settings", { mode: t.str(), limit: t.int() }),
});

interface Root {
  items: CowMap<{ name: string; price: number; stock: number; tags: string[] }>;
  log: CowList<string>;
  settings: { mode: string; limit: number };
}

function load(): DbState<Root> {
  const items: Record<string, unknown> = {};
  for (let i = 0; i < 50; i++) items[`k${i}`] = { name: `item ${i}`, price: i + 0.5, stock: i, tags: ["a"] };
  return DbState.fromValidated<Root>(
    Db,
    validate(Db, { items, log: ["a", "b"], settings: { mode: "x", limit: 3 } }),
  );
}

describe("diffDbStates", () => {
  it("is empty for two untouched forks", () => {
    const base = load();
    expect(diffDbStates(base.fork(), base.fork())).toEqual({ differences: [], truncated: false });
  });

  it("names every changed, added and removed field by its path", () => {
    const base = load();
    const gold = base.fork();
    const predicted = base.fork();
    predicted.root.items.mutate("k3").stock = 2;
    predicted.root.items.mutate("k4").tags.push("b");
    gold.root.items.mutate("k5").name = "renamed";
    predicted.root.items.set("new", { name: "n", price: 1, stock: 0, tags: [] });
    predicted.root.log.push("c");
    predicted.setField("settings", { mode: "y", limit: 3 });
    // Written but equal: not a difference.
    predicted.root.items.mutate("k6").stock = 6;

    const { differences, truncated } = diffDbStates(gold, predicted);
    expect(truncated).toBe(false);
    expect(differences).toEqual([
      { path: ["items", "k3", "stock"], kind: "changed", before: "3", after: "2" },
      { path: ["items", "k4", "tags", 1], kind: "added", after: '"b"' },
      { path: ["items", "k5", "name"], kind: "changed", before: '"renamed"', after: '"item 5"' },
      {
        path: ["items", "new"],
        kind: "added",
        after: '{"name": "n", "price": 1.0, "stock": 0, "tags": []}',
      },
      { path: ["log", 2], kind: "added", after: '"c"' },
      { path: ["settings", "mode"], kind: "changed", before: '"x"', after: '"y"' },
    ]);
  });

  it("tells an int from the float of the same value, as the hash does", () => {
    const base = load();
    const gold = base.fork();
    const predicted = base.fork();
    // A tool assigning an unvalidated argument: pydantic dumps it as given.
    (gold.root.items.mutate("k1") as { stock: unknown }).stock = new PyFloat(1);
    expect(diffDbStates(gold, predicted).differences).toEqual([
      { path: ["items", "k1", "stock"], kind: "changed", before: "1.0", after: "1" },
    ]);
  });

  it("stops at the limit and says so", () => {
    const base = load();
    const predicted = base.fork();
    for (let i = 0; i < 10; i++) predicted.root.items.mutate(`k${i}`).stock = 100;
    const diff = diffDbStates(base.fork(), predicted, { limit: 4 });
    expect(diff.differences).toHaveLength(4);
    expect(diff.truncated).toBe(true);
  });
});
