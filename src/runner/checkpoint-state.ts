/**
 * What a checkpoint says about a run: its latest `run` record, the union of
 * its tasks, and per key the simulation that counts. A finished simulation
 * wins over an infrastructure error of the same key; among finished ones the
 * first wins (a duplicate is ignored, as upstream skips duplicate keys).
 */
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { createInterface } from "node:readline";
import { FileFormatError } from "../core/errors.ts";
import type { SimulationRun, TerminationReason } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import {
  CHECKPOINT_VERSION,
  keyOf,
  parseCheckpointLine,
  type RunRecord,
  readCheckpoint,
  type SessionRecord,
  SIMULATION_LINE_HEAD,
} from "./checkpoint.ts";
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

/** Terminations whose error the summary shows (infrastructure errors, and the agent's and user's exceptions). */
const ERROR_TERMINATIONS = new Set(["infrastructure_error", "agent_error", "user_error"]);

/**
 * An errored simulation's info with its texts clipped to their first line
 * (the summary shows one) and without the traceback; numbers such as
 * `failed_after_attempts` stay. Other simulations' info is not needed.
 */
function slimInfo(simulation: SimulationRun): SimulationRun["info"] {
  const info = simulation.info;
  if (!ERROR_TERMINATIONS.has(simulation.termination_reason) || !info) return null;
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
      case "session":
        fileRunOrSession(state, record);
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
      default: {
        const never: never = record;
        throw new Error(`unhandled checkpoint record ${String(never)}`);
      }
    }
  }
  return state;
}

/** Files a `run` record (the latest describes the run; tasks are united) or a `session` record (latest per id). */
function fileRunOrSession(
  state: Pick<CheckpointState, "run" | "tasks" | "sessions">,
  record: RunRecord | SessionRecord,
): void {
  if (record.kind === "session") state.sessions.set(record.session_id, record);
  else {
    state.run = record;
    for (const task of record.tasks) state.tasks.set(task.id, task);
  }
}

/** Where a line lies in a checkpoint file, in bytes (without its newline). */
export interface LineSpan {
  start: number;
  length: number;
}

/** What {@link scanWinningLines} found: the run's description and the winning simulations' lines, in file order. */
export interface WinnerScan extends Pick<CheckpointState, "run" | "tasks" | "sessions"> {
  spans: LineSpan[];
}

// A simulation line of this version starts so; the simulation's own id comes first (upstream's field order).
const SIMULATION_ID_HEAD = Buffer.from(`${SIMULATION_LINE_HEAD}{"id": "`, "latin1");
// How this version writes a session record's line.
const SESSION_ID_HEAD = Buffer.from(
  `{"kind": "session", "version": ${CHECKPOINT_VERSION}, "session_id": "`,
  "latin1",
);
const SCAN_CHUNK_BYTES = 4 << 20;

/**
 * The export's first pass for a checkpoint whose winners the caller already knows by simulation id
 * (the run that wrote it keeps them in memory): simulation lines of this version are told apart by
 * their id, read from the line's head, and not parsed; the other records (run, session) are
 * parsed and checked as {@link loadCheckpointState} does. Null when the file holds anything the
 * shortcut does not handle exactly as the full pass would (an older version's simulation line,
 * an id seen twice, a winner missing, a torn tail, a carriage return): the caller then takes the
 * full pass. Keeps two numbers per winner.
 */
export async function scanWinningLines(
  path: string,
  winnerIds: ReadonlySet<string>,
  chunkBytes = SCAN_CHUNK_BYTES,
): Promise<WinnerScan | null> {
  const scan: WinnerScan = { run: null, tasks: new Map(), sessions: new Map(), spans: [] };
  const context: ScanContext = { path, winnerIds, seen: new Set(), sessionLines: new Map(), scan };
  const handle = await open(path, "r");
  try {
    let buffer = Buffer.allocUnsafe(chunkBytes);
    let filled = 0; // bytes of `buffer` holding file data
    let bufferStart = 0; // file offset of buffer[0]
    let lineNumber = 0;
    for (;;) {
      if (filled === buffer.length) {
        const grown = Buffer.alloc(buffer.length * 2); // a line longer than the buffer
        buffer.copy(grown, 0, 0, filled);
        buffer = grown;
      }
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, bufferStart + filled);
      if (bytesRead === 0) break;
      const end = filled + bytesRead;
      if (buffer.subarray(filled, end).includes(0x0d)) return null;
      filled = end;
      const view = buffer.subarray(0, end);
      let lineStart = 0;
      for (let newline = view.indexOf(0x0a, 0); newline >= 0; newline = view.indexOf(0x0a, lineStart)) {
        lineNumber++;
        if (!scanLine(context, view, lineStart, newline, bufferStart, lineNumber)) return null;
        lineStart = newline + 1;
      }
      // Keep the unfinished last line at the buffer's start.
      buffer.copy(buffer, 0, lineStart, end);
      filled = end - lineStart;
      bufferStart += lineStart;
    }
    if (filled > 0 && buffer.subarray(0, filled).toString("latin1").trim() !== "") return null;
  } finally {
    await handle.close();
  }
  for (const { text, lineNumber } of context.sessionLines.values()) {
    const record = parseCheckpointLine(path, lineNumber, text);
    if (record.kind !== "session") return null;
    fileRunOrSession(scan, record);
  }
  return scan.spans.length === winnerIds.size ? scan : null;
}

