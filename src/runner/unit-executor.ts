/**
 * Where a run's units execute when not in the coordinator's own process: a
 * pool of local worker processes (`tau run --workers N`) or a queue served by
 * `tau worker`s (`tau run --queue redis://…`). The coordinator keeps the batch
 * (concurrency, retries, events) and is the only writer of the checkpoint; an
 * executor only carries one attempt of one unit to a worker and its result back.
 */
import type { SimulationRun } from "../core/simulation.ts";
import type { LlmEventListener } from "../llm/events.ts";
import type { WorkUnit } from "./batch.ts";
import type { RunPlan } from "./plan.ts";

/** A started executor: runs attempts of units elsewhere. */
export interface UnitExecutor {
  /**
   * One attempt of `unit` on some worker: its graded simulation, or the attempt's error (rebuilt,
   * so the batch retries, records an infrastructure error or stops the run as it would in process).
   */
  run(unit: WorkUnit, signal: AbortSignal): Promise<SimulationRun>;
  /** The unit's simulation is durable in the checkpoint (a queue may forget its job now, not before). */
  recorded?(unit: WorkUnit): void;
  /** Stops the workers it started and closes its connections. */
  close(): Promise<void>;
}

/** What an executor hears from its workers. */
export interface ExecutorHooks {
  /** Names the run for its workers and jobs: the same for every resume of one checkpoint. */
  runId: string;
  /** Every provider event of every worker (the run's usage and progress count them). */
  onLlmEvent: LlmEventListener;
  /** A line for the user (a worker refused, a worker died and its units are retried). */
  note(message: string): void;
}

/** Starts an executor for a plan (resolves once some worker can take units). */
export type ExecutorFactory = (plan: RunPlan, hooks: ExecutorHooks) => Promise<UnitExecutor>;
