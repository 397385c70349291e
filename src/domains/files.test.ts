import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { pyDumps } from "../core/py-json.ts";
import { parsePyJsonFile, readText } from "../core/read-files.ts";
import { DbState } from "../env/db-state.ts";
import { type ModelTy, t } from "../env/model.ts";
import { FlightDb } from "./airline/model.ts";
import { TransactionalDb } from "./banking_knowledge/db.ts";
import { readDb, validateDb } from "./files.ts";
import { RetailDb } from "./retail/data-model.ts";

const scratch: string[] = [];
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const fileWith = (text: string) => {
  const dir = mkdtempSync(join(tmpdir(), "tau-files-"));
  scratch.push(dir);
  const path = join(dir, "db.json");
  writeFileSync(path, text);
  return path;
};

/** What the Python-compatible parser gives (the path readDb takes when the quick one does not apply). */
function fullRead(path: string, ty: ModelTy): DbState {
  return DbState.fromValidated(
    ty,
    validateDb(path, ty, parsePyJsonFile(path, readText(path), { maps: true })),
  );
}

const same = (a: DbState, b: DbState) => {
  expect(pyDumps(a.dump())).toBe(pyDumps(b.dump()));
};

describe("readDb", () => {
  const Row = t.model("Row", { price: t.float(), count: t.int(), note: [t.optional(t.str()), null] });
  const Typed = t.model("TypedDB", { rows: t.dict(Row) }, "forbid");
  const Loose = t.model("LooseDB", { rows: t.dict(Row), extra: t.any() });
  const Tagged = t.model("TaggedDB", {
    items: t.dict(
      t.union("kind", {
        a: t.model("A", { kind: t.literal("a"), seats: t.dict(t.int()) }),
      }),
    ),
  });

  it("gives what the Python-compatible parser gives: key order, floats, duplicate keys", () => {
    const texts = [
      '{"rows": {"b": {"price": 2, "count": 3.0}, "a": {"price": 2.5, "count": 1, "note": "x"}, "b": {"price": 7.0, "count": 1}}}',
      '{"rows": {"10": {"price": 1, "count": 1}, "2": {"price": 1.0, "count": 2}}}', // integer-like keys keep file order
      '{"rows": {"b": {"price": 1, "count": 1},\n "7" : {"price": 1, "count": 2, "note": "\\", \\"5\\": "}, "07": {"price": 3, "count": 3}}}',
      '{"rows": {"\\u0031": {"price": 1, "count": 1}, "0": {"price": 1, "count": 2}}}',
      '{"rows": {"__proto__": {"price": 1e2, "count": 1}}}',
    ];
    for (const text of texts) {
      const path = fileWith(text);
      same(readDb(path, Typed), fullRead(path, Typed));
    }
    for (const text of [
      '{"items": {"9": {"kind": "a", "seats": {"12": 1, "3": 2}}, "x": {"kind": "a", "seats": {}}}}',
    ]) {
      const path = fileWith(text);
      same(readDb(path, Tagged), fullRead(path, Tagged));
    }
    // An `any` field keeps 2.0 as a float.
    const path = fileWith('{"rows": {}, "extra": {"ratio": 2.0, "n": 2}}');
    expect(pyDumps(readDb(path, Loose).dump())).toContain('"ratio": 2.0, "n": 2');
  });

  it("reports a bad DB with the full path's one line", () => {
    const cases = [
      [
        '{"rows": {"a": {"price": "x", "count": 2.0}}}',
        /TypedDB rows\.a\.price +Input should be a valid number/,
      ],
      ['{"rows": {"a": {"price": 1, "count": 2.5}}}', /input_value=2\.5, input_type=float/],
      ['{"rows": {"a": {"price": 1, "count": 1, "note": 2.0}}}', /input_value=2\.0, input_type=float/],
      ['{"rows": {}, "other": 1}', /Extra inputs are not permitted/],
      ['{"rows": {},}', /invalid JSON: Illegal trailing comma before end of object: line 1 column 12/],
      ['{"rows": {"a": {"price": NaN, "count": 1}}}', /^(?!.*invalid JSON)/],
    ] as const;
    for (const [text, message] of cases) {
      const path = fileWith(text);
      let error: unknown = null;
      try {
        readDb(path, Typed);
      } catch (caught) {
        error = caught;
      }
      let full: unknown = null;
      try {
        fullRead(path, Typed);
      } catch (caught) {
        full = caught;
      }
      expect(String(error)).toBe(String(full));
      expect(String(error)).toMatch(message);
    }
  });

  const dataDir = process.env.TAU_DATA_DIR;
  const dbs: [string, ModelTy][] = [
    ["airline", FlightDb],
    ["retail", RetailDb],
    ["banking_knowledge", TransactionalDb],
  ];
  it.skipIf(!dataDir)(
    "loads the official DBs exactly as the full parser does (skipped without TAU_DATA_DIR)",
    () => {
      let compared = 0;
      for (const [domain, ty] of dbs) {
        const path = join(dataDir!, "domains", domain, "db.json");
        if (!existsSync(path)) continue;
        same(readDb(path, ty), fullRead(path, ty));
        compared++;
      }
      expect(compared).toBeGreaterThan(0);
    },
  );
});

describe("readText", () => {
  it("reads ASCII and UTF-8 files as their text (a BOM kept, as Node's utf8 decoding keeps it)", () => {
    for (const text of ['{"a": "plain"}', '{"a": "caf\u00e9 \u{1f600}"}', '\ufeff{"a": 1}', ""])
      expect(readText(fileWith(text))).toBe(text);
  });
});
