/**
 * Export of a checkpoint to upstream's results JSON (spec §10): the latest
 * run record's `info`, every task of the run, and per `(trial, task, seed)`
 * the simulation that counts, in completion order.
 */
import { FileFormatError } from "../core/errors.ts";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Info, type Results, type SimulationIndexEntry } from "../core/results.ts";
import { indentCompactPyJsonBytes } from "../core/py-json.ts";
import {
  type RenderedSimulation,
  type ResultsHead,
  resultsLayout,
  writeResultsDirStream,
  writeResultsStream,
} from "../core/results-file.ts";
import type { SimulationRun } from "../core/simulation.ts";
import { parseCheckpointLine, SIMULATION_LINE_HEAD } from "./checkpoint.ts";
import {
  type CheckpointState,
  checkpointUsage,
  type LineSpan,
  loadCheckpointState,
  readLineSpanBytes,
  scanWinningLines,
  streamLinesAt,
  streamSimulationsAt,
} from "./checkpoint-state.ts";
import { runUsageToPy } from "./llm-usage.ts";

/**
 * The run's `info` as a checkpoint describes it: the latest run record's, with
 * the trial count it reached and, in `taubench.llm_usage`, the provider usage
 * summed over every session.
 */
export function checkpointInfo(
  state: Pick<CheckpointState, "run" | "sessions">,
  checkpointPath: string,
): Info {
  if (!state.run) throw new FileFormatError(checkpointPath, "no run record (is this a taubench checkpoint?)");
  const parsed = Info.safeParse(state.run.info);
  if (!parsed.success)
    throw new FileFormatError(checkpointPath, `run record info: ${parsed.error.issues[0]!.message}`);
  const info: Info = { ...parsed.data, num_trials: state.run.num_trials };
  const usage = checkpointUsage(state);
  if (usage && info.taubench) info.taubench = { ...info.taubench, llm_usage: runUsageToPy(usage) };
  return info;
}

/** Builds the results object a checkpoint describes, every full simulation in memory (tests and small runs; {@link exportResults} streams). */
export async function checkpointToResults(checkpointPath: string): Promise<Results> {
  const state = await loadCheckpointState(checkpointPath, { full: true });
  const info = checkpointInfo(state, checkpointPath);
  const simulations = [...state.simulations.values()];
  return {
    timestamp: state.run!.created_at,
    info,
    tasks: [...state.tasks.values()],
    simulations,
    simulation_index: null,
  };
}

/** What {@link exportResults} wrote. */
export interface ExportOutcome {
  path: string;
  format: "json" | "dir";
  /** Simulations written (one per `(trial, task, seed)`). */
  simulations: number;
  tasks: number;
}

/**
 * Writes upstream's results JSON for a checkpoint (atomically): monolithic,
 * except back onto the dir-layout run the checkpoint was imported from, which
 * keeps its layout (a monolithic file beside `simulations/` would be misread).
 *
 * Two passes over the checkpoint keep memory flat however long the run: the
 * first finds the winning line per key (transcripts dropped as it goes), the
 * second streams those lines' full simulations into the file one at a time.
 */
export async function exportResults(
  checkpointPath: string,
  resultsPath: string,
  options: ExportOptions = {},
): Promise<ExportOutcome> {
  if (options.winnerIds) {
    const scan = await scanWinningLines(checkpointPath, options.winnerIds);
    if (scan) {
      const { head, imported } = resultsHeadOf(scan, checkpointPath);
      // Back onto an imported dir layout, the full pass below decides what is written.
      if (imported?.layout !== "dir") {
        await writeResultsStream(resultsPath, head, spannedSimulations(checkpointPath, scan.spans));
        return {
          path: resultsPath,
          format: "json",
          simulations: scan.spans.length,
          tasks: head.tasks.length,
        };
      }
    }
  }
  const state = await loadCheckpointState(checkpointPath);
  const { head, imported } = resultsHeadOf(state, checkpointPath);
  const expected = state.simulations.size;
  const outcome = { path: resultsPath, simulations: expected, tasks: head.tasks.length };
  if (imported?.layout === "dir" && imported.path === resultsPath) {
    const simulations = winningSimulations(checkpointPath, new Set(state.lines.values()), expected);
    const index = await writeResultsDirStream(resultsPath, head, simulations);
    removeUnindexedSimulations(resultsLayout(resultsPath).simulationsDir, index);
    return { ...outcome, format: "dir" };
  }
  await writeResultsStream(resultsPath, head, renderedSimulations(checkpointPath, state.lines, expected));
  return { ...outcome, format: "json" };
}

