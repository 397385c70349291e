import {
  appendFileSync,
  copyFileSync,
  mkdtempSync,
  readFileSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { computeMetrics } from "../metrics/index.ts";
import { loadRun } from "../runner/run-file.ts";
import { RunIndex } from "./run-index.ts";

const fixture = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const CHECKPOINT_V1 = fixture("../runner/fixtures/checkpoint-v1.jsonl");
const CHECKPOINT_V2 = fixture("../runner/fixtures/checkpoint-v2.jsonl");
const UPSTREAM_JSON = fixture("../core/fixtures/results-upstream.json");
const UPSTREAM_DIR = fixture("../core/fixtures/results-dir");

const identity = { id: "x", name: "x", displayPath: "x" };

function copy(path: string, name = "results.jsonl"): string {
  const target = join(mkdtempSync(join(tmpdir(), "tau-viewer-")), name);
  copyFileSync(path, target);
  return target;
}

describe("RunIndex over every run format", () => {
  for (const [label, path] of [
    ["checkpoint v1", CHECKPOINT_V1],
    ["checkpoint v2", CHECKPOINT_V2],
    ["upstream monolithic results", UPSTREAM_JSON],
    ["upstream dir layout", join(UPSTREAM_DIR, "results.json")],
  ] as const) {
    it(`${label}: rows give the metrics of the full simulations, and each trajectory reads back whole`, async () => {
      const index = RunIndex.open(path, identity);
      expect(index.error).toBeNull();
      const run = await loadRun(path);
      expect(index.size).toBe(run.simulations.length);
      const numTrials = run.info.num_trials;
      expect(computeMetrics(index.metricsInput(), { numTrials })).toEqual(
        computeMetrics(run.simulations, { numTrials }),
      );
      const data = index.data();
      expect(data.summary.domain).toBe(run.info.environment_info.domain_name);
      expect(data.summary.passHat1).toBe(computeMetrics(run.simulations, { numTrials }).passHatK[0] ?? null);
      expect(data.tasks.map((task) => task.id)).toEqual(run.tasks.map((task) => task.id));
      const full = await run.full(run.simulations.map((_, i) => i));
      data.simulations.forEach((row, i) => {
        const simulation = index.readSimulation(row.serial)!;
        expect(simulation.id).toBe(full[i]!.id);
        expect(simulation.messages).toEqual(full[i]!.messages);
        expect(data.tasks[row.task]!.id).toBe(simulation.task_id);
      });
      expect(index.readSimulation(10_000)).toBeUndefined();
    });
  }

  it("counts tokens and costs per simulation from the messages", () => {
    const index = RunIndex.open(UPSTREAM_JSON, identity);
    const rows = index.data().simulations;
    const raw = JSON.parse(readFileSync(UPSTREAM_JSON, "utf8")) as {
      simulations: {
        agent_cost: number | null;
        messages: { role: string; usage?: { prompt_tokens: number } | null }[];
      }[];
    };
    rows.forEach((row, i) => {
      const expected = raw.simulations[i]!.messages.filter((m) => m.role === "assistant").reduce(
        (sum, m) => sum + (m.usage?.prompt_tokens ?? 0),
        0,
      );
      expect(row.tokens.agentIn).toBe(expected);
      expect(row.agentCost).toBe(raw.simulations[i]!.agent_cost);
    });
  });

  it("reads a broken file as an index with an error line, not a crash", () => {
    const path = copy(CHECKPOINT_V2);
    writeFileSync(path, "{not json}\n");
    const index = RunIndex.open(path, identity);
    expect(index.error).toMatch(/line 1: not valid JSON/);
    expect(index.data().simulations).toEqual([]);
  });
});

describe("following a checkpoint", () => {
  const lines = readFileSync(CHECKPOINT_V2, "utf8")
    .split("\n")
    .filter((line) => line !== "");

  it("reads only what was appended, waits for a line being written, and re-reads a replaced file", () => {
    const path = copy(CHECKPOINT_V2);
    writeFileSync(path, `${lines[0]}\n`);
    const index = RunIndex.open(path, identity);
    expect(index.size).toBe(0);
    const version = index.version;
    expect(index.refresh()).toBe(false);

    const simulationLines = lines.filter((line) => line.includes('"kind": "simulation"'));
    appendFileSync(path, `${simulationLines[0]}\n${simulationLines[1]!.slice(0, 50)}`);
    expect(index.refresh()).toBe(true);
    expect(index.size).toBe(1);
    expect(index.version).toBeGreaterThan(version);

    // The rest of the half-written line arrives.
    appendFileSync(path, `${simulationLines[1]!.slice(50)}\n`);
    expect(index.refresh()).toBe(true);
    expect(index.size).toBe(2);
    const serials = index.data().simulations.map((row) => row.serial);
    for (const serial of serials) expect(index.readSimulation(serial)).toBeDefined();

    // Cut back (a torn tail repaired, a rewrite): indexed again from the start.
    truncateSync(path, Buffer.byteLength(`${lines[0]}\n`));
    expect(index.refresh()).toBe(true);
    expect(index.size).toBe(0);
  });

  it("lets a finished simulation replace an infrastructure error of the same key, and keeps the first finished one", async () => {
    const path = copy(CHECKPOINT_V2);
    const [run, ...rest] = lines;
    const finished = rest.find((line) => line.includes('"kind": "simulation"'))!;
    const record = JSON.parse(finished) as { simulation: Record<string, unknown> };
    const failed = JSON.stringify({
      ...record,
      simulation: {
        ...record.simulation,
        id: "infra-1",
        termination_reason: "infrastructure_error",
        reward_info: null,
        info: { error: "boom\nstack" },
      },
    });
    const duplicate = JSON.stringify({
      ...record,
      simulation: { ...record.simulation, id: "second-finished" },
    });
    writeFileSync(path, `${run}\n${failed}\n`);
    const index = RunIndex.open(path, identity);
    expect(index.data().simulations.map((row) => [row.termination, row.error])).toEqual([
      ["infrastructure_error", "boom"],
    ]);
    appendFileSync(path, `${finished}\n${duplicate}\n`);
    index.refresh();
    const rows = index.data().simulations;
    expect(rows).toHaveLength(1);
    expect(index.readSimulation(rows[0]!.serial)!.id).toBe(record.simulation.id);
    expect((await loadRun(path)).simulations.map((s) => s.id)).toEqual([record.simulation.id]);
  });
});

describe("RunIndex and the review files beside a run", () => {
  it("reads a review written later (a new version for open pages), and names a damaged one in one line", async () => {
    const path = copy(CHECKPOINT_V2);
    const index = RunIndex.open(path, identity);
    expect(index.refresh()).toBe(false);
    expect(index.data().faults).toEqual({ review: null, analysis: null, error: null });
    const run = await loadRun(path);
    const simulation = run.simulations.find((s) => s.termination_reason !== "infrastructure_error")!;
    const record = {
      kind: "simulation",
      status: "reviewed",
      version: 1,
      simulation_id: simulation.id,
      task_id: simulation.task_id,
      trial: simulation.trial ?? 0,
      reward: simulation.reward_info?.reward ?? null,
      cost_usd: 0.002,
      finished_at: "2026-01-01T00:00:00",
      review: {
        summary: "",
        has_errors: true,
        user_error: true,
        critical_user_error: true,
        errors: [
          {
            source: "user",
            error_tags: ["hallucination"],
            severity: "critical_hindered",
            turn_idx: 1,
            reasoning: "r",
          },
        ],
      },
      auth_classification: null,
    };
    const reviewPath = join(path, "..", "review.jsonl");
    writeFileSync(reviewPath, `${JSON.stringify(record)}\n`);
    const version = index.version;
    expect(index.refresh()).toBe(true);
    expect(index.version).toBeGreaterThan(version);
    const audit = index.data().faults!.review!.audit;
    expect(audit).toMatchObject({
      mode: "full",
      reviewed: 1,
      userErrorSimulations: 1,
      userCriticalSimulations: 1,
    });
    expect(index.reviewsOf(simulation.id).review?.status).toBe("reviewed");
    appendFileSync(reviewPath, "not json\n{}\n");
    expect(index.refresh()).toBe(true);
    const faults = index.data().faults!;
    expect(faults.review).toBeNull();
    expect(faults.error).toMatch(/review\.jsonl.*line 2: not JSON/);
  });
});
