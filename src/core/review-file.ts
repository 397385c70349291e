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
import { z } from "zod";
import { FileFormatError, formatIssuePath } from "./errors.ts";
import {
  AuthenticationClassification,
  FaultAssignment,
  FaultTypeResult,
  Review,
  type ReviewMode,
  UserOnlyReview,
} from "./reviews.ts";

/** The record version this code writes. */
export const REVIEW_FILE_VERSION = 1;

const Version = z.number().int().min(1).max(REVIEW_FILE_VERSION);

/** What a file holds: a review (`full` or `user`) or τ-bench's error identification. */
export const ReviewFileKind = z.enum(["review_full", "review_user", "analysis"]);
export type ReviewFileKind = z.infer<typeof ReviewFileKind>;

/** First record: what was asked, so a resume with other settings is refused. */
export const ReviewHeader = z.object({
  kind: z.literal("header"),
  version: Version,
  file_kind: ReviewFileKind,
  /** The judge model (`provider/model`) and its arguments. */
  llm: z.string(),
  llm_args: z.record(z.string(), z.any()),
  /** The run file that was reviewed. */
  run_path: z.string(),
  created_at: z.string(),
  taubench_version: z.string(),
});
export type ReviewHeader = z.infer<typeof ReviewHeader>;

/** Why a simulation has no review: the judge's replies could not be used, or the calls failed. */
export const ReviewFailure = z.object({
  error: z.string(),
  attempts: z.number().int(),
  /** The last reply's text (clipped), when there was one. */
  last_reply: z.string().nullable(),
});
export type ReviewFailure = z.infer<typeof ReviewFailure>;

const SimulationKey = {
  version: Version,
  simulation_id: z.string(),
  task_id: z.string(),
  trial: z.number().int(),
  /** Reward of the reviewed simulation, so reports need not join the run to tell failures apart. */
  reward: z.number().nullable(),
  /** USD of every call made for this simulation (failed attempts included); null when unpriced. */
  cost_usd: z.number().nullable(),
  finished_at: z.string(),
};

/** One simulation's review: done, or failed (never both). */
export const SimulationReviewRecord = z.discriminatedUnion("status", [
  z.object({
    kind: z.literal("simulation"),
    status: z.literal("reviewed"),
    ...SimulationKey,
    review: z.union([Review, UserOnlyReview]),
    auth_classification: AuthenticationClassification.nullable(),
  }),
  z.object({
    kind: z.literal("simulation"),
    status: z.literal("failed"),
    ...SimulationKey,
    failure: ReviewFailure,
  }),
]);
export type SimulationReviewRecord = z.infer<typeof SimulationReviewRecord>;

/** One failed simulation's error identification (`fault_type` only for agent faults). */
export const SimulationAnalysisRecord = z.discriminatedUnion("status", [
  z.object({
    kind: z.literal("simulation"),
    status: z.literal("reviewed"),
    ...SimulationKey,
    fault_assignment: FaultAssignment,
    fault_type: FaultTypeResult.nullable(),
  }),
  z.object({
    kind: z.literal("simulation"),
    status: z.literal("failed"),
    ...SimulationKey,
    failure: ReviewFailure,
  }),
]);
export type SimulationAnalysisRecord = z.infer<typeof SimulationAnalysisRecord>;

/** Provider usage of one invocation (the runner's usage counters, as a free object). */
export const ReviewSessionRecord = z.object({
  kind: z.literal("session"),
  version: Version,
  session_id: z.string(),
  started_at: z.string(),
  usage: z.record(z.string(), z.any()),
});
export type ReviewSessionRecord = z.infer<typeof ReviewSessionRecord>;

/** The file names beside a run, per kind. */
export const REVIEW_FILE_NAMES: Record<ReviewFileKind, string> = {
  review_full: "review.jsonl",
  review_user: "review-user.jsonl",
  analysis: "analysis.jsonl",
};

/** The kind of file a review mode writes. */
export function reviewFileKind(mode: ReviewMode): ReviewFileKind {
  return mode === "full" ? "review_full" : "review_user";
}

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