/** The results file's head (all but the simulations) from a checkpoint's run and session records, and where it was imported from. */
function resultsHeadOf(
  source: Pick<CheckpointState, "run" | "tasks" | "sessions">,
  checkpointPath: string,
): { head: ResultsHead; imported: { path?: unknown; layout?: unknown } | undefined } {
  const info = checkpointInfo(source, checkpointPath);
  const tasks = [...source.tasks.values()];
  return {
    head: { timestamp: source.run!.created_at, info, tasks, simulation_index: null },
    imported: info.taubench?.imported_from as { path?: unknown; layout?: unknown } | undefined,
  };
}

/**
 * A simulation line this version wrote (its UTF-8 bytes), as its results item: its compact dump
 * re-laid out, not parsed. The line must stay as it is until the item is written.
 */
function renderedItemOf(line: Uint8Array): RenderedSimulation {
  const head = SIMULATION_LINE_HEAD.length; // ASCII: as many bytes as characters
  return { writeItem: (out) => indentCompactPyJsonBytes(line, head, line.length - 1, 2, out) };
}

/** Options of {@link exportResults}. */
export interface ExportOptions {
  /**
   * The ids of the simulations that count, when the caller holds them (the run that wrote the
   * checkpoint, or validated it when resuming): the first pass then reads only the run and
   * session records (see {@link scanWinningLines}); the file written is the same.
   */
  winnerIds?: ReadonlySet<string>;
}

/** The second pass after {@link scanWinningLines}: every span is a simulation line of this version. */
async function* spannedSimulations(
  checkpointPath: string,
  spans: readonly LineSpan[],
): AsyncGenerator<RenderedSimulation> {
  for await (const line of readLineSpanBytes(checkpointPath, spans)) yield renderedItemOf(line);
}

/**
 * The second pass of the monolithic export: a line this version wrote holds the simulation's
 * compact dump, the very text the results item is when laid out with indentation
 * ({@link indentCompactPyJsonBytes}), so it is re-laid out instead of parsed and dumped again; a line
 * of an older version goes the long way.
 */
async function* renderedSimulations(
  checkpointPath: string,
  lines: ReadonlyMap<string, number>,
  expected: number,
): AsyncGenerator<SimulationRun | RenderedSimulation> {
  let count = 0;
  for await (const { text, lineNumber } of streamLinesAt(checkpointPath, new Set(lines.values()))) {
    count++;
    if (text.startsWith(SIMULATION_LINE_HEAD) && text.endsWith("}"))
      yield renderedItemOf(Buffer.from(text, "utf8"));
    else {
      const record = parseCheckpointLine(checkpointPath, lineNumber, text);
      if (record.kind !== "simulation")
        throw new FileFormatError(checkpointPath, `line ${lineNumber}: changed during the export`);
      yield record.simulation;
    }
  }
  if (count !== expected)
    throw new FileFormatError(
      checkpointPath,
      `changed during the export (${count} of ${expected} simulations found on the second read)`,
    );
}

/** The second pass; a checkpoint that lost lines between the passes fails the export instead of shortening the file. */
async function* winningSimulations(
  checkpointPath: string,
  lines: ReadonlySet<number>,
  expected: number,
): AsyncGenerator<SimulationRun> {
  let count = 0;
  for await (const simulation of streamSimulationsAt(checkpointPath, lines)) {
    count++;
    yield simulation;
  }
  if (count !== expected)
    throw new FileFormatError(
      checkpointPath,
      `changed during the export (${count} of ${expected} simulations found on the second read)`,
    );
}

// Files the index no longer names (dropped infrastructure errors) would fail upstream's integrity check;
// the import backed the folder up before.
function removeUnindexedSimulations(simulationsDir: string, index: readonly SimulationIndexEntry[]): void {
  const ids = new Set(index.map((entry) => entry.id));
  for (const name of readdirSync(simulationsDir))
    if (name.endsWith(".json") && !ids.has(name.slice(0, -".json".length)))
      rmSync(join(simulationsDir, name), { force: true });
}
