import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { dataDirWithUpstreamTexts } from "../testing/upstream-texts.ts";
import { runTauSync } from "./e2e-harness.ts";

const dataDir = process.env.TAU_DATA_DIR;
const repo = resolve(import.meta.dirname, "..", "..");

const tau = (args: string[], env: Record<string, string | undefined> = {}) => runTauSync(args, { env });

describe("tau CLI basics", () => {
  it("rejects an unknown domain with one line and exit code 2", () => {
    const result = tau(["tasks", "--domain", "nope", "--data-dir", dataDir ?? repo]);
    expect(result.status).toBe(2);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^tau: (Unknown domain 'nope'|No benchmark data)/);
  });

  it("tells the user to run `tau data pull` when there is no data folder", () => {
    const empty = mkdtempSync(join(tmpdir(), "tau-nodata-"));
    const result = tau(["tasks", "--domain", "mock"], { TAU_DATA_DIR: empty });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("tau data pull");
    expect(result.stderr).not.toContain("    at ");
  });
});

describe.skipIf(!dataDir)("tau replay (skipped: TAU_DATA_DIR not set)", () => {
  it("writes upstream's replay lines for mock, identical to the golden sample", () => {
    const out = join(mkdtempSync(join(tmpdir(), "tau-replay-")), "mock.jsonl");
    const result = tau(["replay", "--domain", "mock", "--output", out, "--data-dir", dataDir!]);
    expect(result.status, result.stderr).toBe(0);
    const golden = readFileSync(join(dataDir!, "..", "golden-sample", "mock.jsonl"), "utf8");
    expect(readFileSync(out, "utf8")).toBe(golden);
    const piped = tau(["replay", "--domain", "mock", "--output", "-", "--data-dir", dataDir!]);
    expect(piped.status, piped.stderr).toBe(0);
    expect(piped.stdout).toBe(golden);
    expect(piped.stderr).toMatch(/^Replayed 10 tasks of mock .* → stdout\n$/);
  });

  it("takes the split as --split or --task-split-name, in tau tasks too", () => {
    const viaTasks = tau(["tasks", "--domain", "airline", "--task-split-name", "test"]);
    expect(viaTasks.status, viaTasks.stderr).toBe(0);
    expect(viaTasks.stderr).toBe("20 tasks\n");
    expect(viaTasks.stdout.split("\n")[0]).toMatch(/^\S+\tDB\+COMMUNICATE\t\d+ actions?$/);
    const clash = tau(["tasks", "--domain", "airline", "--split", "test", "--task-split-name", "train"]);
    expect(clash.status).toBe(2);
    expect(clash.stderr).toContain("--split 'test' and --task-split-name 'train' name different splits");
  });

  it.each(["airline", "retail", "telecom"])(
    "writes %s's golden-sample tasks byte for byte (raw UTF-8, as upstream writes them)",
    (domain) => {
      const golden = readFileSync(join(dataDir!, "..", "golden-sample", `${domain}.jsonl`), "utf8")
        .trim()
        .split("\n");
      const ids = golden.map((line) => (JSON.parse(line) as { id: string }).id);
      const out = join(mkdtempSync(join(tmpdir(), "tau-replay-")), `${domain}.jsonl`);
      const result = tau(["replay", "--domain", domain, "--task-ids", ...ids, "--output", out]);
      expect(result.status, result.stderr).toBe(0);
      const written = new Map(
        readFileSync(out, "utf8")
          .trim()
          .split("\n")
          .map((line) => [(JSON.parse(line) as { id: string }).id, line]),
      );
      expect(written.size).toBe(golden.length);
      for (const [index, line] of golden.entries()) expect(written.get(ids[index]!)).toBe(line);
    },
  );

  it("writes banking_knowledge's golden-sample tasks byte for byte with upstream's texts", () => {
    const golden = readFileSync(join(dataDir!, "..", "golden-sample", "banking_knowledge.jsonl"), "utf8")
      .trim()
      .split("\n");
    const ids = golden.map((line) => (JSON.parse(line) as { id: string }).id);
    const out = join(mkdtempSync(join(tmpdir(), "tau-replay-")), "banking.jsonl");
    const withTexts = dataDirWithUpstreamTexts(dataDir!, join(dataDir!, "..", "tau2-src"));
    const result = tau([
      "replay",
      "--domain",
      "banking_knowledge",
      "--data-dir",
      withTexts,
      "--task-ids",
      ...ids,
      "--output",
      out,
    ]);
    expect(result.status, result.stderr).toBe(0);
    expect(readFileSync(out, "utf8").trim().split("\n")).toEqual(golden);
  });

  it("filters by split and task ids, and names unknown ids", () => {
    const out = join(mkdtempSync(join(tmpdir(), "tau-replay-")), "one.jsonl");
    const ok = tau([
      "replay",
      "--domain",
      "mock",
      "--split",
      "base",
      "--task-ids",
      "update_task_1",
      "--output",
      out,
    ]);
    expect(ok.status, ok.stderr).toBe(0);
    const lines = readFileSync(out, "utf8").trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!).id).toBe("update_task_1");
    const bad = tau(["replay", "--domain", "mock", "--task-ids", "update_task_1,ghost", "--output", out]);
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
    expect(bad.stderr).toMatch(/^tau: Unknown task id.*ghost/);
    const split = tau(["replay", "--domain", "mock", "--split", "test", "--output", out]);
    expect(split.status).toBe(2);
    expect(split.stderr).toMatch(/^tau: Unknown (task )?split 'test'.*base/);
  });
});
