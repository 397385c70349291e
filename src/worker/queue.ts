/**
 * Distributed runs on BullMQ and Redis. The coordinator (`tau run --queue
 * redis://…`) adds one job per attempt of a unit, with the idempotent id
 * `(run, trial, task, seed)`, reads each outcome back and alone writes the
 * checkpoint; `tau worker --queue redis://…` (any number, on any machine)
 * plans the run from the job's descriptor and executes the attempts. A killed
 * worker's jobs are taken up again by the others once its lock expires; a
 * finished job waits in Redis until its coordinator (maybe a resumed one)
 * reads it. The per-provider call limits of a run are the fleet's, kept in
 * Redis (fleet-limits.ts): a 429 seen by any worker halves what all of them
 * send to that provider. BullMQ and ioredis are loaded only here, when a
 * queue is asked for.
 */
import { createHash } from "node:crypto";
import { hostname } from "node:os";
import type { Job, Queue, QueueEvents, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { UrlAgentSpec } from "../agents/url-agent.ts";
import { InfrastructureError, UsageError } from "../core/errors.ts";
import { packageVersion } from "../core/results-file.ts";
import type { SimulationRun } from "../core/simulation.ts";
import type { LlmEvent } from "../llm/events.ts";
import type { WorkUnit } from "../runner/batch.ts";
import type { LlmSettings } from "../runner/evaluate.ts";
import { PreflightError } from "../runner/preflight.ts";
import type { ExecutorFactory, UnitExecutor } from "../runner/unit-executor.ts";
import { FLEET_RELEASED_CHANNEL, FleetLimits } from "./fleet-limits.ts";
import { UnitHost, WorkerRefusedError } from "./host.ts";
import {
  decodeOutcome,
  encodeConfig,
  planDigest,
  type RunDescriptor,
  type UnitRef,
  type WireOutcome,
} from "./protocol.ts";

/** The BullMQ queue every coordinator and worker of a Redis database shares. */
export const QUEUE_NAME = "taubench";
/** Pub/sub channels of the fleet's limit decreases (workers log them) and of lines for coordinators. */
const DECREASE_CHANNEL = "taubench:fleet-decreased";
const NOTE_CHANNEL = "taubench:notes";

/** What a job carries. */
interface UnitJob {
  descriptor: RunDescriptor;
  unit: UnitRef;
}

/** What a job returns: the attempt's outcome and the worker's provider events since its last job. */
interface UnitJobResult {
  outcome: WireOutcome;
  events: LlmEvent[];
}

/** Checks a `--queue` URL: `redis://` or `rediss://` (TLS), with an optional `/DB`. */
export function checkQueueUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--queue must be a redis:// URL (redis://HOST:PORT/DB), got '${url}'`);
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:")
    throw new UsageError(`--queue must be a redis:// or rediss:// URL, got '${url}'`);
  return url;
}

type Bullmq = typeof import("bullmq");

async function loadBullmq(): Promise<{ bullmq: Bullmq; Redis: typeof Redis }> {
  try {
    const [bullmq, ioredis] = await Promise.all([import("bullmq"), import("ioredis")]);
    return { bullmq, Redis: ioredis.Redis };
  } catch (error) {
    throw new UsageError("--queue needs the bullmq and ioredis packages (npm install bullmq ioredis)", {
      cause: error,
    });
  }
}

/** BullMQ's connection options: its own reconnecting ioredis clients, commands wait while Redis is away. */
const connectionFor = (url: string) => ({ url, maxRetriesPerRequest: null });

/** How long the first connection to `--queue` may take before the command gives up on it. */
const FIRST_CONNECT_TIMEOUT_MS = 5000;

/**
 * Connects once, without retrying. The clients BullMQ uses reconnect forever (right while a run is
 * under way: Redis may restart), so a Redis that is not there at the start would be waited for
 * forever; it is one line now instead.
 */
