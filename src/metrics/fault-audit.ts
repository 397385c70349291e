/**
 * The fault audit of a reviewed run: how often the user simulator erred (all
 * errors, critical ones), which errors the agent made (tags), how the agent
 * authenticated users, and — a non-standard view, always shown after the
 * standard numbers — pass^k with the failures the user simulator caused set
 * apart. A failure counts as the user's when the first critical error of its
 * review (by turn) is the user's, the attribution upstream's metrics use
 * (`sims_by_first_critical_source`). Pure: the web viewer shows it too.
 */
import type { SimulationAnalysisRecord, SimulationReviewRecord } from "../core/review-records.ts";
import type {
  FaultAuthor,
  FaultType,
  Review,
  ReviewError,
  UserOnlyReview,
  UserOnlyReviewError,
} from "../core/reviews.ts";
import type { SimulationRun } from "../core/simulation.ts";
import { type AgentMetrics, computeMetrics, isSuccessful, type MetricsOptions } from "./index.ts";

/** Counts of one audit. */
export interface FaultAudit {
  mode: "full" | "user";
  /** Simulations with a review. */
  reviewed: number;
  /** Simulations whose review failed (the judge's replies were unusable); never counted as clean. */
  reviewFailures: number;
  /** Reviewed simulations with at least one user-simulator error, and with a critical one. */
  userErrorSimulations: number;
  userCriticalSimulations: number;
  /** Reviewed simulations with at least one agent error, and with a critical one (full mode). */
  agentErrorSimulations: number;
  agentCriticalSimulations: number;
  /** Agent errors per tag, most frequent first (ties by name). */
  agentTags: { tag: string; count: number; critical: number }[];
  /** User-simulator errors per tag. */
  userTags: { tag: string; count: number; critical: number }[];
  auth: { succeeded: number; failed: number; notNeeded: number };
  /** Failed simulations whose first critical error is the user simulator's. */
  userCausedFailures: number;
  /** Metrics with those failures left out (null when there are none to leave out). */
  withoutUserCausedFailures: AgentMetrics | null;
  /** Total USD of the review calls (null when some were unpriced). */
  costUsd: number | null;
}

type AnyError = ReviewError | UserOnlyReviewError;

function isFull(review: Review | UserOnlyReview): review is Review {
  return "agent_error" in review;
}

function sourceOf(error: AnyError): "user" | "agent" | "unknown" {
  return "source" in error ? error.source : "user";
}

function isCritical(error: AnyError): boolean {
  const source = sourceOf(error);
  if (source === "agent") return error.severity === "critical";
  return (
    error.severity === "critical_helped" ||
    error.severity === "critical_hindered" ||
    error.severity === "critical"
  );
}

/** Who made the first critical error of a review (by turn; errors without a turn come last). */
export function firstCriticalSource(review: Review | UserOnlyReview): "user" | "agent" | null {
  const position = (error: AnyError) => error.tick_start ?? error.turn_idx ?? Number.POSITIVE_INFINITY;
  let first: AnyError | null = null;
  for (const error of review.errors as AnyError[]) {
    if (sourceOf(error) === "unknown" || !isCritical(error)) continue;
    if (first === null || position(error) < position(first)) first = error;
  }
  if (first === null) return null;
  return sourceOf(first) === "agent" ? "agent" : "user";
}

function tally(errors: readonly AnyError[]): { tag: string; count: number; critical: number }[] {
  const counts = new Map<string, { count: number; critical: number }>();
  for (const error of errors)
    for (const tag of error.error_tags) {
      const entry = counts.get(tag) ?? { count: 0, critical: 0 };
      entry.count++;
      if (isCritical(error)) entry.critical++;
      counts.set(tag, entry);
    }
  return [...counts]
    .map(([tag, entry]) => ({ tag, ...entry }))
    .sort((a, b) => b.count - a.count || (a.tag < b.tag ? -1 : 1));
}

/** The audit of a run's simulations from one review file's records (by simulation id). */
export function faultAudit(
  mode: "full" | "user",
  simulations: readonly SimulationRun[],
  records: ReadonlyMap<string, SimulationReviewRecord>,
  options: MetricsOptions = {},
): FaultAudit {
  const audit: FaultAudit = {
    mode,
    reviewed: 0,
    reviewFailures: 0,
    userErrorSimulations: 0,
    userCriticalSimulations: 0,
    agentErrorSimulations: 0,
    agentCriticalSimulations: 0,
    agentTags: [],
    userTags: [],
    auth: { succeeded: 0, failed: 0, notNeeded: 0 },
    userCausedFailures: 0,
    withoutUserCausedFailures: null,
    costUsd: 0,
  };
  const agentErrors: AnyError[] = [];
  const userErrors: AnyError[] = [];
  const setApart = new Set<string>();
  for (const simulation of simulations) {
    const record = records.get(simulation.id);
    if (!record) continue;
    if (record.cost_usd === null) audit.costUsd = null;
    else if (audit.costUsd !== null) audit.costUsd += record.cost_usd;
    if (record.status === "failed") {
      audit.reviewFailures++;
      continue;
    }
    audit.reviewed++;
    const review = record.review;
    const errors = review.errors as AnyError[];
    const agent = errors.filter((error) => sourceOf(error) === "agent");
    const user = errors.filter((error) => sourceOf(error) === "user");
    agentErrors.push(...agent);
    userErrors.push(...user);
    if (user.length > 0) audit.userErrorSimulations++;
    if (user.some(isCritical)) audit.userCriticalSimulations++;
    if (isFull(review)) {
      if (agent.length > 0) audit.agentErrorSimulations++;
      if (agent.some(isCritical)) audit.agentCriticalSimulations++;
    }
    const status = record.auth_classification?.status;
    if (status === "succeeded") audit.auth.succeeded++;
    else if (status === "failed") audit.auth.failed++;
    else if (status === "not_needed") audit.auth.notNeeded++;
    const failed =
      simulation.termination_reason !== "infrastructure_error" &&
      !isSuccessful(simulation.reward_info?.reward ?? 0);
    if (failed && firstCriticalSource(review) === "user") setApart.add(simulation.id);
  }
  audit.agentTags = tally(agentErrors);
  audit.userTags = tally(userErrors);
  audit.userCausedFailures = setApart.size;
  if (setApart.size > 0)
    audit.withoutUserCausedFailures = computeMetrics(
      simulations.filter((simulation) => !setApart.has(simulation.id)),
      options,
    );
  return audit;
}

