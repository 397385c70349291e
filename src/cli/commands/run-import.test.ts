import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { PyFloat } from "../../core/py-json.ts";
import { Info, type Results } from "../../core/results.ts";
import { readResultsFile, writeResultsFile } from "../../core/results-file.ts";
import { loadDomain } from "../../domains/registry.ts";
import { infrastructureErrorSimulation } from "../../runner/batch.ts";
import { loadCheckpointState } from "../../runner/checkpoint-state.ts";
import { executeRun } from "../../runner/run.ts";
import { OFFLINE_RUN_DEPENDENCIES, offlineRunConfig } from "../../testing/run-config.ts";
import { runTauSync } from "../e2e-harness.ts";

const dataDir = process.env.TAU_DATA_DIR;

const tau = (args: string[], cwd: string) => runTauSync(args, { cwd });

describe.skipIf(!dataDir)(
  "tau run --save-to an existing results.json (skipped: TAU_DATA_DIR not set)",
  () => {
    let upstream: Results;

    beforeAll(async () => {
      // One real finished simulation, then the file upstream would hold after 2 of 10 mock tasks.
      const source = await executeRun(
        offlineRunConfig(dataDir!, { taskIds: ["create_task_1"], maxConcurrency: 1 }),
        OFFLINE_RUN_DEPENDENCIES,
      );
      const tasks = [...loadDomain("mock", dataDir!).tasks()];
      const finished = readResultsFile(source.resultsPath).simulations[0]!;
      const failed = infrastructureErrorSimulation(
        { trial: 0, task: tasks.find((task) => task.id === "update_task_with_user_tools")!, seed: 626729 },
        new Error("Connection reset by peer"),
        4,
      );
      const llmArgs = { temperature: new PyFloat(0) };
      upstream = {
        timestamp: "2025-06-01T12:00:00.000000",
        info: Info.parse({
          git_commit: "a2c0247",
          num_trials: 1,
          max_steps: 200,
          max_errors: 10,
          user_info: { implementation: "scripted", llm: "gpt-4.1-2025-04-14", llm_args: llmArgs },
          agent_info: { implementation: "replay", llm: "gpt-4.1-2025-04-14", llm_args: llmArgs },
          environment_info: { domain_name: "mock", policy: "Policy text of an older data release." },
          seed: 300,
        }),
        tasks,
        simulations: [finished, failed],
        simulation_index: null,
      };
    });

    it("runs exactly the 9 missing or failed units of an upstream file and rewrites it with 10 simulations", async () => {
      const cwd = mkdtempSync(join(tmpdir(), "tau-cli-import-"));
      const path = join(cwd, "that.json");
      writeResultsFile(path, upstream);
      const original = readFileSync(path, "utf8");
      const result = tau(
        [
          "run",
          "--domain",
          "mock",
          "--agent",
          "replay",
          "--user",
          "scripted",
          "--save-to",
          "that.json",
          "--data-dir",
          dataDir!,
        ],
        cwd,
      );
      expect(result.status, result.stderr).toBe(0);
      expect(result.stderr).toContain(
        `Imported ${path} (upstream results, json layout): 1 simulation kept, 1 infrastructure error to re-run; original saved as ${path}.bak`,
      );
      expect(readFileSync(`${path}.bak`, "utf8")).toBe(original);
      // The checkpoint holds the imported simulation and the 9 that ran now.
      const state = await loadCheckpointState(join(cwd, "that.jsonl"));
      expect(state.simulations.size).toBe(10);
      expect(state.duplicates).toBe(0);
      const lines = readFileSync(join(cwd, "that.jsonl"), "utf8").split("\n");
      expect(lines.filter((line) => line.startsWith('{"kind": "simulation"'))).toHaveLength(10);
      const results = readResultsFile(path);
      expect(results.simulations).toHaveLength(10);
      expect(results.simulations.filter((s) => s.id === upstream.simulations[0]!.id)).toHaveLength(1);
      expect(results.simulations.some((s) => s.id === upstream.simulations[1]!.id)).toBe(false);
      expect(
        results.simulations.find((s) => s.task_id === "update_task_with_user_tools")?.termination_reason,
      ).not.toBe("infrastructure_error");
      expect(results.simulations.every((s) => s.trial === 0 && s.seed === 626729)).toBe(true);
      expect(result.stdout).toContain("Average reward  0.8000");
    });

    it("an incompatible file is one line, exit 2, and stays untouched", () => {
      const cwd = mkdtempSync(join(tmpdir(), "tau-cli-import-bad-"));
      const path = join(cwd, "that.json");
      writeResultsFile(path, upstream);
      const original = readFileSync(path, "utf8");
      const result = tau(
        [
          "run",
          "--domain",
          "mock",
          "--agent",
          "replay",
          "--user",
          "scripted",
          "--save-to",
          "that.json",
          "--max-steps",
          "50",
          "--data-dir",
          dataDir!,
        ],
        cwd,
      );
      expect(result.status).toBe(2);
      expect(result.stderr.trim()).toBe(
        `tau: ${path} belongs to a run with different settings (max_steps: 200 → 50); use another --save-to to start a new run`,
      );
      expect(readFileSync(path, "utf8")).toBe(original);
      expect(readdirSync(cwd)).toEqual(["that.json"]);
    });
  },
);
