/**
 * `tau run --workers 2` against one process, at a CPU-bound setting: many
 * simulations in flight (c1000) and a short model latency (200 ms), so one
 * process is limited by its core, not by the model. `--workers 2` is the
 * coordinator and one worker process, both running simulations.
 *
 * The model is an OpenAI-compatible HTTP server in a process of its own that
 * answers with pre-encoded replies after the latency (it reads a request only
 * to pick one of three scripted replies): on a 2-core machine it shares the
 * cores with taubench, so it is kept as cheap as an HTTP server gets, and its
 * CPU is reported. What limits the ratio is said in the output: the cores
 * (2 − the provider's share), the coordinator's own work for every simulation
 * (the checkpoint, the events), and the fixed costs before and after the batch
 * (planning, a worker's start-up, the metrics), which two processes do not
 * share. Rows: throughput of the batch (first simulation started to the last
 * one recorded, the target's ratio) and of the whole call, both ways, and CPU
 * per simulation of every process. Each measurement runs in a coordinator
 * process of its own. Alone: `npx tsx bench/workers.ts [--quick]`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { runEvaluation } from "../src/runner/evaluate.ts";
import { localWorkers } from "../src/worker/local-pool.ts";
import { type BenchContext, type BenchModule, type BenchResult, measureInFreshProcess } from "./harness.ts";

/** One measurement's settings. */
interface WorkersSettings {
  simulations: number;
  concurrency: number;
  /** 1 = the coordinator's own process (no workers). */
  workers: number;
  /** False: `workers` worker processes and a coordinator that only writes (see `localWorkers`). */
  coordinatorRuns: boolean;
  baseUrl: string;
}

/** What one measurement found. */
interface WorkersResult {
  simulations: number;
  /** The whole `runEvaluation` call: planning, start-up, batch, export, metrics. */
  wallMs: number;
  /** From the first simulation started to the end of the batch. */
  batchMs: number;
  /** CPU of the coordinator process over the whole call, and over the batch. */
  coordinatorCpuMs: number;
  coordinatorBatchCpuMs: number;
  /** CPU of each worker process over its life until the end of the batch, start-up included (Linux). */
  workerCpuMs: number[];
  /** Simulations run in the coordinator's own process and in each worker process (empty without workers). */
  split: number[];
}

const TASKS = ["create_task_1", "update_task_1", "impossible_task_1"];

/** CPU (user + system) of a process from /proc, in ms; null where /proc is not there. */
function procCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The fields after the command (which may hold spaces) in parentheses; utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

/** The CPU of each live Node child process of this one, in ms (Linux /proc; empty elsewhere). */
function childrenCpuMs(): number[] {
  try {
    const pids = readdirSync(`/proc/${process.pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${process.pid}/task/${tid}/children`, "utf8").trim().split(/\s+/).filter(Boolean),
    );
    // tsx's esbuild service is a child too; only the Node processes are workers.
    const workers = pids.filter((pid) => readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "node");
    return workers.map((pid) => procCpuMs(Number(pid))).filter((cpu): cpu is number => cpu !== null);
  } catch {
    return [];
  }
}

const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

/** Runs one `tau run`-equivalent evaluation of mock with LLM participants against the provider. */
async function measure(dataDir: string, settings: WorkersSettings): Promise<WorkersResult> {
  const folder = mkdtempSync(join(tmpdir(), "tau-bench-workers-"));
  const llm = { localBaseUrl: settings.baseUrl };
  try {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    let batchStart: { at: number; cpu: NodeJS.CpuUsage } | null = null;
    let batchEnd: { at: number; cpu: NodeJS.CpuUsage; workers: number[] } | null = null;
    let split: number[] = [];
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
      ...(settings.workers > 1
        ? { executor: localWorkers(settings.workers, llm, { coordinatorRuns: settings.coordinatorRuns }) }
        : {}),
      onEvent(event) {
        if (event.type === "run_started") batchStart = { at: performance.now(), cpu: process.cpuUsage() };
        // The workers are still alive here (the pool closes after the batch): read their CPU now.
        if (event.type === "batch_finished")
          batchEnd = { at: performance.now(), cpu: process.cpuUsage(), workers: childrenCpuMs() };
        const ran =
          event.type === "note" ? /^local workers: (\d+) .*, ([\d +]+) in/.exec(event.message) : null;
        if (ran) split = [Number(ran[1]), ...ran[2]!.split(" + ").map(Number)];
      },
    });
    const wallMs = performance.now() - started;
    const failed = outcome.simulations.filter((s) => s.termination_reason !== "user_stop");
    if (failed.length > 0)
      throw new Error(
        `${failed.length} simulations did not end with the user's stop: ${failed[0]!.termination_reason} ${String(failed[0]!.info?.error ?? "")}`,
      );
    const start = batchStart as { at: number; cpu: NodeJS.CpuUsage } | null;
    const end = batchEnd as { at: number; cpu: NodeJS.CpuUsage; workers: number[] } | null;
    if (!start || !end) throw new Error("the run ended without run_started and batch_finished events");
    return {
      simulations: outcome.ranNow,
      wallMs,
      batchMs: end.at - start.at,
      coordinatorCpuMs: cpuMs(process.cpuUsage(cpuBefore)),
      coordinatorBatchCpuMs: cpuMs(end.cpu) - cpuMs(start.cpu),
      workerCpuMs: end.workers,
      split,
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
    { label: "workers measurement", exposeGc: false },
  );
}

