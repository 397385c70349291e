/**
 * `tau run --workers N`: N local worker processes (Node child processes, one
 * core each) run the attempts the coordinator's batch hands out; each unit goes
 * to the process with the fewest in flight. Outcomes and provider events come
 * back over IPC; a 429 one process sees is passed to the others, so the pool
 * backs off together. A process that dies fails its attempts as retryable
 * infrastructure errors, and the batch runs them again on the others.
 */
import { type ChildProcess, fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { InfrastructureError } from "../core/errors.ts";
import { packageVersion } from "../core/results-file.ts";
import type { SimulationRun } from "../core/simulation.ts";
import type { WorkUnit } from "../runner/batch.ts";
import type { LlmSettings } from "../runner/evaluate.ts";
import type { ExecutorFactory, ExecutorHooks, UnitExecutor } from "../runner/unit-executor.ts";
import { WorkerRefusedError } from "./host.ts";
import {
  decodeOutcome,
  encodeConfig,
  type FromWorker,
  type RunDescriptor,
  type ToWorker,
  type WireOutcome,
} from "./protocol.ts";

/** How a child is started: the compiled entry as is, the TypeScript one through tsx (sources, tests). */
function childEntry(): { path: string; execArgv: string[] } {
  const fromSources = import.meta.url.endsWith(".ts");
  const path = fileURLToPath(new URL(fromSources ? "./child-main.ts" : "./child-main.js", import.meta.url));
  if (!fromSources) return { path, execArgv: [] };
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  return { path, execArgv: ["--import", tsx] };
}

interface Pending {
  resolve(outcome: WireOutcome): void;
  reject(error: Error): void;
}

/** One worker process and the attempts it holds. */
class LocalWorker {
  readonly pending = new Map<number, Pending>();
  alive = true;

  constructor(
    readonly index: number,
    readonly child: ChildProcess,
  ) {}

  send(message: ToWorker): void {
    if (this.alive && this.child.connected) this.child.send(message);
  }
}

/** Starts `count` worker processes for a plan and waits until every one has planned the run. */
async function startPool(
  count: number,
  descriptor: RunDescriptor,
  hooks: ExecutorHooks,
): Promise<LocalWorker[]> {
  const entry = childEntry();
  const workers: LocalWorker[] = [];
  const ready: Promise<void>[] = [];
  for (let index = 0; index < count; index++) {
    const child = fork(entry.path, [], {
      execArgv: entry.execArgv,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const worker = new LocalWorker(index, child);
    workers.push(worker);
    ready.push(
      new Promise<void>((resolve, reject) => {
        const onExit = (code: number | null, signal: string | null) =>
          reject(
            new InfrastructureError(
              `local worker ${index + 1} exited while starting (${signal ?? `code ${code}`})`,
              { stopsRun: true },
            ),
          );
        child.once("exit", onExit);
        child.on("message", function first(message: FromWorker) {
          if (message.type !== "ready" && message.type !== "refused") return;
          child.off("message", first);
          child.off("exit", onExit);
          if (message.type === "ready") resolve();
          else reject(new WorkerRefusedError(message.message));
        });
      }),
    );
    child.on("message", (message: FromWorker) => onMessage(workers, worker, message, hooks));
    child.on("exit", (code, signal) => {
      worker.alive = false;
      if (worker.pending.size === 0) return;
      hooks.note(
        `local worker ${index + 1} exited (${signal ?? `code ${code}`}); its ${worker.pending.size} simulation(s) run again`,
      );
      for (const pending of worker.pending.values())
        pending.reject(
          new InfrastructureError(`local worker ${index + 1} exited (${signal ?? `code ${code}`})`),
        );
      worker.pending.clear();
    });
    worker.send({ type: "open", descriptor });
  }
  try {
    await Promise.all(ready);
  } catch (error) {
    await stopPool(workers);
    throw error;
  }
  return workers;
}

function onMessage(
  workers: LocalWorker[],
  from: LocalWorker,
  message: FromWorker,
  hooks: ExecutorHooks,
): void {
  switch (message.type) {
    case "ready":
    case "refused":
      return;
    case "llm":
      for (const event of message.events) {
        hooks.onLlmEvent(event);
        if (event.type === "rate_limited")
          for (const other of workers)
            if (other !== from) other.send({ type: "rate_limited", model: event.model });
      }
      return;
    case "outcome": {
      const pending = from.pending.get(message.id);
      from.pending.delete(message.id);
      pending?.resolve(message.outcome);
      return;
    }
    default: {
      const never: never = message;
      throw new Error(`unknown worker message ${String(never)}`);
    }
  }
}

/** Asks every process to leave (it exits when its channel closes), killing the ones that linger. */
async function stopPool(workers: readonly LocalWorker[]): Promise<void> {
  await Promise.all(
    workers.map(
      (worker) =>
        new Promise<void>((resolve) => {
          const { child } = worker;
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
          child.once("exit", () => {
            clearTimeout(timer);
            resolve();
          });
          if (child.connected) child.disconnect();
          else child.kill("SIGTERM");
        }),
    ),
  );
}

/** Runs a plan's units in `count` local worker processes; `llm` is how they build model clients. */
export function localWorkers(count: number, llm: LlmSettings): ExecutorFactory {
  return async (plan, hooks): Promise<UnitExecutor> => {
    const descriptor: RunDescriptor = {
      runId: randomUUID(),
      config: encodeConfig(plan.config),
      llm,
      version: packageVersion(),
      // Same machine, same files: the workers' plans are the coordinator's (a digest would cost a DB hash).
      digest: null,
    };
    const workers = await startPool(count, descriptor, hooks);
    let nextId = 0;
    return {
      run(unit: WorkUnit, signal: AbortSignal): Promise<SimulationRun> {
        const alive = workers.filter((worker) => worker.alive);
        if (alive.length === 0)
          return Promise.reject(
            new InfrastructureError("every local worker process exited", { stopsRun: true }),
          );
        const worker = alive.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
        const id = nextId++;
        return new Promise<WireOutcome>((resolve, reject) => {
          worker.pending.set(id, { resolve, reject });
          worker.send({
            type: "run",
            id,
            unit: { trial: unit.trial, taskId: unit.task.id, seed: unit.seed },
          });
          signal.addEventListener("abort", () => worker.send({ type: "abort", id }), { once: true });
        }).then((outcome) => decodeOutcome(outcome, `local worker ${worker.index + 1}`));
      },
      close: () => stopPool(workers),
    };
  };
}
