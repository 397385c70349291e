import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { serializeResults } from "../core/results.ts";
import { readResultsFile } from "../core/results-file.ts";
import { forgetSecret, registerSecret } from "../core/secrets.ts";
import { SimulationRun } from "../core/simulation.ts";
import { CHECKPOINT_VERSION, CheckpointWriter, type SimulationRecord } from "./checkpoint.ts";
import {
  loadCheckpointState,
  readLineSpanBytes,
  scanWinningLines,
  slimSimulation,
} from "./checkpoint-state.ts";
import { checkpointToResults, exportResults } from "./export.ts";

const v2 = join(import.meta.dirname, "fixtures", "checkpoint-v2.jsonl");
const scratch: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "tau-export-"));
  scratch.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function record(trial: number, seed: number, id: string, reward: number | null): SimulationRecord {
  return {
    kind: "simulation",
    version: CHECKPOINT_VERSION,
    simulation: SimulationRun.parse({
      id,
      task_id: "fixture_task",
      start_time: "2026-12-01T00:00:00.000000",
      end_time: "2026-12-01T00:00:01.000000",
      duration: 1,
      termination_reason: reward === null ? "infrastructure_error" : "user_stop",
      reward_info: reward === null ? null : { reward, reward_breakdown: { DB: reward } },
      trial,
      seed,
      info: reward === null ? { error: "boom\nline two", error_type: "Error" } : null,
      messages:
        reward === null
          ? []
          : [
              { role: "assistant", content: `hello ${id}`, turn_idx: 0, timestamp: "t" },
              { role: "user", content: "bye ñ ###STOP###", turn_idx: 1, timestamp: "t" },
            ],
    }),
  };
}

/** The v2 fixture plus re-runs: an infrastructure error replaced later, a duplicate, a new key. */
async function checkpointWithReruns(): Promise<string> {
  const path = join(tempDir(), "results.jsonl");
  copyFileSync(v2, path);
  const writer = await CheckpointWriter.open(path);
  await writer.append(record(2, 11, "sim-c-infra", null));
  await writer.append(record(3, 12, "sim-d", 0));
  await writer.append(record(1, 373753, "sim-b-rerun", 1)); // replaces the fixture's infrastructure error
  await writer.append(record(2, 11, "sim-c", 1)); // replaces the one above
  await writer.append(record(3, 12, "sim-d-duplicate", 1)); // ignored
  await writer.close();
  return path;
}

/** A checkpoint of upstream's own simulations (the results fixture), one trial each. */
async function upstreamCheckpoint(): Promise<string> {
  const upstream = readResultsFile(
    join(import.meta.dirname, "..", "core", "fixtures", "results-upstream.json"),
  );
  expect(upstream.simulations.length).toBeGreaterThan(0);
  const path = join(tempDir(), "results.jsonl");
  writeFileSync(path, `${readFileSync(v2, "utf8").split("\n")[0]}\n`);
  const writer = await CheckpointWriter.open(path);
  for (const [trial, simulation] of upstream.simulations.entries())
    await writer.append({
      kind: "simulation",
      version: CHECKPOINT_VERSION,
      simulation: { ...simulation, trial, seed: 1 },
    });
  await writer.close();
  return path;
}

