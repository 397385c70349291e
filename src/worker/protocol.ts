/**
 * What crosses between a coordinator and its workers, local or over a queue:
 * the run's descriptor (its config and model settings, serializable; the
 * taubench version and a digest of the plan a worker must reproduce), and one
 * attempt's outcome (the simulation as its checkpoint line, or the error
 * rebuilt on the coordinator's side so the batch treats it as in process).
 */
import { createHash } from "node:crypto";
import type { UrlAgentSpec } from "../agents/url-agent.ts";
import { InfrastructureError, UsageError } from "../core/errors.ts";
import { PyFloat, parsePyJson, pyDumps } from "../core/py-json.ts";
import type { SimulationRun } from "../core/simulation.ts";
import { LlmError, type LlmErrorKind } from "../llm/errors.ts";
import type { LlmEvent } from "../llm/events.ts";
import { CHECKPOINT_VERSION, formatCheckpointLine, parseCheckpointLine } from "../runner/checkpoint.ts";
import type { LlmSettings } from "../runner/evaluate.ts";
import type { RunConfig, RunPlan } from "../runner/plan.ts";

/** Everything a worker needs to rebuild a coordinator's plan, and what it must match. */
export interface RunDescriptor {
  /** Names the run's jobs (stable across resumes of the same checkpoint). */
  runId: string;
  /** The {@link RunConfig} as Python-style JSON (floats stay floats, so fingerprints agree). */
  config: string;
  /** How the workers build their model clients. */
  llm: LlmSettings;
  /** The coordinator's taubench version. */
  version: string;
  /** {@link planDigest} of the coordinator's plan; null skips the check (local workers read the same files). */
  digest: string | null;
  /** An agent behind a URL: the worker builds it (with its own `TAU_AGENT_API_KEY`) in place of the config's. */
  agent?: UrlAgentSpec;
}

/** One unit as a job names it (the task by id: the worker has the tasks from its own data). */
export interface UnitRef {
  trial: number;
  taskId: string;
  seed: number;
}

/** An attempt's error as data. */
export interface WireError {
  name: string;
  message: string;
  stack: string | null;
  infrastructure: boolean;
  stopsRun: boolean;
  /** The LLM layer's fault label, when an {@link LlmError} is in the cause chain. */
  llm: { kind: LlmErrorKind; model: string; statusCode: number | null } | null;
}

/** One attempt's outcome as data. */
export type WireOutcome = { kind: "simulation"; line: string } | { kind: "error"; error: WireError };

/**
 * sha256 over what must be equal for two processes to run the same simulations: the run's
 * fingerprint, tasks, seeds, policy and prompt hashes, and the domain's initial database.
 */
export function planDigest(plan: RunPlan): string {
  const environment = plan.domain.makeEnvironment({ soloMode: plan.soloMode });
  const taubench = plan.info.taubench as { prompt_hashes?: unknown } | undefined;
  const text = pyDumps(
    {
      fingerprint: plan.fingerprint,
      tasks: plan.tasks,
      seeds: plan.seeds,
      policy: plan.info.environment_info.policy,
      prompt_hashes: taubench?.prompt_hashes ?? null,
      db: environment.getDbHash(),
      user_db: environment.getUserDbHash(),
    },
    { sortKeys: true },
  );
  return createHash("sha256").update(text).digest("hex");
}

/** The config as a descriptor carries it; a participant given as an object cannot cross a process. */
export function encodeConfig(config: RunConfig): string {
  for (const kind of ["agent", "user"] as const) {
    if (typeof config[kind] !== "string")
      throw new UsageError(
        `--workers and --queue need the ${kind} as a registered name or a module path (a definition object cannot cross processes; --agent-url and --agent-a2a agents travel as their URL)`,
      );
  }
  return pyDumps(config);
}

/** The inverse of {@link encodeConfig}. */
export function decodeConfig(text: string): RunConfig {
  return parsePyJson(text) as unknown as RunConfig;
}

/** A simulation as it travels (its checkpoint line, so the coordinator writes what one process would). */
export function encodeSimulation(simulation: SimulationRun): WireOutcome {
  return { kind: "simulation", line: simulationLine(simulation) };
}

/** A simulation's checkpoint line, as the coordinator would write it. */
export function simulationLine(simulation: SimulationRun): string {
  return formatCheckpointLine({ kind: "simulation", version: CHECKPOINT_VERSION, simulation });
}

