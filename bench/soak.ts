/**
 * Soak: 10,000 simulations of mock at concurrency 500 through the real runner
 * and the real provider client, against the fake provider (a child process on
 * 127.0.0.1). Every 2.5% of the run the measuring process samples its heap
 * (after a full collection), RSS, open file descriptors and process listeners;
 * between the warm-up (the first 20%) and the drain (the last 500, with fewer
 * in flight) each must be flat: the heap may grow only by
 * the slim record each finished simulation keeps for the summary, descriptors
 * and listeners not at all. Reports the slopes (least squares over the samples).
 *
 * Descriptors are split into sockets and the rest (files, pipes, event fds).
 * The keep-alive pool holds one socket per call in flight and reuses it, so
 * the socket check is that the process never holds more sockets than calls in
 * flight (plus those it had before the run), at any sample or after the run.
 * Alone: `node --expose-gc --import tsx bench/soak.ts [--quick]`.
 */
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { providerKey } from "../src/llm/index.ts";
import { executeRun } from "../src/runner/run.ts";
import { offlineRunConfig } from "../src/testing/run-config.ts";
import {
  type BenchContext,
  type BenchModule,
  type BenchResult,
  heapUsedBytes,
  measureInFreshProcess,
} from "./harness.ts";
import { httpTransport, KEPT_PER_SIMULATION_TARGET } from "./runner-throughput.ts";

interface Sample {
  done: number;
  heapBytes: number;
  rssBytes: number;
  /** Open descriptors that are not sockets (files, pipes, event fds). */
  fds: number;
  sockets: number;
  listeners: number;
}

interface SoakResult {
  simulations: number;
  concurrency: number;
  wallMs: number;
  infrastructureErrors: number;
  samples: Sample[];
  /** Sockets open before the first simulation, and once the run ended. */
  socketsBefore: number;
  socketsAfter: number;
}

/** Open descriptors of this process, sockets apart from the rest. */
function openDescriptors(): { sockets: number; other: number } {
  let sockets = 0;
  let other = 0;
  for (const fd of readdirSync("/proc/self/fd")) {
    let target = "";
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // the descriptor readdir itself used, closed by now
    }
    if (target.startsWith("socket:")) sockets++;
    else other++;
  }
  return { sockets, other };
}
const processListeners = () =>
  process.eventNames().reduce((sum, name) => sum + process.listenerCount(name), 0);

