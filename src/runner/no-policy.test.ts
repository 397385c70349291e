import { describe, expect, it } from "vitest";
import { defineAgent } from "../agents/define.ts";
import { ReplayAgent } from "../agents/replay-agent.ts";
import { renderSummary } from "../cli/summary.ts";
import { readResultsFile } from "../core/results-file.ts";
import { offlineEvaluation } from "../testing/run-config.ts";
import { runEvaluation } from "./evaluate.ts";

const dataDir = process.env.TAU_DATA_DIR;

/** A replay agent that notes the policy each simulation gave it. */
function policyRecorder(seen: string[]) {
  return defineAgent({
    name: "policy_recorder",
    create: (ctx) => {
      seen.push(ctx.policy);
      return new ReplayAgent(ctx.task, { solo: false });
    },
  });
}

describe.skipIf(!dataDir)("--no-policy (skipped: TAU_DATA_DIR not set)", () => {
  it("gives the agent no policy, records it in the results, shows it in the report, and refuses a resume without it", async () => {
    const seen: string[] = [];
    const agent = policyRecorder(seen);
    const options = offlineEvaluation({
      dataDir: dataDir!,
      agent,
      taskIds: ["create_task_1"],
      noPolicy: true,
    });
    const result = await runEvaluation(options);
    expect(seen).toEqual([""]);
    expect(result.simulations[0]?.reward_info?.reward).toBe(1);
    const stored = readResultsFile(result.resultsPath);
    expect(stored.info.taubench?.no_policy).toBe(true);
    expect(stored.info.environment_info.policy).toBe("");
    expect(
      renderSummary({ info: stored.info, simulations: stored.simulations, tasks: stored.tasks }),
    ).toContain("Ablation --no-policy");
    await expect(runEvaluation({ ...options, noPolicy: false })).rejects.toThrow(/no_policy/);

    const withPolicy = await runEvaluation(
      offlineEvaluation({ dataDir: dataDir!, agent, taskIds: ["create_task_1"] }),
    );
    expect(seen[1]!.length).toBeGreaterThan(100);
    const plain = readResultsFile(withPolicy.resultsPath);
    expect(plain.info.taubench?.no_policy).toBeUndefined();
    expect(plain.info.environment_info.policy).toBe(seen[1]);
    expect(
      renderSummary({ info: plain.info, simulations: plain.simulations, tasks: plain.tasks }),
    ).not.toContain("Ablation");
  });
});
