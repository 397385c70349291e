/**
 * The records of the files `tau review` and `tau analyze` write beside a run
 * (see `review-file.ts`, which reads and writes them). Pure (no `node:`
 * imports): the web viewer's app reads these types.
 */
import { z } from "zod";
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
