import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runTauSync } from "./e2e-harness.ts";

const dataDir = process.env.TAU1_DATA_DIR;
const hasData = Boolean(dataDir && existsSync(join(dataDir, "retail")));

describe.skipIf(!hasData)("tau replay on the original τ-bench (skipped: TAU1_DATA_DIR not set)", () => {
  it.each([
    ["tau1-retail", "retail_test", "24 steps returned an error"],
    ["tau1-airline", "airline_test", "0 steps returned an error"],
  ])(
    "%s --split test writes upstream's replay lines, byte for byte on the golden sample",
    (domain, file, errors) => {
      const out = join(mkdtempSync(join(tmpdir(), "tau1-replay-")), `${file}.jsonl`);
      const result = runTauSync(["replay", "--domain", domain, "--split", "test", "--output", out], {
        env: { TAU1_DATA_DIR: dataDir },
      });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stderr).toContain(errors);
      const written = new Map(
        readFileSync(out, "utf8")
          .trim()
          .split("\n")
          .map((line) => [(JSON.parse(line) as { id: number }).id, line]),
      );
      expect(written.size).toBe(domain === "tau1-retail" ? 115 : 50);
      const golden = readFileSync(join(dataDir!, "..", "golden-sample-v1", `${file}.jsonl`), "utf8")
        .trim()
        .split("\n");
      for (const line of golden) expect(written.get((JSON.parse(line) as { id: number }).id)).toBe(line);
    },
  );

  it("addresses tasks by index within a split and names unknown splits in one line", () => {
    const out = join(mkdtempSync(join(tmpdir(), "tau1-replay-")), "dev.jsonl");
    const env = { TAU1_DATA_DIR: dataDir };
    const ok = runTauSync(
      ["replay", "--domain", "tau1-retail", "--split", "dev", "--task-ids", "3", "--output", out],
      { env },
    );
    expect(ok.status, ok.stderr).toBe(0);
    const line = JSON.parse(readFileSync(out, "utf8")) as { id: number; steps: { name: string }[] };
    expect(line.id).toBe(3);
    const bad = runTauSync(["replay", "--domain", "tau1-airline", "--split", "train", "--output", out], {
      env,
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim()).toBe(
      "tau: Unknown task split 'train' for domain 'tau1-airline'. Known splits: test",
    );
    const missing = runTauSync(["replay", "--domain", "tau1-retail", "--output", out], {
      env: { TAU1_DATA_DIR: join(tmpdir(), "no-such-tau1-data") },
    });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^tau: No original τ-bench data at .*tau data pull --tau1/);
  });
});