/** An attempt's error as it travels. */
export function encodeError(error: unknown): { kind: "error"; error: WireError } {
  const err = error instanceof Error ? error : new Error(String(error));
  let llm: WireError["llm"] = null;
  let stopsRun = false;
  let infrastructure = false;
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof InfrastructureError) {
      infrastructure = true;
      stopsRun ||= e.stopsRun;
    }
    if (e instanceof LlmError && llm === null)
      llm = { kind: e.kind, model: e.model, statusCode: e.statusCode ?? null };
  }
  return {
    kind: "error",
    error: { name: err.name, message: err.message, stack: err.stack ?? null, infrastructure, stopsRun, llm },
  };
}

/** The simulation of an outcome, or its error rebuilt and thrown. */
export function decodeOutcome(outcome: WireOutcome, source: string): SimulationRun {
  if (outcome.kind === "simulation") {
    const record = parseCheckpointLine(source, 1, outcome.line);
    if (record.kind !== "simulation") throw new Error(`${source}: a worker sent a ${record.kind} record`);
    return record.simulation;
  }
  throw rebuildError(outcome.error);
}

/** An error that behaves, for retries, fault labels and run stops, like the one the worker saw. */
export function rebuildError(wire: WireError): Error {
  let error: Error;
  if (wire.llm) {
    error = new LlmError(wire.message, {
      kind: wire.llm.kind,
      model: wire.llm.model,
      ...(wire.llm.statusCode === null ? {} : { statusCode: wire.llm.statusCode }),
    });
  } else if (wire.infrastructure || wire.stopsRun) {
    error = new InfrastructureError(wire.message, { stopsRun: wire.stopsRun });
  } else {
    error = new Error(wire.message);
  }
  error.name = wire.name;
  if (wire.stack !== null) error.stack = wire.stack;
  return error;
}

/**
 * One attempt's outcome from a local worker process: a simulation comes as its checkpoint line,
 * which the coordinator writes as is, and its slim copy (see `slimSimulation`), which is all the
 * coordinator reads of it, so it never parses nor encodes a simulation again.
 */
export type LocalOutcome =
  | { kind: "simulation"; line: string; slim: SimulationRun }
  | { kind: "error"; error: WireError };

/** Coordinator → local worker process (sent in batches, see {@link Outbox}). */
export type ToWorker =
  | { type: "open"; descriptor: RunDescriptor }
  | { type: "run"; id: number; unit: UnitRef }
  | { type: "abort"; id: number }
  | { type: "rate_limited"; model: string };

/** How often a local worker process tells its event loop's utilization (and the coordinator measures its own). */
export const LOAD_INTERVAL_MS = 250;

/**
 * Calls `report` every {@link LOAD_INTERVAL_MS} with this process's event-loop utilization over
 * that interval (0–1); the timer keeps no process alive. Returns it, for `clearInterval`.
 */
export function watchLoad(report: (utilization: number) => void): NodeJS.Timeout {
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    report(performance.eventLoopUtilization(now, last).utilization);
    last = now;
  }, LOAD_INTERVAL_MS);
  timer.unref();
  return timer;
}

/** Local worker process → coordinator (sent in batches, see {@link Outbox}). */
export type FromWorker =
  | { type: "ready" }
  | { type: "load"; utilization: number }
  | { type: "refused"; message: string }
  | { type: "llm"; event: LlmEvent }
  | { type: "outcome"; id: number; outcome: LocalOutcome };

/**
 * Messages to one process, sent as one array per turn of the event loop: a message costs a
 * serialization and a write on each side, and a busy run has thousands per second. Order is kept.
 */
export class Outbox<T> {
  private messages: T[] = [];
  private scheduled = false;

  constructor(private readonly deliver: (messages: T[]) => void) {}

  post(message: T): void {
    this.messages.push(message);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Sends what is waiting now. */
  flush(): void {
    this.scheduled = false;
    if (this.messages.length === 0) return;
    const messages = this.messages;
    this.messages = [];
    this.deliver(messages);
  }
}

const PY_FLOAT = "__taubench_py_float__";

/**
 * A value as it crosses a structured-clone channel: {@link PyFloat}s (which a clone would turn into
 * plain objects) become tagged objects; {@link fromCloneable} turns them back.
 */
export function toCloneable<T>(value: T): T {
  if (value instanceof PyFloat) return { [PY_FLOAT]: value.value } as T;
  if (Array.isArray(value)) return value.map(toCloneable) as T;
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [k, toCloneable(v)])) as T;
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = toCloneable(item);
    return out as T;
  }
  return value;
}

/** The inverse of {@link toCloneable}. */
export function fromCloneable<T>(value: T): T {
  if (Array.isArray(value)) return value.map(fromCloneable) as T;
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [k, fromCloneable(v)])) as T;
  if (value !== null && typeof value === "object") {
    const tagged = (value as Record<string, unknown>)[PY_FLOAT];
    if (typeof tagged === "number") return new PyFloat(tagged) as T;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = fromCloneable(item);
    return out as T;
  }
  return value;
}