export async function assertRedisReachable(
  url: string,
  timeoutMs = FIRST_CONNECT_TIMEOUT_MS,
  Client?: typeof Redis,
): Promise<void> {
  const RedisClient = Client ?? (await loadBullmq()).Redis;
  const probe = new RedisClient(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
  });
  // connect() rejects with "Connection is closed."; the reason (ECONNREFUSED, a timeout) comes here.
  let reason: Error | undefined;
  probe.on("error", (error: Error) => {
    reason ??= error;
  });
  try {
    await probe.connect();
    await probe.ping();
  } catch (error) {
    const message = (reason ?? (error as Error)).message;
    throw new InfrastructureError(`--queue: cannot reach Redis at ${url}: ${message}`, {
      cause: error,
      isRetryable: false,
      stopsRun: true,
    });
  } finally {
    probe.disconnect();
  }
}

/** Event emitters that report errors (BullMQ's queue, events and worker; ioredis clients). */
interface ErrorEmitter {
  on(event: "error", listener: (error: Error) => void): unknown;
}

/**
 * Turns the errors of `emitters` into lines for `log`, one per message every `quietMs`: while Redis
 * is away, ioredis and BullMQ would print a stack for every reconnect attempt.
 */
export function reportConnectionErrors(
  emitters: readonly ErrorEmitter[],
  url: string,
  log: (line: string) => void,
  quietMs = 30_000,
): void {
  const lastLogged = new Map<string, number>();
  const onError = (error: Error) => {
    const now = Date.now();
    const last = lastLogged.get(error.message);
    if (last !== undefined && now - last < quietMs) return;
    lastLogged.set(error.message, now);
    log(`queue ${url}: ${error.message}`);
  };
  for (const emitter of emitters) emitter.on("error", onError);
}

/** The job id of a unit: the run's id, trial, task and seed (BullMQ forbids `:` in ids). */
export function jobIdFor(runId: string, unit: UnitRef): string {
  return `${runId}-${unit.trial}-${encodeURIComponent(unit.taskId)}-${unit.seed}`;
}

/**
 * Resolves once the job's outcome is read. A failed attempt's job is removed at once (the retry
 * reuses the id); a simulation's stays until the checkpoint holds it, so a coordinator killed in
 * between finds it again when resumed.
 */
interface Waiter {
  resolve(result: UnitJobResult): void;
  reject(error: Error): void;
  job: UnitJob;
}

/**
 * The coordinator's side: units of the plan go to the queue, their outcomes come back through
 * BullMQ's queue events, and a sweep every `sweepMs` re-reads jobs whose event was missed (a
 * reconnect) and adds again the ones Redis lost (a restart without persistence).
 */
