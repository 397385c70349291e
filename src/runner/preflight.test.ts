/** Pre-flight checks: what a run needs is found missing before the first simulation, in one line. */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DataDirError } from "../core/errors.ts";
import { offlineRunConfig } from "../testing/run-config.ts";
import { planRun } from "./plan.ts";

const dataDir = process.env.TAU_DATA_DIR;

describe.skipIf(!dataDir)("pre-flight: data files (skipped: TAU_DATA_DIR not set)", () => {
  it("a missing user-simulator guideline file the tasks need stops planning, naming the file", async () => {
    const copy = join(mkdtempSync(join(tmpdir(), "tau-preflight-")), "data");
    cpSync(dataDir!, copy, { recursive: true, filter: (path) => !/domains[/\\](?!mock)/.test(path) });
    // Mock tasks with user tools get the tools file; the one without tools stays.
    rmSync(join(copy, "user_simulator", "simulation_guidelines_tools.md"));
    const config = offlineRunConfig(copy, { agent: "llm_agent", user: "user_simulator" });
    const planned = planRun(config);
    await expect(planned).rejects.toBeInstanceOf(DataDirError);
    await expect(planned).rejects.toThrow(
      `user 'user_simulator' needs ${join(copy, "user_simulator", "simulation_guidelines_tools.md")} for these tasks, and it is missing`,
    );
    // A user that reads no guideline file does not need it.
    await expect(planRun({ ...config, user: "scripted", agent: "replay" })).resolves.toBeDefined();
  });
});
