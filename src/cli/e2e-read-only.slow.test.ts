/**
 * `tau run` against a results folder on a real read-only mount (bubblewrap
 * binds it `--ro-bind`: writes fail with EROFS even for root, which chmod
 * cannot give): a resume attempt and a new run folder each stop with one line
 * naming the file or folder, the operation and that the file system is
 * read-only; the checkpoint stays byte for byte as it was, and the line gives
 * the command to run once the folder can be written.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runTauSync, TAU_BIN } from "./e2e-harness.ts";

const dataDir = process.env.TAU_DATA_DIR;
const canSandbox =
  spawnSync("bwrap", ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"]).status === 0;
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

describe.skipIf(!dataDir || !canSandbox)(
  `tau run on a read-only mount (skipped: ${!dataDir ? "TAU_DATA_DIR not set" : "bwrap cannot create namespaces here"})`,
  () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-read-only-"));
    const runs = join(cwd, "runs");
    afterAll(() => rmSync(cwd, { recursive: true, force: true }));
    const args = (saveTo: string, trials: number) => [
      "run",
      "--domain",
      "mock",
      "--agent",
      "replay",
      "--user",
      "scripted",
      "--num-trials",
      String(trials),
      "--data-dir",
      dataDir!,
      "--save-to",
      saveTo,
    ];
    /** `tau` with `runs/` bound read-only over itself (the rest of the file system as it is). */
    const readOnly = (tauArgs: string[]) =>
      spawnSync(
        "bwrap",
        [
          "--bind",
          "/",
          "/",
          "--ro-bind",
          runs,
          runs,
          "--dev",
          "/dev",
          "--proc",
          "/proc",
          process.execPath,
          TAU_BIN,
          ...tauArgs,
        ],
        { cwd, encoding: "utf8" },
      );
    const errorLines = (stderr: string) => stderr.split("\n").filter((line) => line.startsWith("tau: "));

    it("a resume names the file it could not write and the resume command; the checkpoint is intact", () => {
      // One trial of one task now; the resume would run the rest.
      const first = runTauSync([...args("part", 2), "--task-ids", "create_task_1"], { cwd });
      expect(first.status, first.stderr).toBe(0);
      const checkpoint = join(runs, "part", "results.jsonl");
      const before = readFileSync(checkpoint);
      const resumed = readOnly(args("part", 2));
      expect(resumed.status, resumed.stderr).toBe(1);
      const errors = errorLines(resumed.stderr);
      expect(errors, resumed.stderr).toHaveLength(1);
      expect(errors[0]).toMatch(
        new RegExp(
          `^tau: cannot create the lock file ${literal(checkpoint)}\\.lock: the file system is read-only \\(EROFS\\); the simulations already in ${literal(checkpoint)} are kept; once it can be written again, resume with: .*run .*--save-to \\S*part\\S*$`,
        ),
      );
      expect(resumed.stderr).not.toMatch(/unexpected error|\n\s+at /);
      expect(readFileSync(checkpoint).equals(before)).toBe(true);
    }, 120_000);

    it("a new run folder on the mount names the folder and says the file system is read-only", () => {
      const resumed = readOnly(args("fresh", 1));
      expect(resumed.status, resumed.stderr).toBe(1);
      const errors = errorLines(resumed.stderr);
      expect(errors, resumed.stderr).toHaveLength(1);
      expect(errors[0]).toMatch(
        new RegExp(
          `^tau: cannot create the run folder ${literal(join(runs, "fresh"))}: the file system is read-only \\(EROFS\\); nothing of the run was written; once the folder can be written, run: .*run .*--save-to \\S*fresh\\S*$`,
        ),
      );
      expect(existsSync(join(runs, "fresh"))).toBe(false);
      // Deeper: every missing level, the first one on the mount named.
      const deep = readOnly(args(join(runs, "a", "b", "results.json"), 1));
      expect(errorLines(deep.stderr)[0]).toContain(
        `cannot create the run folder ${join(runs, "a", "b")}: the file system is read-only (EROFS)`,
      );
    }, 120_000);
  },
);