export function queueExecutor(
  url: string,
  llm: LlmSettings,
  options: { agent?: UrlAgentSpec; sweepMs?: number } = {},
): ExecutorFactory {
  const sweepMs = options.sweepMs ?? 2000;
  checkQueueUrl(url);
  return async (plan, hooks): Promise<UnitExecutor> => {
    const { bullmq, Redis } = await loadBullmq();
    // Nothing has run yet: like an endpoint failing its pre-flight call, the run evaluated nothing (exit 4).
    await assertRedisReachable(url, FIRST_CONNECT_TIMEOUT_MS, Redis).catch((error: Error) => {
      throw new PreflightError(error.message, { cause: error });
    });
    const connection = connectionFor(url);
    const queue: Queue = new bullmq.Queue(QUEUE_NAME, { connection });
    const events: QueueEvents = new bullmq.QueueEvents(QUEUE_NAME, { connection });
    const subscriber = new Redis(url, { maxRetriesPerRequest: null });
    reportConnectionErrors([queue, events, subscriber], url, (line) => hooks.note(line));
    const removals = new Set<Promise<unknown>>();
    const close = async () => {
      clearInterval(timer);
      await Promise.allSettled([...removals]);
      await Promise.allSettled([queue.close(), events.close(), subscriber.quit()]);
    };
    const waiters = new Map<string, Waiter>();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
    } catch (error) {
      await close();
      throw new InfrastructureError(`cannot reach Redis at ${url}: ${(error as Error).message}`, {
        cause: error,
        stopsRun: true,
      });
    }
    const descriptor: RunDescriptor = {
      runId: hooks.runId,
      // An agent behind a URL is rebuilt by each worker from its spec (the name stands in for it here).
      config: encodeConfig(options.agent ? { ...plan.config, agent: options.agent.protocol } : plan.config),
      llm,
      version: packageVersion(),
      digest: planDigest(plan),
      ...(options.agent ? { agent: options.agent } : {}),
    };

    const settle = async (jobId: string, result: UnitJobResult | Error) => {
      const waiter = waiters.get(jobId);
      if (!waiter) return;
      waiters.delete(jobId);
      if (result instanceof Error || result.outcome.kind === "error")
        await queue.remove(jobId).catch(() => 0);
      if (result instanceof Error) waiter.reject(result);
      else waiter.resolve(result);
    };
    const failed = (jobId: string, reason: string) =>
      new InfrastructureError(`queue job ${jobId} failed: ${reason}`);
    events.on("completed", ({ jobId, returnvalue }) => {
      void settle(jobId, returnvalue as unknown as UnitJobResult);
    });
    events.on("failed", ({ jobId, failedReason }) => {
      void settle(jobId, failed(jobId, failedReason));
    });
    const check = async (jobId: string) => {
      const waiter = waiters.get(jobId);
      if (!waiter) return;
      const job = (await queue.getJob(jobId)) as Job | undefined;
      if (!job) {
        // Redis lost it (restarted without persistence): add it again.
        await queue.add("unit", waiter.job, { jobId, removeOnComplete: false, removeOnFail: false });
        return;
      }
      if (job.finishedOn === undefined) return;
      if (job.failedReason) await settle(jobId, failed(jobId, job.failedReason));
      else await settle(jobId, job.returnvalue as UnitJobResult);
    };
    timer = setInterval(() => {
      for (const jobId of [...waiters.keys()]) void check(jobId).catch(() => {});
    }, sweepMs);
    timer.unref();

    await subscriber.subscribe(NOTE_CHANNEL);
    subscriber.on("message", (_channel: string, message: string) => {
      const note = JSON.parse(message) as { runId: string; message: string };
      if (note.runId === descriptor.runId) hooks.note(note.message);
    });

    return {
      async run(unit: WorkUnit): Promise<SimulationRun> {
        const ref: UnitRef = { trial: unit.trial, taskId: unit.task.id, seed: unit.seed };
        const jobId = jobIdFor(descriptor.runId, ref);
        const job: UnitJob = { descriptor, unit: ref };
        const result = await new Promise<UnitJobResult>((resolve, reject) => {
          waiters.set(jobId, { resolve, reject, job });
          // Added if absent; a job of the same id already there (a resumed coordinator's) is read instead.
          queue
            .add("unit", job, { jobId, removeOnComplete: false, removeOnFail: false })
            .then(() => check(jobId))
            .catch((error: unknown) => {
              waiters.delete(jobId);
              reject(error instanceof Error ? error : new Error(String(error)));
            });
        });
        for (const event of result.events) hooks.onLlmEvent(event);
        return decodeOutcome(result.outcome, `queue job ${jobId}`);
      },
      recorded(unit: WorkUnit): void {
        const ref: UnitRef = { trial: unit.trial, taskId: unit.task.id, seed: unit.seed };
        const removal = queue.remove(jobIdFor(descriptor.runId, ref)).catch(() => 0);
        removals.add(removal);
        void removal.finally(() => removals.delete(removal));
      },
      close,
    };
  };
}

/** Settings of {@link runQueueWorker}. */
export interface QueueWorkerOptions {
  url: string;
  /** Simulations this worker runs at once. */
  concurrency: number;
  /** This machine's data folder (default: the coordinator's path, as the job names it). */
  dataDir?: string | undefined;
  /** How long a job stays locked to this worker without a heartbeat; a killed worker's jobs move on after it. */
  lockDurationMs?: number;
  /** Lines for the operator. */
  log(line: string): void;
  /** Stops taking jobs; resolves once the jobs in hand are finished. */
  signal?: AbortSignal;
}

/**
 * `tau worker`: serves the queue until `signal` aborts, or until a run it must refuse arrives (a
 * different taubench version or other data): then it puts the job back, says why in one line
 * (to its operator and to the run's coordinator) and stops, resolving to that line.
 */
