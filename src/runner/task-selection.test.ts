import { describe, expect, it } from "vitest";
import { UsageError } from "../core/errors.ts";
import { Task } from "../core/task.ts";
import { loadDomain } from "../domains/registry.ts";
import { parseTaskIds, selectTasks, splitOption, type TaskSource } from "./task-selection.ts";

const makeTask = (id: string, withActions = true): Task =>
  Task.parse({
    id,
    user_scenario: { instructions: `scenario ${id}` },
    evaluation_criteria: withActions ? { actions: [{ action_id: "a", name: "noop" }] } : null,
  });

// Split lists deliberately in a different order from the file: file order must win.
const source: TaskSource = {
  name: "toy",
  tasks: () => [makeTask("t1"), makeTask("t2", false), makeTask("t3"), makeTask("t4")],
  splits: () => ({ base: ["t4", "t3", "t2"], small: ["t1"] }),
};

describe("parseTaskIds", () => {
  it("splits on commas and spaces, drops repeats", () => {
    expect(parseTaskIds(["a,b", "c  d,", "a"])).toEqual(["a", "b", "c", "d"]);
    expect(parseTaskIds("x, y")).toEqual(["x", "y"]);
    expect(parseTaskIds(undefined)).toBeUndefined();
  });
});

describe("selectTasks", () => {
  it("keeps tasks.json order within a split", () => {
    expect(selectTasks(source, { split: "base" }).map((t) => t.id)).toEqual(["t2", "t3", "t4"]);
  });
  it("applies ids, then num-tasks, then the agent filter", () => {
    const picked = selectTasks(source, {
      split: "base",
      taskIds: ["t4", "t2", "t3"],
      numTasks: 2,
      agentFilter: (task) => (task.evaluation_criteria?.actions ?? null) !== null,
    });
    expect(picked.map((t) => t.id)).toEqual(["t3"]);
  });
  it("selects every task with a null split", () => {
    expect(selectTasks(source, { split: null })).toHaveLength(4);
  });
  it("rejects an unknown split, listing the known ones", () => {
    expect(() => selectTasks(source, { split: "nope" })).toThrow(/Known splits: base, small/);
  });
  it("rejects unknown ids and says which exist outside the split", () => {
    let caught: unknown;
    try {
      selectTasks(source, { split: "base", taskIds: ["t1", "zz"] });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UsageError);
    expect((caught as UsageError).exitCode).toBe(2);
    expect((caught as Error).message).toBe(
      "Unknown task id for domain 'toy' (split 'base'): zz; task t1 of domain 'toy' is not in split 'base' (it is in 'small'; choose with --split)",
    );
    expect(() => selectTasks(source, { split: "small", taskIds: ["t3", "t4"] })).toThrow(
      /^Tasks t3, t4 of domain 'toy' are not in split 'small' \(they are in 'base'; choose with --split\)$/,
    );
  });
  it("warns, naming them, when a split lists tasks the file does not have", () => {
    const withGhosts: TaskSource = { ...source, splits: () => ({ base: ["t4", "ghost", "t1", "gone"] }) };
    const warnings: string[] = [];
    const picked = selectTasks(withGhosts, { split: "base", onWarning: (line) => warnings.push(line) });
    expect(picked.map((t) => t.id)).toEqual(["t1", "t4"]);
    expect(warnings).toEqual([
      "warning: split 'base' of domain 'toy' names 2 tasks that tasks.json does not have, left out: ghost, gone",
    ]);
    selectTasks(source, { split: "base", onWarning: (line) => warnings.push(line) });
    expect(warnings).toHaveLength(1);
  });
  it("takes the split from --split or --task-split-name, refusing two different ones", () => {
    expect(splitOption({ split: "test" })).toBe("test");
    expect(splitOption({ taskSplitName: "train" })).toBe("train");
    expect(splitOption({ split: "test", taskSplitName: "test" })).toBe("test");
    expect(splitOption({})).toBeUndefined();
    expect(() => splitOption({ split: "test", taskSplitName: "train" })).toThrow(
      "--split 'test' and --task-split-name 'train' name different splits",
    );
  });
  it("rejects a non-positive num-tasks", () => {
    expect(() => selectTasks(source, { split: "base", numTasks: 0 })).toThrow(UsageError);
  });
});

const dataDir = process.env.TAU_DATA_DIR;
describe.skipIf(!dataDir)("selectTasks on mock (skipped: TAU_DATA_DIR not set)", () => {
  it("selects the 10 base tasks in file order", () => {
    const domain = loadDomain("mock", dataDir!);
    const tasks = selectTasks(domain, { split: "base" });
    expect(tasks).toHaveLength(10);
    expect(tasks.map((t) => t.id)).toEqual(
      domain
        .tasks()
        .map((t) => t.id)
        .slice(0, 10),
    );
  });
});
