/**
 * The fault-audit part of a run's report: read the review files beside the
 * run (the full review, else the user-only one) and render the audit after
 * the standard summary.
 */
import { readRunReview } from "../core/review-file.ts";
import type { SimulationRun } from "../core/simulation.ts";
import { type FaultAudit, faultAudit, renderFaultAudit } from "../metrics/fault-audit.ts";
import { computeMetrics } from "../metrics/index.ts";

/** The audit of a run from its review file, or null when the run has not been reviewed. */
export function runFaultAudit(
  runPath: string,
  simulations: readonly SimulationRun[],
  numTrials: number,
): FaultAudit | null {
  const review = readRunReview(runPath);
  return review && faultAudit(review.mode, simulations, review.state.simulations, { numTrials });
}

/** The report lines of the audit (empty when the run has no review). */
export function renderRunFaultAudit(
  runPath: string,
  simulations: readonly SimulationRun[],
  numTrials: number,
): string[] {
  const audit = runFaultAudit(runPath, simulations, numTrials);
  if (audit === null) return [];
  return ["", ...renderFaultAudit(audit, computeMetrics(simulations, { numTrials }))];
}
