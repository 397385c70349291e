/**
 * End to end: the run modes of `tau run` on telecom (dual control and solo),
 * offline ones over the base split and LLM ones against the fake provider,
 * plus the refusal of solo mode on domains that have no user tools.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolutionStep } from "../agents/prompts.ts";
import { parsePyJson, pyDumps } from "../core/py-json.ts";
import { Action } from "../core/task.ts";
import { type FakeProvider, type FakeReply, startFakeProvider } from "../testing/fake-provider.ts";
import {
  byParticipant,
  filesUnder,
  inOrder,
  participantOf,
  readResults,
  runTau,
  systemPromptOf,
  turnsOf,
} from "./e2e-harness.ts";

const dataDir = process.env.TAU_DATA_DIR;

interface TelecomTask {
  id: string;
  ticket: string | null;
  evaluation_criteria: { actions: { requestor: string; name: string; arguments: Record<string, unknown> }[] };
}

function telecomFile(name: string): string {
  return readFileSync(join(dataDir!, "domains", "telecom", name), "utf8");
}

/** The base split's tasks, in split order (floats kept, so `2.0` is written back as `2.0`). */
function baseTasks(): TelecomTask[] {
  const split = JSON.parse(telecomFile("split_tasks.json")) as Record<string, string[]>;
  const all = parsePyJson(telecomFile("tasks.json")) as unknown as TelecomTask[];
  const byId = new Map(all.map((task) => [task.id, task]));
  return split.base!.map((id) => byId.get(id)!);
}

function summaryCounts(stdout: string) {
  const match = /Simulations (\d+) \((\d+) evaluated, (\d+) infrastructure errors\)/.exec(stdout);
  return match ? { total: Number(match[1]), evaluated: Number(match[2]), infra: Number(match[3]) } : null;
}

