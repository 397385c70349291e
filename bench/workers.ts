/**
 * `tau run --workers 2` against one process, at a CPU-bound setting: many
 * simulations in flight (c1000) and a short model latency (200 ms), so one
 * process is limited by the CPU, not by the model. Each measurement spawns the
 * CLI as a user runs it (the build in dist/ when it is newer than the sources,
 * as bench/run-process.ts does, so workers start without a TypeScript loader),
 * mock domain with LLM agent and user, 15,000 simulations (3,000 with
 * `--quick`): a batch long enough that start-up does not decide the ratio.
 *
 * The model is an OpenAI-compatible HTTP server in a process of its own that
 * answers with pre-encoded replies after the latency (it reads a request only
 * to pick one of three scripted replies). The bench samples every process's
 * CPU from /proc every 100 ms, per thread (the main thread apart from V8's and
 * libuv's helpers): the coordinator, each worker process it forks, and the
 * provider. The batch is the first simulation's start to the last one's end
 * (the results' timestamps); its throughput is the target's ratio.
 *
 * The bound it prints: the machine has a fixed number of cores, shared with the
 * provider, and one process already keeps more than one of them busy (its
 * main thread plus garbage collection and I/O threads). If two processes spent
 * no more CPU per simulation than one, the cores would allow at most
 * cores / (cores one process keeps busy) times its throughput; with the CPU per
 * simulation two processes really spend, cores / (that × one process's rate).
 * Alone: `npx tsx bench/workers.ts [--quick]`; `BENCH_TAU_ENTRY=dist|sources`
 * picks the CLI.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { BenchContext, BenchModule, BenchResult } from "./harness.ts";
import { benchRunOptions, cpuAt, envWithoutProviderSettings, epochMs, tauEntry } from "./run-process.ts";

/** One measurement's settings. */
interface WorkersSettings {
  simulations: number;
  concurrency: number;
  /** 1 = the coordinator's own process (no `--workers`). */
  workers: number;
  baseUrl: string;
  providerPid: number;
}

/** CPU of one process over the batch, in ms: its main thread and the rest of its threads. */
interface ProcessCpu {
  mainMs: number;
  helpersMs: number;
}

/** What one measurement found. */
interface WorkersResult {
  entry: "dist" | "sources";
  simulations: number;
  /** Spawn to the first simulation's start (Node, the CLI, planning; workers fork meanwhile). */
  startupMs: number;
  /** From the first simulation started to the last one ended. */
  batchMs: number;
  /** CPU over the batch: the coordinator, each worker process, the provider. */
  coordinator: ProcessCpu;
  workers: ProcessCpu[];
  provider: ProcessCpu;
  /** CPU from spawn to the first simulation's start: the coordinator's, each worker's. */
  coordinatorStartupMs: number;
  workerStartupMs: number[];
  /** Simulations run in the coordinator's own process and in each worker process (empty without workers). */
  split: number[];
  /** The last simulation's end to the moment the bench saw it in the checkpoint. */
  checkedAfterMs: number;
  loadBefore: number;
  loadAfter: number;
}

const TASKS = ["create_task_1", "update_task_1", "impossible_task_1"];
/** The provider's latency per model call. */
const LATENCY_MS = 200;
const TICK_MS = 1000 / 100;

/** Epoch ms at which the kernel booted (process start times count from it). */
function bootEpochMs(): number {
  const line = readFileSync("/proc/stat", "utf8")
    .split("\n")
    .find((row) => row.startsWith("btime "));
  return Number(line!.split(" ")[1]) * 1000;
}

/** CPU ms of each thread of a process ([main, helpers]) and its start (epoch ms); null once it is gone. */
function threadsCpu(
  pid: number,
  bootMs: number,
): { main: number; helpers: number; startedAt: number } | null {
  try {
    let main = 0;
    let helpers = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      } catch {
        continue; // a thread that ended meanwhile
      }
      // Fields after the command (which may hold spaces): utime and stime are 14 and 15.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ms = (Number(fields[11]) + Number(fields[12])) * TICK_MS;
      if (Number(tid) === pid) main += ms;
      else helpers += ms;
    }
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const startTicks = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
    return { main, helpers, startedAt: bootMs + startTicks * TICK_MS };
  } catch {
    return null;
  }
}

