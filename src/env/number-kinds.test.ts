import { describe, expect, it } from "vitest";
import { PyFloat, pyDumps } from "../core/py-json.ts";
import { typeNumbersBySchema } from "./number-kinds.ts";

describe("typeNumbersBySchema", () => {
  const parameters = {
    $defs: {
      Payment: {
        properties: { amount: { type: "number" }, count: { type: "integer" } },
        type: "object",
      },
    },
    properties: {
      gb: { type: "number" },
      bags: { type: "integer" },
      maybe: { anyOf: [{ type: "number" }, { type: "null" }] },
      either: { anyOf: [{ type: "number" }, { type: "integer" }] },
      payments: { items: { $ref: "#/$defs/Payment" }, type: "array" },
      free: {},
    },
    type: "object",
  };

  it("makes integral numbers floats only where the schema says number and not integer", () => {
    const typed = typeNumbersBySchema(
      { gb: 2, bags: 2, maybe: 3, either: 4, payments: [{ amount: 50, count: 1 }], free: 5, extra: 6 },
      parameters,
    );
    expect(pyDumps(typed as never)).toBe(
      '{"gb": 2.0, "bags": 2, "maybe": 3.0, "either": 4, "payments": [{"amount": 50.0, "count": 1}], "free": 5, "extra": 6}',
    );
    expect(typed.gb).toBeInstanceOf(PyFloat);
  });

  it("leaves non-integral numbers, strings and nulls alone", () => {
    expect(typeNumbersBySchema({ gb: 2.5, maybe: null, bags: "2" }, parameters)).toEqual({
      gb: 2.5,
      maybe: null,
      bags: "2",
    });
  });
});
