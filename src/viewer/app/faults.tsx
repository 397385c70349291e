/**
 * What `tau review` and `tau analyze` left beside a run: the run page's
 * fault-audit card (a non-standard view, shown after the standard numbers)
 * and a trajectory's review errors. The numbers come computed from the
 * server (`metrics/fault-audit.ts`, as `tau view` prints them); this file
 * only lays them out.
 */
import type { SimulationAnalysisRecord, SimulationReviewRecord } from "../../core/review-records.ts";
import type { AgentMetrics } from "../../metrics/index.ts";
import { FAULT_AUTHOR_LABELS, FAULT_TYPE_LABELS } from "../../metrics/fault-audit.ts";
import type { RunFaults } from "../wire.ts";
import { Card, Tag } from "./components.tsx";
import { percent, rate, usd } from "./format.ts";

const share = (part: number, whole: number) => (whole === 0 ? "–" : percent(part / whole));

function TagList({
  tags,
  testId,
}: {
  tags: { tag: string; count: number; critical: number }[];
  testId: string;
}) {
  if (tags.length === 0) return <span class="muted">none</span>;
  return (
    <span data-testid={testId}>
      {tags.map((entry) => (
        <span key={entry.tag} class="fault-tag" data-tag={entry.tag}>
          <Tag>{entry.tag}</Tag> <span data-value="count">{entry.count}</span>
          {entry.critical > 0 && (
            <span class="muted small">
              {" "}
              (<span data-value="critical">{entry.critical}</span> critical)
            </span>
          )}{" "}
        </span>
      ))}
    </span>
  );
}

/** Simulations with an error of one side, and with a critical one, of those reviewed. */
function ErrorRow({
  name,
  label,
  all,
  critical,
  of,
}: {
  name: string;
  label: string;
  all: number;
  critical: number;
  of: number;
}) {
  return (
    <tr data-row={name}>
      <td>{label}</td>
      <td class="num" data-value="all">
        {all}
      </td>
      <td class="num" data-value="all-rate">
        {share(all, of)}
      </td>
      <td class="muted">critical</td>
      <td class="num" data-value="critical">
        {critical}
      </td>
      <td class="num" data-value="critical-rate">
        {share(critical, of)}
      </td>
    </tr>
  );
}

