import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isPyFloat, type PyValue, parsePyJson, pyEquals } from "./py-json.ts";
import { taskToPy } from "./results.ts";
import { Task, TaskSplits } from "./task.ts";

const dataDir = process.env.TAU_DATA_DIR;

/** Looks a key up in a plain object or a Map. */
function lookup(container: unknown, key: string): { found: boolean; value: unknown } {
  if (container instanceof Map) return { found: container.has(key), value: container.get(key) };
  if (container !== null && typeof container === "object" && Object.hasOwn(container, key)) {
    return { found: true, value: (container as Record<string, unknown>)[key] };
  }
  return { found: false, value: undefined };
}

/**
 * Walks the raw file value against our dump of the parsed task. Returns the
 * raw keys the dump dropped (array indices collapsed to `[]`) and the leaves
 * whose value or int/float kind changed.
 */
function compare(raw: PyValue, dumped: unknown, path: string, dropped: Set<string>, changed: string[]): void {
  if (Array.isArray(raw)) {
    if (!Array.isArray(dumped) || dumped.length !== raw.length) {
      changed.push(path);
      return;
    }
    raw.forEach((item, i) => {
      compare(item, dumped[i], `${path}[]`, dropped, changed);
    });
    return;
  }
  if (raw !== null && typeof raw === "object" && !(raw instanceof Map) && !isPyFloat(raw)) {
    for (const [key, value] of Object.entries(raw)) {
      const hit = lookup(dumped, key);
      if (!hit.found) dropped.add(`${path}.${key}`);
      else compare(value, hit.value, `${path}.${key}`, dropped, changed);
    }
    return;
  }
  if (!pyEquals(raw, dumped) || isPyFloat(raw) !== isPyFloat(dumped)) changed.push(path);
}

describe.skipIf(!dataDir)("task files of the four domains (skipped: TAU_DATA_DIR not set)", () => {
  const expected: Record<string, { count: number; splits: Record<string, number>; dropped: string[] }> = {
    mock: { count: 10, splits: { base: 10 }, dropped: [] },
    airline: { count: 50, splits: { base: 50, train: 30, test: 20 }, dropped: ["task.annotations"] },
    retail: { count: 114, splits: { base: 114, train: 74, test: 40 }, dropped: [] },
    telecom: {
      count: 2285,
      splits: { full: 2285, base: 114, train: 74, test: 40, small: 20 },
      dropped: [],
    },
  };

  for (const [domain, want] of Object.entries(expected)) {
    it(`${domain}: every task validates, only unknown keys are dropped, values keep their kind`, () => {
      const folder = join(dataDir!, "domains", domain);
      const raw = parsePyJson(readFileSync(join(folder, "tasks.json"), "utf8")) as PyValue[];
      expect(raw).toHaveLength(want.count);
      const dropped = new Set<string>();
      const changed: string[] = [];
      const ids = raw.map((item, i) => {
        const result = Task.safeParse(item);
        expect(result.success, `${domain} task [${i}]: ${result.error?.message}`).toBe(true);
        const task = result.data!;
        compare(item, taskToPy(task), "task", dropped, changed);
        return task.id;
      });
      expect([...dropped].sort()).toEqual(want.dropped);
      expect(changed).toEqual([]);

      const splits = TaskSplits.parse(parsePyJson(readFileSync(join(folder, "split_tasks.json"), "utf8")));
      const known = new Set(ids);
      for (const [name, size] of Object.entries(want.splits)) {
        expect(splits[name], `${domain} split ${name}`).toHaveLength(size);
        expect(splits[name]!.every((id) => known.has(id))).toBe(true);
      }
    });
  }

  it("mock tasks carry a message history whose messages parse by role", () => {
    const raw = parsePyJson(
      readFileSync(join(dataDir!, "domains", "mock", "tasks.json"), "utf8"),
    ) as PyValue[];
    const tasks = raw.map((item) => Task.parse(item));
    const roles = tasks.flatMap((t) => t.initial_state?.message_history ?? []).map((m) => m.role);
    expect(roles.length).toBeGreaterThan(0);
    expect(new Set(roles)).toEqual(new Set(["assistant", "user", "tool"]));
  });
});

describe("task schema", () => {
  it("fills upstream defaults and drops unknown keys", () => {
    const task = Task.parse({
      id: "t1",
      user_scenario: { instructions: "Say hi." },
      evaluation_criteria: { actions: [{ action_id: "a", name: "noop" }] },
      extra_field: 1,
    });
    expect(task.evaluation_criteria?.reward_basis).toEqual(["DB", "COMMUNICATE"]);
    expect(task.evaluation_criteria?.actions?.[0]?.requestor).toBe("assistant");
    expect(task.description).toBeNull();
    expect("extra_field" in task).toBe(false);
  });

  it("rejects an unknown reward type and a missing user scenario", () => {
    expect(
      Task.safeParse({
        id: "t",
        user_scenario: { instructions: "x" },
        evaluation_criteria: { reward_basis: ["VIBES"] },
      }).success,
    ).toBe(false);
    expect(Task.safeParse({ id: "t" }).success).toBe(false);
  });
});