/** Least-squares slope of y over x. */
function slope(points: readonly [number, number][]): number {
  const n = points.length;
  const mx = points.reduce((sum, [x]) => sum + x, 0) / n;
  const my = points.reduce((sum, [, y]) => sum + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

async function soak(dataDir: string, simulations: number, concurrency: number): Promise<SoakResult> {
  const transport = await httpTransport(20);
  const folder = mkdtempSync(join(tmpdir(), "tau-bench-soak-"));
  const taskIds = ["create_task_1", "update_task_1", "impossible_task_1"];
  const trials = Math.max(1, Math.ceil(simulations / taskIds.length));
  const total = trials * taskIds.length;
  const every = Math.max(1, Math.floor(total / 40));
  const samples: Sample[] = [];
  let done = 0;
  const sample = () => {
    const descriptors = openDescriptors();
    samples.push({
      done,
      heapBytes: heapUsedBytes(),
      rssBytes: process.memoryUsage.rss(),
      fds: descriptors.other,
      sockets: descriptors.sockets,
      listeners: processListeners(),
    });
  };
  try {
    sample();
    const socketsBefore = openDescriptors().sockets;
    const started = performance.now();
    const outcome = await executeRun(
      offlineRunConfig(dataDir, {
        taskIds,
        numTrials: trials,
        maxConcurrency: concurrency,
        agent: "llm_agent",
        user: "user_simulator",
        resultsPath: join(folder, "results.json"),
        writeResultsJson: false,
      }),
      {
        createLlm: transport.createLlm,
        providerKey,
        onEvent: (event) => {
          if (event.type !== "simulation_finished") return;
          done++;
          if (done % every === 0) sample();
        },
      },
    );
    const wallMs = performance.now() - started;
    return {
      simulations: outcome.simulations.length,
      concurrency,
      wallMs,
      infrastructureErrors: outcome.simulations.filter((s) => s.termination_reason === "infrastructure_error")
        .length,
      samples,
      socketsBefore,
      socketsAfter: openDescriptors().sockets,
    };
  } finally {
    await transport.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

function rows(result: SoakResult): BenchResult[] {
  const subject = `soak (${result.simulations} simulations, concurrency ${result.concurrency})`;
  // Steady state: after the warm-up and before the drain (the last `concurrency` simulations run with fewer in flight).
  const warm = result.samples.filter(
    (s) => s.done >= 0.2 * result.simulations && s.done <= result.simulations - result.concurrency,
  );
  const per = (pick: (s: Sample) => number) => slope(warm.map((s) => [s.done, pick(s)]));
  const range = (pick: (s: Sample) => number) =>
    `${Math.min(...warm.map(pick))}–${Math.max(...warm.map(pick))}`;
  const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
  const heap = warm.map((s) => s.heapBytes);
  const rss = warm.map((s) => s.rssBytes);
  const firstLast = (values: number[]) =>
    `${mb(values[0]!)} → ${mb(values.at(-1)!)} (range ${mb(Math.min(...values))}–${mb(Math.max(...values))})`;
  return [
    {
      subject,
      metric: "heap slope after warm-up",
      value: per((s) => s.heapBytes),
      unit: "bytes",
      target: KEPT_PER_SIMULATION_TARGET,
      note: `per finished simulation (its slim record is kept); ${firstLast(heap)} over ${warm.length} samples; ${result.infrastructureErrors} infrastructure errors; ${(result.wallMs / 1000).toFixed(1)} s`,
    },
    {
      subject,
      metric: "RSS slope after warm-up",
      value: per((s) => s.rssBytes),
      unit: "bytes",
      note: `per finished simulation (garbage between collections included); ${firstLast(rss)}`,
    },
    {
      subject,
      metric: "descriptors other than sockets per 1000 simulations",
      value: Math.abs(per((s) => s.fds)) * 1000,
      unit: "count",
      target: 1,
      note: `files, pipes and event descriptors after warm-up ${range((s) => s.fds)}`,
    },
    {
      subject,
      metric: "sockets beyond the calls in flight",
      value: Math.max(
        0,
        Math.max(result.socketsAfter, ...result.samples.map((s) => s.sockets)) -
          result.socketsBefore -
          result.concurrency,
      ),
      unit: "count",
      target: 1,
      note: `${result.socketsBefore} before the run, ${range((s) => s.sockets)} after warm-up with ${result.concurrency} calls in flight, ${result.socketsAfter} after the run (the idle pool)`,
    },
    {
      subject,
      metric: "process listeners per 1000 simulations",
      value: Math.abs(per((s) => s.listeners)) * 1000,
      unit: "count",
      target: 0.1,
      note: `listeners on process after warm-up ${range((s) => s.listeners)}`,
    },
  ];
}

/** Runs the soak in a fresh process with --expose-gc (exact heap samples, its own RSS). */
function soakInChild(dataDir: string, simulations: number, concurrency: number): Promise<SoakResult> {
  return measureInFreshProcess(
    import.meta.url,
    "--child",
    { dataDir, simulations, concurrency },
    { label: "soak" },
  );
}

/** The benchmark module for `bench/index.ts`. */
export const soakBench: BenchModule = {
  name: "soak",
  description:
    "10,000 simulations at concurrency 500 against the fake provider: heap, RSS, fds, listeners flat",
  async run(context: BenchContext): Promise<BenchResult[]> {
    const result = await soakInChild(context.dataDir, Math.round(10_000 * context.scale), 500);
    context.log(
      `soak: ${result.simulations} simulations in ${(result.wallMs / 1000).toFixed(1)} s, ${result.samples.length} samples`,
    );
    return rows(result);
  },
};

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === "--child") {
  const { dataDir, simulations, concurrency } = JSON.parse(process.argv[3]!) as {
    dataDir: string;
    simulations: number;
    concurrency: number;
  };
  process.stdout.write(`${JSON.stringify(await soak(dataDir, simulations, concurrency))}\n`);
} else if (import.meta.url === `file://${process.argv[1]}`) {
  const dataDir = process.env.TAU_DATA_DIR ?? join(import.meta.dirname, "..", "..", "shared", "tau2-data");
  const result = await soak(dataDir, process.argv.includes("--quick") ? 2000 : 10_000, 500);
  console.table(rows(result));
}
