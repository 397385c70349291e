/**
 * Reviewing one simulation with a judge model (upstream `tau2 review`): the
 * full review (errors of agent and user, then the authentication
 * classification) or the user-only review. Replies are read as upstream
 * reads them (the JSON inside a fenced block, else from the first `{` to the
 * last `}`); a reply that is not usable — empty, not JSON, wrong shape — is
 * asked for again, and after the last attempt the simulation is recorded as a
 * review failure. Upstream turns such a reply into a review with no errors;
 * here it never counts as a clean review.
 */
import { runStoppingError, TauError } from "../core/errors.ts";
import { pyRepr } from "../core/py-json.ts";
import {
  type AuthenticationClassification,
  Review,
  ReviewError,
  type ReviewMode,
  UserOnlyReview,
  UserOnlyReviewError,
} from "../core/reviews.ts";
import type { ReviewFailure } from "../core/review-records.ts";
import type { SimulationRun } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import type { LlmClient, LlmMessage } from "../llm/types.ts";
import { renderUserScenario } from "../users/scenario.ts";
import {
  AUTH_SYSTEM_PROMPT,
  authUserPrompt,
  FULL_REVIEW_SYSTEM_PROMPT,
  fullReviewUserPrompt,
  userReviewSystemPrompt,
  userReviewUserPrompt,
} from "./review-prompts.ts";
import { renderExpectedActions, renderReviewTranscript, userVisibleMessages } from "./transcript.ts";

/** A reply the judge gave that cannot be used; the call is repeated. */
export class JudgeReplyError extends TauError {
  constructor(
    message: string,
    readonly reply: string | null,
  ) {
    super(message);
  }
}

/** Upstream's JSON extraction: a fenced block's body, else the first `{` to the last `}`, else the text. */
export function extractJson(text: string): string {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  if (fenced) return fenced[1]!.trim();
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  return start !== -1 && end > start ? text.slice(start, end + 1) : text;
}

/** A reply as a JSON object (see {@link extractJson}); anything else is a {@link JudgeReplyError}. */
export function parseObject(content: string | null): Record<string, unknown> {
  if (content === null || content.trim() === "") throw new JudgeReplyError("the reply is empty", content);
  let data: unknown;
  try {
    data = JSON.parse(extractJson(content));
  } catch (error) {
    throw new JudgeReplyError(`the reply is not valid JSON (${(error as Error).message})`, content);
  }
  if (data === null || typeof data !== "object" || Array.isArray(data))
    throw new JudgeReplyError("the reply is not a JSON object", content);
  return data as Record<string, unknown>;
}

/** Pydantic's lax int: an integral number or a numeric string; null stays null. */
function laxInt(value: unknown, where: string, reply: string | null): number | null {
  if (value === null || value === undefined) return null;
  const number = typeof value === "string" && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof number === "number" && Number.isInteger(number)) return number;
  throw new JudgeReplyError(`${where} is not an integer: ${JSON.stringify(value)}`, reply);
}

function optionalString(value: unknown, where: string, reply: string | null): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value;
  throw new JudgeReplyError(`${where} is not a string`, reply);
}

function tagsOf(value: unknown, where: string, reply: string | null): string[] {
  if (value === null || value === undefined) return [];
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.every((tag) => typeof tag === "string")) return value;
  throw new JudgeReplyError(`${where}.error_tags is not a list of strings`, reply);
}

function errorEntries(data: Record<string, unknown>, reply: string | null): Record<string, unknown>[] {
  const errors = data.errors ?? [];
  if (!Array.isArray(errors)) throw new JudgeReplyError("'errors' is not a list", reply);
  return errors.map((entry, index) => {
    if (entry === null || typeof entry !== "object" || Array.isArray(entry))
      throw new JudgeReplyError(`errors[${index}] is not an object`, reply);
    return entry as Record<string, unknown>;
  });
}

function summaryOf(data: Record<string, unknown>, reply: string | null): string {
  return optionalString(data.summary, "summary", reply) ?? "";
}

