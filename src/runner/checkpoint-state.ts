/**
 * What a checkpoint says about a run: its latest `run` record, the union of
 * its tasks, and per key the simulation that counts. A finished simulation
 * wins over an infrastructure error of the same key; among finished ones the
 * first wins (a duplicate is ignored, as upstream skips duplicate keys).
 */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import type { SimulationRun, TerminationReason } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import { keyOf, type RunRecord, readCheckpoint, type SessionRecord } from "./checkpoint.ts";
import { type RunUsage, sumRunUsage } from "./llm-usage.ts";
import { ownCopy, ownString, sharedCopy } from "./compact.ts";

/**
 * A simulation cut down to what metrics, the summary and the outcome grid
 * read: ids, times, termination, costs, reward with its DB and action checks,
 * and for an infrastructure error the first line of the error. A run keeps
 * one per finished simulation, so its size is what a long run grows by; the
 * checkpoint holds the rest (transcript, policy, NL and communicate checks).
 */
export type SlimSimulation = SimulationRun;

// Shared by every slim simulation: an empty transcript costs nothing per simulation.
const NO_MESSAGES: SimulationRun["messages"] = Object.freeze([]) as unknown as SimulationRun["messages"];

/** Longest error text kept for the summary's infrastructure-error list (which shows 160 characters). */
const ERROR_CHARS = 200;

/**
 * Keeps only what {@link SlimSimulation} names, built from copies with
 * storage of their own ({@link ownCopy}), so nothing else of `simulation`,
 * nor the checkpoint text it was parsed from, stays reachable; grading parts
 * that repeat across simulations are shared ({@link sharedCopy}).
 */
export function slimSimulation(simulation: SimulationRun): SlimSimulation {
  const reward = simulation.reward_info;
  const notEvaluated = reward?.info?.not_evaluated;
  // One object literal, so every field sits inside the object (no separate property array).
  return {
    id: ownString(simulation.id),
    task_id: ownString(simulation.task_id),
    timestamp: ownCopy(simulation.timestamp),
    start_time: ownString(simulation.start_time),
    end_time: ownString(simulation.end_time),
    duration: simulation.duration,
    termination_reason: ownString(simulation.termination_reason) as TerminationReason,
    agent_cost: simulation.agent_cost,
    user_cost: simulation.user_cost,
    reward_info: reward
      ? {
          reward: reward.reward,
          db_check: sharedCopy(reward.db_check),
          env_assertions: null,
          action_checks: sharedCopy(reward.action_checks),
          nl_assertions: null,
          communicate_checks: null,
          reward_basis: sharedCopy(reward.reward_basis),
          reward_breakdown: sharedCopy(reward.reward_breakdown),
          info: notEvaluated === undefined ? null : sharedCopy({ not_evaluated: notEvaluated }),
        }
      : null,
    messages: NO_MESSAGES,
    trial: simulation.trial,
    seed: simulation.seed,
    mode: ownCopy(simulation.mode),
    info: slimInfo(simulation),
  };
}

/**
 * An infrastructure error's info with its texts clipped to their first line
 * (the summary shows one) and without the traceback; numbers such as
 * `failed_after_attempts` stay. Other simulations' info is not needed.
 */
function slimInfo(simulation: SimulationRun): SimulationRun["info"] {
  const info = simulation.info;
  if (simulation.termination_reason !== "infrastructure_error" || !info) return null;
  const slim: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(info)) {
    if (key === "error_traceback") continue;
    if (typeof value === "string") slim[key] = ownString(value.split("\n")[0]!.slice(0, ERROR_CHARS));
    else if (value === null || typeof value === "number" || typeof value === "boolean") slim[key] = value;
  }
  return slim;
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
export function keepWinner<T extends Pick<SimulationRun, "termination_reason">>(
  simulations: Map<string, T>,
  key: string,
  simulation: T,
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
  const onTorn = (line: number) => {
    state.tornLine = line;
  };
  // Slim records keep no transcript, so none is parsed.
  for await (const { record, lineNumber } of readCheckpoint(path, onTorn, {
    withoutTranscripts: !options.full,
  })) {
    switch (record.kind) {
      case "run":
        state.run = record;
        for (const task of record.tasks) state.tasks.set(task.id, task);
        break;
      case "simulation": {
        const simulation = record.simulation;
        const kept = options.full ? simulation : slimSimulation(simulation);
        // From the kept copy: a key built from the parsed task id would hold the read chunk alive.
        const key = keyOf(kept);
        if (keepWinner(state.simulations, key, kept)) {
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

/**
 * The text of the given lines, one at a time in file order, unparsed (the export's second pass:
 * the first pass, {@link loadCheckpointState}, has read and validated every line already, the
 * transcripts of this version's lines only as JSON).
 */
export async function* streamLinesAt(
  path: string,
  lineNumbers: ReadonlySet<number>,
): AsyncGenerator<{ text: string; lineNumber: number }> {
  const lines = createInterface({ input: createReadStream(path, { encoding: "utf8" }), crlfDelay: Infinity });
  let lineNumber = 0;
  for await (const text of lines) if (lineNumbers.has(++lineNumber)) yield { text, lineNumber };
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
