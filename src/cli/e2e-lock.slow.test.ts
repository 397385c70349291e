/**
 * One writer per run, as a user meets it: a second `tau run` on a run that is
 * going on refuses at once with one line naming the holder; once the first is
 * killed (kill -9 leaves its lock behind), the next run takes the lock over
 * with a note and finishes the run, each simulation once.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadCheckpointState } from "../runner/checkpoint-state.ts";
import { runTauSync, TAU_BIN } from "./e2e-harness.ts";

const dataDir = process.env.TAU_DATA_DIR;

describe.skipIf(!dataDir)("tau run holds a lock on its run (skipped: TAU_DATA_DIR not set)", () => {
  const cwd = mkdtempSync(join(tmpdir(), "tau-lock-e2e-"));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it("refuses a second writer, then takes over the lock a killed run left", async () => {
    const args = [
      "run",
      "--domain",
      "mock",
      "--agent",
      "replay",
      "--user",
      "scripted",
      "--num-trials",
      // Long enough that the first run is still going when the second starts, on a loaded machine too.
      "1000",
      "--max-concurrency",
      "1",
      "--data-dir",
      dataDir!,
      "--save-to",
      "locked",
    ];
    const checkpoint = join(cwd, "runs", "locked", "results.jsonl");
    const first = spawn(process.execPath, [TAU_BIN, ...args], { cwd, stdio: "ignore" });
    const exited = new Promise<void>((done) => first.on("exit", () => done()));
    const deadline = Date.now() + 60_000;
    while (!(existsSync(checkpoint) && readFileSync(checkpoint, "utf8").split("\n").length > 5)) {
      if (Date.now() > deadline) throw new Error("the first run made no progress");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    const second = runTauSync(args, { cwd });
    expect(second.status).toBe(2);
    const lines = second.stderr.trim().split("\n");
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^tau: ${checkpoint.replace(/[.]/g, "\\.")} is being written by another tau run \\(pid ${first.pid} on this host, started `,
      ),
    );
    expect(second.stderr).not.toContain("    at ");

    first.kill("SIGKILL");
    await exited;
    expect(existsSync(`${checkpoint}.lock`)).toBe(true);
    const third = runTauSync(args, { cwd });
    expect(third.status, third.stderr).toBe(0);
    expect(third.stderr).toContain(
      `note: took over the lock of a run that is no longer running (pid ${first.pid} on this host`,
    );
    expect(existsSync(`${checkpoint}.lock`)).toBe(false);
    const state = await loadCheckpointState(checkpoint);
    expect(state.simulations.size).toBe(10_000);
    expect(state.duplicates).toBe(0);
  }, 120_000);
});