const pct = (part: number, whole: number) => (whole === 0 ? "-" : `${((100 * part) / whole).toFixed(1)}%`);

/** The audit as report lines (the terminal report; the web viewer has its own card). */
export function renderFaultAudit(audit: FaultAudit, standard: AgentMetrics): string[] {
  const lines: string[] = [];
  const label = audit.mode === "full" ? "review" : "user-simulator review";
  lines.push(
    `Fault audit (LLM ${label} of ${audit.reviewed} simulation(s)${audit.reviewFailures > 0 ? `; ${audit.reviewFailures} review failure(s), not counted` : ""}${audit.costUsd === null ? "" : `; review cost $${audit.costUsd.toFixed(4)}`})`,
  );
  lines.push(
    `  User simulator errors  ${audit.userErrorSimulations}/${audit.reviewed} simulations (${pct(audit.userErrorSimulations, audit.reviewed)}) · critical ${audit.userCriticalSimulations} (${pct(audit.userCriticalSimulations, audit.reviewed)})`,
  );
  if (audit.mode === "full") {
    lines.push(
      `  Agent errors           ${audit.agentErrorSimulations}/${audit.reviewed} simulations (${pct(audit.agentErrorSimulations, audit.reviewed)}) · critical ${audit.agentCriticalSimulations} (${pct(audit.agentCriticalSimulations, audit.reviewed)})`,
    );
    if (audit.agentTags.length > 0)
      lines.push(
        `  Agent error tags       ${audit.agentTags.map((entry) => `${entry.tag} ${entry.count}${entry.critical > 0 ? ` (${entry.critical} critical)` : ""}`).join(" · ")}`,
      );
    const auth = audit.auth;
    if (auth.succeeded + auth.failed + auth.notNeeded > 0)
      lines.push(
        `  Authentication         succeeded ${auth.succeeded} · failed ${auth.failed} · not needed ${auth.notNeeded}`,
      );
  }
  if (audit.userTags.length > 0)
    lines.push(
      `  User error tags        ${audit.userTags.map((entry) => `${entry.tag} ${entry.count}${entry.critical > 0 ? ` (${entry.critical} critical)` : ""}`).join(" · ")}`,
    );
  lines.push(
    `  NON-STANDARD VIEW — not comparable to published numbers: ${audit.userCausedFailures} failure(s) whose first critical error was the user simulator's, set apart`,
  );
  const adjusted = audit.withoutUserCausedFailures;
  if (adjusted && adjusted.passHatK.length > 0) {
    const row = (values: readonly number[]) => values.map((v) => v.toFixed(3).padStart(7)).join("");
    lines.push(
      `  ${"pass^k".padEnd(22)}${adjusted.passHatK.map((_, i) => `k=${i + 1}`.padStart(7)).join("")}`,
    );
    lines.push(`  ${"standard".padEnd(22)}${row(standard.passHatK.slice(0, adjusted.passHatK.length))}`);
    lines.push(`  ${"user faults set apart".padEnd(22)}${row(adjusted.passHatK)}`);
  } else lines.push("  (no failure to set apart: the numbers are the standard ones)");
  return lines;
}

/** τ-bench's error-identification breakdown of a run's analysis records (`tau analyze`). */
export interface AnalysisBreakdown {
  /** Failed simulations analysed, and those whose analysis failed (the judge's replies were unusable). */
  analysed: number;
  analysisFailures: number;
  /** Who is at fault, over the analysed ones. */
  authors: { author: FaultAuthor; count: number }[];
  /** Agent faults with a fault type. */
  typed: number;
  /** Fault type, over the typed ones. */
  faultTypes: { faultType: FaultType; count: number }[];
}

/** τ-bench's names of the fault authors, as `tau analyze` prints them. */
export const FAULT_AUTHOR_LABELS: Record<FaultAuthor, string> = {
  user: "User",
  agent: "Agent",
  environment: "Environment (otherwise)",
};

/** τ-bench's names of the agent fault types. */
export const FAULT_TYPE_LABELS: Record<FaultType, string> = {
  called_wrong_tool: "Called wrong tool",
  used_wrong_tool_argument: "Used wrong tool argument",
  goal_partially_completed: "Goal partially completed",
  other: "Other",
};

/** The counts `tau analyze` prints and the web viewer shows. */
export function analysisBreakdown(records: readonly SimulationAnalysisRecord[]): AnalysisBreakdown {
  const done = records.filter((record) => record.status === "reviewed");
  const typed = done.filter((record) => record.fault_type !== null);
  return {
    analysed: done.length,
    analysisFailures: records.length - done.length,
    authors: (["user", "agent", "environment"] as const).map((author) => ({
      author,
      count: done.filter((record) => record.fault_assignment.author === author).length,
    })),
    typed: typed.length,
    faultTypes: (
      ["called_wrong_tool", "used_wrong_tool_argument", "goal_partially_completed", "other"] as const
    ).map((faultType) => ({
      faultType,
      count: typed.filter((record) => record.fault_type?.fault_type === faultType).length,
    })),
  };
}
