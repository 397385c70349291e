/**
 * End to end: `tau run --agent-url` against an agent service on 127.0.0.1 (the
 * fake provider, which also plays the user simulator): graded like any agent;
 * a 401 stops the run with one line and the resume command; bad flags get one line.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AIRLINE_SCRIPT_TASK,
  airlineScriptHandler,
  isUserSimulatorRequest,
} from "../testing/airline-script.ts";
import { type FakeProvider, startFakeProvider } from "../testing/fake-provider.ts";
import { readResults, runTau, runTauSync } from "./e2e-harness.ts";

const dataDir = process.env.TAU_DATA_DIR;

describe("tau run --agent-url / --agent-a2a flags", () => {
  it("refuse credentials in the URL and two agents at once, with one line", () => {
    const both = runTauSync([
      "run",
      "--domain",
      "mock",
      "--agent-url",
      "http://127.0.0.1:1/v1",
      "--agent-a2a",
      "http://127.0.0.1:1",
    ]);
    expect(both.status).toBe(2);
    expect(both.stderr.trim()).toBe("tau: --agent-url and --agent-a2a exclude each other: pick one agent");
    const secret = runTauSync(["run", "--domain", "mock", "--agent-url", "http://bot:s3cret@127.0.0.1:1/v1"]);
    expect(secret.status).toBe(2);
    expect(secret.stderr).toContain("put credentials in TAU_AGENT_API_KEY");
    expect(secret.stderr).not.toContain("s3cret");
  });

  it("refuse --agent-timeout without a URL agent, with one line", () => {
    const run = runTauSync(["run", "--domain", "mock", "--agent", "replay", "--agent-timeout", "30"]);
    expect(run.status).toBe(2);
    expect(run.stderr.trim()).toBe(
      "tau: --agent-timeout limits calls to an --agent-url or --agent-a2a agent; this run has none (--timeout limits a whole simulation)",
    );
  });
});

describe.skipIf(!dataDir)("tau run --agent-url on airline (skipped: TAU_DATA_DIR not set)", () => {
  let fake: FakeProvider;
  let cwd: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    fake = await startFakeProvider();
    cwd = mkdtempSync(join(tmpdir(), "tau-agent-url-"));
    env = { OPENAI_API_KEY: "sk-user", OPENAI_BASE_URL: fake.openaiBaseUrl, TAU_AGENT_API_KEY: "agent-key" };
  });
  afterAll(async () => {
    await fake?.close();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  const args = (saveTo: string) => [
    "run",
    "--no-preflight",
    "--domain",
    "airline",
    "--task-ids",
    AIRLINE_SCRIPT_TASK,
    "--agent-url",
    fake.openaiBaseUrl,
    "--user-llm",
    "openai/gpt-4.1",
    "--retry-delay",
    "0",
    "--data-dir",
    dataDir!,
    "--save-to",
    saveTo,
  ];

  it("grades the service's scripted right write 1.0 and records the endpoint", async () => {
    fake.setHandler(airlineScriptHandler("right"));
    const path = join(cwd, "right.json");
    const run = await runTau(args(path), { cwd, env });
    expect(run.status, run.stderr).toBe(0);
    const results = readResults(path);
    expect(results.simulations[0]!.reward_info.reward).toBe(1);
    expect(results.info.agent_info.implementation).toBe("chat_completions_agent");
    expect(results.info.taubench.agent).toMatchObject({
      source: "object",
      adapter: "chat-completions",
      endpoint: fake.openaiBaseUrl,
    });
    const agentCall = fake.requests.find((request) => !isUserSimulatorRequest(request))!;
    expect(agentCall.headers.authorization).toBe("Bearer agent-key");

    // A resume against another URL may be another agent: refused unless the user says it is the same one.
    const moved = fake.openaiBaseUrl.replace("127.0.0.1", "localhost");
    const other = args(path).map((arg) => (arg === fake.openaiBaseUrl ? moved : arg));
    const refused = await runTau(other, { cwd, env });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(`  - the agent's URL changed (${fake.openaiBaseUrl} → ${moved})`);
    const allowed = await runTau([...other, "--allow-changed"], { cwd, env });
    expect(allowed.status, allowed.stderr).toBe(0);
    expect(allowed.stderr).toContain(
      `note: continuing although the agent's URL changed (${fake.openaiBaseUrl} → ${moved})`,
    );
    expect(readResults(path).info.taubench.allowed_changes).toHaveLength(1);
  });

  it("stops on a 401 with one line and the resume command, recording nothing", async () => {
    fake.setHandler((request) =>
      isUserSimulatorRequest(request)
        ? airlineScriptHandler("right")(request)
        : { kind: "error", status: 401, message: "invalid agent key" },
    );
    const path = join(cwd, "denied.json");
    const run = await runTau(args(path), { cwd, env });
    // Nothing was evaluated: exit 4.
    expect(run.status).toBe(4);
    expect(run.stderr).toMatch(/tau: agent at http:\/\/127\.0\.0\.1:\d+\/v1: HTTP 401 \(auth\)/);
    expect(run.stderr).toContain("Stopped the run");
    expect(run.stderr).toMatch(/resume with:\n\s+.*tau.* run .*--save-to/);
    expect(run.stderr).not.toContain("agent-key");
    expect(readResults(path).simulations).toHaveLength(0);
  });
});

describe.skipIf(!dataDir)("tau run --agent-url pre-flight (skipped: TAU_DATA_DIR not set)", () => {
  let fake: FakeProvider;
  let cwd: string;
  let closedPort: number;
  beforeAll(async () => {
    // A server that takes only the user simulator's key, and (below) the agent's once it is added.
    fake = await startFakeProvider({ handler: airlineScriptHandler("right"), acceptKeys: ["sk-user"] });
    cwd = mkdtempSync(join(tmpdir(), "tau-agent-url-preflight-"));
    const probe = await startFakeProvider();
    closedPort = Number(new URL(probe.url).port);
    await probe.close();
  });
  afterAll(async () => {
    await fake?.close();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });
  const env = { OPENAI_API_KEY: "sk-user", TAU_AGENT_API_KEY: "agent-key" };
  const args = (saveTo: string, agentUrl: string, extra: string[] = []) => [
    "run",
    ...extra,
    "--domain",
    "airline",
    "--task-ids",
    AIRLINE_SCRIPT_TASK,
    "--agent-url",
    agentUrl,
    "--user-llm",
    "openai/gpt-4.1",
    "--retry-delay",
    "0",
    "--data-dir",
    dataDir!,
    "--save-to",
    join(cwd, `${saveTo}.json`),
  ];
  const errorLines = (stderr: string) => stderr.split("\n").filter((line) => line.startsWith("tau: "));

  it("a rejected key stops the run before the first simulation: one line, exit 4, nothing written, no conversation", async () => {
    fake.requests.length = 0;
    const run = await runTau(args("denied", fake.openaiBaseUrl), {
      cwd,
      env: { ...env, OPENAI_BASE_URL: fake.openaiBaseUrl },
    });
    expect(run.status, run.stderr).toBe(4);
    expect(errorLines(run.stderr)).toEqual([
      expect.stringMatching(
        /^tau: pre-flight: the agent \(http:\/\/127\.0\.0\.1:\d+\/v1\) cannot be used: agent at http:\/\/127\.0\.0\.1:\d+\/v1: HTTP 401 \(auth\) on GET http:\/\/127\.0\.0\.1:\d+\/v1\/models: .*; nothing was run\. Fix it and run again, or skip this check with --no-preflight$/,
      ),
    ]);
    expect(run.stderr).not.toContain("agent-key");
    expect(existsSync(join(cwd, "denied.jsonl"))).toBe(false);
    // Stopped by the check, not by a simulation meeting the 401 (that path says "Stopped the run").
    expect(run.stderr).not.toContain("Stopped the run");
  });

  it("a dead URL stops the run the same way; --no-preflight skips the check", async () => {
    const dead = `http://127.0.0.1:${closedPort}/v1`;
    const run = await runTau(args("dead", dead), {
      cwd,
      env: { ...env, OPENAI_BASE_URL: fake.openaiBaseUrl },
    });
    expect(run.status, run.stderr).toBe(4);
    expect(errorLines(run.stderr)).toEqual([
      expect.stringMatching(
        /^tau: pre-flight: the agent \(http:\/\/127\.0\.0\.1:\d+\/v1\) cannot be used: agent at .*: network error: .*ECONNREFUSED.*; nothing was run\./,
      ),
    ]);
    expect(existsSync(join(cwd, "dead.jsonl"))).toBe(false);
    const unchecked = await runTau(args("dead-unchecked", dead, ["--no-preflight", "--max-retries", "0"]), {
      cwd,
      env: { ...env, OPENAI_BASE_URL: fake.openaiBaseUrl },
    });
    expect(unchecked.stderr).not.toContain("pre-flight");
    // Without the check the run starts and the simulation meets the dead URL.
    expect(existsSync(join(cwd, "dead-unchecked.jsonl"))).toBe(true);
  });

  it("an accepted key passes with one GET of the model list, then the run is graded", async () => {
    const open = await startFakeProvider({
      handler: airlineScriptHandler("right"),
      acceptKeys: ["sk-user", "agent-key"],
    });
    try {
      const run = await runTau(args("accepted", open.openaiBaseUrl), {
        cwd,
        env: { ...env, OPENAI_BASE_URL: open.openaiBaseUrl },
      });
      expect(run.status, run.stderr).toBe(0);
      expect(open.modelListRequests).toHaveLength(1);
      expect(open.modelListRequests[0]!.headers.authorization).toBe("Bearer agent-key");
      expect(readResults(join(cwd, "accepted.json")).simulations[0]!.reward_info.reward).toBe(1);
    } finally {
      await open.close();
    }
  });
});
