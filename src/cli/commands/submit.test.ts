import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Results } from "../../core/results.ts";
import { writeResultsFile } from "../../core/results-file.ts";
import type { Task } from "../../core/task.ts";
import { loadDomain } from "../../domains/registry.ts";
import { selectTasks } from "../../runner/task-selection.ts";
import { prepareCommand, type PrepareOptions, validateCommand, verifyTrajsCommand } from "./submit.ts";

const dataDir = process.env.TAU_DATA_DIR;

interface Synthetic {
  trials?: number;
  agentLlm?: string;
  /** Edits the task list before the file is written. */
  tasks?: (tasks: Task[]) => Task[];
  /** Drops the simulations of the first task's last trial. */
  dropOne?: boolean;
}

/** A results file of a domain's whole `base` split: task i succeeds in trials < i mod (trials + 1). */
function syntheticRun(domain: string, options: Synthetic = {}): string {
  const trials = options.trials ?? 4;
  let tasks: Task[] = selectTasks(loadDomain(domain, dataDir!), { split: "base" });
  const simulations = tasks.flatMap((task, index) =>
    Array.from({ length: trials }, (_, trial) => ({
      id: `${domain}-${index}-${trial}`,
      task_id: task.id,
      start_time: "2026-12-01T00:00:00",
      end_time: "2026-12-01T00:00:05",
      duration: 5,
      termination_reason: "user_stop",
      agent_cost: 0.001 * ((index % 7) + 1),
      user_cost: 0.0005,
      reward_info: { reward: trial < index % (trials + 1) ? 1 : 0 },
      trial,
      seed: trial,
      messages: [{ role: "assistant", content: "Hi! How can I help you today?", turn_idx: 0 }],
    })),
  );
  if (options.tasks) tasks = options.tasks(tasks);
  const results = Results.parse({
    timestamp: "2026-12-01T00:00:00",
    info: {
      git_commit: "test",
      num_trials: trials,
      max_steps: 200,
      max_errors: 10,
      seed: 300,
      user_info: { implementation: "user_simulator", llm: "openai/gpt-4.1", llm_args: { temperature: 0 } },
      agent_info: {
        implementation: "llm_agent",
        llm: options.agentLlm ?? "openai/gpt-4.1",
        llm_args: { temperature: 0 },
      },
      environment_info: { domain_name: domain, policy: "p" },
    },
    tasks,
    simulations: options.dropOne ? simulations.slice(1) : simulations,
  });
  const path = join(mkdtempSync(join(tmpdir(), "tau-submit-")), `${domain}.json`);
  writeResultsFile(path, results);
  return path;
}

const META: PrepareOptions = {
  output: "",
  modelName: "openai/gpt-4.1",
  modelOrganization: "OpenAI",
  contactEmail: "eval@example.com",
  isNew: true,
  verify: true,
};

function capture(extra: { ask?: (question: string, fallback?: string) => Promise<string> } = {}) {
  const lines: string[] = [];
  return { lines, io: { out: (line: string) => lines.push(line), today: "2026-12-01", ...extra } };
}

