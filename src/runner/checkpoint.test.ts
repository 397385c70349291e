import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileFormatError, FileIoError } from "../core/errors.ts";
import { PyFloat } from "../core/py-json.ts";
import { serializeResults } from "../core/results.ts";
import { forgetSecret, registerSecret } from "../core/secrets.ts";
import { SimulationRun } from "../core/simulation.ts";
import {
  CHECKPOINT_VERSION,
  CheckpointWriter,
  checkpointPathFor,
  formatCheckpointLine,
  keyOf,
  readCheckpoint,
  repairTornTail,
  type SessionRecord,
  type SimulationRecord,
  simulationKey,
} from "./checkpoint.ts";
import { checkpointUsage, loadCheckpointState, readSimulationsAt } from "./checkpoint-state.ts";
import { checkpointToResults } from "./export.ts";
import { emptyModelUsage, emptyRunUsage } from "./llm-usage.ts";

const fixture = join(import.meta.dirname, "fixtures", "checkpoint-v1.jsonl");
const tempDir = () => mkdtempSync(join(tmpdir(), "tau-checkpoint-"));

function simulationRecord(
  trial: number,
  taskId: string,
  seed: number,
  reward: number | null,
): SimulationRecord {
  return {
    kind: "simulation",
    version: 1,
    simulation: SimulationRun.parse({
      id: `sim-${trial}-${taskId}-${reward}`,
      task_id: taskId,
      start_time: "2026-12-01T00:00:00.000000",
      end_time: "2026-12-01T00:00:01.000000",
      duration: 1.5,
      termination_reason: reward === null ? "infrastructure_error" : "user_stop",
      reward_info: reward === null ? null : { reward },
      trial,
      seed,
      policy: "long policy text",
      messages: reward === null ? [] : [{ role: "assistant", content: "hello" }],
    }),
  };
}

describe("checkpoint format v1 fixture", () => {
  it("keeps loading", async () => {
    const state = await loadCheckpointState(fixture);
    expect(state.run?.fingerprint.agent).toBe("replay");
    expect(state.run?.seeds).toEqual([626729, 373753]);
    expect([...state.tasks.keys()]).toEqual(["fixture_task"]);
    expect(state.simulations.size).toBe(2);
    const done = state.simulations.get(simulationKey(0, "fixture_task", 626729))!;
    expect(done.reward_info?.reward).toBe(1);
    expect(done.messages).toEqual([]); // slimmed for memory
    expect(state.simulations.get(simulationKey(1, "fixture_task", 373753))?.termination_reason).toBe(
      "infrastructure_error",
    );
  });
  it("gives back full simulations by line", async () => {
    const state = await loadCheckpointState(fixture);
    const full = await readSimulationsAt(fixture, new Set(state.lines.values()));
    expect(full.map((s) => s.messages.length)).toEqual([5, 0]);
  });
});

describe("checkpoint format v2 fixture", () => {
  const v2 = join(import.meta.dirname, "fixtures", "checkpoint-v2.jsonl");
  it("keeps loading, the latest session record of a session counting", async () => {
    const state = await loadCheckpointState(v2);
    expect(state.run?.version).toBe(2);
    expect(state.simulations.size).toBe(2);
    expect(state.sessions.size).toBe(1);
    expect(state.sessions.get("session-a")?.simulations).toBe(2);
    expect(checkpointUsage(state)).toMatchObject({ provider_calls: 3, cost_usd: 1, simulation_retries: 1 });
    expect(checkpointUsage({ sessions: new Map() })).toBeNull();
  });
  it("exports the usage into info.taubench.llm_usage with the cost as a float", async () => {
    const results = await checkpointToResults(v2);
    const usage = results.info.taubench?.llm_usage as Record<string, unknown>;
    expect(usage.provider_calls).toBe(3);
    expect(usage.cost_usd).toBeInstanceOf(PyFloat);
    expect(serializeResults(results)).toContain('"cost_usd": 1.0,');
  });
  it("has the same simulations as the v1 fixture it was made from", async () => {
    const read = async (path: string) => {
      const state = await loadCheckpointState(path, { full: true });
      return [...state.simulations.values()];
    };
    expect(await read(v2)).toMatchObject(await read(fixture));
  });
});