/** Parses a full review's reply (upstream `_parse_review_response`); the flags follow from the errors. */
export function parseFullReview(content: string | null, cost: number | null = null): Review {
  const data = parseObject(content);
  const errors = errorEntries(data, content).map((entry, index): ReviewError => {
    const where = `errors[${index}]`;
    const sourceText = typeof entry.source === "string" ? entry.source.toLowerCase() : "unknown";
    const source = sourceText === "user" || sourceText === "agent" ? sourceText : "unknown";
    const severity = entry.severity;
    return ReviewError.parse({
      source,
      error_type: optionalString(entry.error_type, `${where}.error_type`, content),
      error_tags: tagsOf(entry.error_tags, where, content),
      severity:
        source === "user" &&
        (severity === "minor" || severity === "critical_helped" || severity === "critical_hindered")
          ? severity
          : source === "agent" && (severity === "minor" || severity === "critical")
            ? severity
            : null,
      turn_idx: laxInt(entry.turn_idx, `${where}.turn_idx`, content),
      tick_start: laxInt(entry.tick_start, `${where}.tick_start`, content),
      tick_end: laxInt(entry.tick_end, `${where}.tick_end`, content),
      reasoning: optionalString(entry.reasoning, `${where}.reasoning`, content) ?? "",
      correct_behavior: optionalString(entry.correct_behavior, `${where}.correct_behavior`, content),
    });
  });
  return Review.parse({
    summary: summaryOf(data, content),
    agent_error: errors.some((error) => error.source === "agent"),
    user_error: errors.some((error) => error.source === "user"),
    critical_user_error: errors.some(
      (error) =>
        error.source === "user" &&
        (error.severity === "critical_helped" || error.severity === "critical_hindered"),
    ),
    has_errors: errors.length > 0,
    errors,
    cost,
  });
}

/** Parses a user-only review's reply (upstream `_parse_user_only_review_response`). */
export function parseUserReview(content: string | null, cost: number | null = null): UserOnlyReview {
  const data = parseObject(content);
  const errors = errorEntries(data, content).map((entry, index): UserOnlyReviewError => {
    const where = `errors[${index}]`;
    const severity = entry.severity;
    return UserOnlyReviewError.parse({
      turn_idx: laxInt(entry.turn_idx, `${where}.turn_idx`, content),
      tick_start: laxInt(entry.tick_start, `${where}.tick_start`, content),
      tick_end: laxInt(entry.tick_end, `${where}.tick_end`, content),
      error_type: optionalString(entry.error_type, `${where}.error_type`, content) ?? "content_error",
      error_tags: tagsOf(entry.error_tags, where, content),
      severity:
        severity === "minor" || severity === "critical_helped" || severity === "critical_hindered"
          ? severity
          : null,
      reasoning: optionalString(entry.reasoning, `${where}.reasoning`, content) ?? "",
      user_message: optionalString(entry.user_message, `${where}.user_message`, content),
      correct_behavior: optionalString(entry.correct_behavior, `${where}.correct_behavior`, content),
    });
  });
  return UserOnlyReview.parse({
    summary: summaryOf(data, content),
    user_error: errors.length > 0,
    critical_user_error: errors.some(
      (error) => error.severity === "critical_helped" || error.severity === "critical_hindered",
    ),
    has_errors: errors.length > 0,
    errors,
    cost,
  });
}

/**
 * Parses the authentication classification. Upstream reads the first flat
 * `{…}` and falls back to `not_needed` when it cannot; here an unreadable
 * reply or an unknown status is an error (and is asked for again).
 */
export function parseAuthClassification(
  content: string | null,
  cost: number | null = null,
): AuthenticationClassification {
  if (content === null || content.trim() === "") throw new JudgeReplyError("the reply is empty", content);
  const match = /\{[^{}]*\}/.exec(content);
  if (!match) throw new JudgeReplyError("the reply has no JSON object", content);
  let data: unknown;
  try {
    data = JSON.parse(match[0]);
  } catch (error) {
    throw new JudgeReplyError(`the reply is not valid JSON (${(error as Error).message})`, content);
  }
  const record = data as Record<string, unknown>;
  const status = record.status;
  if (status !== "succeeded" && status !== "failed" && status !== "not_needed")
    throw new JudgeReplyError(`unknown authentication status ${JSON.stringify(status)}`, content);
  return {
    status,
    reasoning: optionalString(record.reasoning, "reasoning", content) ?? "",
    cost,
  };
}

/** What a review needs from the run besides the simulation. */
export interface ReviewContext {
  /** The policy the agent was bound by (`info.environment_info.policy`). */
  policy: string;
  /** The user simulator's guidelines (`info.user_info.global_simulation_guidelines`). */
  guidelines: string;
  client: LlmClient;
  /** The judge's arguments (default: none, as upstream's `generate` call). */
  args: Record<string, unknown>;
  /** Attempts per judge call before the simulation is recorded as a failure (default 3). */
  maxAttempts?: number;
  signal?: AbortSignal;
}

