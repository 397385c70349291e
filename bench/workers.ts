/**
 * `tau run --workers 2` against one process, at a CPU-bound setting: many
 * simulations in flight (c1000) and a short model latency (200 ms, the HTTP
 * fake provider in a process of its own), so one process is limited by its
 * core, not by the model. The row is the throughput ratio, two workers over
 * one process (target ≥ 1.7 on a 2-core machine; it cannot exceed the cores
 * left over by the coordinator and the provider process). Each measurement runs
 * in a coordinator process of its own. Alone: `npx tsx bench/workers.ts [--quick]`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { runEvaluation } from "../src/runner/evaluate.ts";
import { localWorkers } from "../src/worker/local-pool.ts";
import { type BenchContext, type BenchModule, type BenchResult, measureInFreshProcess } from "./harness.ts";
import { httpTransport } from "./runner-throughput.ts";

/** One measurement's settings. */
interface WorkersSettings {
  simulations: number;
  concurrency: number;
  latencyMs: number;
  /** 1 = the coordinator's own process (no workers). */
  workers: number;
  baseUrl: string;
}

/** What one measurement found. */
interface WorkersResult {
  wallMs: number;
  simulations: number;
  /** CPU of the coordinator process alone (workers are other processes). */
  coordinatorCpuMs: number;
}

const TASKS = ["create_task_1", "update_task_1", "impossible_task_1"];

/** Runs one `tau run`-equivalent evaluation of mock with LLM participants against the fake provider. */
async function measure(dataDir: string, settings: WorkersSettings): Promise<WorkersResult> {
  const folder = mkdtempSync(join(tmpdir(), "tau-bench-workers-"));
  const llm = { localBaseUrl: settings.baseUrl };
  try {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const outcome = await runEvaluation({
      domain: "mock",
      dataDir,
      taskIds: TASKS,
      numTrials: Math.max(1, Math.round(settings.simulations / TASKS.length)),
      maxConcurrency: settings.concurrency,
      maxRetries: 0,
      retryDelayMs: 0,
      agentLlm: "local/fake",
      userLlm: "local/fake",
      judge: null,
      llm,
      saveTo: join(folder, "results.json"),
      ...(settings.workers > 1 ? { executor: localWorkers(settings.workers, llm) } : {}),
    });
    const wallMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const failed = outcome.simulations.filter((s) => s.termination_reason === "infrastructure_error");
    if (failed.length > 0) throw new Error(`${failed.length} simulations failed: ${failed[0]!.info?.error}`);
    return {
      wallMs,
      simulations: outcome.ranNow,
      coordinatorCpuMs: (cpu.user + cpu.system) / 1000,
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

function measureInChild(dataDir: string, settings: WorkersSettings): Promise<WorkersResult> {
  return measureInFreshProcess(
    import.meta.url,
    "--measure",
    { dataDir, settings },
    {
      label: "workers measurement",
      exposeGc: false,
    },
  );
}

/** The benchmark module for `bench/index.ts`. */
export const workersBench: BenchModule = {
  name: "workers",
  description: "tau run --workers 2 vs one process: c1000, 200 ms per model call, HTTP fake provider",
  async run(context: BenchContext): Promise<BenchResult[]> {
    const transport = await httpTransport(200);
    try {
      const base = {
        simulations: Math.round(3000 * context.scale),
        concurrency: 1000,
        latencyMs: 200,
        baseUrl: transport.baseUrl!,
      };
      const rate = (result: WorkersResult) => result.simulations / (result.wallMs / 1000);
      const one = await measureInChild(context.dataDir, { ...base, workers: 1 });
      const two = await measureInChild(context.dataDir, { ...base, workers: 2 });
      const load = loadavg()[0]!.toFixed(1);
      context.log(
        `workers: ${one.simulations} simulations, one process ${(one.wallMs / 1000).toFixed(2)} s, ` +
          `two workers ${(two.wallMs / 1000).toFixed(2)} s (coordinator CPU ${(two.coordinatorCpuMs / 1000).toFixed(1)} s), ` +
          `${availableParallelism()} cores, load ${load}`,
      );
      return [
        { subject: "workers", metric: "simulations/s, one process", value: rate(one), unit: "per s" },
        { subject: "workers", metric: "simulations/s, --workers 2", value: rate(two), unit: "per s" },
        {
          subject: "workers",
          metric: "--workers 2 / one process (throughput)",
          value: rate(two) / rate(one),
          unit: "count",
          note: `≥ 1.7 wanted on 2 quiet cores; load average ${load} when measured`,
        },
      ];
    } finally {
      await transport.close();
    }
  },
};

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === "--measure") {
  const { dataDir, settings } = JSON.parse(process.argv[3]!) as {
    dataDir: string;
    settings: WorkersSettings;
  };
  process.stdout.write(`${JSON.stringify(await measure(dataDir, settings))}\n`);
} else if (import.meta.url === `file://${process.argv[1]}`) {
  const dataDir = process.env.TAU_DATA_DIR ?? join(import.meta.dirname, "..", "..", "shared", "tau2-data");
  const results = await workersBench.run({
    dataDir,
    scale: process.argv.includes("--quick") ? 0.2 : 1,
    log: (line) => console.error(line),
  });
  for (const row of results) console.log(`${row.metric}: ${row.value.toFixed(2)} ${row.unit}`);
}
