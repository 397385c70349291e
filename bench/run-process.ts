/**
 * The whole `tau run` process: the CLI spawned as a user starts it, 2,000
 * airline simulations at c200 with LLM participants (agent and user
 * simulator) against the fake provider in a process of its own (0.5 s per
 * model call, the airline script: the user asks, the agent reads the
 * reservation, changes it and tells the refund, the user stops — five calls
 * per simulation). Reports the ratio to the provider-limited ideal (model
 * calls × latency / concurrency) for the whole process (spawn to exit) and for
 * the run phase alone (first simulation's start to last simulation's end, from
 * the results' timestamps), the CPU per model call (whole process and run
 * phase, from a CPU timeline the process samples itself), and the fixed costs:
 * start-up to the first simulation, and the end (last simulation to the
 * results JSON written, to exit).
 *
 * The CLI is the build in dist/ when it is newer than every source file (what
 * an installed package runs), else the sources through tsx (said in the note).
 * Alone: `npx tsx bench/run-process.ts [--quick]`; `BENCH_NODE_ARGS="--cpu-prof
 * --cpu-prof-dir=/tmp/prof"` passes options to the measured process; `BENCH_KEEP=1` keeps its
 * folder (checkpoint, results, CPU timeline) and says where.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchContext, BenchModule, BenchResult } from "./harness.ts";
import { EFFICIENCY_TARGET, httpTransport } from "./runner-throughput.ts";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Settings of one measurement. */
export interface RunProcessSettings {
  simulations: number;
  concurrency: number;
  latencyMs: number;
  /** Extra options for the measured Node process (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
}

/** What one measurement found; times in ms. */
export interface RunProcessResult extends RunProcessSettings {
  entry: "dist" | "sources";
  modelCalls: number;
  idealMs: number;
  /** Spawn to exit. */
  processMs: number;
  /** First simulation's start_time to last simulation's end_time. */
  runPhaseMs: number;
  /** Spawn to the first simulation's start_time. */
  startupMs: number;
  /** Last simulation's end_time to the results JSON's modification time (grading of the last ones, export). */
  endToResultsMs: number;
  /** Results JSON written to exit (summary, usage, exit). */
  resultsToExitMs: number;
  cpuMs: number;
  runPhaseCpuMs: number;
  startupCpuMs: number;
  /** Mean reward (the script solves task 11 only; a sanity check that grading ran). */
  meanReward: number;
  loadBefore: number;
  loadAfter: number;
}

/** The newest modification time of the TypeScript sources the CLI is built from. */
function newestSourceMs(folder: string): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "app") newest = Math.max(newest, newestSourceMs(path));
    } else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts"))
      newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** The CLI entry to spawn: dist/ when current (or `BENCH_TAU_ENTRY=dist|sources`). */
export function tauEntry(): { entry: RunProcessResult["entry"]; path: string } {
  const dist = join(repo, "dist", "cli", "main.js");
  const wanted = process.env.BENCH_TAU_ENTRY;
  const fresh = existsSync(dist) && statSync(dist).mtimeMs >= newestSourceMs(join(repo, "src"));
  if (wanted === "dist" || (wanted !== "sources" && fresh))
    return { entry: "dist", path: join(repo, "bin", "tau.js") };
  return { entry: "sources", path: join(repo, "scripts", "tau-from-source.js") };
}

/** Epoch ms of an upstream timestamp (local time, microseconds, no offset). */
export function epochMs(timestamp: string): number {
  const match = /^(\d+)-(\d+)-(\d+)T(\d+):(\d+):(\d+)(?:\.(\d+))?$/.exec(timestamp);
  if (!match) throw new Error(`unexpected timestamp ${timestamp}`);
  const [, y, mo, d, h, mi, s, fraction = "0"] = match;
  const micros = Number(fraction.padEnd(6, "0").slice(0, 6));
  return new Date(+y!, +mo! - 1, +d!, +h!, +mi!, +s!).getTime() + micros / 1000;
}

/** CPU ms at `atMs`, interpolated in the sampled timeline. */
export function cpuAt(timeline: readonly [number, number][], atMs: number): number {
  let previous = timeline[0]!;
  for (const sample of timeline) {
    if (sample[0] >= atMs) {
      if (sample[0] === previous[0]) return sample[1];
      const share = (atMs - previous[0]) / (sample[0] - previous[0]);
      return previous[1] + share * (sample[1] - previous[1]);
    }
    previous = sample;
  }
  return previous[1];
}

