/**
 * Runner throughput: N simulations of mock through the real runner at high
 * concurrency, with a model that answers after a fixed latency. Compares the
 * wall time with the ideal (total model time / concurrency) and reports CPU
 * time and peak RSS. Two transports:
 *
 * - `http`: the real provider client (AI SDK, OpenAI protocol) against the
 *   fake provider in a child process on 127.0.0.1, as a remote provider would be;
 * - `in-process`: a model object that only waits, which isolates the
 *   runner's own overhead (orchestration, grading, checkpointing).
 *
 * Each conversation is three model calls: the user opens, the agent answers,
 * the user stops. Alone: `npx tsx bench/runner-throughput.ts [--quick] [--in-process]`.
 *
 * Memory: each measurement runs in a process of its own (so its peak RSS is
 * its own), sampling RSS during the batch and during the export, and the heap
 * after a full collection once the batch ended. The in-process model runs at
 * two sizes; the heap kept per finished simulation is the slope between them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { PyFloat } from "../src/core/py-json.ts";
import { createLlmClient, type LlmClient, type LlmEventListener, providerKey } from "../src/llm/index.ts";
import { exportResults } from "../src/runner/export.ts";
import { executeRun } from "../src/runner/run.ts";
import { airlineScriptHandler } from "../src/testing/airline-script.ts";
import { startFakeProvider } from "../src/testing/fake-provider.ts";
import { spawn } from "node:child_process";
import {
  type BenchContext,
  type BenchModule,
  type BenchResult,
  heapUsedBytes,
  measureInFreshProcess,
} from "./harness.ts";

/** Settings of one throughput measurement. */
export interface ThroughputSettings {
  simulations: number;
  concurrency: number;
  latencyMs: number;
  transport: "http" | "in-process";
}

/** What one measurement found. */
export interface ThroughputResult extends ThroughputSettings {
  wallMs: number;
  modelCalls: number;
  idealMs: number;
  /** ideal / actual: 1 means the runner adds nothing to the model's own latency. */
  efficiency: number;
  simulationsPerHour: number;
  /** CPU of the runner process (user + system). */
  cpuMs: number;
  /** Peak RSS of the measuring process (it measures nothing else). */
  peakRssBytes: number;
  /** Highest RSS sampled while the batch ran, and while the results JSON was written. */
  batchPeakRssBytes: number;
  exportPeakRssBytes: number;
  /** Heap in use after a full collection: before the run, and after the batch with its outcome still held. */
  heapBeforeBytes: number;
  heapAfterBatchBytes: number;
  maxInFlight: number;
  /** Mean and maximum event-loop delay of the runner process during the run. */
  runnerLagMs: number;
  runnerLagMaxMs: number;
  /** Writing the results JSON from the checkpoint afterwards. */
  exportMs: number;
  /** Mean duration of one conversation as recorded (grading excluded). */
  meanSimulationMs: number;
}

const GREETING_ONLY = 2; // system prompt + the greeting, as the user simulator sees it
const USER_OPENING = "Hello, I need help with my tasks.";
const USER_CLOSING = "That is all. ###STOP###";
const AGENT_REPLY = "Thanks, I have noted that.";

/** The scripted reply, from the system prompt (the user's guidelines name the stop token) and the turn count. */
function scriptedText(systemText: string, messageCount: number): string {
  if (!systemText.includes("###STOP###")) return AGENT_REPLY;
  return messageCount <= GREETING_ONLY ? USER_OPENING : USER_CLOSING;
}

const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

/** Samples RSS every 20 ms until stopped; returns the highest seen (the export yields to timers between chunks). */
function rssSampler(): { stop(): number } {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 20);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage.rss());
    },
  };
}

/** A model transport plus its call counters. */
export interface Transport {
  /** The OpenAI-compatible base URL of the HTTP transport (absent in process). */
  baseUrl?: string;
  createLlm(model: string, onEvent: LlmEventListener): LlmClient;
  stats(): Promise<{ callCount: number; maxInFlight: number }>;
  close(): Promise<void>;
}

/** What the fake provider plays: mock's three-call conversation, or the airline script (both sides). */
export type FakeScript = "mock" | "airline";