function ReviewAudit({
  review,
  standard,
}: {
  review: NonNullable<RunFaults["review"]>;
  standard: AgentMetrics;
}) {
  const { audit } = review;
  const adjusted = audit.withoutUserCausedFailures;
  return (
    <div data-testid="fault-audit" data-mode={audit.mode}>
      <p class="muted small">
        LLM {audit.mode === "full" ? "review" : "user-simulator review"} ({review.file}) of{" "}
        <strong data-value="reviewed">{audit.reviewed}</strong> simulation(s)
        {audit.reviewFailures > 0 && (
          <>
            {" "}
            · <span data-value="review-failures">{audit.reviewFailures}</span> review failure(s), not counted
          </>
        )}
        {audit.costUsd !== null && <> · review cost {usd(audit.costUsd)}</>}
      </p>
      <table class="compact">
        <tbody>
          <ErrorRow
            name="user-errors"
            label="user simulator errors"
            all={audit.userErrorSimulations}
            critical={audit.userCriticalSimulations}
            of={audit.reviewed}
          />
          {audit.mode === "full" && (
            <ErrorRow
              name="agent-errors"
              label="agent errors"
              all={audit.agentErrorSimulations}
              critical={audit.agentCriticalSimulations}
              of={audit.reviewed}
            />
          )}
        </tbody>
        <caption class="muted small">
          Simulations with at least one error of that side, of those reviewed.
        </caption>
      </table>
      {audit.mode === "full" && (
        <p>
          Agent error tags: <TagList tags={audit.agentTags} testId="agent-tags" />
        </p>
      )}
      <p>
        User error tags: <TagList tags={audit.userTags} testId="user-tags" />
      </p>
      {audit.mode === "full" && audit.auth.succeeded + audit.auth.failed + audit.auth.notNeeded > 0 && (
        <p class="small" data-testid="auth">
          Authentication: succeeded {audit.auth.succeeded} · failed {audit.auth.failed} · not needed{" "}
          {audit.auth.notNeeded}
        </p>
      )}
      <p class="warn-text small" data-testid="non-standard">
        Non-standard view, not comparable to published numbers:{" "}
        <strong data-value="set-apart">{audit.userCausedFailures}</strong> failure(s) whose first critical
        error was the user simulator's set apart.
      </p>
      {adjusted && adjusted.passHatK.length > 0 ? (
        <table class="compact" data-testid="fault-passk">
          <thead>
            <tr>
              <th>pass^k</th>
              {adjusted.passHatK.map((_, i) => (
                <th key={i} class="num">
                  k={i + 1}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            <tr data-row="standard">
              <td>standard</td>
              {adjusted.passHatK.map((_, i) => (
                <td key={i} class="num" data-k={i + 1}>
                  {rate(standard.passHatK[i])}
                </td>
              ))}
            </tr>
            <tr data-row="set-apart">
              <td>user faults set apart</td>
              {adjusted.passHatK.map((value, i) => (
                <td key={i} class="num" data-k={i + 1}>
                  {rate(value)}
                </td>
              ))}
            </tr>
          </tbody>
        </table>
      ) : (
        <p class="muted small">No failure to set apart: the numbers are the standard ones.</p>
      )}
    </div>
  );
}

function AnalysisTable({ analysis }: { analysis: NonNullable<RunFaults["analysis"]> }) {
  const { breakdown } = analysis;
  return (
    <div data-testid="fault-analysis">
      <p class="muted small">
        τ-bench's error identification ({analysis.file}) of{" "}
        <strong data-value="analysed">{breakdown.analysed}</strong> failed simulation(s)
        {breakdown.analysisFailures > 0 && ` · ${breakdown.analysisFailures} could not be analysed`}
      </p>
      <table class="compact">
        <thead>
          <tr>
            <th>who is at fault</th>
            <th class="num">simulations</th>
            <th class="num">share</th>
          </tr>
        </thead>
        <tbody>
          {breakdown.authors.map((entry) => (
            <tr key={entry.author} data-author={entry.author}>
              <td>{FAULT_AUTHOR_LABELS[entry.author]}</td>
              <td class="num" data-value="count">
                {entry.count}
              </td>
              <td class="num">{share(entry.count, breakdown.analysed)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <table class="compact">
        <thead>
          <tr>
            <th>agent fault type</th>
            <th class="num">simulations</th>
            <th class="num">share</th>
          </tr>
        </thead>
        <tbody>
          {breakdown.faultTypes.map((entry) => (
            <tr key={entry.faultType} data-fault-type={entry.faultType}>
              <td>{FAULT_TYPE_LABELS[entry.faultType]}</td>
              <td class="num" data-value="count">
                {entry.count}
              </td>
              <td class="num">{share(entry.count, breakdown.typed)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The run page's card; nothing when the run was neither reviewed nor analysed. */
export function FaultAuditCard({
  faults,
  standard,
}: {
  faults: RunFaults | undefined;
  standard: AgentMetrics;
}) {
  if (!faults || (!faults.review && !faults.analysis && !faults.error)) return null;
  return (
    <Card
      title="Fault audit (non-standard)"
      subtitle="Whose fault the failures were, by an LLM judge (tau review, tau analyze). The standard numbers are above; nothing here changes them."
      wide
      id="fault-audit"
    >
      {faults.error && <p class="error-text">{faults.error}</p>}
      {faults.review && <ReviewAudit review={faults.review} standard={standard} />}
      {faults.analysis && <AnalysisTable analysis={faults.analysis} />}
    </Card>
  );
}

/** A trajectory's review errors and error identification, when the run has them. */
export function SimulationFaults({
  review,
  analysis,
}: {
  review: SimulationReviewRecord | null | undefined;
  analysis: SimulationAnalysisRecord | null | undefined;
}) {
  if (!review && !analysis) return null;
  return (
    <div class="check-group" data-check="review">
      {review?.status === "failed" && (
        <p class="error-text small" data-testid="review-failure">
          The review failed after {review.failure.attempts} attempt(s): {review.failure.error}
        </p>
      )}
      {review?.status === "reviewed" && (
        <>
          <h3>Review ({review.review.errors.length} error(s))</h3>
          {review.review.summary && <p class="small">{review.review.summary}</p>}
          <ol class="checks" data-testid="review-errors">
            {review.review.errors.map((error, i) => {
              const source = "source" in error ? error.source : "user";
              const severity = error.severity ?? "unrated";
              return (
                <li key={i} class="review-error" data-source={source} data-severity={severity}>
                  <Tag tone={source === "agent" ? "warn" : undefined}>{source}</Tag>{" "}
                  <Tag tone={severity.startsWith("critical") ? "bad" : undefined}>{severity}</Tag>{" "}
                  {error.error_tags.map((tag) => (
                    <code key={tag} class="small" data-value="tag">
                      {tag}{" "}
                    </code>
                  ))}
                  {error.turn_idx !== null && error.turn_idx !== undefined && (
                    <span class="muted small" data-value="turn">
                      turn {error.turn_idx}
                    </span>
                  )}
                  <div class="small" data-value="reasoning">
                    {error.reasoning}
                  </div>
                  {"correct_behavior" in error && error.correct_behavior && (
                    <div class="small muted">should have: {error.correct_behavior}</div>
                  )}
                </li>
              );
            })}
          </ol>
          {review.auth_classification && (
            <p class="small muted">authentication {review.auth_classification.status}</p>
          )}
        </>
      )}
      {analysis?.status === "reviewed" && (
        <p class="small" data-testid="analysis-record">
          Error identification: <strong>{FAULT_AUTHOR_LABELS[analysis.fault_assignment.author]}</strong> at
          fault
          {analysis.fault_type && ` (${FAULT_TYPE_LABELS[analysis.fault_type.fault_type]})`}.{" "}
          <span class="muted">{analysis.fault_assignment.description}</span>
        </p>
      )}
    </div>
  );
}
