/**
 * End to end: `node bin/tau.js run --domain airline` with an LLM agent and the
 * LLM user simulator, both played by scripts on the fake provider (OpenAI Chat
 * Completions on 127.0.0.1). Grading, fault handling (429 / 500 / timeouts
 * retried per call; malformed tool-call JSON retried per simulation, then
 * recorded as an infrastructure error) and the missing-key refusal.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeProvider,
  type FakeReply,
  type FakeRequest,
  startFakeProvider,
} from "../testing/fake-provider.ts";
import {
  byParticipant,
  filesUnder,
  inOrder,
  lastProgressLine,
  participantOf,
  readResults,
  runTau,
  type Script,
  systemPromptOf,
  turnsOf,
} from "./e2e-harness.ts";

const dataDir = process.env.TAU_DATA_DIR;

// Airline task 11: downgrade reservation GV1N64 to basic economy; the refund ($5244) must be told.
const DOWNGRADE = {
  reservation_id: "GV1N64",
  cabin: "basic_economy",
  flights: [
    { flight_number: "HAT003", date: "2024-05-19" },
    { flight_number: "HAT290", date: "2024-05-20" },
  ],
  payment_id: "gift_card_1642017",
};

/** The user simulator: states the request, then stops once the agent has answered. */
const userScript: Script = inOrder([
  { text: "Hi, I'm James Patel (james_patel_9828). Please downgrade everyone on GV1N64 to basic economy." },
  { text: "###STOP###" },
]);

/** The agent: look the reservation up, make the change, report the refund. */
function agentScript(cabin: string): Script {
  return inOrder([
    { toolCalls: [{ name: "get_reservation_details", arguments: '{"reservation_id": "GV1N64"}' }] },
    {
      toolCalls: [{ name: "update_reservation_flights", arguments: JSON.stringify({ ...DOWNGRADE, cabin }) }],
    },
    { text: "Done: all passengers are now in basic economy and $5244 goes back to your gift card." },
  ]);
}

function baseArgs(saveTo: string): string[] {
  return [
    "run",
    "--no-preflight",
    "--domain",
    "airline",
    "--task-ids",
    "11",
    "--agent-llm",
    "openai/gpt-4.1",
    "--user-llm",
    "openai/gpt-4.1",
    "--max-concurrency",
    "1",
    "--retry-delay",
    "0",
    "--data-dir",
    dataDir!,
    "--save-to",
    saveTo,
  ];
}

