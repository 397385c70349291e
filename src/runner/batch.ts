/**
 * Runs the units of a run with bounded concurrency: each simulation is retried
 * from scratch on an exception (upstream's `run_with_retry`, P6), then recorded
 * as an `infrastructure_error` placeholder. A result is made durable (recorded)
 * before it is reported. Aborting stops new work and abandons what is in flight;
 * so does an error that would fail every simulation alike (`stopsRun`, e.g. a
 * rejected API key), which is reported instead of being recorded per task.
 */
import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import { runStoppingError } from "../core/errors.ts";
import { nowIso } from "../core/messages.ts";
import { LlmError } from "../llm/errors.ts";
import type { SimulationRun } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import { simulationKey } from "./checkpoint.ts";

/** One simulation to run: upstream's work unit `(trial, task, seed)`. */
export interface WorkUnit {
  trial: number;
  task: Task;
  seed: number;
  /** {@link simulationKey} of the unit, made once: every map of the run shares this string. */
  key: string;
}

/** Units in upstream's order: trial-major, tasks in selection order. */
export function planUnits(tasks: readonly Task[], seeds: readonly number[]): WorkUnit[] {
  return seeds.flatMap((seed, trial) =>
    tasks.map((task) => ({ trial, task, seed, key: simulationKey(trial, task.id, seed) })),
  );
}

/** Upstream's placeholder for a simulation that kept failing (spec §11.3). */
export function infrastructureErrorSimulation(
  unit: Pick<WorkUnit, "trial" | "task" | "seed">,
  error: unknown,
  attempts: number,
): SimulationRun {
  const now = nowIso();
  const err = error instanceof Error ? error : new Error(String(error));
  return {
    id: randomUUID(),
    task_id: unit.task.id,
    timestamp: now,
    start_time: now,
    end_time: now,
    duration: 0,
    termination_reason: "infrastructure_error",
    agent_cost: null,
    user_cost: null,
    reward_info: null,
    messages: [],
    trial: unit.trial,
    seed: unit.seed,
    mode: "half_duplex",
    info: {
      error: err.message,
      error_type: err.name,
      error_traceback: err.stack ?? null,
      failed_after_attempts: attempts,
      ...faultLabel(error),
    },
  };
}

/**
 * The provider fault behind an error, as a label (`error_kind`: rate_limit, server, network,
 * timeout, context_overflow, invalid_tool_arguments, empty_response, …; `status_code` when HTTP
 * said one), so a results file says what failed without parsing messages. Empty when no LLM-layer
 * error is in the cause chain.
 */
export function faultLabel(error: unknown): { error_kind?: string; status_code?: number } {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof LlmError)
      return { error_kind: e.kind, ...(e.statusCode === undefined ? {} : { status_code: e.statusCode }) };
  }
  return {};
}

/** Settings and hooks of {@link runBatch}. */
export interface BatchOptions {
  units: readonly WorkUnit[];
  /** Simulations in flight at once. */
  maxConcurrency: number;
  /** Extra attempts after the first (upstream `--max-retries`, default 3). */
  maxRetries: number;
  /** Pause between attempts (upstream `--retry-delay`, fixed, no backoff). */
  retryDelayMs: number;
  /** Runs and grades one simulation; throws on upstream's exception cases. */
  runSimulation(unit: WorkUnit, signal: AbortSignal): Promise<SimulationRun>;
  /** Makes a finished simulation durable (the checkpoint append). */
  record(simulation: SimulationRun): Promise<void>;
  /** Called after {@link record} succeeded. */
  onFinished?(simulation: SimulationRun, unit: WorkUnit): void;
  onStart?(unit: WorkUnit): void;
  /** Called before a retry; `attempt` is the number of failed attempts so far. */
  onRetry?(unit: WorkUnit, attempt: number, error: unknown): void;
  /** Stops the batch: no new units start, in-flight ones are abandoned (not recorded). */
  signal?: AbortSignal;
}

/** How a batch ended. */
export interface BatchOutcome {
  /** Simulations recorded (infrastructure errors included). */
  recorded: number;
  /** Units that never started or were abandoned. */
  notRun: number;
  interrupted: boolean;
  /** The error that stopped the batch (see `InfrastructureError.stopsRun`); null when none did. */
  stoppedBy: Error | null;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });

/** Runs every unit; resolves when all are recorded, or soon after an abort. */
export async function runBatch(options: BatchOptions): Promise<BatchOutcome> {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  const outer = options.signal;
  const onAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) onAbort();
  else outer?.addEventListener("abort", onAbort, { once: true });
  const signal = controller.signal;
  // Each attempt gets its own signal, aborted from here. Model calls listen on the signal they
  // get, and an EventTarget's add/remove are linear in its listener count: hundreds of calls
  // on one shared signal would make every call pay for all the others.
  const attempts = new Set<AbortController>();
  signal.addEventListener(
    "abort",
    () => {
      for (const attempt of attempts) attempt.abort(signal.reason);
    },
    { once: true },
  );

  let next = 0;
  let recorded = 0;
  const writes = new Set<Promise<void>>();
  let writeError: unknown = null;
  let stoppedBy: Error | null = null;

  const runUnit = async (unit: WorkUnit): Promise<SimulationRun | null> => {
    for (let attempt = 0; ; attempt++) {
      if (signal.aborted) return null;
      const attemptController = new AbortController();
      attempts.add(attemptController);
      try {
        const simulation = await options.runSimulation(unit, attemptController.signal);
        return { ...simulation, trial: unit.trial, seed: unit.seed };
      } catch (error) {
        if (signal.aborted) return null;
        const stopping = runStoppingError(error);
        if (stopping) {
          stoppedBy ??= stopping;
          controller.abort(stopping);
          return null;
        }
        if (attempt >= options.maxRetries) return infrastructureErrorSimulation(unit, error, attempt + 1);
        options.onRetry?.(unit, attempt + 1, error);
      } finally {
        attempts.delete(attemptController);
      }
      await sleep(options.retryDelayMs, signal);
    }
  };

  const worker = async () => {
    while (!signal.aborted && writeError === null && next < options.units.length) {
      const unit = options.units[next++]!;
      options.onStart?.(unit);
      const simulation = await runUnit(unit);
      if (simulation === null || writeError !== null) return;
      // Once a result exists it is written even if an abort arrives meanwhile: finished work is kept.
      // The worker moves on without waiting for the disk; the result is reported only once durable.
      const write = options.record(simulation).then(
        () => {
          recorded++;
          options.onFinished?.(simulation, unit);
        },
        (error: unknown) => {
          writeError ??= error;
          controller.abort(error);
        },
      );
      writes.add(write);
      void write.finally(() => writes.delete(write));
      // Offline participants never wait on I/O; yield so disk writes, timers and Ctrl-C get a turn.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  };

  const workers = Promise.all(Array.from({ length: Math.max(1, options.maxConcurrency) }, worker));
  const aborted = new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
  await Promise.race([workers, aborted]);
  while (writes.size > 0) await Promise.allSettled([...writes]);
  outer?.removeEventListener("abort", onAbort);
  if (writeError !== null) throw writeError;
  return {
    recorded,
    notRun: options.units.length - recorded,
    interrupted: outer?.aborted ?? false,
    stoppedBy,
  };
}
