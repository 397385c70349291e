/**
 * The files `tau review` and `tau analyze` write beside a run: one JSON line
 * per record, appended as each simulation is done, so a killed review resumes
 * where it stopped. A `header` names what the file holds (review mode or
 * analysis, the judge model and its arguments); each simulation gets one
 * record (the latest wins, so a failure retried on resume is replaced); a
 * `session` record holds one invocation's provider usage (latest per session
 * wins). Records carry `version`; fixtures of every version stay in the tests.
 * A torn last line (kill -9 mid-write) is ignored.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { z } from "zod";
import { FileFormatError, formatIssuePath } from "./errors.ts";
import type { ReviewMode } from "./reviews.ts";
import {
  REVIEW_FILE_NAMES,
  type ReviewFileKind,
  ReviewHeader,
  ReviewSessionRecord,
  reviewFileKind,
  SimulationAnalysisRecord,
  SimulationReviewRecord,
} from "./review-records.ts";

/** Where a run's file of this kind lives (beside the run file). */
export function reviewFilePath(runPath: string, kind: ReviewFileKind): string {
  return join(dirname(runPath), REVIEW_FILE_NAMES[kind]);
}

/** A review file as read: its header, each simulation's latest record, and the sessions. */
export interface ReviewFileState<R> {
  path: string;
  header: ReviewHeader | null;
  /** By simulation id, the latest record. */
  simulations: Map<string, R>;
  sessions: Map<string, ReviewSessionRecord>;
}

function parseRecord<S extends z.ZodType>(path: string, lineNumber: number, schema: S, value: unknown) {
  const result = schema.safeParse(value);
  if (result.success) return result.data as z.infer<S>;
  const issue = result.error.issues[0]!;
  throw new FileFormatError(
    path,
    `line ${lineNumber}: ${formatIssuePath(issue.path)}: ${issue.message.replace(/\s+/g, " ")}`,
  );
}

function readRecords<R>(path: string, simulationSchema: z.ZodType<R>): ReviewFileState<R> {
  const state: ReviewFileState<R> = { path, header: null, simulations: new Map(), sessions: new Map() };
  if (!existsSync(path)) return state;
  const lines = readFileSync(path, "utf8").split("\n");
  const last = lines.length - 1;
  lines.forEach((line, index) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      // A torn last line is what a kill mid-append leaves; anywhere else the file is damaged.
      if (index === last || (index === last - 1 && lines[last] === "")) return;
      throw new FileFormatError(path, `line ${index + 1}: not JSON (${(error as Error).message})`);
    }
    const kind = (value as { kind?: unknown } | null)?.kind;
    if (kind === "header") {
      const header = parseRecord(path, index + 1, ReviewHeader, value);
      if (state.header === null) state.header = header;
    } else if (kind === "simulation") {
      const record = parseRecord(path, index + 1, simulationSchema, value) as R & { simulation_id: string };
      state.simulations.set(record.simulation_id, record);
    } else if (kind === "session") {
      const record = parseRecord(path, index + 1, ReviewSessionRecord, value);
      state.sessions.set(record.session_id, record);
    } else {
      throw new FileFormatError(
        path,
        `line ${index + 1}: not a review record (kind must be header, simulation or session)`,
      );
    }
  });
  return state;
}

/** Reads a review file (`review.jsonl` or `review-user.jsonl`); a missing file is an empty state. */
export function readReviewFile(path: string): ReviewFileState<SimulationReviewRecord> {
  return readRecords(path, SimulationReviewRecord);
}

/** Reads an analysis file (`analysis.jsonl`); a missing file is an empty state. */
export function readAnalysisFile(path: string): ReviewFileState<SimulationAnalysisRecord> {
  return readRecords(path, SimulationAnalysisRecord);
}

/**
 * The review a run's report reads: the full review beside the run, else the
 * user-only one (the first that holds a simulation); null when neither does.
 * The terminal report and the web viewer both choose through this.
 */
export function readRunReview(
  runPath: string,
): { mode: ReviewMode; state: ReviewFileState<SimulationReviewRecord> } | null {
  for (const mode of ["full", "user"] as const) {
    const path = reviewFilePath(runPath, reviewFileKind(mode));
    if (!existsSync(path)) continue;
    const state = readReviewFile(path);
    if (state.simulations.size > 0) return { mode, state };
  }
  return null;
}

/** The analysis records beside a run (`tau analyze`); null when there are none. */
export function readRunAnalysis(runPath: string): ReviewFileState<SimulationAnalysisRecord> | null {
  const path = reviewFilePath(runPath, "analysis");
  if (!existsSync(path)) return null;
  const state = readAnalysisFile(path);
  return state.simulations.size > 0 ? state : null;
}
