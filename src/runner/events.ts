/**
 * What a run reports while it goes: a discriminated union delivered to one
 * listener. The terminal progress bar of `tau run` is one consumer; a library
 * caller's dashboard or log is another. Events are informational: a listener
 * cannot change the run, and one that throws does not stop it.
 */
import type { SimulationRun } from "../core/simulation.ts";
import type { LlmEvent } from "../llm/events.ts";
import type { WorkUnit } from "./batch.ts";

/** One event of a run. */
export type RunEvent =
  /** An informational line (resume notes, an import's summary, the run's path). */
  | { type: "note"; message: string }
  /** The batch is about to start: `total` units are in scope, `resumed` of them were found finished. */
  | {
      type: "run_started";
      resultsPath: string;
      checkpointPath: string;
      total: number;
      /** Simulations of this invocation's scope already in the checkpoint (slim: no transcripts). */
      resumed: readonly SimulationRun[];
      /** Units that will run now. */
      toRun: number;
    }
  /** A unit's first attempt starts. */
  | { type: "simulation_started"; unit: WorkUnit }
  /** A unit's attempt failed and the whole simulation runs again; `attempt` failed attempts so far. */
  | { type: "simulation_retried"; unit: WorkUnit; attempt: number; error: unknown }
  /** A simulation is durable in the checkpoint (an infrastructure-error placeholder included); slim copy. */
  | { type: "simulation_finished"; unit: WorkUnit; simulation: SimulationRun }
  /** A provider-layer event of one of the run's model clients (calls, retries, 429s, errors). */
  | { type: "llm"; event: LlmEvent }
  /** The batch ended: complete, interrupted (the run's signal), or on an error. */
  | { type: "batch_finished"; interrupted: boolean };

/** Receives a run's events. */
export type RunEventListener = (event: RunEvent) => void;

/**
 * Calls `listener`, swallowing what it throws or the promise it returns rejects with (a broken
 * progress display, sync or async, must not lose a run).
 */
export function safeListener(listener: RunEventListener | undefined): RunEventListener {
  if (!listener) return () => {};
  return (event) => {
    try {
      const returned: unknown = listener(event);
      if (returned instanceof Promise) returned.catch(() => {});
    } catch {
      // Informational only; see the module comment.
    }
  };
}