/** Starts the fake provider in a child process; counters travel over stdin/stdout. */
export async function httpTransport(latencyMs: number, script: FakeScript = "mock"): Promise<Transport> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", new URL(import.meta.url).pathname, "--serve", String(latencyMs), script],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => {
    const line = await lines.next();
    if (line.done) throw new Error("the fake provider process ended");
    return JSON.parse(line.value) as Record<string, unknown>;
  };
  const hello = await next();
  const baseUrl = hello.openaiBaseUrl as string;
  return {
    baseUrl,
    createLlm: (model, onEvent) =>
      createLlmClient(model, { baseUrl, env: { OPENAI_API_KEY: "fake-key" }, onEvent }),
    async stats() {
      child.stdin!.write("stats\n");
      return (await next()) as { callCount: number; maxInFlight: number };
    },
    async close() {
      child.stdin!.end();
      await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}

/** A model that only waits `latencyMs` and answers from the script. */
function inProcessTransport(latencyMs: number): Transport {
  let callCount = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  return {
    createLlm: (model, onEvent) => ({
      model,
      async generate(request) {
        callCount++;
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, latencyMs));
        inFlight--;
        const first = request.messages[0];
        const text = scriptedText(first?.role === "system" ? first.content : "", request.messages.length);
        const usage = { prompt_tokens: 1000, completion_tokens: 10 };
        onEvent({
          type: "call",
          model,
          callName: request.callName,
          usage,
          costUsd: 0,
          durationMs: latencyMs,
          attempts: 1,
          cached: false,
        });
        return { content: text, toolCalls: null, usage, costUsd: 0 };
      },
    }),
    stats: async () => ({ callCount, maxInFlight }),
    close: async () => {},
  };
}

