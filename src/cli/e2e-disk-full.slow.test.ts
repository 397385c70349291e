/**
 * A checkpoint that cannot grow (here: the file-size limit of `ulimit -f`,
 * which makes writes fail with EFBIG as a full disk fails them with ENOSPC)
 * stops `tau run` with one line naming the file, the operation and the resume
 * command; what was written stays readable, and the resume completes the run
 * with every simulation once.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadCheckpointState } from "../runner/checkpoint-state.ts";
import { runTauSync, TAU_BIN } from "./e2e-harness.ts";

const dataDir = process.env.TAU_DATA_DIR;
const LIMIT_KB = 96;

describe.skipIf(!dataDir)("tau run on a full disk (skipped: TAU_DATA_DIR not set)", () => {
  const cwd = mkdtempSync(join(tmpdir(), "tau-disk-full-"));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it("stops with one line naming the checkpoint and the resume command; the resume completes the run", () => {
    const args = [
      "run",
      "--domain",
      "mock",
      "--agent",
      "replay",
      "--user",
      "scripted",
      "--num-trials",
      "15",
      "--data-dir",
      dataDir!,
      "--save-to",
      "full",
    ];
    const quoted = [TAU_BIN, ...args].map((arg) => `'${arg}'`).join(" ");
    const limited = spawnSync("bash", ["-c", `ulimit -f ${LIMIT_KB}; exec '${process.execPath}' ${quoted}`], {
      cwd,
      encoding: "utf8",
    });
    const checkpoint = join(cwd, "runs", "full", "results.jsonl");
    expect(limited.status, limited.stderr).toBe(1);
    const errors = limited.stderr.split("\n").filter((line) => line.startsWith("tau: "));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      new RegExp(
        `^tau: cannot append to ${checkpoint.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: the file would grow past the size this process may write \\(EFBIG\\); the simulations already in .*results\\.jsonl are kept; once it can be written again, resume with: .*run .*--save-to \\S*full\\S*$`,
      ),
    );
    expect(statSync(checkpoint).size).toBeLessThanOrEqual(LIMIT_KB * 1024);

    const resumed = runTauSync(args, { cwd });
    expect(resumed.status, resumed.stderr).toBe(0);
    return loadCheckpointState(checkpoint).then((state) => {
      expect(state.simulations.size).toBe(150);
      expect(state.duplicates).toBe(0);
    });
  }, 180_000);
});
