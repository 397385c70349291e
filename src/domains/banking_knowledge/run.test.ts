import { describe, expect, it } from "vitest";
import { readResultsFile } from "../../core/results-file.ts";
import { executeRun } from "../../runner/run.ts";
import { OFFLINE_RUN_DEPENDENCIES, offlineRunConfig } from "../../testing/run-config.ts";

const dataDir = process.env.TAU_DATA_DIR;

describe.skipIf(!dataDir)(
  "tau run on banking_knowledge with the offline participants (skipped: TAU_DATA_DIR not set)",
  () => {
    it("rewards every one of the 97 gold trajectories; task_102's NL assertion is reported as not evaluated", async () => {
      const config = offlineRunConfig(dataDir!, { domain: "banking_knowledge", maxConcurrency: 8 });
      const outcome = await executeRun(config, OFFLINE_RUN_DEPENDENCIES);
      expect(outcome.simulations).toHaveLength(97);
      const failed = outcome.simulations.filter((s) => s.reward_info?.reward !== 1).map((s) => s.task_id);
      expect(failed).toEqual([]);
      const results = readResultsFile(config.resultsPath);
      expect(results.info.retrieval_config).toBe("alltools");
      expect(results.info.environment_info.domain_name).toBe("banking_knowledge");
      const nl = results.simulations.find((s) => s.task_id === "task_102")!;
      expect(nl.reward_info?.info?.not_evaluated).toEqual(["NL_ASSERTION"]);
      expect(nl.reward_info?.db_check?.db_match).toBe(true);
    });

    it("refuses a retrieval config for another domain, and an unknown one, in one line", async () => {
      const other = offlineRunConfig(dataDir!, { retrievalConfig: "bm25" });
      await expect(executeRun(other, OFFLINE_RUN_DEPENDENCIES)).rejects.toThrow(
        "Domain 'mock' has no retrieval configs (--retrieval-config is for banking_knowledge)",
      );
      const unknown = offlineRunConfig(dataDir!, { domain: "banking_knowledge", retrievalConfig: "bm26" });
      await expect(executeRun(unknown, OFFLINE_RUN_DEPENDENCIES)).rejects.toThrow(
        /^Unknown retrieval variant: 'bm26'/,
      );
    });
  },
);