describe.skipIf(!dataDir)("tau run airline against the fake provider (skipped: TAU_DATA_DIR not set)", () => {
  let fake: FakeProvider;
  let cwd: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    fake = await startFakeProvider();
    cwd = mkdtempSync(join(tmpdir(), "tau-e2e-airline-"));
    env = { OPENAI_API_KEY: "sk-test-dummy", OPENAI_BASE_URL: fake.openaiBaseUrl };
  });
  afterAll(async () => {
    await fake?.close();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  const agentRequests = () => fake.requests.filter((request) => participantOf(request) === "agent");

  it("grades a scripted agent that makes the expected write and tells the refund 1.0", async () => {
    fake.requests.length = 0;
    fake.setHandler(byParticipant({ agent: agentScript("basic_economy"), user: userScript }));
    const path = join(cwd, "pass.json");
    const run = await runTau(baseArgs(path), { cwd, env });
    expect(run.status, run.stderr).toBe(0);

    const results = readResults(path);
    expect(results.simulations).toHaveLength(1);
    const simulation = results.simulations[0]!;
    expect(simulation.termination_reason).toBe("user_stop");
    expect(simulation.reward_info.reward).toBe(1);
    expect(simulation.reward_info.db_check.db_match).toBe(true);
    expect(simulation.reward_info.communicate_checks[0]).toMatchObject({ info: "5244", met: true });
    // Two tool calls executed against the real airline tools: the reservation read, then the change.
    const tools = simulation.messages.filter((m: { role: string }) => m.role === "tool");
    expect(tools).toHaveLength(2);
    expect(tools[0].content).toContain('"reservation_id": "GV1N64"');
    expect(tools[1].content).toContain('"cabin": "basic_economy"');
    // The agent saw the airline policy and tools; the user saw its scenario, without tools (airline).
    const firstAgent = agentRequests()[0]!;
    expect(systemPromptOf(firstAgent)).toContain("<policy>\n# Airline Agent Policy");
    expect(firstAgent.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toContain(
      "update_reservation_flights",
    );
    const firstUser = fake.requests.find((request) => participantOf(request) === "user")!;
    expect(systemPromptOf(firstUser)).toContain("james_patel_9828");
    expect(firstUser.body.tools).toBeUndefined();
    expect(turnsOf(firstUser)).toEqual([{ role: "user", text: "Hi! How can I help you today?" }]);
    expect(run.stdout).toContain("Average reward  1.0000");
    expect(run.stdout).toMatch(/pass\^k\s+k=1\n\s+1\.000/);
    // The results say where the models were reached: here the fake server behind OPENAI_BASE_URL.
    expect(results.info.taubench.llm_endpoints).toEqual({
      agent: fake.openaiBaseUrl,
      user: fake.openaiBaseUrl,
    });
  });

  it("grades the same conversation 0.0 when the write call has a wrong argument", async () => {
    fake.setHandler(byParticipant({ agent: agentScript("economy"), user: userScript }));
    const path = join(cwd, "fail.json");
    const run = await runTau(baseArgs(path), { cwd, env });
    expect(run.status, run.stderr).toBe(0);
    const simulation = readResults(path).simulations[0]!;
    expect(simulation.termination_reason).toBe("user_stop");
    expect(simulation.reward_info.reward).toBe(0);
    expect(simulation.reward_info.db_check.db_match).toBe(false);
    // The refund was still told, so the failure is the database alone.
    expect(simulation.reward_info.communicate_checks[0].met).toBe(true);
    expect(run.stdout).toContain("Average reward  0.0000");
  });

  it("retries a 429 (honouring retry-after), a 500 and a timed-out call, and the run still scores 1.0", async () => {
    fake.requests.length = 0;
    const script = byParticipant({ agent: agentScript("basic_economy"), user: userScript });
    // Each agent turn gets one fault on its first attempt; the retry gets the scripted answer.
    const faults: FakeReply[] = [
      { kind: "error", status: 429, retryAfterSeconds: 1 },
      { kind: "error", status: 500 },
      { kind: "hang" },
    ];
    const seen = new Map<string, number>();
    const arrivals: number[] = [];
    fake.setHandler((request: FakeRequest) => {
      if (participantOf(request) !== "agent") return script(request);
      arrivals.push(Date.now());
      const key = JSON.stringify(request.body.messages);
      const attempt = seen.get(key) ?? 0;
      seen.set(key, attempt + 1);
      const fault = faults[turnsOf(request).filter((t) => t.role === "assistant").length - 1];
      return attempt === 0 && fault ? fault : script(request);
    });
    const path = join(cwd, "faults.json");
    const args = [...baseArgs(path), "--agent-llm-args", '{"temperature": 0.0, "timeout": 0.5}'];
    const run = await runTau(args, { cwd, env });
    expect(run.status, run.stderr).toBe(0);

    const simulation = readResults(path).simulations[0]!;
    expect(simulation.termination_reason).toBe("user_stop");
    expect(simulation.reward_info.reward).toBe(1);
    // Three faulty attempts plus three good agent calls, each retry resending the same request.
    const agent = agentRequests();
    expect(agent).toHaveLength(6);
    for (const pair of [
      [0, 1],
      [2, 3],
      [4, 5],
    ])
      expect(agent[pair[1]!]!.body.messages).toEqual(agent[pair[0]!]!.body.messages);
    // retry-after: 1 s was waited out; the hung call was abandoned after its 0.5 s timeout, then retried.
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(950);
    expect(arrivals[5]! - arrivals[4]!).toBeGreaterThanOrEqual(450);
    expect(lastProgressLine(run.stderr)).toMatch(/retries 3 \| 429s 1 \|/);
    expect(run.stdout).toContain("0 infrastructure errors");
    // The same counters are recorded in the results and printed in the summary, not only in the progress line.
    const usage = readResults(path).info.taubench.llm_usage;
    expect(usage).toMatchObject({ retries: 3, rate_limited: 1, simulation_retries: 0, failed_calls: 0 });
    expect(usage.provider_calls).toBeGreaterThanOrEqual(3);
    expect(run.stdout).toContain(
      `Provider calls ${usage.provider_calls} · retries 3 · 429s 1 · tokens in/out/cache-read ${usage.prompt_tokens}/${usage.completion_tokens}/${usage.cache_read_tokens}`,
    );
  });

  it("re-runs a simulation whose tool-call JSON does not parse, and records infrastructure_error when it keeps happening", async () => {
    fake.requests.length = 0;
    // Task 11 breaks on its first attempt only; task 19's agent always writes broken JSON.
    let task11Attempts = 0;
    const good = byParticipant({ agent: agentScript("basic_economy"), user: userScript });
    const broken: FakeReply = {
      toolCalls: [{ name: "get_reservation_details", arguments: '{"reservation_id": "GV1N64"' }],
    };
    fake.setHandler((request: FakeRequest) => {
      const turns = turnsOf(request);
      if (participantOf(request) === "user") {
        if (systemPromptOf(request).includes("olivia_gonzalez_2305"))
          return turns.length === 1
            ? { text: "Hi, Olivia Gonzalez here, about my Texas trip." }
            : { text: "###STOP###" };
        if (turns.length === 1) task11Attempts++;
        return good(request);
      }
      // The agent's task shows in the user's opening line; [greeting, opening] is its first call.
      if (turns.find((turn) => turn.role === "user")?.text.includes("Olivia")) return broken;
      return task11Attempts === 1 && turns.length === 2 ? broken : good(request);
    });
    const path = join(cwd, "malformed.json");
    const args = [...baseArgs(path)];
    args.splice(args.indexOf("11"), 1, "11,19");
    args.push("--max-retries", "2");
    const run = await runTau(args, { cwd, env });
    // Task 19 is not evaluated: exit 3.
    expect(run.status, run.stderr).toBe(3);

    const results = readResults(path);
    const byTask = new Map(results.simulations.map((s) => [s.task_id, s]));
    expect(task11Attempts).toBe(2);
    expect(byTask.get("11")!.reward_info.reward).toBe(1);
    const failed = byTask.get("19")!;
    expect(failed.termination_reason).toBe("infrastructure_error");
    expect(failed.reward_info ?? null).toBeNull();
    // 1 + 2 re-runs of task 19, each stopped at its first agent call.
    const olivia = agentRequests().filter((r) => turnsOf(r).some((t) => t.text.includes("Olivia")));
    expect(olivia).toHaveLength(3);
    // pass^1 counts only the evaluated simulation; the infrastructure error is listed apart.
    expect(run.stdout).toContain("Simulations 2 (1 evaluated, 1 infrastructure errors)");
    expect(run.stdout).toMatch(/pass\^k\s+k=1\n\s+1\.000/);
    expect(run.stdout).toMatch(
      /Infrastructure errors \(not scored, re-run on resume\): 1\n {2}19 trial 0: .+/,
    );
    expect(run.stdout).toMatch(/19\s+!/);
  });

  it("refuses to start without the provider key: one line naming the variable, exit 2, nothing written", async () => {
    const before = fake.callCount;
    const folder = join(cwd, "no-key");
    const run = await runTau(baseArgs(join(folder, "results.json")), {
      cwd,
      env: { OPENAI_BASE_URL: fake.openaiBaseUrl },
    });
    expect(run.status).toBe(2);
    const lines = run.stderr.trim().split("\n");
    expect(lines.at(-1)).toBe(
      "tau: OPENAI_API_KEY is not set (needed for model openai/gpt-4.1, used by the agent and the user simulator); set it or choose another --agent-llm / --user-llm",
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stdout).toBe("");
    expect(fake.callCount).toBe(before);
    expect(filesUnder(folder)).toEqual([]);
  });
});
