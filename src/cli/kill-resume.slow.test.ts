/**
 * Property: however often a run is killed with SIGKILL — while it starts, while
 * simulations are written, while the results file is exported — resuming it
 * each time ends with exactly the results a run never interrupted gets: the same
 * (trial, task, seed) keys, the same reward for each, no key twice.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadCheckpointState } from "../runner/checkpoint-state.ts";
import { keyOf } from "../runner/checkpoint.ts";
import { TAU_BIN } from "./e2e-harness.ts";

const dataDir = process.env.TAU_DATA_DIR;
const KILLS = 20;

/** A small seeded generator (mulberry32), so a failing sequence of kill points can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sizeOf = (path: string) => (existsSync(path) ? statSync(path).size : 0);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts `tau run`; resolves with its exit code, or null when `killWhen` said to kill it first. */
async function tau(args: string[], cwd: string, killWhen?: () => boolean): Promise<number | null> {
  const child = spawn(process.execPath, [TAU_BIN, ...args], { cwd, stdio: "ignore" });
  const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
  let running = true;
  void exited.then(() => {
    running = false;
  });
  if (killWhen) {
    while (running && !killWhen()) await sleep(2);
    if (running) child.kill("SIGKILL");
  }
  return exited;
}

/** key → reward of a results file (null for an unscored simulation). */
function rewardsIn(resultsPath: string): Map<string, number | null> {
  const results = JSON.parse(readFileSync(resultsPath, "utf8")) as {
    simulations: { trial: number; task_id: string; seed: number; reward_info: { reward: number } | null }[];
  };
  const rewards = new Map<string, number | null>();
  for (const simulation of results.simulations) {
    const key = keyOf(simulation);
    expect(rewards.has(key), `${key} twice in ${resultsPath}`).toBe(false);
    rewards.set(key, simulation.reward_info?.reward ?? null);
  }
  return rewards;
}

describe.skipIf(!dataDir)(
  "kill -9 at random points, resume each time (skipped: TAU_DATA_DIR not set)",
  () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-kill-resume-"));
    afterAll(() => rmSync(cwd, { recursive: true, force: true }));
    const args = (name: string) => [
      "run",
      "--domain",
      "mock",
      "--agent",
      "replay",
      "--user",
      "scripted",
      "--num-trials",
      "30",
      "--max-concurrency",
      "4",
      "--data-dir",
      dataDir!,
      "--save-to",
      name,
    ];

    it(`ends with a clean run's results after ${KILLS} kills`, async () => {
      const seed = Number(process.env.TAU_KILL_SEED ?? Math.floor(Math.random() * 2 ** 31));
      const next = random(seed);
      const where = `(kill points from seed ${seed}; rerun with TAU_KILL_SEED=${seed})`;

      expect(await tau(args("clean"), cwd)).toBe(0);
      const cleanCheckpoint = join(cwd, "runs", "clean", "results.jsonl");
      const clean = rewardsIn(join(cwd, "runs", "clean", "results.json"));
      expect(clean.size).toBe(300);
      const finalSize = sizeOf(cleanCheckpoint);

      // Kill points: growing fractions of the checkpoint's final size, so each one lands mid-run;
      // now and then a kill during start-up instead (loading, the run record, the resume scan).
      const fractions = Array.from({ length: KILLS }, () => next() * 0.97).sort((a, b) => a - b);
      const checkpoint = join(cwd, "runs", "killed", "results.jsonl");
      let killed = 0;
      for (const fraction of fractions) {
        const startup = next() < 0.2;
        const started = Date.now();
        const delayMs = next() * 400;
        const target = fraction * finalSize;
        const code = await tau(args("killed"), cwd, () =>
          startup ? Date.now() - started >= delayMs : sizeOf(checkpoint) >= target,
        );
        if (code === null) killed++;
        else expect(code, `a run exited on its own with ${code} ${where}`).toBe(0);
      }
      // The points fall before the end, so (almost) every run was cut short.
      expect(killed, where).toBeGreaterThanOrEqual(KILLS - 2);

      expect(await tau(args("killed"), cwd), where).toBe(0);
      const resumed = rewardsIn(join(cwd, "runs", "killed", "results.json"));
      expect([...resumed.keys()].sort(), where).toEqual([...clean.keys()].sort());
      for (const [key, reward] of clean) expect(resumed.get(key), `${key} ${where}`).toBe(reward);
      const state = await loadCheckpointState(checkpoint);
      expect(state.duplicates, where).toBe(0);
      expect(state.simulations.size, where).toBe(300);
      expect(state.tornLine, where).toBeNull();
    }, 300_000);
  },
);
