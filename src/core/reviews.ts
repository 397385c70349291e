/**
 * LLM reviews of conversations, in upstream's data models (tau2
 * `ReviewError`, `Review`, `UserOnlyReviewError`, `UserOnlyReview`,
 * `AuthenticationClassification`), and τ-bench's error identification
 * (`FaultAssignmentResult`, `FaultTypeResult`). Pure: the web viewer reads
 * these too. The files that hold them (`review.jsonl`, `analysis.jsonl`) are
 * `core/review-file.ts`.
 */
import { z } from "zod";

/** Upstream's fixed list of error tags (the reviewer prompts name exactly these). */
export const REVIEW_ERROR_TAGS = [
  "hallucination",
  "incorrect_interpretation",
  "guideline_violation",
  "revealed_info_early",
  "inconsistent_behavior",
  "tool_call_schema_error",
  "tool_call_argument_error",
  "irrelevant_tool_call",
  "premature_termination",
  "missed_required_action",
  "wrong_sequence",
  "other",
] as const;

/** Severities of a user-simulator error: it helped the agent, hindered it, or changed nothing. */
export const USER_CRITICAL_SEVERITIES = ["critical_helped", "critical_hindered"] as const;

const Int = z.number().int();

/** One error a full review found (upstream `ReviewError`; `tick_*` are full-duplex only). */
export const ReviewError = z.object({
  source: z.enum(["user", "agent", "unknown"]),
  error_type: z.string().nullable().default(null),
  /** Tags from {@link REVIEW_ERROR_TAGS}; kept as the judge wrote them, like upstream. */
  error_tags: z.array(z.string()).default([]),
  /** `critical` / `minor` for the agent; `critical_helped` / `critical_hindered` / `minor` for the user. */
  severity: z.enum(["minor", "critical", "critical_helped", "critical_hindered"]).nullable().default(null),
  turn_idx: Int.nullable().default(null),
  tick_start: Int.nullable().default(null),
  tick_end: Int.nullable().default(null),
  reasoning: z.string(),
  correct_behavior: z.string().nullable().default(null),
});
export type ReviewError = z.infer<typeof ReviewError>;

/** A review of both sides of a conversation (upstream `Review`). */
export const Review = z.object({
  summary: z.string().default(""),
  agent_error: z.boolean().default(false),
  user_error: z.boolean().default(false),
  critical_user_error: z.boolean().default(false),
  has_errors: z.boolean(),
  errors: z.array(ReviewError).default([]),
  /** USD of the review call; null when the model has no known price. */
  cost: z.number().nullable().default(null),
});
export type Review = z.infer<typeof Review>;

/**
 * One error of the user simulator (upstream `UserOnlyReviewError`). Upstream
 * types its severity `minor | critical` while its prompt and parser use the
 * user severities, so a critical user error fails its own validation and the
 * review is lost; we accept the user severities (and `critical`, for files
 * written under upstream's type).
 */
export const UserOnlyReviewError = z.object({
  turn_idx: Int.nullable().default(null),
  tick_start: Int.nullable().default(null),
  tick_end: Int.nullable().default(null),
  error_type: z.string().default("content_error"),
  error_tags: z.array(z.string()).default([]),
  severity: z.enum(["minor", "critical", "critical_helped", "critical_hindered"]).nullable().default(null),
  reasoning: z.string(),
  user_message: z.string().nullable().default(null),
  correct_behavior: z.string().nullable().default(null),
});
export type UserOnlyReviewError = z.infer<typeof UserOnlyReviewError>;

/** A review of the user simulator only (upstream `UserOnlyReview`). */
export const UserOnlyReview = z.object({
  summary: z.string().default(""),
  user_error: z.boolean().default(false),
  critical_user_error: z.boolean().default(false),
  has_errors: z.boolean(),
  errors: z.array(UserOnlyReviewError).default([]),
  cost: z.number().nullable().default(null),
});
export type UserOnlyReview = z.infer<typeof UserOnlyReview>;

/** Whether the agent authenticated the user (upstream `AuthenticationClassification`). */
export const AuthenticationClassification = z.object({
  status: z.enum(["succeeded", "failed", "not_needed"]),
  reasoning: z.string().default(""),
  cost: z.number().nullable().default(null),
});
export type AuthenticationClassification = z.infer<typeof AuthenticationClassification>;

/** `full`: agent and user (with the authentication classification); `user`: the user simulator only. */
export const ReviewMode = z.enum(["full", "user"]);
export type ReviewMode = z.infer<typeof ReviewMode>;

/** Who τ-bench's error identification holds responsible for a failure (`FaultAuthor`). */
export const FaultAuthor = z.enum(["user", "agent", "environment"]);
export type FaultAuthor = z.infer<typeof FaultAuthor>;

/** τ-bench's kinds of agent fault (`FaultType`, §5.2 of the paper). */
export const FaultType = z.enum([
  "called_wrong_tool",
  "used_wrong_tool_argument",
  "goal_partially_completed",
  "other",
]);
export type FaultType = z.infer<typeof FaultType>;

/** Fault assignment of one failed simulation (τ-bench `FaultAssignmentResult`, task ids as strings). */
export const FaultAssignment = z.object({
  task_id: z.string(),
  author: FaultAuthor,
  description: z.string(),
});
export type FaultAssignment = z.infer<typeof FaultAssignment>;

/** Fault type of one agent-caused failure (τ-bench `FaultTypeResult`). */
export const FaultTypeResult = z.object({
  task_id: z.string(),
  fault_type: FaultType,
  description: z.string(),
});
export type FaultTypeResult = z.infer<typeof FaultTypeResult>;
