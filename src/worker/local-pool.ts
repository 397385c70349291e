/**
 * `tau run --workers N`: the run's attempts spread over N processes on this
 * machine, one core each: the coordinator itself and N-1 worker processes
 * (Node child processes). The coordinator runs attempts from the first moment,
 * the children (forked before the coordinator plans) as soon as they have
 * planned the run; each unit goes to the process with the fewest in flight,
 * weighed by how busy its event loop is (see `busyness`), so a busier process
 * gets fewer. Units
 * given to a child that is still starting wait in the coordinator, which takes
 * them back one for each attempt it finishes meanwhile. A child sends back a
 * simulation as its checkpoint line, which the coordinator writes as is, with
 * the slim copy it keeps, so the coordinator neither parses nor encodes it
 * again. Provider events come back too; a 429 one process sees is passed to
 * the others, so the pool backs off together. A child that dies fails its
 * attempts as retryable infrastructure errors, and the batch runs them again;
 * one that cannot start gives its waiting units to the others. */
import { type ChildProcess, fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { UrlAgentSpec } from "../agents/url-agent.ts";
import { InfrastructureError } from "../core/errors.ts";
import { packageVersion } from "../core/results-file.ts";
import type { SimulationRun } from "../core/simulation.ts";
import type { LlmEvent } from "../llm/events.ts";
import type { WorkUnit } from "../runner/batch.ts";
import { withEncodedLine } from "../runner/checkpoint.ts";
import type { LlmSettings } from "../runner/evaluate.ts";
import type { ExecutorFactory, ExecutorHooks, UnitExecutor } from "../runner/unit-executor.ts";
import { UnitHost } from "./host.ts";
import {
  encodeConfig,
  type FromWorker,
  fromCloneable,
  type LocalOutcome,
  Outbox,
  type RunDescriptor,
  rebuildError,
  type ToWorker,
  type UnitRef,
  watchLoad,
} from "./protocol.ts";

/**
 * Starts a worker process: the compiled entry with this process's Node options (as `fork` does by
 * default: `--max-old-space-size`, `--cpu-prof`, … reach the workers too), or the TypeScript one
 * through tsx (sources, tests). It waits, holding nothing of this process's life, for its run.
 */
function forkWorker(): ChildProcess {
  const fromSources = import.meta.url.endsWith(".ts");
  const path = fileURLToPath(new URL(fromSources ? "./child-main.ts" : "./child-main.js", import.meta.url));
  const tsx = fromSources ? pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href : null;
  const child = fork(path, [], {
    ...(tsx ? { execArgv: ["--import", tsx] } : {}),
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    // V8's structured clone: a checkpoint line crosses as a string, not escaped inside JSON.
    serialization: "advanced",
  });
  // Until a run takes it, it must not keep this process alive (a run with nothing to do never does).
  child.unref();
  child.channel?.unref();
  return child;
}

/** The simulation of a child's outcome (its slim copy carrying its checkpoint line), or its error rebuilt and thrown. */
function localSimulation(outcome: LocalOutcome): SimulationRun {
  if (outcome.kind === "error") throw rebuildError(outcome.error);
  return withEncodedLine(fromCloneable(outcome.slim), outcome.line);
}

const refOf = (unit: WorkUnit): UnitRef => ({ trial: unit.trial, taskId: unit.task.id, seed: unit.seed });

/** An attempt a child holds. */
interface Pending {
  unit: WorkUnit;
  signal: AbortSignal;
  resolve(simulation: SimulationRun): void;
  reject(error: unknown): void;
}

/** One place attempts run: the coordinator's own process or a child. */
interface Slot {
  /** Attempts it holds now (a starting child's waiting ones included). */
  readonly inFlight: number;
  /** How busy its event loop was of late (0–1; see {@link watchLoad}). */
  utilization: number;
  /** Takes attempts (false once a child exited or could not start). */
  readonly usable: boolean;
  run(unit: WorkUnit, signal: AbortSignal): Promise<SimulationRun>;
  rateLimited(model: string): void;
}

/** The coordinator's own process as a slot: attempts run on its plan, as in a one-process run. */
class HereSlot implements Slot {
  inFlight = 0;
  utilization = 0;
  finished = 0;

  constructor(
    /** False: the coordinator runs attempts only when no child can. */
    readonly usable: boolean,
    private readonly host: UnitHost,
    /** Called after each attempt here: room for another. */
    private readonly onFree: () => void,
  ) {}

  async run(unit: WorkUnit, signal: AbortSignal): Promise<SimulationRun> {
    this.inFlight++;
    try {
      const simulation = await this.host.simulate(refOf(unit), signal);
      this.finished++;
      return simulation;
    } finally {
      this.inFlight--;
      this.onFree();
    }
  }

  rateLimited(model: string): void {
    this.host.rateLimited(model);
  }
}

/** A worker process and the attempts it holds. */
class ChildSlot implements Slot {
  readonly pending = new Map<number, Pending>();
  /** Attempts given to it while it starts, kept here until it is ready (the coordinator may take them back). */
  readonly waiting: (Pending & { id: number })[] = [];
  ready = false;
  alive = true;
  finished = 0;
  utilization = 0;
  private nextId = 0;
  private readonly outbox = new Outbox<ToWorker>((messages) => {
    if (this.alive && this.child.connected) this.child.send(messages);
  });

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    child.ref();
    child.channel?.ref();
  }

  get inFlight(): number {
    return this.pending.size + this.waiting.length;
  }

  get usable(): boolean {
    return this.alive;
  }

  run(unit: WorkUnit, signal: AbortSignal): Promise<SimulationRun> {
    const id = this.nextId++;
    return new Promise<SimulationRun>((resolve, reject) => {
      const attempt = { id, unit, signal, resolve, reject };
      if (this.ready) this.start(attempt);
      else this.waiting.push(attempt);
      signal.addEventListener(
        "abort",
        () => {
          const at = this.waiting.indexOf(attempt);
          if (at < 0) return this.send({ type: "abort", id });
          this.waiting.splice(at, 1);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  /** The child has planned the run: the attempts kept for it go to it now. */
  becameReady(): void {
    this.ready = true;
    for (const attempt of this.waiting.splice(0)) this.start(attempt);
  }

  private start(attempt: Pending & { id: number }): void {
    this.pending.set(attempt.id, attempt);
    this.send({ type: "run", id: attempt.id, unit: refOf(attempt.unit) });
  }

  rateLimited(model: string): void {
    this.send({ type: "rate_limited", model });
  }

  send(message: ToWorker): void {
    this.outbox.post(message);
  }
}

/**
 * How loaded a slot looks to the dispatcher: its attempts in flight, weighed by how busy its event
 * loop is. Alike processes share the attempts evenly; a process whose loop is saturated (the
 * coordinator also writes every simulation and handles every event) gets fewer, so at a CPU-bound
 * setting the work moves to where there is CPU left, and neither loop holds the other up.
 */
function busyness(slot: Slot): number {
  return (slot.inFlight + 1) / Math.max(0.02, 1 - slot.utilization);
}

/** The coordinator and its children; {@link LocalPool.run} hands each attempt to the least busy. */
class LocalPool implements UnitExecutor {
  private readonly here: HereSlot;
  private readonly children: ChildSlot[] = [];
  private readonly slots: Slot[];
  private readonly loadTimer: NodeJS.Timeout;

  constructor(
    private readonly hooks: ExecutorHooks,
    here: UnitHost,
    children: ChildProcess[],
    descriptor: RunDescriptor,
    options: { coordinatorRuns: boolean },
  ) {
    this.here = new HereSlot(options.coordinatorRuns, here, () => this.takeWaiting());
    this.slots = [this.here];
    this.loadTimer = watchLoad((utilization) => {
      this.here.utilization = utilization;
    });
    for (const [index, child] of children.entries()) {
      const slot = new ChildSlot(`local worker ${index + 1}`, child);
      child.on("message", (messages: FromWorker[]) => {
        for (const message of messages) this.onMessage(slot, message);
      });
      child.on("exit", (code, signal) => this.onExit(slot, signal ?? `code ${code}`));
      this.children.push(slot);
      this.slots.push(slot);
      // Forked early, it may have died before the run came (its exit event is past).
      if (child.exitCode !== null || child.signalCode !== null)
        queueMicrotask(() => this.onExit(slot, child.signalCode ?? `code ${child.exitCode}`));
      else slot.send({ type: "open", descriptor });
    }
  }

  run(unit: WorkUnit, signal: AbortSignal): Promise<SimulationRun> {
    let best: Slot | null = null;
    for (const slot of this.slots)
      if (slot.usable && (best === null || busyness(slot) < busyness(best))) best = slot;
    // No child left and the coordinator kept out: it runs them rather than fail the run.
    best ??= this.here;
    return best.run(unit, signal);
  }

  /**
   * The coordinator has room for one more attempt: while a child is still starting, it takes one
   * of the attempts kept for that child (one for each it finishes), so a slow start idles no one.
   */
  private takeWaiting(): void {
    if (!this.here.usable) return;
    for (const child of this.children) {
      const attempt = child.alive && !child.ready ? child.waiting.shift() : undefined;
      if (!attempt) continue;
      this.here.run(attempt.unit, attempt.signal).then(attempt.resolve, attempt.reject);
      return;
    }
  }

  /** A 429 seen by `from` (by default the coordinator's own clients) slows every other process too. */
  rateLimited(model: string, from: Slot = this.here): void {
    for (const slot of this.slots) if (slot !== from && slot.usable) slot.rateLimited(model);
  }

  private onMessage(from: ChildSlot, message: FromWorker): void {
    switch (message.type) {
      case "ready":
        from.becameReady();
        return;
      case "load":
        from.utilization = message.utilization;
        return;
      case "refused":
        this.lost(from, `${from.name} could not take the run: ${message.message}`);
        from.child.disconnect();
        return;
      case "llm": {
        const { event } = message;
        this.hooks.onLlmEvent(event);
        if (event.type === "rate_limited") this.rateLimited(event.model, from);
        return;
      }
      case "outcome": {
        const pending = from.pending.get(message.id);
        if (!pending) return;
        from.pending.delete(message.id);
        if (message.outcome.kind === "simulation") from.finished++;
        try {
          pending.resolve(localSimulation(message.outcome));
        } catch (error) {
          pending.reject(error);
        }
        return;
      }
      default: {
        const never: never = message;
        throw new Error(`unknown worker message ${String(never)}`);
      }
    }
  }

  private onExit(slot: ChildSlot, how: string): void {
    if (slot.alive) this.lost(slot, `${slot.name} exited (${how})`);
  }

  /**
   * Takes `slot` out of the pool. Attempts it never started (it was still starting) go to the
   * others as if sent there first; the ones it was running fail, and the batch retries them.
   */
  private lost(slot: ChildSlot, why: string): void {
    slot.alive = false;
    const pending = [...slot.pending.values(), ...slot.waiting.splice(0)];
    slot.pending.clear();
    if (pending.length === 0) {
      if (!slot.ready) this.hooks.note(`${why}; the run goes on without it`);
      return;
    }
    if (!slot.ready) {
      this.hooks.note(`${why}; its ${pending.length} waiting simulation(s) go to the other processes`);
      for (const attempt of pending)
        this.run(attempt.unit, attempt.signal).then(attempt.resolve, attempt.reject);
      return;
    }
    this.hooks.note(`${why}; its ${pending.length} simulation(s) run again`);
    for (const attempt of pending) attempt.reject(new InfrastructureError(why));
  }

  /** Asks every child to leave (it exits when its channel closes), killing the ones that linger. */
  async close(): Promise<void> {
    clearInterval(this.loadTimer);
    const children = this.children.map((child) => child.finished);
    if (this.here.finished + children.reduce((sum, count) => sum + count, 0) > 0)
      this.hooks.note(
        `local workers: ${this.here.finished} simulation(s) ran in this process, ${children.join(" + ")} in the worker process(es)`,
      );
    // Leaving is not losing: exits from here on are not reported.
    for (const slot of this.children) slot.alive = false;
    await Promise.all(
      this.children.map(
        ({ child }) =>
          new Promise<void>((resolve) => {
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
}

/** Settings of {@link localWorkers}. */
export interface LocalWorkersOptions {
  /**
   * An agent behind a URL (`--agent-url`, `--agent-a2a`): each worker process builds it from this
   * spec (with the `TAU_AGENT_API_KEY` it inherits), as a queue worker does.
   */
  agent?: UrlAgentSpec;
  /**
   * Whether the coordinator runs simulations itself (default true: `count` processes are it and
   * `count - 1` workers). False starts `count` workers and keeps the coordinator to the writing.
   */
  coordinatorRuns?: boolean;
}

/**
 * Runs a plan's units in `count` processes of this machine: this one and `count - 1` worker
 * processes; `llm` is how every process builds its model clients. The worker processes start
 * now, so they load their code while this process plans the run; they wait for it to be planned.
 */
export function localWorkers(
  count: number,
  llm: LlmSettings,
  options: LocalWorkersOptions = {},
): ExecutorFactory {
  const coordinatorRuns = options.coordinatorRuns ?? true;
  const agent = options.agent;
  const childCount = Math.max(0, coordinatorRuns ? count - 1 : count);
  let early: ChildProcess[] | null = Array.from({ length: childCount }, forkWorker);
  return async (plan, hooks): Promise<UnitExecutor> => {
    // The first run takes the processes started early; a later one (the factory reused) starts its own.
    const children = early ?? Array.from({ length: childCount }, forkWorker);
    early = null;
    let config: string;
    try {
      // An agent behind a URL is rebuilt by each worker from its spec (the name stands in for it here).
      config = encodeConfig(agent ? { ...plan.config, agent: agent.protocol } : plan.config);
    } catch (error) {
      for (const child of children) child.kill();
      throw error;
    }
    const descriptor: RunDescriptor = {
      runId: randomUUID(),
      config,
      ...(agent ? { agent } : {}),
      llm,
      version: packageVersion(),
      // Same machine, same files: the workers' plans are the coordinator's (a digest would cost a DB hash).
      digest: null,
    };
    let pool: LocalPool | null = null;
    const onLlmEvent = (event: LlmEvent) => {
      hooks.onLlmEvent(event);
      if (event.type === "rate_limited") pool?.rateLimited(event.model);
    };
    const here = UnitHost.forPlan(descriptor.runId, plan, llm, { onLlmEvent });
    pool = new LocalPool(hooks, here, children, descriptor, { coordinatorRuns });
    return pool;
  };
}
