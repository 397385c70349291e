import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { FileFormatError } from "../core/errors.ts";
import { readLinesFrom, readRange } from "./byte-lines.ts";
import { scanObjectFile } from "./json-scan.ts";

const upstream = fileURLToPath(new URL("../core/fixtures/results-upstream.json", import.meta.url));

function temporary(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "tau-viewer-")), name);
  writeFileSync(path, text);
  return path;
}

describe("scanObjectFile", () => {
  it("finds every top-level member and every simulation of upstream's results file", () => {
    const layout = scanObjectFile(upstream, "simulations");
    const whole = JSON.parse(readFileSync(upstream, "utf8")) as Record<string, unknown>;
    expect([...layout.members.keys()]).toEqual(Object.keys(whole));
    for (const [key, range] of layout.members)
      expect(JSON.parse(readRange(upstream, range.start, range.end - range.start))).toEqual(whole[key]);
    const simulations = whole.simulations as unknown[];
    expect(layout.items).toHaveLength(simulations.length);
    for (const [i, range] of layout.items.entries())
      expect(JSON.parse(readRange(upstream, range.start, range.end - range.start))).toEqual(simulations[i]);
  });

  it("is not fooled by brackets, commas and escaped quotes inside strings, nor by compact JSON", () => {
    const value = {
      a: 'x", "simulations": [1, 2]',
      simulations: [{ s: ']}\\",' }, [], 3, "{"],
      'k"ey': { nested: [1, { simulations: [9] }] },
    };
    const path = temporary("compact.json", JSON.stringify(value));
    const layout = scanObjectFile(path, "simulations");
    expect([...layout.members.keys()]).toEqual(["a", "simulations", 'k"ey']);
    expect(layout.items.map((r) => JSON.parse(readRange(path, r.start, r.end - r.start)))).toEqual(
      value.simulations,
    );
    expect(scanObjectFile(temporary("empty.json", '{"simulations": [ ]}'), "simulations").items).toEqual([]);
  });

  it("says where a truncated or non-object file breaks", () => {
    expect(() => scanObjectFile(temporary("cut.json", '{"simulations": [{"a": 1}'), "simulations")).toThrow(
      /ends inside a value/,
    );
    expect(() => scanObjectFile(temporary("list.json", "[1, 2]"), "simulations")).toThrow(FileFormatError);
  });
});

describe("readLinesFrom", () => {
  it("gives each line's byte offset, resumes from an offset and reports the unfinished tail", () => {
    const path = temporary("lines.jsonl", '{"a": "é"}\n{"b": 2}\n{"c"');
    const lines: { offset: number; text: string }[] = [];
    const read = readLinesFrom(path, 0, (line) => lines.push({ offset: line.offset, text: line.text }));
    expect(lines).toEqual([
      { offset: 0, text: '{"a": "é"}' },
      { offset: 12, text: '{"b": 2}' },
    ]);
    expect(read.end).toBe(21);
    expect(read.tail).toEqual({ offset: 21, length: 4, text: '{"c"' });
    const again: string[] = [];
    readLinesFrom(path, 12, (line) => again.push(line.text));
    expect(again).toEqual(['{"b": 2}']);
    expect(readRange(path, 12, 8)).toBe('{"b": 2}');
  });
});