/** Runs the measurement once. */
export async function measureRunnerThroughput(
  dataDir: string,
  settings: ThroughputSettings,
): Promise<ThroughputResult> {
  const transport =
    settings.transport === "http"
      ? await httpTransport(settings.latencyMs)
      : inProcessTransport(settings.latencyMs);
  const folder = mkdtempSync(join(tmpdir(), "tau-bench-runner-"));
  // Tasks without a message history, so every conversation has the same three calls.
  const taskIds = ["create_task_1", "update_task_1", "impossible_task_1"];
  const trials = Math.max(1, Math.round(settings.simulations / taskIds.length));
  const lag = monitorEventLoopDelay({ resolution: 10 });
  try {
    const heapBeforeBytes = heapUsedBytes();
    const batchRss = rssSampler();
    const cpuBefore = process.cpuUsage();
    lag.enable();
    const started = performance.now();
    const outcome = await executeRun(
      {
        domain: "mock",
        dataDir,
        split: "base",
        taskIds,
        numTrials: trials,
        seed: 300,
        maxSteps: 200,
        maxErrors: 10,
        maxConcurrency: settings.concurrency,
        maxRetries: 0,
        retryDelayMs: 0,
        timeoutMs: null,
        agent: "llm_agent",
        user: "user_simulator",
        agentLlm: "openai/gpt-4.1-2025-04-14",
        userLlm: "openai/gpt-4.1-2025-04-14",
        judgeLlm: null,
        agentLlmArgs: { temperature: new PyFloat(0) },
        userLlmArgs: { temperature: new PyFloat(0) },
        judgeLlmArgs: { temperature: new PyFloat(0) },
        enforceCommunicationProtocol: false,
        resultsPath: join(folder, "results.json"),
        // Timed apart below: a one-off O(N) step, not part of keeping the model busy.
        writeResultsJson: false,
      },
      { createLlm: transport.createLlm, providerKey },
    );
    const wallMs = performance.now() - started;
    lag.disable();
    const cpu = process.cpuUsage(cpuBefore);
    const batchPeakRssBytes = batchRss.stop();
    // The outcome (one slim record per simulation) is still referenced here, as it is by `tau run`.
    const heapAfterBatchBytes = heapUsedBytes();
    const exportRss = rssSampler();
    const exportStarted = performance.now();
    await exportResults(outcome.checkpointPath, outcome.resultsPath);
    const exportMs = performance.now() - exportStarted;
    const exportPeakRssBytes = exportRss.stop();
    const failed = outcome.simulations.filter((s) => s.termination_reason === "infrastructure_error");
    if (failed.length > 0)
      throw new Error(
        `${failed.length} simulation(s) failed (${String(failed[0]!.info?.error)}); not a valid measurement`,
      );
    const simulations = outcome.simulations.length;
    const { callCount: modelCalls, maxInFlight } = await transport.stats();
    const idealMs = (modelCalls * settings.latencyMs) / settings.concurrency;
    return {
      ...settings,
      simulations,
      wallMs,
      modelCalls,
      idealMs,
      efficiency: idealMs / wallMs,
      simulationsPerHour: (simulations / wallMs) * 3_600_000,
      cpuMs: cpuMs(cpu),
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
      batchPeakRssBytes,
      exportPeakRssBytes,
      heapBeforeBytes,
      heapAfterBatchBytes,
      maxInFlight,
      runnerLagMs: lag.mean / 1e6,
      runnerLagMaxMs: lag.max / 1e6,
      exportMs,
      meanSimulationMs: (1000 * outcome.simulations.reduce((sum, s) => sum + s.duration, 0)) / simulations,
    };
  } finally {
    await transport.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Fraction of the ideal the runner must reach. */
export const EFFICIENCY_TARGET = 0.9;

function rows(result: ThroughputResult): BenchResult[] {
  const subject = `runner (${result.transport})`;
  const idealRate = (result.simulations / result.idealMs) * 1000;
  return [
    {
      subject,
      metric: "simulations per second",
      value: (result.simulations / result.wallMs) * 1000,
      unit: "per s",
      target: EFFICIENCY_TARGET * idealRate,
      note: `${Math.round(result.simulationsPerHour)}/hour; ${(100 * result.efficiency).toFixed(1)}% of ideal (target ≥ ${100 * EFFICIENCY_TARGET}%)`,
    },
    {
      subject,
      metric: "wall time",
      value: result.wallMs,
      unit: "ms",
      target: result.idealMs / EFFICIENCY_TARGET,
      note: `ideal ${Math.round(result.idealMs)} ms = ${result.modelCalls} calls × ${result.latencyMs} ms / ${result.concurrency}`,
    },
    {
      subject,
      metric: "CPU time",
      value: result.cpuMs,
      unit: "ms",
      note: `runner process, user + system; ${Math.round((1000 * result.cpuMs) / result.modelCalls)} µs per model call`,
    },
    {
      subject,
      metric: "results.json export",
      value: result.exportMs,
      unit: "ms",
      note: `${result.simulations} simulations, after the batch`,
    },
    {
      subject,
      metric: "peak RSS",
      value: result.peakRssBytes,
      unit: "bytes",
      note: `own process; ${mb(result.batchPeakRssBytes)} during the batch, ${mb(result.exportPeakRssBytes)} during the export`,
    },
  ];
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

/** Most heap a finished simulation may keep (its slim record for metrics and the summary). */
export const KEPT_PER_SIMULATION_TARGET = 1024;

/** The memory comparison of two run sizes: what grows with the number of finished simulations. */
function memoryRows(small: ThroughputResult, large: ThroughputResult): BenchResult[] {
  const subject = `runner (${small.transport})`;
  const added = large.simulations - small.simulations;
  const kept = (result: ThroughputResult) => result.heapAfterBatchBytes - result.heapBeforeBytes;
  const perSize = (result: ThroughputResult): BenchResult[] => [
    {
      subject,
      metric: `peak RSS, ${result.simulations} simulations`,
      value: result.peakRssBytes,
      unit: "bytes",
      note: `batch ${mb(result.batchPeakRssBytes)}, export ${mb(result.exportPeakRssBytes)}`,
    },
    {
      subject,
      metric: `heap after batch, ${result.simulations} simulations`,
      value: result.heapAfterBatchBytes,
      unit: "bytes",
      note: `after a full GC, outcome held; ${mb(kept(result))} more than before the run`,
    },
  ];
  return [
    ...perSize(small),
    ...perSize(large),
    {
      subject,
      metric: "heap kept per finished simulation",
      value: (kept(large) - kept(small)) / added,
      unit: "bytes",
      target: KEPT_PER_SIMULATION_TARGET,
      note: `slope of heap after batch, ${small.simulations} → ${large.simulations} simulations`,
    },
    {
      subject,
      metric: "peak RSS per added simulation",
      value: (large.peakRssBytes - small.peakRssBytes) / added,
      unit: "bytes",
      // Not memory kept (the heap row is): V8 lets more garbage pile up between full collections
      // as a run goes on, up to a plateau, so this slope falls with longer runs.
      note: `${mb(small.peakRssBytes)} → ${mb(large.peakRssBytes)}; garbage, not kept heap: V8 collects later as a run goes on`,
    },
  ];
}

/** Runs {@link measureRunnerThroughput} in a fresh process, so its peak RSS and heap are its own. */
function measureInChild(dataDir: string, settings: ThroughputSettings): Promise<ThroughputResult> {
  return measureInFreshProcess(
    import.meta.url,
    "--measure",
    { dataDir, settings },
    { label: "runner measurement" },
  );
}

/** The benchmark module for `bench/index.ts`. */
export const runnerBench: BenchModule = {
  name: "runner",
  description:
    "runner throughput, 500 ms per model call, concurrency 200 (in-process model, then HTTP fake provider)",
  async run(context: BenchContext): Promise<BenchResult[]> {
    const measure = async (transport: ThroughputSettings["transport"], simulations: number) => {
      const result = await measureInChild(context.dataDir, {
        simulations: Math.round(simulations * context.scale),
        concurrency: 200,
        latencyMs: 500,
        transport,
      });
      context.log(
        `runner (${transport}): ${result.simulations} simulations, ${result.modelCalls} calls in ${(result.wallMs / 1000).toFixed(2)} s ` +
          `(ideal ${(result.idealMs / 1000).toFixed(2)} s, ${(100 * result.efficiency).toFixed(1)}%), ` +
          `event-loop lag mean ${result.runnerLagMs.toFixed(1)} ms, ${result.maxInFlight} calls in flight at most, ` +
          `peak RSS ${mb(result.peakRssBytes)}, heap after batch ${mb(result.heapAfterBatchBytes)}`,
      );
      return result;
    };
    const small = await measure("in-process", 1200);
    const large = await measure("in-process", 2400);
    const http = await measure("http", 1200);
    // The small run's peak RSS is in the memory comparison, with the large run's beside it.
    const throughput = rows(small).filter((row) => row.metric !== "peak RSS");
    return [...throughput, ...memoryRows(small, large), ...rows(http)];
  },
};

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === "--serve") {
  // Child process mode: serve the scripted conversation over HTTP and answer counter queries.
  const provider = await startFakeProvider({
    latencyMs: Number(process.argv[3]),
    record: false,
    simulateCache: false,
    handler:
      process.argv[4] === "airline"
        ? airlineScriptHandler("right")
        : (request) => {
            const messages = request.body.messages as { content?: unknown }[];
            return { text: scriptedText(JSON.stringify(messages[0]?.content ?? ""), messages.length) };
          },
  });
  process.stdout.write(`${JSON.stringify({ openaiBaseUrl: provider.openaiBaseUrl })}\n`);
  for await (const _line of createInterface({ input: process.stdin }))
    process.stdout.write(
      `${JSON.stringify({ callCount: provider.callCount, maxInFlight: provider.maxInFlight })}\n`,
    );
  await provider.close();
} else if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === "--measure") {
  // Child process mode for the bench module: one measurement, its result as JSON on stdout.
  const { dataDir, settings } = JSON.parse(process.argv[3]!) as {
    dataDir: string;
    settings: ThroughputSettings;
  };
  process.stdout.write(`${JSON.stringify(await measureRunnerThroughput(dataDir, settings))}\n`);
} else if (import.meta.url === `file://${process.argv[1]}`) {
  const dataDir = process.env.TAU_DATA_DIR ?? join(import.meta.dirname, "..", "..", "shared", "tau2-data");
  const result = await measureRunnerThroughput(dataDir, {
    simulations: process.argv.includes("--quick") ? 240 : 1200,
    concurrency: 200,
    latencyMs: 500,
    transport: process.argv.includes("--in-process") ? "in-process" : "http",
  });
  console.log(JSON.stringify(result, null, 2));
}
