import { deserialize, serialize } from "node:v8";
import { describe, expect, it } from "vitest";
import { PyFloat, pyDumps } from "../core/py-json.ts";
import { fromCloneable, Outbox, toCloneable } from "./protocol.ts";

describe("local worker protocol", () => {
  it("a value with Python floats crosses V8's serializer (the IPC's) and comes back with them", () => {
    const value = {
      reward: 1,
      action_checks: [{ action: { name: "pay", arguments: { amount: new PyFloat(2), count: 2 } } }],
      ordered: new Map<string, unknown>([["b", new PyFloat(0.5)]]),
      nothing: null,
    };
    // Without the tagging a PyFloat arrives as a plain object, and `2.0` would be written as an object.
    expect(pyDumps(deserialize(serialize(value)) as unknown)).not.toBe(pyDumps(value));
    const back = fromCloneable(deserialize(serialize(toCloneable(value))) as typeof value);
    expect(back.action_checks[0]!.action.arguments.amount).toBeInstanceOf(PyFloat);
    expect(back.ordered.get("b")).toBeInstanceOf(PyFloat);
    expect(pyDumps(back)).toBe(pyDumps(value));
  });

  it("an outbox sends what was posted in one turn of the event loop as one batch, in order", async () => {
    const batches: number[][] = [];
    const outbox = new Outbox<number>((messages) => batches.push(messages));
    outbox.post(1);
    outbox.post(2);
    expect(batches).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    outbox.post(3);
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1, 2], [3]]);
  });
});
