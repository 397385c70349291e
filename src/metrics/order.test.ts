import { describe, expect, it } from "vitest";
import { compareTaskIds } from "./order.ts";
import { seededRandom } from "./random.ts";

describe("compareTaskIds", () => {
  it("orders numbers by value and text by code unit", () => {
    const ids = ["10", "9", "task_10", "task_9", "2", "b", "a", "07", "7", "task_9b"];
    expect([...ids].sort(compareTaskIds)).toEqual([
      "2",
      "07",
      "7",
      "9",
      "10",
      "a",
      "b",
      "task_9",
      "task_9b",
      "task_10",
    ]);
  });

  it("is a total order (antisymmetric, transitive) on mixed ids", () => {
    const random = seededRandom(7);
    const alphabet = ["0", "1", "9", "a", "_", "-", "Z", "10"];
    const ids = Array.from({ length: 40 }, () =>
      Array.from({ length: 1 + Math.floor(random() * 4) }, () => alphabet[Math.floor(random() * 8)]).join(""),
    );
    const broken: string[] = [];
    for (const x of ids)
      for (const y of ids) {
        const xy = Math.sign(compareTaskIds(x, y));
        if (Math.sign(compareTaskIds(y, x)) !== (-xy || 0) || (xy === 0 && x !== y)) broken.push(`${x} ${y}`);
        for (const z of ids)
          if (xy < 0 && compareTaskIds(y, z) < 0 && compareTaskIds(x, z) >= 0) broken.push(`${x} ${y} ${z}`);
      }
    expect(new Set(ids).size).toBeGreaterThan(25);
    expect(broken).toEqual([]);
  });
});
