/**
 * The web viewer's trajectory page on an original τ-bench run: the gold
 * steps as upstream's env runs them and the field-level DB difference between
 * the gold replay and the episode's tool calls replayed on fresh data.
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadDomain } from "../domains/registry.ts";
import { isTau1Domain } from "../domains/tau1/index.ts";
import { runEvaluation } from "../runner/evaluate.ts";
import { loadRun } from "../runner/run-file.ts";
import { ScriptedLlmClient } from "../testing/scripted-model.ts";
import { dbDiffOf, domainLoader } from "./trajectory.ts";

const dataDir = process.env.TAU1_DATA_DIR;
const hasData = Boolean(dataDir && existsSync(join(dataDir, "retail")));

describe.skipIf(!hasData)("viewer DB difference on tau1-retail (skipped: TAU1_DATA_DIR not set)", () => {
  it("matches for the gold episode, lists the missing writes for one that only talked", async () => {
    const loaded = loadDomain("tau1-retail", dataDir!);
    if (!isTau1Domain(loaded)) throw new Error("not tau1");
    const gold = loaded.tau1.record(loaded.tau1.tasksOf("test")[5]!);
    const result = await runEvaluation({
      domain: "tau1-retail",
      dataDir: dataDir!,
      taskIds: ["5", "6"],
      maxConcurrency: 1,
      agentLlm: "local/agent",
      saveTo: join(mkdtempSync(join(tmpdir(), "tau1-viewer-")), "results.json"),
      createLlm: (model) =>
        model === "local/agent"
          ? new ScriptedLlmClient(
              (request) => {
                const first = request.messages[1]?.content;
                const turn = request.messages.filter((message) => message.role === "assistant").length;
                const action = first === "gold" ? gold.actions[turn] : undefined;
                if (action)
                  return {
                    toolCalls: [
                      { id: `c${turn}`, name: action.name, arguments: action.kwargs, requestor: "assistant" },
                    ],
                  };
                return { content: `Done. ${gold.outputs.join(", ")}` };
              },
              { model },
            )
          : new ScriptedLlmClient(
              (request) => {
                const turn = request.messages.filter((message) => message.role === "assistant").length;
                if (turn > 0) return { content: "###STOP###" };
                const system = String(request.messages[0]?.content);
                return { content: system.includes(gold.instruction) ? "gold" : "other" };
              },
              { model },
            ),
    });
    const run = await loadRun(result.resultsPath.replace(/\.json$/, ".jsonl"));
    const simulations = await run.full(run.simulations.map((_, index) => index));
    const byTask = new Map(simulations.map((simulation) => [simulation.task_id, simulation]));
    const tasks = new Map(run.tasks.map((task) => [task.id, task]));
    const domain = domainLoader({ missing: "no τ²-bench data" }, dataDir)("tau1-retail");
    if (typeof domain === "string") throw new Error(domain);

    const matched = dbDiffOf(byTask.get("5")!, tasks.get("5"), domain, false);
    expect(matched.report).toEqual({ status: "match" });
    expect(matched.gold?.map((step) => step.name)).toEqual(gold.actions.map((action) => action.name));
    expect(matched.gold?.every((step) => !step.error)).toBe(true);

    const other = loaded.tau1.record(loaded.tau1.tasksOf("test")[6]!);
    const missed = dbDiffOf(byTask.get("6")!, tasks.get("6"), domain, false);
    expect(missed.report.status).toBe("different");
    if (missed.report.status !== "different") return;
    expect(missed.report.agent.length).toBeGreaterThan(0);
    // Every difference is a write the gold replay made and the talking agent did not.
    for (const row of missed.report.agent) expect(row.gold).toBeDefined();
    expect(missed.gold?.map((step) => step.name)).toEqual(other.actions.map((action) => action.name));
  }, 120_000);
});