describe.skipIf(!dataDir)("tau submit (skipped: TAU_DATA_DIR not set)", () => {
  const runs = dataDir ? ["retail", "airline", "telecom"].map((domain) => syntheticRun(domain)) : [];

  it("prepare writes upstream's submission.json and trajectories, and validate accepts them", async () => {
    const output = mkdtempSync(join(tmpdir(), "tau-submission-"));
    const { lines, io } = capture();
    expect(await prepareCommand(runs, { ...META, output, dataDir: dataDir! }, io)).toBe(0);
    const dir = join(output, "openai-gpt-4-1_openai_2026-12-01");
    const submission = JSON.parse(readFileSync(join(dir, "submission.json"), "utf8"));
    expect(submission).toMatchObject({
      model_name: "openai/gpt-4.1",
      model_organization: "OpenAI",
      submitting_organization: "OpenAI",
      submission_date: "2026-12-01",
      contact_info: { email: "eval@example.com" },
      trajectories_available: true,
      trajectory_files: {
        retail: "retail_results.json",
        airline: "airline_results.json",
        telecom: "telecom_results.json",
      },
      methodology: {
        evaluation_date: "2026-12-01",
        user_simulator: "openai/gpt-4.1",
        verification: { modified_prompts: true, omitted_questions: false },
      },
    });
    expect(submission.methodology.tau2_bench_version).toMatch(/^taubench \d/);
    // Task i passes (i mod 5) of 4 trials (all 4 when i mod 5 = 4): pass^1 is the mean of min(i mod 5, 4) / 4.
    const retailTasks = selectTasks(loadDomain("retail", dataDir!), { split: "base" }).length;
    const expectedPass1 =
      (100 *
        Array.from({ length: retailTasks }, (_, i) => Math.min(i % 5, 4) / 4).reduce((a, b) => a + b, 0)) /
      retailTasks;
    expect(submission.results.retail.pass_1).toBeCloseTo(expectedPass1, 9);
    expect(submission.results.retail.pass_4).toBeLessThan(submission.results.retail.pass_1);
    expect(submission.results.retail.cost).toBeGreaterThan(0);
    expect(lines.join("\n")).toContain("🎉 Submission prepared");

    const validated = capture();
    expect(validateCommand(dir, { dataDir: dataDir! }, validated.io)).toBe(0);
    expect(validated.lines.at(-1)).toBe("✅ Submission validation successful");

    // A reported number that does not match the trajectories is caught.
    submission.results.airline.pass_1 += 1;
    writeFileSync(join(dir, "submission.json"), JSON.stringify(submission));
    const tampered = capture();
    expect(validateCommand(dir, { dataDir: dataDir! }, tampered.io)).toBe(1);
    expect(tampered.lines.join("\n")).toMatch(/Pass\^1 for airline does not match computed results/);
    // So is a schema violation (a percentage above 100).
    submission.results.airline.pass_1 = 140;
    writeFileSync(join(dir, "submission.json"), JSON.stringify(submission));
    const invalid = capture();
    expect(validateCommand(dir, { dataDir: dataDir! }, invalid.io)).toBe(1);
    expect(invalid.lines.join("\n")).toMatch(/results\.airline\.pass_1/);
  });

  it("prepare asks for missing metadata only on a terminal, else names the flag", async () => {
    const output = mkdtempSync(join(tmpdir(), "tau-submission-"));
    const { contactEmail: _, ...withoutEmail } = META;
    await expect(
      prepareCommand(runs.slice(0, 1), { ...withoutEmail, output, dataDir: dataDir! }, capture().io),
    ).rejects.toThrow("--contact-email is required (not on a terminal, so it cannot be asked for)");
    const asked: string[] = [];
    const terminal = capture({
      ask: async (question, fallback) => {
        asked.push(question);
        return fallback ?? "asked@example.com";
      },
    });
    expect(
      await prepareCommand(runs.slice(0, 1), { ...withoutEmail, output, dataDir: dataDir! }, terminal.io),
    ).toBe(0);
    // Given flags are not asked for; a field with a default is asked with it (kept here).
    expect(asked).toEqual(["Submitting organization (who ran the evaluation)", "Contact email"]);
    const written = JSON.parse(
      readFileSync(join(output, "openai-gpt-4-1_openai_2026-12-01", "submission.json"), "utf8"),
    );
    expect(written.contact_info.email).toBe("asked@example.com");
    expect(written.submitting_organization).toBe("OpenAI");
  });

  it("prepare refuses runs whose agent settings differ across domains, and a domain twice", async () => {
    const output = mkdtempSync(join(tmpdir(), "tau-submission-"));
    const other = syntheticRun("airline", { agentLlm: "openai/gpt-4.1-mini" });
    const differing = capture();
    expect(
      await prepareCommand([runs[0]!, other], { ...META, output, dataDir: dataDir! }, differing.io),
    ).toBe(1);
    expect(differing.lines.join("\n")).toMatch(/Agent \/ User Simulator should be the same for all results/);
    const twice = capture();
    expect(await prepareCommand([runs[0]!, runs[0]!], { ...META, output, dataDir: dataDir! }, twice.io)).toBe(
      1,
    );
    expect(twice.lines.join("\n")).toMatch(/Domain retail appears multiple times/);
  });

  it("verify-trajs checks the base split, task definitions and trial counts", async () => {
    const missingTask = syntheticRun("airline", { tasks: (tasks) => tasks.slice(1) });
    const changedTask = syntheticRun("airline", {
      tasks: (tasks) => [
        { ...tasks[0]!, description: { purpose: "changed", relevant_policies: null, notes: null } },
        ...tasks.slice(1),
      ],
    });
    const shortTrials = syntheticRun("airline", { dropOne: true });
    const { lines, io } = capture();
    expect(
      await verifyTrajsCommand([runs[1]!, missingTask, changedTask, shortTrials], { dataDir: dataDir! }, io),
    ).toBe(1);
    const text = lines.join("\n");
    expect(text).toMatch(/❌ Tasks validation: Missing tasks: 0\b/);
    expect(text).toMatch(/❌ Tasks validation: Task mismatches found in 1 tasks \(0\)/);
    expect(text).toMatch(/❌ Trial count validation: Incorrect trial counts for 1 tasks/);
    expect(text).toContain("📊 4 file(s): 1 passed, 3 failed");
  });
});
