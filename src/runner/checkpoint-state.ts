/**
 * What a checkpoint says about a run: its latest `run` record, the union of
 * its tasks, and per key the simulation that counts. A finished simulation
 * wins over an infrastructure error of the same key; among finished ones the
 * first wins (a duplicate is ignored, as upstream skips duplicate keys).
 */
import type { SimulationRun } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import { keyOf, type RunRecord, readCheckpoint, type SessionRecord } from "./checkpoint.ts";
import { type RunUsage, sumRunUsage } from "./llm-usage.ts";

/** A simulation without its transcript and policy: what metrics and summaries need. */
export type SlimSimulation = SimulationRun;

/** Drops the parts of a simulation that only a transcript view needs (bounded memory). */
export function slimSimulation(simulation: SimulationRun): SlimSimulation {
  const { policy: _policy, ...rest } = simulation;
  return { ...rest, messages: [] };
}

/** The state of a run as read from its checkpoint. */
export interface CheckpointState {
  /** The latest run record (null for an empty file). */
  run: RunRecord | null;
  /** Every task ever part of the run, first-seen order; later definitions replace earlier ones. */
  tasks: Map<string, Task>;
  /** Per key, the simulation that counts, in the order the winners were written. */
  simulations: Map<string, SlimSimulation>;
  /** Line number of the winning record per key, in the same order as {@link simulations}. */
  lines: Map<string, number>;
  /** Line number of a torn last line that was skipped, or null. */
  tornLine: number | null;
  /** Number of duplicate finished simulations that were ignored. */
  duplicates: number;
  /** Per session id, its latest `session` record (none in version-1 checkpoints). */
  sessions: Map<string, SessionRecord>;
}

/** The provider usage of every session of the run; null when no session recorded any (version-1 checkpoints). */
export function checkpointUsage(state: Pick<CheckpointState, "sessions">): RunUsage | null {
  if (state.sessions.size === 0) return null;
  return sumRunUsage([...state.sessions.values()].map((session) => session.usage));
}

/**
 * Files `simulation` under `key` unless a finished simulation already holds
 * the key (see the module comment); the winner is re-inserted so iteration
 * follows the order winners were written. Returns whether it was filed.
 */
export function keepWinner(
  simulations: Map<string, SlimSimulation>,
  key: string,
  simulation: SlimSimulation,
): boolean {
  const existing = simulations.get(key);
  if (existing && existing.termination_reason !== "infrastructure_error") return false;
  simulations.delete(key);
  simulations.set(key, simulation);
  return true;
}

/** Reads a checkpoint into a {@link CheckpointState}; with `full` the transcripts are kept too. */
export async function loadCheckpointState(
  path: string,
  options: { full?: boolean } = {},
): Promise<CheckpointState> {
  const state: CheckpointState = {
    run: null,
    tasks: new Map(),
    simulations: new Map(),
    lines: new Map(),
    tornLine: null,
    duplicates: 0,
    sessions: new Map(),
  };
  for await (const { record, lineNumber } of readCheckpoint(path, (line) => {
    state.tornLine = line;
  })) {
    switch (record.kind) {
      case "run":
        state.run = record;
        for (const task of record.tasks) state.tasks.set(task.id, task);
        break;
      case "simulation": {
        const simulation = record.simulation;
        const key = keyOf(simulation);
        if (keepWinner(state.simulations, key, options.full ? simulation : slimSimulation(simulation))) {
          state.lines.delete(key);
          state.lines.set(key, lineNumber);
        } else if (simulation.termination_reason !== "infrastructure_error") {
          state.duplicates++;
        }
        break;
      }
      case "session":
        state.sessions.set(record.session_id, record);
        break;
      default: {
        const never: never = record;
        throw new Error(`unhandled checkpoint record ${String(never)}`);
      }
    }
  }
  return state;
}

/**
 * The full simulations behind the given line numbers, one at a time in file
 * order (a second pass, for the export): only one transcript is held at once.
 * Winners are filed at their own line (see {@link keepWinner}), so file order
 * is the order of {@link CheckpointState.simulations}.
 */
export async function* streamSimulationsAt(
  path: string,
  lineNumbers: ReadonlySet<number>,
): AsyncGenerator<SimulationRun> {
  for await (const { record, lineNumber } of readCheckpoint(path))
    if (record.kind === "simulation" && lineNumbers.has(lineNumber)) yield record.simulation;
}

/** The full simulations behind the given line numbers, in file order (for views of a few). */
export async function readSimulationsAt(
  path: string,
  lineNumbers: ReadonlySet<number>,
): Promise<SimulationRun[]> {
  const out: SimulationRun[] = [];
  for await (const simulation of streamSimulationsAt(path, lineNumbers)) out.push(simulation);
  return out;
}