/** The `tau run` options every bench run shares: trials, concurrency, no retries, no progress lines, where. */
export function benchRunOptions(
  trials: number,
  concurrency: number,
  dataDir: string,
  resultsPath: string,
): string[] {
  return [
    "--num-trials",
    String(trials),
    "--max-concurrency",
    String(concurrency),
    "--max-retries",
    "0",
    "--retry-delay",
    "0",
    "--progress-interval",
    "3600",
    "--data-dir",
    dataDir,
    "--save-to",
    resultsPath,
  ];
}

/** This process's environment without provider keys and base URLs: they never reach a measured process. */
export function envWithoutProviderSettings(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && !/_API_KEY$|_BASE_URL$/.test(key)) env[key] = value;
  return env;
}

/** Runs `tau run` once against a fresh fake provider process. */
export async function measureRunProcess(
  dataDir: string,
  settings: RunProcessSettings,
): Promise<RunProcessResult> {
  const transport = await httpTransport(settings.latencyMs, "airline");
  const folder = mkdtempSync(join(tmpdir(), "tau-bench-run-process-"));
  const resultsPath = join(folder, "run", "results.json");
  const timelinePath = join(folder, "cpu-timeline.json");
  const { entry, path } = tauEntry();
  const airlineTasks = 50;
  const args = [
    "--require",
    join(repo, "bench", "cpu-timeline-probe.cjs"),
    ...(settings.nodeArgs ?? []),
    path,
    "run",
    "--no-preflight",
    "--domain",
    "airline",
    "--agent-llm",
    "openai/gpt-4.1",
    "--user-llm",
    "openai/gpt-4.1",
    ...benchRunOptions(
      Math.max(1, Math.round(settings.simulations / airlineTasks)),
      settings.concurrency,
      dataDir,
      resultsPath,
    ),
  ];
  const env = envWithoutProviderSettings();
  Object.assign(env, {
    OPENAI_API_KEY: "fake-key",
    OPENAI_BASE_URL: transport.baseUrl!,
    TAU_BENCH_CPU_TIMELINE: timelinePath,
  });
  try {
    const loadBefore = loadavg()[0]!;
    const spawnedAt = Date.now();
    const child = spawn(process.execPath, args, { cwd: folder, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    const code = await new Promise<number | null>((done) => child.once("exit", done));
    const exitedAt = Date.now();
    const loadAfter = loadavg()[0]!;
    if (code !== 0) throw new Error(`tau run exited with ${code}:\n${output.slice(-2000)}`);
    const results = JSON.parse(readFileSync(resultsPath, "utf8")) as {
      simulations: {
        start_time: string;
        end_time: string;
        termination_reason: string;
        reward_info: { reward: number } | null;
      }[];
    };
    const simulations = results.simulations;
    const failed = simulations.filter((s) => s.termination_reason === "infrastructure_error");
    if (failed.length > 0) throw new Error(`${failed.length} simulation(s) failed; not a valid measurement`);
    const firstStart = Math.min(...simulations.map((s) => epochMs(s.start_time)));
    const lastEnd = Math.max(...simulations.map((s) => epochMs(s.end_time)));
    const resultsWritten = statSync(resultsPath).mtimeMs;
    const timeline = JSON.parse(readFileSync(timelinePath, "utf8")) as [number, number][];
    const cpuMs = timeline.at(-1)![1];
    const { callCount } = await transport.stats();
    const idealMs = (callCount * settings.latencyMs) / settings.concurrency;
    const startupCpuMs = cpuAt(timeline, firstStart);
    return {
      ...settings,
      simulations: simulations.length,
      entry,
      modelCalls: callCount,
      idealMs,
      processMs: exitedAt - spawnedAt,
      runPhaseMs: lastEnd - firstStart,
      startupMs: firstStart - spawnedAt,
      endToResultsMs: resultsWritten - lastEnd,
      resultsToExitMs: exitedAt - resultsWritten,
      cpuMs,
      runPhaseCpuMs: cpuAt(timeline, lastEnd) - startupCpuMs,
      startupCpuMs,
      meanReward: simulations.reduce((sum, s) => sum + (s.reward_info?.reward ?? 0), 0) / simulations.length,
      loadBefore,
      loadAfter,
    };
  } finally {
    await transport.close();
    if (process.env.BENCH_KEEP) process.stderr.write(`run-process: kept ${folder}\n`);
    else rmSync(folder, { recursive: true, force: true });
  }
}

/** CPU per model call `tau run` may spend (issue 17). */
export const CPU_PER_CALL_TARGET_MS = 1;

function rows(result: RunProcessResult): BenchResult[] {
  const subject = "tau run (process)";
  const load = `load ${result.loadBefore.toFixed(1)} → ${result.loadAfter.toFixed(1)}`;
  const setting = `${result.simulations} airline simulations, c${result.concurrency}, ${result.latencyMs} ms/call, ${result.entry}`;
  return [
    {
      subject,
      metric: "whole process / ideal",
      value: result.idealMs / result.processMs,
      unit: "ratio",
      target: EFFICIENCY_TARGET,
      note: `${(result.processMs / 1000).toFixed(2)} s vs ideal ${(result.idealMs / 1000).toFixed(2)} s (${result.modelCalls} calls); ${setting}; ${load}`,
    },
    {
      subject,
      metric: "run phase / ideal",
      value: result.idealMs / result.runPhaseMs,
      unit: "ratio",
      note: `first simulation start → last end: ${(result.runPhaseMs / 1000).toFixed(2)} s`,
    },
    // The per-call work (request building, reply validation, checkpoint writes, grading) is
    // what the run phase spends per call; the fixed costs are the rows below, and both together are
    // the whole-process row, shown without a target.
    {
      subject,
      metric: "CPU per model call, run phase",
      value: result.runPhaseCpuMs / result.modelCalls,
      unit: "ms",
      target: CPU_PER_CALL_TARGET_MS,
      note: `${(result.runPhaseCpuMs / 1000).toFixed(1)} s CPU from the first simulation's start to the last one's end`,
    },
    {
      subject,
      metric: "CPU per model call, whole process",
      value: result.cpuMs / result.modelCalls,
      unit: "ms",
      note: `${(result.cpuMs / 1000).toFixed(1)} s CPU, start-up and the end included`,
    },
    {
      subject,
      metric: "start-up to first simulation",
      value: result.startupMs,
      unit: "ms",
      note: `${Math.round(result.startupCpuMs)} ms CPU: node, CLI, data load, hashes, plan`,
    },
    {
      subject,
      metric: "last simulation to results.json",
      value: result.endToResultsMs,
      unit: "ms",
      note: `grading of the last, checkpoint close, export; then ${Math.round(result.resultsToExitMs)} ms to exit`,
    },
  ];
}

/** The benchmark module for `bench/index.ts`. */
export const runProcessBench: BenchModule = {
  name: "run-process",
  description:
    "the whole tau run process: 2,000 airline simulations, c200, 500 ms per call, HTTP fake provider",
  async run(context: BenchContext): Promise<BenchResult[]> {
    const result = await measureRunProcess(context.dataDir, {
      simulations: Math.round(2000 * context.scale),
      concurrency: 200,
      latencyMs: 500,
    });
    context.log(
      `run-process: ${result.simulations} simulations, ${result.modelCalls} calls, process ${(result.processMs / 1000).toFixed(2)} s, ` +
        `run phase ${(result.runPhaseMs / 1000).toFixed(2)} s, ideal ${(result.idealMs / 1000).toFixed(2)} s, ` +
        `CPU ${(result.cpuMs / 1000).toFixed(1)} s, mean reward ${result.meanReward.toFixed(3)}`,
    );
    return rows(result);
  },
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const dataDir = process.env.TAU_DATA_DIR ?? join(repo, "..", "shared", "tau2-data");
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(" ").filter((arg) => arg !== "");
  const result = await measureRunProcess(dataDir, {
    simulations: process.argv.includes("--quick") ? 400 : 2000,
    concurrency: 200,
    latencyMs: 500,
    ...(nodeArgs ? { nodeArgs } : {}),
  });
  console.log(JSON.stringify(result, null, 2));
}
