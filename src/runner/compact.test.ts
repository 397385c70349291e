import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { PyFloat, parsePyJson } from "../core/py-json.ts";
import { ownCopy, ownString, sharedCopy } from "./compact.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Heap growth while `keep` holds what `make` returned for each of `count` fresh 1 MB texts. */
function retainedBytes(make: (text: string) => string, count: number): number {
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept: string[] = [];
  for (let i = 0; i < count; i++) {
    // Like a checkpoint read: a parsed string value is a view of the whole text.
    const text = `{"id": "simulation-${i}-${"0".repeat(30)}", "pad": "${"x".repeat(1 << 20)}"}`;
    kept.push(make((parsePyJson(text) as { id: string }).id));
  }
  gc();
  const after = process.memoryUsage().heapUsed;
  expect(kept).toHaveLength(count);
  return after - before;
}

describe("ownString", () => {
  it("keeps the characters, not the text they were parsed from", () => {
    const views = retainedBytes((id) => id, 16);
    const owned = retainedBytes(ownString, 16);
    // Sixteen parsed ids hold sixteen 1 MB texts; their own copies hold a few hundred bytes
    // (plus, at most, the last text, which the measuring frame may still reference).
    expect(views).toBeGreaterThan(15 << 20);
    expect(owned).toBeLessThan(2 << 20);
  });

  it("returns an equal string, one copy for equal texts", () => {
    const text = "a".repeat(30);
    expect(ownString(`${text}\u0000b`)).toBe(`${text}\u0000b`);
    expect(ownString("123")).toBe("123");
    expect(ownString("")).toBe("");
  });
});

describe("ownCopy and sharedCopy", () => {
  const checks = () => [
    {
      action: { action_id: "a", name: "create_task", arguments: { quantity: new PyFloat(2), ids: [1, "x"] } },
      action_match: true,
      action_reward: 1,
      tool_type: "write",
    },
  ];

  it("copies deeply and keeps PyFloat values", () => {
    const original = checks();
    const copy = ownCopy(original);
    expect(copy).toEqual(original);
    expect(copy).not.toBe(original);
    expect(copy[0]!.action).not.toBe(original[0]!.action);
    expect(copy[0]!.action.arguments.quantity).toBeInstanceOf(PyFloat);
    const map = ownCopy(new Map([["k", { v: "w" }]]));
    expect(map.get("k")).toEqual({ v: "w" });
  });

  it("shares one frozen copy among equal values and keeps unequal ones apart", () => {
    const first = sharedCopy(checks());
    const second = sharedCopy(checks());
    expect(second).toBe(first);
    expect(first).toEqual(checks());
    expect(Object.isFrozen(first[0]!.action.arguments)).toBe(true);
    // 2.0 and 2 print differently, so they are different values.
    const integer = checks();
    integer[0]!.action.arguments.quantity = 2 as unknown as PyFloat;
    expect(sharedCopy(integer)).not.toBe(first);
    expect(sharedCopy(null)).toBeNull();
    expect(sharedCopy(["DB"])).toBe(sharedCopy(["DB"]));
  });
});