/** The Node child processes of a process (its worker processes; a TypeScript loader's esbuild is not one). */
function nodeChildren(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`)
      .flatMap((tid) => readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").trim().split(/\s+/))
      .filter((child) => child !== "")
      .map(Number)
      .filter((child) => {
        try {
          return readFileSync(`/proc/${child}/comm`, "utf8").trim() === "node";
        } catch {
          return false;
        }
      });
  } catch {
    return [];
  }
}

/** A process's CPU over time: [epoch ms, main thread ms, helper threads ms]. */
type Timeline = [number, number, number][];

/** Samples the CPU of a process tree (a process, its Node children) and of other processes every 100 ms. */
class CpuSampler {
  readonly timelines = new Map<number, Timeline>();
  private readonly bootMs = bootEpochMs();
  private readonly timer: NodeJS.Timeout;
  /** Resolves at the first sample after `finished` said so. */
  readonly done: Promise<void>;

  constructor(
    private readonly root: number,
    private readonly others: number[],
    finished: () => boolean,
  ) {
    this.sample();
    let resolve!: () => void;
    this.done = new Promise((done) => {
      resolve = done;
    });
    this.timer = setInterval(() => {
      // Read before the sample: the CPU sampled then covers every simulation the checkpoint holds.
      const over = finished();
      this.sample();
      if (over) resolve();
    }, 100);
  }

  sample(): void {
    const now = Date.now();
    for (const pid of [this.root, ...nodeChildren(this.root), ...this.others]) {
      const cpu = threadsCpu(pid, this.bootMs);
      if (!cpu) continue;
      let timeline = this.timelines.get(pid);
      if (!timeline) {
        // It had spent nothing when it started (a worker forked between two samples).
        timeline = [[cpu.startedAt, 0, 0]];
        this.timelines.set(pid, timeline);
      }
      timeline.push([now, cpu.main, cpu.helpers]);
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** A process's CPU between two instants. */
  between(pid: number, fromMs: number, toMs: number): ProcessCpu {
    const timeline = this.timelines.get(pid) ?? [[fromMs, 0, 0]];
    const at = (index: 1 | 2, ms: number) =>
      cpuAt(
        timeline.map((sample) => [sample[0], sample[index]]),
        ms,
      );
    return { mainMs: at(1, toMs) - at(1, fromMs), helpersMs: at(2, toMs) - at(2, fromMs) };
  }
}

/**
 * Follows a checkpoint as the run appends to it: counts its simulation records and keeps the
 * first start and last end among them (each byte is read once).
 */
class CheckpointTail {
  simulations = 0;
  failed = 0;
  firstStart = Number.POSITIVE_INFINITY;
  lastEnd = 0;
  private offset = 0;
  private rest = "";

  constructor(private readonly path: string) {}

  poll(): void {
    let fd: number;
    try {
      fd = openSync(this.path, "r");
    } catch {
      return; // not created yet
    }
    try {
      const buffer = Buffer.alloc(1 << 20);
      for (;;) {
        const read = readSync(fd, buffer, 0, buffer.length, this.offset);
        if (read === 0) break;
        this.offset += read;
        const lines = (this.rest + buffer.toString("utf8", 0, read)).split("\n");
        this.rest = lines.pop()!;
        for (const line of lines) this.line(line);
      }
    } finally {
      closeSync(fd);
    }
  }

  private line(line: string): void {
    if (!line.startsWith('{"kind": "simulation"')) return;
    const start = /"start_time": "([^"]+)"/.exec(line);
    const end = /"end_time": "([^"]+)"/.exec(line);
    if (!start || !end) throw new Error("a checkpoint simulation without start_time and end_time");
    this.simulations++;
    if (!line.includes('"termination_reason": "user_stop"')) this.failed++;
    this.firstStart = Math.min(this.firstStart, epochMs(start[1]!));
    this.lastEnd = Math.max(this.lastEnd, epochMs(end[1]!));
  }
}

/**
 * Runs `tau run` (mock, LLM agent and user against the provider) once, sampling every process's
 * CPU, and stops it once its checkpoint holds every simulation: what comes after the batch (the
 * export, the metrics and pass^k over thousands of trials per task) is not what this measures.
 */
async function measure(dataDir: string, settings: WorkersSettings): Promise<WorkersResult> {
  const folder = mkdtempSync(join(tmpdir(), "tau-bench-workers-"));
  const resultsPath = join(folder, "run", "results.json");
  const trials = Math.max(1, Math.round(settings.simulations / TASKS.length));
  const expected = trials * TASKS.length;
  const { entry, path } = tauEntry();
  const args = [
    path,
    "run",
    "--no-preflight",
    "--domain",
    "mock",
    "--task-ids",
    ...TASKS,
    "--agent-llm",
    "local/fake",
    "--user-llm",
    "local/fake",
    "--llm-base-url",
    settings.baseUrl,
    ...benchRunOptions(trials, settings.concurrency, dataDir, resultsPath),
    ...(settings.workers > 1 ? ["--workers", String(settings.workers)] : []),
  ];
  const env = envWithoutProviderSettings();
  try {
    const loadBefore = loadavg()[0]!;
    const spawnedAt = Date.now();
    const child = spawn(process.execPath, args, { cwd: folder, env, stdio: ["ignore", "ignore", "pipe"] });
    const tail = new CheckpointTail(join(folder, "run", "results.jsonl"));
    let stderr = "";
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((done) => child.once("exit", done));
    const sampler = new CpuSampler(child.pid!, [settings.providerPid], () => {
      tail.poll();
      return tail.simulations >= expected;
    });
    await Promise.race([sampler.done, exited]);
    sampler.stop();
    const loadAfter = loadavg()[0]!;
    const batchEndedAt = Date.now();
    // The pool says how many simulations ran where as it closes, right after the batch.
    for (
      let waited = 0;
      settings.workers > 1 && !/local workers:/.test(stderr) && waited < 10_000;
      waited += 50
    )
      await new Promise((resolve) => setTimeout(resolve, 50));
    // The batch is over: the coordinator goes, and its worker processes with it (their channel closes).
    child.kill("SIGKILL");
    const code = await exited;
    if (tail.simulations < expected)
      throw new Error(
        `tau run exited with ${code} after ${tail.simulations} of ${expected} simulations:\n${stderr.slice(-2000)}`,
      );
    if (tail.failed > 0) throw new Error(`${tail.failed} simulations did not end with the user's stop`);
    const coordinatorPid = child.pid!;
    // A child seen in one or two samples is a short one (`git` for the results' stamp, "node" until it execs).
    const workerPids = [...sampler.timelines]
      .filter(
        ([pid, timeline]) => pid !== coordinatorPid && pid !== settings.providerPid && timeline.length > 3,
      )
      .map(([pid]) => pid);
    const { firstStart, lastEnd } = tail;
    const ran = /local workers: (\d+) .*, ([\d +]+) in/.exec(stderr);
    return {
      entry,
      simulations: tail.simulations,
      startupMs: firstStart - spawnedAt,
      batchMs: lastEnd - firstStart,
      coordinator: sampler.between(coordinatorPid, firstStart, lastEnd),
      coordinatorStartupMs: sum(sampler.between(coordinatorPid, spawnedAt, firstStart)),
      workers: workerPids.map((pid) => sampler.between(pid, firstStart, lastEnd)),
      split: ran ? [Number(ran[1]), ...ran[2]!.split(" + ").map(Number)] : [],
      workerStartupMs: workerPids.map((pid) => sum(sampler.between(pid, spawnedAt, firstStart))),
      provider: sampler.between(settings.providerPid, firstStart, lastEnd),
      checkedAfterMs: batchEndedAt - lastEnd,
      loadBefore,
      loadAfter,
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
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

/** Whose turn a request is: the user simulator's opening or closing one, or the agent's. */
type Turn = "opening" | "closing" | "agent";
/** A body (or a whole response) for each turn. */
type Replies = Record<Turn, Buffer>;

/** Requests the provider process has answered (read over its stdin, see {@link serveProvider}). */
let requests = 0;

/** The turn a request body asks for. */
function turnOf(body: Buffer): Turn {
  if (!body.includes("###STOP###")) return "agent";
  let messages = 0;
  for (let at = body.indexOf('"role":'); at >= 0; at = body.indexOf('"role":', at + 7)) messages++;
  return messages <= 2 ? "opening" : "closing";
}

/** A whole HTTP/1.1 response (status line, headers, body) as one buffer. */
function httpResponse(body: Buffer): Buffer {
  const head = `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: keep-alive\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

const HEADERS_END = Buffer.from("\r\n\r\n");

/**
 * Keep-alive HTTP/1.1 over a raw socket, for the one kind of request the runner sends here (a POST
 * with a content-length): the provider stands in for a remote service, so the less CPU it takes
 * from the two cores the measured processes share, the more the bench measures taubench. Anything
 * else (no content-length, chunked bodies) is answered 400 and ends the connection, so a change on
 * the client's side fails the bench instead of passing unnoticed.
 */
function rawProvider(latencyMs: number, replies: Replies) {
  const responses: Replies = {
    opening: httpResponse(replies.opening),
    closing: httpResponse(replies.closing),
    agent: httpResponse(replies.agent),
  };
  return createNetServer({ noDelay: true }, (socket) => {
    let pending: Buffer = Buffer.alloc(0);
    socket.on("error", () => socket.destroy());
    socket.on("data", (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      for (;;) {
        const headEnd = pending.indexOf(HEADERS_END);
        if (headEnd < 0) return;
        const head = pending.toString("latin1", 0, headEnd).toLowerCase();
        const match = /\r\ncontent-length: *(\d+)/.exec(head);
        if (!match || head.includes("transfer-encoding")) {
          socket.end("HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
          console.error(`bench provider: a request without a content-length: ${head.split("\r\n")[0]}`);
          pending = Buffer.alloc(0);
          return;
        }
        const bodyStart = headEnd + HEADERS_END.length;
        const bodyEnd = bodyStart + Number(match[1]);
        if (pending.length < bodyEnd) return;
        const response = responses[turnOf(pending.subarray(bodyStart, bodyEnd))];
        pending = pending.subarray(bodyEnd);
        requests++;
        setTimeout(() => {
          if (!socket.destroyed) socket.write(response);
        }, latencyMs);
      }
    });
  });
}

/** The same provider on `node:http` (`BENCH_PROVIDER=http`), for comparison: it costs more CPU per request. */
function httpProvider(latencyMs: number, replies: Replies) {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const reply = replies[turnOf(Buffer.concat(chunks))];
      requests++;
      setTimeout(() => {
        response.writeHead(200, { "content-type": "application/json", "content-length": reply.length });
        response.end(reply);
      }, latencyMs);
    });
  });
  server.keepAliveTimeout = 60_000;
  return server;
}

/**
 * The provider process: answers every chat completion after `latencyMs` with one of three
 * pre-encoded replies. The user simulator's requests carry the stop token in their system prompt:
 * its first turn (system prompt and greeting) opens, its next one stops; the agent gets a reply.
 * Each conversation is so three model calls. Prints its base URL, then answers each line on its
 * stdin with how many requests it has answered; ends when its stdin closes.
 */
async function serveProvider(latencyMs: number): Promise<void> {
  const replies: Replies = {
    opening: completion("Hello, I need help with my tasks."),
    closing: completion("That is all. ###STOP###"),
    agent: completion("Thanks, I have noted that."),
  };
  const server =
    process.env.BENCH_PROVIDER === "http"
      ? httpProvider(latencyMs, replies)
      : rawProvider(latencyMs, replies);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ baseUrl: `http://127.0.0.1:${port}/v1` })}\n`);
  // Its CPU is read from /proc; each line on its stdin asks how many requests it has answered.
  for await (const _line of createInterface({ input: process.stdin }))
    process.stdout.write(`${JSON.stringify({ requests })}\n`);
  // Its keep-alive connections would hold the process open: it ends here, with them.
  process.exit(0);
}

/** Starts the provider process. */
async function startProvider(
  latencyMs: number,
): Promise<{ baseUrl: string; pid: number; requests(): Promise<number>; close(): Promise<void> }> {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", fileURLToPath(import.meta.url), "--provider", String(latencyMs)],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const line = await lines.next();
  if (line.done) throw new Error("the bench's provider process ended");
  const { baseUrl } = JSON.parse(line.value) as { baseUrl: string };
  return {
    baseUrl,
    pid: child.pid!,
    async requests() {
      child.stdin!.write("requests\n");
      const answer = await lines.next();
      if (answer.done) throw new Error("the bench's provider process ended");
      return (JSON.parse(answer.value) as { requests: number }).requests;
    },
    async close() {
      child.stdin!.end();
      await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}

const sum = (cpu: ProcessCpu) => cpu.mainMs + cpu.helpersMs;
const rate = (result: WorkersResult) => result.simulations / (result.batchMs / 1000);
/** CPU ms per simulation of the batch, every process (taubench's and the provider's). */
const perSimulation = (result: WorkersResult) =>
  (sum(result.coordinator) +
    result.workers.reduce((total, cpu) => total + sum(cpu), 0) +
    sum(result.provider)) /
  result.simulations;
/** Cores the batch kept busy on average. */
const coresBusy = (result: WorkersResult) => (perSimulation(result) * rate(result)) / 1000;

/** One line: throughput, and every process's CPU per simulation (main thread + helpers). */
function describe(result: WorkersResult): string {
  const per = (ms: number) => (ms / result.simulations).toFixed(2);
  const cpu = (name: string, of: ProcessCpu) =>
    `${name} ${per(sum(of))} (main ${per(of.mainMs)} + helpers ${per(of.helpersMs)})`;
  const parts = [
    cpu("coordinator", result.coordinator),
    ...result.workers.map((of, index) => cpu(`worker ${index + 1}`, of)),
    cpu("provider", result.provider),
  ];
  const split =
    result.split.length > 0
      ? `; ran in the coordinator + workers: ${result.split.join(" + ")} (worker ${result.workers
          .map((of, index) => (sum(of) / (result.split[index + 1] ?? 1)).toFixed(2))
          .join(", ")} ms per simulation it ran)`
      : "";
  return (
    `${result.simulations} simulations (${result.entry}), batch ${(result.batchMs / 1000).toFixed(2)} s = ` +
    `${rate(result).toFixed(0)}/s, start-up ${(result.startupMs / 1000).toFixed(2)} s (CPU ${[result.coordinatorStartupMs, ...result.workerStartupMs].map((ms) => (ms / 1000).toFixed(2)).join(" + ")} s); ` +
    `batch CPU ms per simulation: ${parts.join(", ")}, all ${perSimulation(result).toFixed(2)}; ` +
    `${coresBusy(result).toFixed(2)} cores busy${split}; load average ${result.loadBefore.toFixed(1)} → ${result.loadAfter.toFixed(1)}`
  );
}

/** The benchmark module for `bench/index.ts`. */
export const workersBench: BenchModule = {
  name: "workers",
  description:
    "tau run --workers 2 vs one process: 15,000 mock simulations, c1000, 200 ms per model call, a provider process of its own",
  async run(context: BenchContext): Promise<BenchResult[]> {
    const provider = await startProvider(LATENCY_MS);
    try {
      const base = {
        simulations: Math.round(15_000 * context.scale),
        concurrency: 1000,
        baseUrl: provider.baseUrl,
        providerPid: provider.pid,
      };
      const before = await provider.requests();
      const one = await measure(context.dataDir, { ...base, workers: 1 });
      context.log(`workers: one process: ${describe(one)}`);
      const callsPerSimulation = ((await provider.requests()) - before) / one.simulations;
      const two = await measure(context.dataDir, { ...base, workers: 2 });
      context.log(`workers: --workers 2: ${describe(two)}`);
      // The model's side: a simulation's calls are sequential, so with `concurrency` of them in
      // flight no runner, on any number of cores, finishes more than this many per second.
      const latencyRate = base.concurrency / (callsPerSimulation * (LATENCY_MS / 1000));
      const latencyBound = latencyRate / rate(one);
      const latency =
        `${callsPerSimulation.toFixed(2)} model calls per simulation × ${LATENCY_MS} ms at c${base.concurrency}: ` +
        `at most ${latencyRate.toFixed(0)} simulations/s however many cores, ${latencyBound.toFixed(2)}× one process ` +
        `(1.7× it would be ${((170 * rate(one)) / latencyRate).toFixed(0)}% of that limit)`;
      context.log(`workers: ${latency}`);
      const cores = availableParallelism();
      // What the cores allow over one process: all of them busy at one process's CPU per simulation,
      // or at the CPU per simulation two processes spend.
      const boundSameCpu = cores / coresBusy(one);
      const boundMeasuredCpu = cores / ((perSimulation(two) * rate(one)) / 1000);
      const bound =
        `${cores} cores, one process keeps ${coresBusy(one).toFixed(2)} busy (with the provider): ` +
        `the cores allow at most ${boundSameCpu.toFixed(2)}× at its ${perSimulation(one).toFixed(2)} ms CPU per simulation, ` +
        `${boundMeasuredCpu.toFixed(2)}× at the ${perSimulation(two).toFixed(2)} ms --workers 2 spends`;
      context.log(`workers: ${bound}`);
      const load = `load average ${one.loadBefore.toFixed(1)} → ${one.loadAfter.toFixed(1)}, ${two.loadBefore.toFixed(1)} → ${two.loadAfter.toFixed(1)}`;
      return [
        { subject: "workers", metric: "batch simulations/s, one process", value: rate(one), unit: "per s" },
        { subject: "workers", metric: "batch simulations/s, --workers 2", value: rate(two), unit: "per s" },
        {
          subject: "workers",
          metric: "--workers 2 / one process (batch throughput)",
          value: rate(two) / rate(one),
          unit: "ratio",
          target: 1.7,
          note: `${bound}; ${load}`,
        },
        {
          subject: "workers",
          metric: "best ratio the cores allow (one process's CPU per simulation)",
          value: boundSameCpu,
          unit: "ratio",
          note: `${cores} / ${coresBusy(one).toFixed(2)} cores one process keeps busy`,
        },
        {
          subject: "workers",
          metric: "best ratio the model's latency allows (any number of cores)",
          value: latencyBound,
          unit: "ratio",
          note: latency,
        },
        {
          subject: "workers",
          metric: "start-up to first simulation, --workers 2 − one process",
          value: two.startupMs - one.startupMs,
          unit: "ms",
          note: `${one.startupMs.toFixed(0)} ms vs ${two.startupMs.toFixed(0)} ms; ${load}`,
        },
        {
          subject: "workers",
          metric: "CPU ms per simulation, one process (batch, every process)",
          value: perSimulation(one),
          unit: "ms",
          note: describe(one),
        },
        {
          subject: "workers",
          metric: "CPU ms per simulation, --workers 2 (batch, every process)",
          value: perSimulation(two),
          unit: "ms",
          note: describe(two),
        },
      ];
    } finally {
      await provider.close();
    }
  },
};

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === "--provider") {
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
