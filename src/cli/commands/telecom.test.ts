import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runTauSync } from "../e2e-harness.ts";

const dataDir = process.env.TAU_DATA_DIR;

const tau = (args: string[]) => runTauSync(args);

describe("tau telecom generate", () => {
  it("requires --output", () => {
    const result = tau(["telecom", "generate"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("--output");
  });
});

describe.skipIf(!dataDir)("tau telecom generate with data (skipped: TAU_DATA_DIR not set)", () => {
  it("writes the data folder's tasks.json byte for byte and prints the report", () => {
    const output = join(mkdtempSync(join(tmpdir(), "tau-telecom-")), "nested", "tasks.json");
    const result = tau(["telecom", "generate", "--output", output, "--data-dir", dataDir!, "--sources"]);
    expect(result.status, result.stderr).toBe(0);
    const expected = readFileSync(join(dataDir!, "domains", "telecom", "tasks.json"), "utf8");
    expect(readFileSync(output, "utf8") === expected).toBe(true);
    expect(result.stdout).toContain(
      "tasks accepted per intent: mobile_data_issue 254, service_issue 47, mms_issue 1984",
    );
    expect(result.stdout).toContain("rejected: 0");
    expect(result.stdout).toMatch(/persona Easy: tasks_small\.json/);
    expect(result.stdout).toMatch(/wrote 2285 tasks to /);
  });
});
