import { describe, expect, it } from "vitest";
import { DbState } from "./db-state.ts";
import { t, validate } from "./model.ts";
import { type FunctionDef, PyTypeError, param, type ToolDef, ToolError, Toolkit } from "./toolkit.ts";

const Db = t.model("Db", { settings: t.model("Settings", { count: t.int() }) });

interface Root {
  settings: { count: number };
}

function load(count: number): DbState<Root> {
  return DbState.fromValidated<Root>(Db, validate(Db, { settings: { count } }));
}

/** A counter kept outside the DB, like telecom's draft-bill ids. */
interface Counter {
  calls: number;
}

const tools: readonly ToolDef<Counter>[] = [
  {
    name: "bump",
    kind: "write",
    description: "Adds to the DB count and counts the call in the toolkit state.",
    params: [param("by", { type: "integer" }, undefined, { default: 1 })],
    run: ({ db, state }, a) => {
      state.calls += 1;
      (db.root as Root).settings.count += a.by as number;
      return `${(db.root as Root).settings.count}/${state.calls}`;
    },
  },
  {
    name: "peek",
    kind: "read",
    description: "Reads the DB count.",
    params: [],
    run: ({ db }) => (db.root as Root).settings.count,
  },
];

const helpers: readonly FunctionDef<Counter>[] = [
  { name: "calls_so_far", params: [], run: ({ state }) => state.calls },
];

describe("Toolkit", () => {
  it("hands each toolkit its own state although the definitions are shared", () => {
    const base = load(10);
    const first = new Toolkit("CounterTools", tools, helpers, base.fork(), { calls: 0 });
    const second = new Toolkit("CounterTools", tools, helpers, base.fork(), { calls: 0 });
    expect(first.useTool("bump", { by: 5 })).toBe("15/1");
    expect(first.useTool("bump", {})).toBe("16/2");
    expect(second.useTool("bump", {})).toBe("11/1");
    expect(first.callFunction("calls_so_far", {})).toBe(2);
    expect(second.callFunction("calls_so_far", {})).toBe(1);
    expect(first.state).toEqual({ calls: 2 });
  });

  it("reads the DB at call time, so a re-pointed DB is used (P19)", () => {
    const toolkit = new Toolkit("CounterTools", tools, helpers, load(1).fork(), { calls: 0 });
    expect(toolkit.useTool("peek", {})).toBe(1);
    toolkit.db = load(42).fork();
    expect(toolkit.useTool("peek", {})).toBe(42);
  });

  it("resolves names from the shared maps, with upstream's errors for unknown ones", () => {
    const toolkit = new Toolkit("CounterTools", tools, helpers, load(0).fork(), { calls: 0 });
    expect(toolkit.hasTool("bump")).toBe(true);
    expect(toolkit.hasTool("calls_so_far")).toBe(false);
    expect(toolkit.getTool("peek")?.kind).toBe("read");
    expect(toolkit.mutatesState("bump")).toBe(true);
    expect(toolkit.mutatesState("peek")).toBe(false);
    expect(() => toolkit.useTool("calls_so_far", {})).toThrow(
      new ToolError("Tool 'calls_so_far' not found."),
    );
    expect(() => toolkit.callFunction("nope", {})).toThrow(
      new ToolError("'CounterTools' object has no attribute 'nope'"),
    );
    expect(() => toolkit.useTool("bump", { step: 1 })).toThrow(PyTypeError);
  });

  it("keeps different helper arrays apart for the same tools", () => {
    const otherHelpers: readonly FunctionDef<Counter>[] = [{ name: "zero", params: [], run: () => 0 }];
    const plain = new Toolkit("CounterTools", tools, helpers, load(0).fork(), { calls: 0 });
    const other = new Toolkit("OtherTools", tools, otherHelpers, load(0).fork(), { calls: 0 });
    expect(other.callFunction("zero", {})).toBe(0);
    expect(() => other.callFunction("calls_so_far", {})).toThrow(ToolError);
    expect(plain.callFunction("calls_so_far", {})).toBe(0);
    expect(() => plain.callFunction("zero", {})).toThrow(ToolError);
  });

  it("passes an undefined state to toolkits built without one", () => {
    const seen: unknown[] = [];
    const stateless: readonly ToolDef[] = [
      {
        name: "look",
        kind: "read",
        description: "Records the state it was given.",
        params: [],
        run: ({ state }) => seen.push(state),
      },
    ];
    new Toolkit("PlainTools", stateless, [], load(0).fork()).useTool("look", {});
    expect(seen).toEqual([undefined]);
  });
});