/** What {@link scanWinningLines} carries from line to line. */
interface ScanContext {
  path: string;
  winnerIds: ReadonlySet<string>;
  /** Winner ids whose line was found. */
  seen: Set<string>;
  /** Per session id (first-seen order), its latest line, parsed once the file is read. */
  sessionLines: Map<string, { text: string; lineNumber: number }>;
  scan: WinnerScan;
}

/** The id that follows `head` at `start`, when the line starts so; null when not, undefined when the id is not plain. */
function idAfter(buffer: Buffer, start: number, end: number, head: Buffer): string | null | undefined {
  if (end - start <= head.length || buffer.compare(head, 0, head.length, start, start + head.length) !== 0)
    return null;
  const idStart = start + head.length;
  const quote = buffer.indexOf(0x22, idStart);
  if (quote < 0 || quote >= end || buffer[end - 1] !== 0x7d) return undefined;
  const backslash = buffer.indexOf(0x5c, idStart);
  if (backslash >= 0 && backslash < quote) return undefined;
  return buffer.toString("utf8", idStart, quote);
}

/** One line of {@link scanWinningLines}; false when the shortcut must give up. */
function scanLine(
  context: ScanContext,
  buffer: Buffer,
  start: number,
  end: number,
  bufferStart: number,
  lineNumber: number,
): boolean {
  const simulationId = idAfter(buffer, start, end, SIMULATION_ID_HEAD);
  if (simulationId === undefined) return false;
  if (simulationId !== null) {
    if (!context.winnerIds.has(simulationId)) return true;
    if (context.seen.has(simulationId)) return false;
    context.seen.add(simulationId);
    context.scan.spans.push({ start: bufferStart + start, length: end - start });
    return true;
  }
  const text = buffer.toString("utf8", start, end);
  // A session record is rewritten after every write; only its latest line counts, so only that one is parsed.
  const sessionId = idAfter(buffer, start, end, SESSION_ID_HEAD);
  if (sessionId) {
    context.sessionLines.set(sessionId, { text, lineNumber });
    return true;
  }
  if (text.trim() === "") return true;
  const record = parseCheckpointLine(context.path, lineNumber, text);
  if (record.kind === "simulation") return false;
  fileRunOrSession(context.scan, record);
  return true;
}

/**
 * The bytes of the given lines, in the order given (the export's second pass after
 * {@link scanWinningLines}; spans in file order are read in large sequential pieces, not one by
 * one). Each line is a view into the read buffer, valid only until the next one is asked for (the
 * export lays it out at once, never decoding it).
 */
export async function* readLineSpanBytes(
  path: string,
  spans: readonly LineSpan[],
  chunkBytes = SCAN_CHUNK_BYTES,
): AsyncGenerator<Buffer> {
  const handle = await open(path, "r");
  try {
    let buffer = Buffer.allocUnsafe(chunkBytes);
    let bufferStart = 0;
    let filled = 0;
    for (const span of spans) {
      const end = span.start + span.length;
      if (span.start < bufferStart || end > bufferStart + filled) {
        if (span.length > buffer.length) buffer = Buffer.alloc(span.length);
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, span.start);
        bufferStart = span.start;
        filled = bytesRead;
        if (bytesRead < span.length)
          throw new FileFormatError(path, "changed during the export (a simulation line is gone)");
      }
      yield buffer.subarray(span.start - bufferStart, end - bufferStart);
    }
  } finally {
    await handle.close();
  }
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
