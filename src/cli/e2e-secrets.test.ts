/**
 * No secret at rest or on screen: `tau run` against a fake provider that echoes
 * the API key back — in a reply the agent and the user simulator receive, and
 * in the error body of a failing call — leaves no trace of the key in any file
 * it writes (checkpoint, results, response cache) nor in what it prints.
 */
import { readFileSync } from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeProvider, type FakeRequest, startFakeProvider } from "../testing/fake-provider.ts";
import { filesUnder, participantOf, repliesSoFar, runTau, systemPromptOf } from "./e2e-harness.ts";

const dataDir = process.env.TAU_DATA_DIR;
const KEY = "sk-e2e-secret-4f9a1c7d2b8e6a3f";

describe.skipIf(!dataDir)("no secrets in files or output (skipped: TAU_DATA_DIR not set)", () => {
  let fake: FakeProvider;
  let cwd: string;
  beforeAll(async () => {
    fake = await startFakeProvider();
    cwd = mkdtempSync(join(tmpdir(), "tau-e2e-secrets-"));
  });
  afterAll(async () => {
    await fake?.close();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  it("masks a key the provider echoes in replies and error bodies, everywhere", async () => {
    const echoed = (request: FakeRequest) => String(request.headers.authorization ?? "");
    fake.setHandler((request) => {
      const conversation = JSON.stringify(request.body.messages ?? []);
      if (participantOf(request) === "user") {
        const failing = systemPromptOf(request).includes("marked as completed") ? " (fail me)" : "";
        return repliesSoFar(request, "user") === 0
          ? { text: `Hello${failing}, my header was ${echoed(request)}` }
          : { text: "###STOP###" };
      }
      // The update task's agent always fails, with the key in the error body (no provider retries).
      if (conversation.includes("(fail me)"))
        return { kind: "error", status: 500, message: `upstream rejected ${echoed(request)}` };
      return { text: `Noted; you sent ${echoed(request)}` };
    });
    const run = await runTau(
      [
        "run",
        "--domain",
        "mock",
        "--task-ids",
        "create_task_1,update_task_1",
        "--agent-llm",
        "openai/gpt-4.1",
        "--user-llm",
        "openai/gpt-4.1",
        "--agent-llm-args",
        '{"temperature": 0.0, "num_retries": 0}',
        "--max-retries",
        "0",
        "--retry-delay",
        "0",
        "--llm-cache",
        join(cwd, "cache"),
        "--data-dir",
        dataDir!,
        "--save-to",
        "secret",
        "--verbose",
      ],
      { cwd, env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.openaiBaseUrl } },
    );
    // One of the two simulations is an infrastructure error: exit 3 (some not evaluated), with a line saying so.
    expect(run.status, run.stderr).toBe(3);
    expect(run.stderr).toContain(
      "1 of 2 simulation(s) ended in an infrastructure error and are not evaluated",
    );
    // The key did go out and come back: the echoes are really there to be masked.
    expect(fake.requests.some((request) => echoed(request).includes(KEY))).toBe(true);
    const written = filesUnder(cwd).filter((name) => /\.(jsonl?|sqlite)$/.test(name));
    expect(written).toEqual(
      expect.arrayContaining([
        "cache/llm-cache.sqlite",
        "runs/secret/results.json",
        "runs/secret/results.jsonl",
      ]),
    );
    const leaks = filesUnder(cwd).filter((name) => {
      try {
        return readFileSync(join(cwd, name)).includes(KEY);
      } catch {
        return false; // a folder
      }
    });
    expect(leaks).toEqual([]);
    expect(run.stdout + run.stderr).not.toContain(KEY);
    const checkpoint = readFileSync(join(cwd, "runs", "secret", "results.jsonl"), "utf8");
    expect(checkpoint).toContain("[redacted OPENAI_API_KEY]");
    expect(checkpoint).toMatch(/"error": "[^"]*upstream rejected Bearer \[redacted OPENAI_API_KEY\]/);
    expect(checkpoint).toContain('"termination_reason": "infrastructure_error"');

    const view = await runTau(["view", join(cwd, "runs", "secret"), "--task", "update_task_1"], {
      cwd,
      env: { OPENAI_API_KEY: KEY },
    });
    expect(view.stdout + view.stderr).not.toContain(KEY);
  });
});
