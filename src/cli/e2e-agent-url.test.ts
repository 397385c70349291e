/**
 * End to end: `tau run --agent-url` against an agent service on 127.0.0.1 (the
 * fake provider, which also plays the user simulator): graded like any agent;
 * a 401 stops the run with one line and the resume command; bad flags get one line.
 */
import { mkdtempSync, rmSync } from "node:fs";
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