/** A chat completion's body as the provider sends it, ready to write. */
function completion(text: string): Buffer {
  return Buffer.from(
    JSON.stringify({
      id: "chatcmpl-bench",
      object: "chat.completion",
      created: 1700000000,
      model: "fake",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: text, refusal: null },
          logprobs: null,
          finish_reason: "stop",
        },
      ],
      usage: { prompt_tokens: 1000, completion_tokens: 10, total_tokens: 1010 },
    }),
  );
}

/**
 * The provider process: answers every chat completion after `latencyMs` with one of three
 * pre-encoded replies. The user simulator's requests carry the stop token in their system prompt:
 * its first turn (system prompt and greeting) opens, its next one stops; the agent gets a reply.
 * Each conversation is so three model calls. Prints its base URL, then its CPU for every line read.
 */
async function serveProvider(latencyMs: number): Promise<void> {
  const opening = completion("Hello, I need help with my tasks.");
  const closing = completion("That is all. ###STOP###");
  const agent = completion("Thanks, I have noted that.");
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      let reply = agent;
      if (body.includes("###STOP###")) {
        let messages = 0;
        for (let at = body.indexOf('"role":'); at >= 0; at = body.indexOf('"role":', at + 7)) messages++;
        reply = messages <= 2 ? opening : closing;
      }
      setTimeout(() => {
        response.writeHead(200, { "content-type": "application/json", "content-length": reply.length });
        response.end(reply);
      }, latencyMs);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ baseUrl: `http://127.0.0.1:${port}/v1` })}\n`);
  for await (const _line of createInterface({ input: process.stdin }))
    process.stdout.write(`${JSON.stringify({ cpuMs: cpuMs(process.cpuUsage()) })}\n`);
  server.close();
  server.closeAllConnections();
}

/** Starts the provider process; `cpuMs()` asks it for its CPU so far. */
async function startProvider(latencyMs: number): Promise<{
  baseUrl: string;
  cpuMs(): Promise<number>;
  close(): Promise<void>;
}> {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", fileURLToPath(import.meta.url), "--provider", String(latencyMs)],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => {
    const line = await lines.next();
    if (line.done) throw new Error("the bench's provider process ended");
    return JSON.parse(line.value) as { baseUrl: string; cpuMs: number };
  };
  const { baseUrl } = await next();
  return {
    baseUrl,
    async cpuMs() {
      child.stdin!.write("cpu\n");
      return (await next()).cpuMs;
    },
    async close() {
      child.stdin!.end();
      await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}

type Measured = WorkersResult & { providerCpuMs: number; load: number };

/** A measurement with the provider's CPU over it (the provider shares the machine's cores). */
async function measureWithProvider(
  dataDir: string,
  settings: WorkersSettings,
  providerCpuMs: () => Promise<number>,
): Promise<Measured> {
  const before = await providerCpuMs();
  const result = await measureInChild(dataDir, settings);
  return { ...result, providerCpuMs: (await providerCpuMs()) - before, load: loadavg()[0]! };
}

/** "coordinator 4.10, worker 3.90, provider 0.40 ms CPU per simulation (... ran 1490 + 1510)". */
function describe(result: Measured): string {
  const per = (ms: number) => (ms / result.simulations).toFixed(2);
  const workers = result.workerCpuMs.map((ms) => `, worker ${per(ms)}`).join("");
  const split = result.split.length > 0 ? `; ran here + in workers: ${result.split.join(" + ")}` : "";
  return (
    `${result.simulations} simulations, batch ${(result.batchMs / 1000).toFixed(2)} s, whole call ${(result.wallMs / 1000).toFixed(2)} s; ` +
    `CPU per simulation: coordinator ${per(result.coordinatorCpuMs)} (batch ${per(result.coordinatorBatchCpuMs)})${workers}, ` +
    `provider ${per(result.providerCpuMs)} ms${split}; load average ${result.load.toFixed(1)}`
  );
}

/** The benchmark module for `bench/index.ts`. */
export const workersBench: BenchModule = {
  name: "workers",
  description:
    "tau run --workers 2 vs one process: c1000, 200 ms per model call, a provider process of its own",
  async run(context: BenchContext): Promise<BenchResult[]> {
    const provider = await startProvider(200);
    try {
      const base = {
        simulations: Math.round(3000 * context.scale),
        concurrency: 1000,
        coordinatorRuns: true,
        baseUrl: provider.baseUrl,
      };
      const cpu = () => provider.cpuMs();
      const one = await measureWithProvider(context.dataDir, { ...base, workers: 1 }, cpu);
      const two = await measureWithProvider(context.dataDir, { ...base, workers: 2 }, cpu);
      // The other shape, for comparison: two worker processes and a coordinator that only writes.
      const writer = await measureWithProvider(
        context.dataDir,
        { ...base, workers: 2, coordinatorRuns: false },
        cpu,
      );
      context.log(`workers: one process: ${describe(one)}`);
      context.log(`workers: --workers 2: ${describe(two)}`);
      context.log(`workers: 2 worker processes, the coordinator only writing: ${describe(writer)}`);
      const batchRate = (result: WorkersResult) => result.simulations / (result.batchMs / 1000);
      const wholeRate = (result: WorkersResult) => result.simulations / (result.wallMs / 1000);
      // The provider's CPU comes off the machine's cores.
      const providerCores = (result: Measured) => result.providerCpuMs / result.wallMs;
      const cores = availableParallelism();
      const load = `load average ${one.load.toFixed(1)} / ${two.load.toFixed(1)} after each`;
      const limits =
        `${cores} cores shared with the provider process (${providerCores(two).toFixed(2)} of a core with --workers 2)` +
        ` and the coordinator's work for every simulation; ${load}`;
      context.log(`workers: ${limits}`);
      const totalCpu = (result: Measured) =>
        result.coordinatorCpuMs + result.workerCpuMs.reduce((a, b) => a + b, 0) + result.providerCpuMs;
      return [
        {
          subject: "workers",
          metric: "batch simulations/s, one process",
          value: batchRate(one),
          unit: "per s",
        },
        {
          subject: "workers",
          metric: "batch simulations/s, --workers 2",
          value: batchRate(two),
          unit: "per s",
        },
        {
          subject: "workers",
          metric: "--workers 2 / one process (batch throughput)",
          value: batchRate(two) / batchRate(one),
          unit: "ratio",
          target: 1.7,
          note: `on 2 cores; ${limits}`,
        },
        {
          subject: "workers",
          metric: "2 worker processes, coordinator only writing / one process (batch throughput)",
          value: batchRate(writer) / batchRate(one),
          unit: "ratio",
          note: `the other shape, not what --workers does; ${describe(writer)}`,
        },
        {
          subject: "workers",
          metric: "--workers 2 / one process (whole call: planning, start-up, batch, export, metrics)",
          value: wholeRate(two) / wholeRate(one),
          unit: "ratio",
          note: load,
        },
        {
          subject: "workers",
          metric: "CPU ms per simulation, one process (every process)",
          value: totalCpu(one) / one.simulations,
          unit: "ms",
          note: describe(one),
        },
        {
          subject: "workers",
          metric: "CPU ms per simulation, --workers 2 (every process)",
          value: totalCpu(two) / two.simulations,
          unit: "ms",
          note: describe(two),
        },
      ];
    } finally {
      await provider.close();
    }
  },
};

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === "--measure") {
  const { dataDir, settings } = JSON.parse(process.argv[3]!) as {
    dataDir: string;
    settings: WorkersSettings;
  };
  process.stdout.write(`${JSON.stringify(await measure(dataDir, settings))}\n`);
} else if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === "--provider") {
  await serveProvider(Number(process.argv[3]));
} else if (import.meta.url === `file://${process.argv[1]}`) {
  const dataDir = process.env.TAU_DATA_DIR ?? join(import.meta.dirname, "..", "..", "shared", "tau2-data");
  const results = await workersBench.run({
    dataDir,
    scale: process.argv.includes("--quick") ? 0.2 : 1,
    log: (line) => console.error(line),
  });
  for (const row of results) console.log(`${row.metric}: ${row.value.toFixed(2)} ${row.unit}`);
}