/** The outcome of one simulation's review. */
export type SimulationReviewOutcome =
  | {
      status: "reviewed";
      review: Review | UserOnlyReview;
      authClassification: AuthenticationClassification | null;
    }
  | { status: "failed"; failure: ReviewFailure };

const clip = (text: string | null) =>
  text === null ? null : text.length > 2000 ? `${text.slice(0, 2000)}…` : text;

/** Thrown when a judge call keeps failing; carries what the failure record needs. */
export class JudgeCallFailure extends TauError {
  constructor(
    message: string,
    readonly attempts: number,
    readonly lastReply: string | null,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }
}

/**
 * One judge call, parsed; an unusable reply or a failed call is tried again
 * up to `maxAttempts` times. An error that would stop every call (a rejected
 * key) propagates at once.
 */
export async function askJudge<T>(
  context: Pick<ReviewContext, "client" | "args" | "maxAttempts" | "signal">,
  messages: LlmMessage[],
  callName: string,
  parse: (content: string | null, cost: number | null) => T,
): Promise<T> {
  const maxAttempts = Math.max(1, context.maxAttempts ?? 3);
  let lastError: unknown = null;
  let lastReply: string | null = null;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    context.signal?.throwIfAborted();
    let content: string | null;
    try {
      const response = await context.client.generate({
        messages,
        args: { ...context.args },
        callName,
        ...(context.signal ? { signal: context.signal } : {}),
      });
      content = response.content;
      lastReply = content;
      return parse(content, response.costUsd);
    } catch (error) {
      if (runStoppingError(error) || context.signal?.aborted) throw error;
      lastError = error;
    }
  }
  const reason = lastError instanceof Error ? lastError.message : String(lastError);
  throw new JudgeCallFailure(`${callName}: ${reason}`, maxAttempts, clip(lastReply), { cause: lastError });
}

function nlAssertionsText(task: Task): string {
  const assertions = task.evaluation_criteria?.nl_assertions;
  return assertions && assertions.length > 0 ? pyRepr([...assertions]) : "";
}

/** The judge messages of a simulation's review (full or user-only). */
export function reviewMessages(
  mode: ReviewMode,
  simulation: SimulationRun,
  task: Task,
  context: Pick<ReviewContext, "policy" | "guidelines">,
): LlmMessage[] {
  const userInstructions = renderUserScenario(task.user_scenario);
  if (mode === "user")
    return [
      { role: "system", content: userReviewSystemPrompt(context.guidelines) },
      {
        role: "user",
        content: userReviewUserPrompt({
          userInstructions,
          conversation: renderReviewTranscript(userVisibleMessages(simulation.messages)),
        }),
      },
    ];
  return [
    { role: "system", content: FULL_REVIEW_SYSTEM_PROMPT },
    {
      role: "user",
      content: fullReviewUserPrompt({
        policy: context.policy,
        simulationGuidelines: context.guidelines,
        userInstructions,
        exampleActionTrajectory: renderExpectedActions(task.evaluation_criteria?.actions),
        naturalLanguageAssertions: nlAssertionsText(task),
        conversation: renderReviewTranscript(simulation.messages),
      }),
    },
  ];
}

/** Reviews one simulation; a failure is an outcome, not an exception (unless the run must stop). */
export async function reviewSimulation(
  mode: ReviewMode,
  simulation: SimulationRun,
  task: Task,
  context: ReviewContext,
): Promise<SimulationReviewOutcome> {
  try {
    const messages = reviewMessages(mode, simulation, task, context);
    if (mode === "user") {
      const review = await askJudge(context, messages, "llm_judge_user_only_review", parseUserReview);
      return { status: "reviewed", review, authClassification: null };
    }
    const review = await askJudge(context, messages, "llm_judge_review", parseFullReview);
    const authClassification = await askJudge(
      context,
      [
        { role: "system", content: AUTH_SYSTEM_PROMPT },
        { role: "user", content: authUserPrompt(renderReviewTranscript(simulation.messages)) },
      ],
      "classify_authentication",
      parseAuthClassification,
    );
    return { status: "reviewed", review, authClassification };
  } catch (error) {
    if (!(error instanceof JudgeCallFailure)) throw error;
    return {
      status: "failed",
      failure: { error: error.message, attempts: error.attempts, last_reply: error.lastReply },
    };
  }
}