describe("exportResults", () => {
  it("streams the bytes the in-memory export gives, winners in the order they were written", async () => {
    const checkpoint = await checkpointWithReruns();
    const output = join(tempDir(), "results.json");
    const outcome = await exportResults(checkpoint, output);
    const whole = await checkpointToResults(checkpoint);
    expect(whole.simulations.map((s) => s.id)).toEqual(["sim-a", "sim-d", "sim-b-rerun", "sim-c"]);
    expect(readFileSync(output, "utf8")).toBe(serializeResults(whole));
    expect(outcome).toEqual({ path: output, format: "json", simulations: 4, tasks: 1 });
    expect(readResultsFile(output).simulations[2]?.messages).toHaveLength(2);
    expect(readdirSync(join(output, ".."))).toEqual(["results.json"]); // no temporary file left
  });

  it("re-lays out upstream's own simulations from their checkpoint lines byte for byte as parsing them would", async () => {
    // Real transcripts (tool calls, floats, escapes), through the line-text path of the export.
    const path = await upstreamCheckpoint();
    const output = join(tempDir(), "results.json");
    await exportResults(path, output);
    expect(readFileSync(output, "utf8")).toBe(serializeResults(await checkpointToResults(path)));
  });

  it("reads slim records without parsing transcripts, equal to slimming the full ones", async () => {
    const path = await upstreamCheckpoint();
    const slim = await loadCheckpointState(path);
    const full = await loadCheckpointState(path, { full: true });
    expect(full.simulations.size).toBeGreaterThan(0);
    expect([...slim.simulations.values()]).toEqual([...full.simulations.values()].map(slimSimulation));
    expect(slim.lines).toEqual(full.lines);
    // A transcript that is not valid JSON still fails the read, naming the line.
    writeFileSync(path, readFileSync(path, "utf8").replace('"messages": [{', '"messages": [{,'));
    await expect(loadCheckpointState(path)).rejects.toThrow(/line 2: not valid JSON/);
  });

  it("writes the same bytes when the caller names the winners by id, reading only run and session records", async () => {
    for (const checkpoint of [await checkpointWithReruns(), await upstreamCheckpoint()]) {
      const winners = new Set(
        [...(await loadCheckpointState(checkpoint)).simulations.values()].map((s) => s.id),
      );
      const slow = join(tempDir(), "results.json");
      const fast = join(tempDir(), "results.json");
      const slowOutcome = await exportResults(checkpoint, slow);
      const fastOutcome = await exportResults(checkpoint, fast, { winnerIds: winners });
      expect(readFileSync(fast, "utf8")).toBe(readFileSync(slow, "utf8"));
      expect({ ...fastOutcome, path: slow }).toEqual(slowOutcome);
    }
    // A broken run record still fails the export with its one line, however the winners are known.
    const broken = await checkpointWithReruns();
    writeFileSync(
      broken,
      readFileSync(broken, "utf8").replace('"kind": "run", "version": 2', '"kind": "run", "version": 9'),
    );
    await expect(
      exportResults(broken, join(tempDir(), "r.json"), { winnerIds: new Set(["sim-a"]) }),
    ).rejects.toThrow(/line 1: checkpoint record version 9 is not supported/);
  });

  it("masks a secret known at export time in lines written before it was known, on both paths", async () => {
    const checkpoint = await checkpointWithReruns();
    const winners = new Set(
      [...(await loadCheckpointState(checkpoint)).simulations.values()].map((s) => s.id),
    );
    const secret = "hello sim-c"; // the assistant's line in one transcript, as if a key had been echoed there
    registerSecret(secret, "EXPORT_TEST_API_KEY");
    try {
      const slow = join(tempDir(), "results.json");
      const fast = join(tempDir(), "results.json");
      await exportResults(checkpoint, slow);
      await exportResults(checkpoint, fast, { winnerIds: winners });
      const text = readFileSync(fast, "utf8");
      expect(text).toBe(readFileSync(slow, "utf8"));
      expect(text).not.toContain(secret);
      expect(text).toContain("[redacted EXPORT_TEST_API_KEY]");
      expect(text).toContain("hello sim-d"); // the other transcripts are left alone
    } finally {
      forgetSecret(secret);
    }
  });

  it("finds the winning lines across read chunks, lines longer than a chunk included", async () => {
    const path = await checkpointWithReruns();
    const state = await loadCheckpointState(path);
    const winners = new Set([...state.simulations.values()].map((s) => s.id));
    const lines = readFileSync(path, "utf8").split("\n");
    for (const chunk of [16, 100, 1000, 1 << 20]) {
      const scan = await scanWinningLines(path, winners, chunk);
      expect(scan?.run).toEqual(state.run);
      expect(scan?.sessions).toEqual(state.sessions);
      const texts: string[] = [];
      for await (const line of readLineSpanBytes(path, scan!.spans, chunk)) texts.push(line.toString("utf8"));
      expect(texts).toEqual([...state.lines.values()].map((line) => lines[line - 1]));
    }
  });

  it("takes the full pass when the named winners do not match the file (older lines, a missing id, a torn tail)", async () => {
    const checkpoint = await checkpointWithReruns();
    const expected = join(tempDir(), "results.json");
    await exportResults(checkpoint, expected);
    const winners = new Set(
      [...(await loadCheckpointState(checkpoint)).simulations.values()].map((s) => s.id),
    );
    const cases: [string, Set<string>, (text: string) => string][] = [
      ["a winner the file lacks", new Set([...winners, "sim-gone"]), (text) => text],
      ["a torn tail", winners, (text) => `${text}{"kind": "simu`],
      [
        "an older version's layout",
        winners,
        (text) =>
          text.replace(
            '{"kind": "simulation", "version": 2, "simulation": {"id": "sim-a"',
            '{"version": 2, "kind": "simulation", "simulation": {"id": "sim-a"',
          ),
      ],
    ];
    for (const [, ids, edit] of cases) {
      const path = join(tempDir(), "results.jsonl");
      writeFileSync(path, edit(readFileSync(checkpoint, "utf8")));
      const output = join(tempDir(), "results.json");
      await exportResults(path, output, { winnerIds: ids });
      expect(readFileSync(output, "utf8")).toBe(readFileSync(expected, "utf8"));
    }
  });

  it("writes an empty simulations list for a checkpoint with only a run record", async () => {
    const path = join(tempDir(), "results.jsonl");
    writeFileSync(path, `${readFileSync(v2, "utf8").split("\n")[0]}\n`);
    const output = join(tempDir(), "results.json");
    await exportResults(path, output);
    const text = readFileSync(output, "utf8");
    expect(text).toContain('\n  "simulations": [],\n  "simulation_index": null\n}');
    expect(text).toBe(serializeResults(await checkpointToResults(path)));
  });
});
