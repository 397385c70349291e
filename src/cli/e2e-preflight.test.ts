/**
 * `tau run` checks each model endpoint once before its first simulation: a
 * rejected key stops it there with one line and exit 4, where without the
 * check (`--no-preflight`) the first simulation meets the same 401.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeProvider, startFakeProvider } from "../testing/fake-provider.ts";
import { runTau } from "./e2e-harness.ts";

const dataDir = process.env.TAU_DATA_DIR;

describe.skipIf(!dataDir)("tau run pre-flight (skipped: TAU_DATA_DIR not set)", () => {
  let fake: FakeProvider;
  let cwd: string;
  beforeAll(async () => {
    fake = await startFakeProvider();
    cwd = mkdtempSync(join(tmpdir(), "tau-e2e-preflight-"));
  });
  afterAll(async () => {
    await fake?.close();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  const args = (saveTo: string, extra: string[] = []) => [
    "run",
    ...extra,
    "--domain",
    "mock",
    "--task-ids",
    "create_task_1,update_task_1",
    "--agent-llm",
    "openai/gpt-4.1",
    "--user-llm",
    "openai/gpt-4.1",
    "--retry-delay",
    "0",
    "--data-dir",
    dataDir!,
    "--save-to",
    saveTo,
  ];
  const env = () => ({ OPENAI_API_KEY: "sk-rejected", OPENAI_BASE_URL: fake.openaiBaseUrl });

  it("a 401 stops the run before anything is written: one line, exit 4; without the check the first simulation hits it", async () => {
    fake.setHandler(() => ({ kind: "error", status: 401, message: "invalid api key" }));
    fake.requests.length = 0;
    const checked = await runTau(args("checked"), { cwd, env: env() });
    expect(checked.status, checked.stderr).toBe(4);
    const lines = checked.stderr.trim().split("\n");
    expect(lines.filter((line) => line.startsWith("tau: "))).toEqual([
      expect.stringMatching(
        /^tau: pre-flight: the agent and the user simulator \(openai\/gpt-4\.1 at http:\/\/127\.0\.0\.1:\d+\/v1\) cannot be used: .*HTTP 401.*; nothing was run\. Fix it and run again, or skip this check with --no-preflight$/,
      ),
    ]);
    expect(fake.requests).toHaveLength(1);
    expect(existsSync(join(cwd, "runs", "checked", "results.jsonl"))).toBe(false);

    fake.requests.length = 0;
    const unchecked = await runTau(args("unchecked", ["--no-preflight"]), { cwd, env: env() });
    expect(unchecked.status, unchecked.stderr).toBe(4);
    expect(unchecked.stderr).toContain("Stopped the run");
    expect(unchecked.stderr).not.toContain("pre-flight");
    expect(fake.requests.length).toBeGreaterThanOrEqual(1);
  });
});