describe("CheckpointWriter", () => {
  it("writes simulations in upstream's layout, float fields as floats, and reads them back unchanged", async () => {
    const path = join(tempDir(), "run.jsonl");
    const record = simulationRecord(0, "a", 7, 1);
    record.simulation = { ...record.simulation, agent_cost: 0, user_cost: 0.25 };
    const writer = await CheckpointWriter.open(path);
    await writer.append({ ...record, version: CHECKPOINT_VERSION });
    await writer.close();
    const line = readFileSync(path, "utf8").trim();
    expect(
      line.startsWith(
        '{"kind": "simulation", "version": 2, "simulation": {"id": "sim-0-a-1", "task_id": "a"',
      ),
    ).toBe(true);
    expect(line).toContain('"reward": 1.0');
    expect(line).toContain('"agent_cost": 0.0, "user_cost": 0.25');
    expect(line).toContain('"duration": 1.5');
    // Upstream's model_dump fields (voice and the like) come out with their defaults.
    expect(line).toContain('"is_audio": false');
    const [back] = [...(await loadCheckpointState(path, { full: true })).simulations.values()];
    expect(back).toMatchObject(record.simulation);
    expect(formatCheckpointLine({ kind: "simulation", version: 2, simulation: back! })).toBe(line);
  });

  it.skipIf(!existsSync("/dev/full"))(
    "a full disk is one line naming the file and the operation (ENOSPC)",
    async () => {
      // /dev/full takes every write with ENOSPC, as a full disk does.
      const path = join(tempDir(), "results.jsonl");
      symlinkSync("/dev/full", path);
      const writer = await CheckpointWriter.open(path);
      const append = writer.append({ ...simulationRecord(0, "a", 7, 1), version: CHECKPOINT_VERSION });
      await expect(append).rejects.toBeInstanceOf(FileIoError);
      await expect(append).rejects.toThrow(`cannot append to ${path}: no space left on the device (ENOSPC)`);
      await writer.close();
    },
  );

  it("writes the trailer after each batch of appends, in the same write; none when it has nothing new", async () => {
    const path = join(tempDir(), "run.jsonl");
    const writer = await CheckpointWriter.open(path);
    let batches = 0;
    writer.setTrailer(() =>
      ++batches === 2
        ? null
        : {
            kind: "session",
            version: CHECKPOINT_VERSION,
            session_id: "s",
            started_at: "t0",
            updated_at: `t${batches}`,
            simulations: batches,
            usage: emptyRunUsage(),
          },
    );
    await writer.append(simulationRecord(0, "a", 1, 1));
    // The second batch has nothing new to add: no trailer line after it.
    await Promise.all([
      writer.append(simulationRecord(0, "b", 1, 1)),
      writer.append(simulationRecord(0, "c", 1, 1)),
    ]);
    await writer.close();
    const kinds = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { kind: string }).kind);
    expect(kinds).toEqual(["simulation", "session", "simulation", "simulation", "session"]);
    expect([...(await loadCheckpointState(path)).sessions.values()][0]!.simulations).toBe(3);
  });

  it("writes session records with the cost as a float; the latest per session counts, sessions add up", async () => {
    const path = join(tempDir(), "run.jsonl");
    const usage = (calls: number) => ({
      ...emptyRunUsage(),
      provider_calls: calls,
      cost_usd: calls,
      by_model: { m: { ...emptyModelUsage(), provider_calls: calls, cost_usd: calls } },
    });
    const session = (id: string, calls: number): SessionRecord => ({
      kind: "session",
      version: CHECKPOINT_VERSION,
      session_id: id,
      started_at: "t0",
      updated_at: "t1",
      simulations: calls,
      usage: usage(calls),
    });
    const writer = await CheckpointWriter.open(path);
    await writer.append(session("one", 1));
    await writer.append(session("one", 4));
    await writer.append(session("two", 2));
    await writer.close();
    expect(readFileSync(path, "utf8")).toContain('"cost_usd": 4.0, "unpriced_calls": 0');
    const state = await loadCheckpointState(path);
    expect(checkpointUsage(state)).toMatchObject({ provider_calls: 6, cost_usd: 6 });
    expect(checkpointUsage(state)?.by_model.m?.provider_calls).toBe(6);
  });

  it("refuses a session record that claims version 1 (version 1 had none)", async () => {
    const path = join(tempDir(), "run.jsonl");
    writeFileSync(
      path,
      '{"kind": "session", "version": 1, "session_id": "x", "started_at": "a", "updated_at": "b", "simulations": 0, "usage": {}}\n',
    );
    await expect(loadCheckpointState(path)).rejects.toThrow(/line 1: version/);
  });

  it("writes the bytes formatCheckpointLine gives, masking a secret known at write time", async () => {
    const path = join(tempDir(), "run.jsonl");
    const plain = simulationRecord(0, "a", 7, 1);
    const secret = "sk-checkpoint-test-0123456789";
    const leaky = simulationRecord(1, "b", 7, 1);
    leaky.simulation = { ...leaky.simulation, info: { error: `provider said: bad key ${secret} (é)` } };
    registerSecret(secret, "OPENAI_API_KEY");
    try {
      const writer = await CheckpointWriter.open(path);
      await Promise.all([writer.append(plain), writer.append(leaky)]);
      await writer.close();
      const lines = readFileSync(path, "utf8").split("\n");
      expect(lines.slice(0, 2)).toEqual([formatCheckpointLine(plain), formatCheckpointLine(leaky)]);
      expect(lines[1]).toContain("provider said: bad key [redacted OPENAI_API_KEY] (\\u00e9)");
      expect(lines[1]).not.toContain(secret);
    } finally {
      forgetSecret(secret);
    }
  });

  it("appends concurrently without interleaving and every line parses", async () => {
    const path = join(tempDir(), "run.jsonl");
    const writer = await CheckpointWriter.open(path);
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => writer.append(simulationRecord(0, `t${i}`, 1, 1))),
    );
    await writer.close();
    const lines = readFileSync(path, "utf8").split("\n");
    expect(lines).toHaveLength(51);
    expect(lines[50]).toBe("");
    const state = await loadCheckpointState(path);
    expect(state.simulations.size).toBe(50);
  });

  it("ignores a torn last line and cuts it before the next append", async () => {
    const dir = tempDir();
    const path = join(dir, "run.jsonl");
    copyFileSync(fixture, path);
    appendFileSync(path, '{"kind": "simulation", "version": 1, "simulation": {"id": "x", "task_');
    const state = await loadCheckpointState(path);
    expect(state.tornLine).toBe(4);
    expect(state.simulations.size).toBe(2);
    const writer = await CheckpointWriter.open(path);
    await writer.append(simulationRecord(1, "fixture_task", 373753, 1));
    await writer.close();
    expect(readFileSync(path, "utf8")).toBe(
      `${readFileSync(fixture, "utf8")}${readFileSync(path, "utf8").split("\n")[3]}\n`,
    );
    const after = await loadCheckpointState(path);
    expect(after.tornLine).toBeNull();
    // The re-run replaced the infrastructure error.
    expect(after.simulations.get(simulationKey(1, "fixture_task", 373753))?.reward_info?.reward).toBe(1);
  });

  it("treats a broken line in the middle as a format error naming the line", async () => {
    const path = join(tempDir(), "run.jsonl");
    writeFileSync(
      path,
      `${readFileSync(fixture, "utf8").split("\n")[0]}\n{broken\n${readFileSync(fixture, "utf8").split("\n")[1]}\n`,
    );
    await expect(loadCheckpointState(path)).rejects.toThrow(/run\.jsonl: line 2: not valid JSON/);
  });

  it("rejects records from a newer format version", async () => {
    const path = join(tempDir(), "run.jsonl");
    writeFileSync(path, '{"kind": "run", "version": 99}\n');
    await expect(loadCheckpointState(path)).rejects.toBeInstanceOf(FileFormatError);
    await expect(loadCheckpointState(path)).rejects.toThrow(/version 99 is not supported/);
  });

  it("says a JSON Lines file that is not a checkpoint is not one (not a version problem)", async () => {
    const path = join(tempDir(), "replay.jsonl");
    writeFileSync(path, '{"task_id": "0", "steps": []}\n[1, 2]\n');
    await expect(loadCheckpointState(path)).rejects.toBeInstanceOf(FileFormatError);
    await expect(loadCheckpointState(path)).rejects.toThrow(
      /replay\.jsonl: line 1: not a taubench checkpoint record/,
    );
    await expect(loadCheckpointState(path)).rejects.not.toThrow(/version/);
  });

  it("names the failing field of a bad record", async () => {
    const path = join(tempDir(), "run.jsonl");
    writeFileSync(path, '{"kind": "simulation", "version": 1, "simulation": {"id": 3}}\n');
    await expect(loadCheckpointState(path)).rejects.toThrow(/line 1: simulation\.id/);
  });
});