export async function runQueueWorker(options: QueueWorkerOptions): Promise<string | null> {
  const url = checkQueueUrl(options.url);
  const { bullmq, Redis } = await loadBullmq();
  await assertRedisReachable(url, FIRST_CONNECT_TIMEOUT_MS, Redis);
  const connection = connectionFor(url);
  const publisher = new Redis(url, { maxRetriesPerRequest: null });
  const subscriber = new Redis(url, { maxRetriesPerRequest: null });
  reportConnectionErrors([publisher, subscriber], url, options.log);
  const me = `${hostname()}:${process.pid}`;
  const hosts = new Map<string, Promise<UnitHost>>();
  let pendingEvents: LlmEvent[] = [];
  let refusal: string | null = null;

  const lockDuration = options.lockDurationMs ?? 30_000;
  const fleet = new FleetLimits({
    redis: publisher,
    workerId: me,
    // A killed worker's call slots come back when its jobs do.
    leaseMs: lockDuration,
    onDecrease: (runId, key, limit) =>
      void publisher
        .publish(DECREASE_CHANNEL, JSON.stringify({ runId, key, limit, from: me }))
        .catch(() => 0),
  });
  const onLlmEvent = (event: LlmEvent) => {
    pendingEvents.push(event);
  };
  await subscriber.subscribe(FLEET_RELEASED_CHANNEL, DECREASE_CHANNEL);
  subscriber.on("message", (channel: string, message: string) => {
    if (channel === FLEET_RELEASED_CHANNEL) return fleet.released(message);
    const { runId, key, limit, from } = JSON.parse(message) as Record<string, string>;
    options.log(
      `run ${runId}: a 429 from ${key} (seen by worker ${from}); the fleet's limit for it is now ${limit}`,
    );
  });

  const hostFor = (descriptor: RunDescriptor): Promise<UnitHost> => {
    const key = createHash("sha256").update(JSON.stringify(descriptor)).digest("hex");
    let host = hosts.get(key);
    if (!host) {
      host = UnitHost.open(descriptor, {
        dataDir: options.dataDir,
        onLlmEvent,
        scheduler: (maxConcurrency, keyOf) => fleet.scheduler(descriptor.runId, maxConcurrency, keyOf),
      });
      hosts.set(key, host);
      host.then(
        () => options.log(`serving run ${descriptor.runId}`),
        () => hosts.delete(key),
      );
    }
    return host;
  };

  let worker: Worker;
  const stopped = new Promise<void>((resolve) => {
    const processor = async (job: Job<UnitJob>, token?: string): Promise<UnitJobResult> => {
      let host: UnitHost;
      try {
        host = await hostFor(job.data.descriptor);
      } catch (error) {
        if (!(error instanceof WorkerRefusedError)) throw error;
        // Not this worker's run: the job goes back for another worker, and this one leaves.
        if (refusal === null) {
          refusal = `${error.message} (worker ${me})`;
          options.log(refusal);
          await publisher
            .publish(NOTE_CHANNEL, JSON.stringify({ runId: job.data.descriptor.runId, message: refusal }))
            .catch(() => 0);
          setImmediate(() => void worker.close().then(resolve));
        }
        await job.moveToWait(token);
        throw new bullmq.WaitingError();
      }
      const outcome = await host.run(job.data.unit, new AbortController().signal);
      const events = pendingEvents;
      pendingEvents = [];
      return { outcome, events };
    };
    worker = new bullmq.Worker<UnitJob, UnitJobResult>(QUEUE_NAME, processor, {
      connection,
      concurrency: options.concurrency,
      lockDuration,
      stalledInterval: Math.max(500, Math.floor(lockDuration / 2)),
      // A job whose workers keep dying is failed (then retried by the coordinator's batch) after this many.
      maxStalledCount: 3,
    });
    reportConnectionErrors([worker], url, options.log);
    worker.on("stalled", (jobId) => options.log(`job ${jobId} lost its worker; it runs again`));
    options.signal?.addEventListener("abort", () => void worker.close().then(resolve), { once: true });
  });
  options.log(`tau worker ${me}: serving queue ${QUEUE_NAME} at ${url} (concurrency ${options.concurrency})`);
  await stopped;
  fleet.close();
  await Promise.allSettled([publisher.quit(), subscriber.quit()]);
  return refusal;
}
