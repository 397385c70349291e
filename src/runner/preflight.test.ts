/** Pre-flight checks: what a run needs is found missing before the first simulation, in one line. */
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { participantOf } from "../cli/e2e-harness.ts";
import { DataDirError } from "../core/errors.ts";
import { createLlmClient } from "../llm/index.ts";
import {
  type FakeProvider,
  type FakeReply,
  type FakeRequest,
  startFakeProvider,
} from "../testing/fake-provider.ts";
import { offlineRunConfig } from "../testing/run-config.ts";
import { runEvaluation } from "./evaluate.ts";
import { planRun } from "./plan.ts";
import { PreflightError } from "./preflight.ts";

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

/** A port nothing listens on (a server is opened on port 0, then closed). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const isPreflight = (request: FakeRequest) => JSON.stringify(request.body).includes("connection check");

/** The user asks once and stops; the agent answers in words. */
function script(request: FakeRequest): FakeReply {
  if (participantOf(request) === "user") {
    const own = (request.body.messages ?? []).filter((m: { role?: string }) => m.role === "assistant").length;
    return { text: own > 0 ? "###STOP###" : "Please create my task." };
  }
  return { text: "Done." };
}

describe.skipIf(!dataDir)("pre-flight: endpoints (skipped: TAU_DATA_DIR not set)", () => {
  let fake: FakeProvider;
  beforeAll(async () => {
    fake = await startFakeProvider();
  });
  afterAll(async () => {
    await fake?.close();
  });

  const evaluate = (baseUrl: string, extra: { agentLlm?: string; onNote?: (line: string) => void } = {}) => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-preflight-run-"));
    const saveTo = join(cwd, "run", "results.json");
    const run = runEvaluation({
      domain: "mock",
      dataDir: dataDir!,
      taskIds: ["create_task_1"],
      agent: "llm_agent",
      user: "user_simulator",
      agentLlm: extra.agentLlm ?? "openai/gpt-4.1",
      userLlm: "openai/gpt-4.1",
      judge: null,
      maxRetries: 0,
      retryDelayMs: 0,
      saveTo,
      preflight: true,
      createLlm: (model, onEvent) =>
        createLlmClient(model, {
          baseUrl,
          env: { OPENAI_API_KEY: "sk-preflight" },
          retry: { maxRetries: 3, initialDelayMs: 1, maxDelayMs: 2 },
          onEvent,
        }),
      onEvent: (event) => {
        if (event.type === "note") extra.onNote?.(event.message);
      },
    });
    return { run, saveTo };
  };

  it("a rejected key stops the run before any simulation: one call for the model the agent and user share, one line, nothing written", async () => {
    fake.requests.length = 0;
    fake.setHandler(() => ({ kind: "error", status: 401, message: "invalid api key" }));
    const { run, saveTo } = evaluate(fake.openaiBaseUrl);
    const error = await run.then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(PreflightError);
    expect((error as PreflightError).exitCode).toBe(4);
    const message = (error as Error).message;
    expect(message).toMatch(
      /^pre-flight: the agent and the user simulator \(openai\/gpt-4\.1 at http:\/\/127\.0\.0\.1:\d+\/v1\) cannot be used: .*401.*; nothing was run\./,
    );
    expect(message).toContain("--no-preflight");
    expect(message.split("\n")).toHaveLength(1);
    // One distinct endpoint, one call (the provider does not retry a 401), and no checkpoint.
    expect(fake.requests.filter(isPreflight)).toHaveLength(1);
    expect(fake.requests).toHaveLength(1);
    expect(existsSync(`${saveTo}l`)).toBe(false);
  });

  it("a dead endpoint stops the run at once, naming it", async () => {
    const port = await deadPort();
    const { run } = evaluate(`http://127.0.0.1:${port}/v1`);
    await expect(run).rejects.toThrow(
      new RegExp(
        `^pre-flight: the agent and the user simulator \\(openai/gpt-4\\.1 at http://127\\.0\\.0\\.1:${port}/v1\\) cannot be used`,
      ),
    );
  });

  it("an unknown model stops it too; a transient 503 is only noted and the run goes on", async () => {
    fake.setHandler((request) =>
      isPreflight(request) && String(request.body.model) === "no-such-model"
        ? { kind: "error", status: 404, message: "model not found" }
        : script(request),
    );
    await expect(evaluate(fake.openaiBaseUrl, { agentLlm: "openai/no-such-model" }).run).rejects.toThrow(
      /^pre-flight: the agent \(openai\/no-such-model at .*\) cannot be used: .*404/,
    );

    let preflights = 0;
    fake.setHandler((request) => {
      if (!isPreflight(request)) return script(request);
      preflights++;
      return { kind: "error", status: 503, message: "warming up" };
    });
    const notes: string[] = [];
    const { run } = evaluate(fake.openaiBaseUrl, { onNote: (line) => notes.push(line) });
    const outcome = await run;
    expect(preflights).toBeGreaterThanOrEqual(1);
    expect(
      notes.some((line) =>
        /^note: pre-flight: .* answered with an error the run will retry: .*503/.test(line),
      ),
    ).toBe(true);
    expect(outcome.simulations).toHaveLength(1);
    expect(outcome.simulations[0]!.termination_reason).not.toBe("infrastructure_error");
  });
});