describe("checkpoint state rules", () => {
  it("keeps the first finished simulation per key and prefers it over infrastructure errors", async () => {
    const path = join(tempDir(), "run.jsonl");
    const writer = await CheckpointWriter.open(path);
    await writer.append(simulationRecord(0, "a", 7, null));
    await writer.append(simulationRecord(0, "a", 7, 0));
    await writer.append(simulationRecord(0, "a", 7, 1)); // duplicate, ignored
    await writer.append(simulationRecord(0, "a", 7, null)); // a later infra error never replaces a result
    await writer.append(simulationRecord(0, "b", 7, null));
    await writer.close();
    const state = await loadCheckpointState(path);
    expect(state.duplicates).toBe(1);
    expect(state.simulations.get(simulationKey(0, "a", 7))?.reward_info?.reward).toBe(0);
    expect(state.simulations.get(simulationKey(0, "b", 7))?.termination_reason).toBe("infrastructure_error");
    expect(keyOf(state.simulations.get(simulationKey(0, "b", 7))!)).toBe(simulationKey(0, "b", 7));
  });

  it("streams records in file order", async () => {
    const kinds: string[] = [];
    for await (const { record } of readCheckpoint(fixture)) kinds.push(record.kind);
    expect(kinds).toEqual(["run", "simulation", "simulation"]);
  });

  it("repairTornTail is a no-op on a clean file", () => {
    const path = join(tempDir(), "run.jsonl");
    copyFileSync(fixture, path);
    expect(repairTornTail(path)).toBe(0);
    expect(readFileSync(path, "utf8")).toBe(readFileSync(fixture, "utf8"));
  });

  it("derives the checkpoint path from a results path", () => {
    expect(checkpointPathFor("runs/x/results.json")).toBe("runs/x/results.jsonl");
  });
});
