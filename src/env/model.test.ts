import { describe, expect, it } from "vitest";
import { PyFloat, pyDumps } from "../core/py-json.ts";
import { deepClone, deepFreeze, dumpTyped, modelResult, serializeTyped, t, validate } from "./model.ts";

const Card = t.model("Card", { source: t.literal("card"), id: t.str() });
const Gift = t.model("Gift", { source: t.literal("gift"), id: t.str(), amount: t.float() });
const Order = t.model("Order", {
  id: t.str(),
  total: t.float(),
  count: t.int(),
  paid: t.bool(),
  note: [t.optional(t.str()), null],
  items: t.dict(t.model("Item", { price: t.float(), tags: t.list(t.str()) })),
  methods: t.dict(t.union("source", { card: Card, gift: Gift })),
  extra: t.any(),
});

const input = {
  id: 'o\u00e9 "1"',
  total: 100,
  count: 3,
  paid: true,
  items: new Map([
    ["20", { price: 1.5, tags: ["a"] }],
    ["3", { price: 2, tags: [] }],
  ]),
  methods: { g: { source: "gift", id: "g", amount: 0.1 }, c: { source: "card", id: "c" } },
  extra: { b: [1, new PyFloat(2)], a: null },
};

describe("serializeTyped", () => {
  it("writes exactly what pyDumps(dumpTyped(...)) writes, frozen or not", () => {
    const value = validate<Record<string, unknown>>(Order, input);
    const expected = pyDumps(dumpTyped(Order, value));
    expect(expected).toContain('"items": {"20": {"price": 1.5, "tags": ["a"]}, "3": {"price": 2.0');
    expect(serializeTyped(Order, value)).toBe(expected);
    const frozen = deepFreeze(deepClone(value));
    expect(serializeTyped(Order, frozen)).toBe(expected);
    expect(serializeTyped(Order, frozen)).toBe(expected); // from the cache
  });

  it("writes values assigned without validation as they are", () => {
    const value = validate<Record<string, unknown>>(Order, input);
    value.count = new PyFloat(2);
    value.note = 5;
    expect(serializeTyped(Order, value)).toBe(pyDumps(dumpTyped(Order, value)));
    expect(serializeTyped(Order, value)).toContain('"count": 2.0, "paid": true, "note": 5');
  });

  it("snapshots model results when the tool returns", () => {
    const value = validate<Record<string, unknown>>(Order, input);
    const result = modelResult(Order, value);
    value.total = 1;
    expect(result.json).toContain('"total": 100.0');
    expect(pyDumps(result.value)).toBe(result.json);
  });
});

describe("validate", () => {
  it("names each issue by its full path: list index, dict key, union tag, missing and extra fields", () => {
    const Strict = t.model("Strict", { a: t.int() }, "forbid");
    const Shop = t.model("Shop", { orders: t.list(Order), strict: Strict });
    const bad = {
      orders: [
        input,
        { ...input, items: { "7": { price: "x", tags: [1] } }, methods: { m: { source: "gift" } } },
      ],
      strict: { a: 1, b: 2 },
    };
    let caught: unknown;
    try {
      validate(Shop, bad);
    } catch (error) {
      caught = error;
    }
    const issues = (caught as { issues: { loc: (string | number)[]; type: string }[] }).issues;
    expect(issues.map((issue) => [issue.loc.join("."), issue.type])).toEqual([
      ["orders.1.items.7.price", "float_type"],
      ["orders.1.items.7.tags.0", "string_type"],
      ["orders.1.methods.m.gift.id", "missing"],
      ["orders.1.methods.m.gift.amount", "missing"],
      ["strict.b", "extra_forbidden"],
    ]);
  });

  it("validates a Map input as the plain object with the same entries", () => {
    const fromObject = validate(Order, input);
    const fromMap = validate(Order, new Map(Object.entries(input)));
    expect(serializeTyped(Order, fromMap)).toBe(serializeTyped(Order, fromObject));
  });
});