describe.skipIf(!dataDir)("tau run modes on telecom (skipped: TAU_DATA_DIR not set)", () => {
  let fake: FakeProvider;
  let cwd: string;
  let env: Record<string, string>;
  let tasks: TelecomTask[];

  beforeAll(async () => {
    fake = await startFakeProvider();
    cwd = mkdtempSync(join(tmpdir(), "tau-e2e-telecom-"));
    env = { OPENAI_API_KEY: "sk-test-dummy", OPENAI_BASE_URL: fake.openaiBaseUrl };
    tasks = baseTasks();
  });
  afterAll(async () => {
    await fake?.close();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  // The offline runs (no fake provider) are independent child processes, so they run side by side.
  const common = () => ["--data-dir", dataDir!, "--retry-delay", "0", "--max-concurrency", "4"];

  it.concurrent("replays every base task with the scripted user and scores 1.0 on all of them", async () => {
    const path = join(cwd, "replay.json");
    const run = await runTau(
      [
        "run",
        "--no-preflight",
        "--domain",
        "telecom",
        "--agent",
        "replay",
        "--user",
        "scripted",
        "--save-to",
        path,
        ...common(),
      ],
      { cwd },
    );
    expect(run.status, run.stderr).toBe(0);
    const results = readResults(path);
    expect(results.simulations).toHaveLength(tasks.length);
    expect(tasks.length).toBe(114);
    const failed = results.simulations.filter((s) => s.reward_info?.reward !== 1).map((s) => s.task_id);
    expect(failed).toEqual([]);
    expect(new Set(results.simulations.map((s) => s.task_id))).toEqual(new Set(tasks.map((t) => t.id)));
    expect(summaryCounts(run.stdout)).toEqual({ total: 114, evaluated: 114, infra: 0 });
    expect(results.info.taubench.solo_mode).toBe(false);
  });

  it.concurrent("replays every base task in solo mode (replay_solo + dummy_user) and scores 1.0 on all of them", async () => {
    const path = join(cwd, "replay-solo.json");
    const run = await runTau(
      [
        "run",
        "--no-preflight",
        "--domain",
        "telecom",
        "--agent",
        "replay_solo",
        "--user",
        "dummy_user",
        "--save-to",
        path,
        ...common(),
      ],
      { cwd },
    );
    expect(run.status, run.stderr).toBe(0);
    const results = readResults(path);
    expect(results.simulations).toHaveLength(114);
    const failed = results.simulations.filter((s) => s.reward_info?.reward !== 1).map((s) => s.task_id);
    expect(failed).toEqual([]);
    expect(results.simulations.every((s) => s.termination_reason === "agent_stop")).toBe(true);
    expect(results.info.taubench.solo_mode).toBe(true);
    // Solo policy: the solo main policy with the tech-support manual.
    expect(results.info.environment_info.policy).toContain(telecomFile("main_policy_solo.md"));
    expect(summaryCounts(run.stdout)).toEqual({ total: 114, evaluated: 114, infra: 0 });
  });

  it.concurrent.each(["airline", "retail"])(
    "refuses solo mode on %s with one line, exit 2, nothing written",
    async (domain) => {
      const folder = join(cwd, `solo-${domain}`);
      const run = await runTau(
        [
          "run",
          "--no-preflight",
          "--domain",
          domain,
          "--agent",
          "replay_solo",
          "--user",
          "dummy_user",
          "--save-to",
          join(folder, "results.json"),
          ...common(),
        ],
        { cwd },
      );
      expect(run.status).toBe(2);
      expect(run.stderr.trim().split("\n")).toEqual([
        `tau: Domain '${domain}' does not support solo mode (only mock and telecom do)`,
      ]);
      expect(run.stdout).toBe("");
      expect(filesUnder(folder)).toEqual([]);
    },
  );

  it("llm_agent_solo gets the ticket and the solo policy, calls user tools itself, and stops with done", async () => {
    fake.requests.length = 0;
    const task = tasks[0]!;
    const actions = task.evaluation_criteria.actions;
    // The scripted model performs the task's expected actions (its own and the user's), then calls done.
    const steps: FakeReply[] = [
      ...actions.map((action) => ({
        toolCalls: [{ name: action.name, arguments: pyDumps(action.arguments) }],
      })),
      { toolCalls: [{ name: "done", arguments: "{}" }] },
    ];
    fake.setHandler((request) => {
      const made = turnsOf(request).filter((turn) => turn.role === "assistant").length;
      return steps[Math.min(made, steps.length - 1)]!;
    });
    const path = join(cwd, "llm-solo.json");
    const run = await runTau(
      [
        "run",
        "--no-preflight",
        "--domain",
        "telecom",
        "--agent",
        "llm_agent_solo",
        "--user",
        "dummy_user",
        "--agent-llm",
        "openai/gpt-4.1",
        "--task-ids",
        task.id,
        "--save-to",
        path,
        ...common(),
      ],
      { cwd, env },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(fake.requests).toHaveLength(actions.length + 1);
    const first = fake.requests[0]!;
    expect(participantOf(first)).toBe("agent");
    const system = systemPromptOf(first);
    expect(system).toContain(`<ticket>\n${task.ticket}\n</ticket>`);
    expect(system).toContain(telecomFile("main_policy_solo.md"));
    expect(system).not.toContain(telecomFile("main_policy.md"));
    expect(system).toContain(telecomFile("tech_support_manual.md"));
    expect(first.body.tool_choice).toBe("required");
    const toolNames = first.body.tools.map((tool: { function: { name: string } }) => tool.function.name);
    expect(toolNames).toEqual(expect.arrayContaining(["refuel_data", "toggle_airplane_mode", "done"]));
    // No user simulator in solo mode: every request came from the agent.
    expect(fake.requests.every((request) => participantOf(request) === "agent")).toBe(true);

    const simulation = readResults(path).simulations[0]!;
    expect(simulation.termination_reason).toBe("agent_stop");
    expect(simulation.reward_info.reward).toBe(1);
    // User-tool calls made by the solo agent are executed for the user's device.
    const userToolCall = simulation.messages.find((m: { role: string; tool_calls?: { name: string }[] }) =>
      m.tool_calls?.some((call) => call.name === "toggle_airplane_mode"),
    );
    expect(userToolCall).toBeDefined();
    expect(simulation.messages.at(-1).content).toBe("###STOP###");
  });

  it("llm_agent_gt on telecom-workflow gets the resolution steps, the normal policy and the workflow manual", async () => {
    fake.requests.length = 0;
    const task = tasks[0]!;
    fake.setHandler(
      byParticipant({
        agent: inOrder([{ text: "Let me walk you through a few checks on your phone." }]),
        user: inOrder([{ text: "I cannot send picture messages." }, { text: "###STOP###" }]),
      }),
    );
    const path = join(cwd, "gt.json");
    const run = await runTau(
      [
        "run",
        "--no-preflight",
        "--domain",
        "telecom-workflow",
        "--agent",
        "llm_agent_gt",
        "--agent-llm",
        "openai/gpt-4.1",
        "--user-llm",
        "openai/gpt-4.1",
        "--task-ids",
        task.id,
        "--save-to",
        path,
        ...common(),
      ],
      { cwd, env },
    );
    expect(run.status, run.stderr).toBe(0);
    const agent = fake.requests.find((request) => participantOf(request) === "agent")!;
    const system = systemPromptOf(agent);
    expect(system).toContain(telecomFile("main_policy.md"));
    expect(system).toContain(telecomFile("tech_support_workflow.md"));
    expect(system).not.toContain(telecomFile("tech_support_manual.md"));
    expect(system).not.toContain("<ticket>");
    const steps = /<resolution_steps>\n([\s\S]*)\n<\/resolution_steps>$/.exec(system)?.[1]?.split("\n") ?? [];
    expect(steps).toEqual(
      task.evaluation_criteria.actions.map((action, index) => resolutionStep(Action.parse(action), index)),
    );
    // Values as Python str(): floats keep their `.0`, strings are not quoted.
    const refuel = steps.find((step) => step.includes("refuel_data("));
    expect(refuel).toMatch(
      /^\[Step \d+\] Perform this action: refuel_data\(customer_id=C1001, line_id=L1002, gb_amount=2\.0\)\.$/,
    );
    expect(agent.body.tool_choice).toBe("auto");
    // The user simulator has its phone tools in dual control.
    const user = fake.requests.find((request) => participantOf(request) === "user")!;
    expect(user.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toContain(
      "toggle_airplane_mode",
    );
    const results = readResults(path);
    expect(results.info.environment_info.domain_name).toBe("telecom-workflow");
    expect(results.simulations[0]!.termination_reason).toBe("user_stop");
  });
});
