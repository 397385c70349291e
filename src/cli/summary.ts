/**
 * Plain-text reports of a run: the metrics summary printed after `tau run` and
 * by `tau view`, and one simulation's trajectory, readably.
 */
import type { Message } from "../core/messages.ts";
import type { Info } from "../core/results.ts";
import type { SimulationRun, TerminationReason } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import {
  type AgentMetrics,
  compareTaskIds,
  computeMetrics,
  describeIntervalMethod,
  formatLevel,
  isSuccessful,
} from "../metrics/index.ts";
import { metricsByGroup, telecomTaskFacets } from "../metrics/breakdowns.ts";
import type { HallucinatedIds } from "../metrics/hallucinated-ids.ts";
import { formatUsageLine, parseRunUsage } from "../runner/llm-usage.ts";
import { describePrompts, recordedPrompts } from "../runner/prompts.ts";
import { describeUntilDecided, readUntilDecidedRecord } from "../runner/until-decided.ts";

/** What a summary is computed from. */
export interface SummaryInput {
  info: Pick<Info, "num_trials" | "seed" | "agent_info" | "user_info" | "environment_info"> & {
    taubench?: Record<string, unknown> | undefined;
  };
  tasks: readonly Task[];
  simulations: readonly SimulationRun[];
  /** The simulations' metrics when the caller has them already (as {@link computeMetrics} gives them for `info.num_trials`). */
  metrics?: AgentMetrics | undefined;
  /** τ-bench's hallucinated-id counter, from full simulations (`hallucinatedIds`); printed when given. */
  hallucinatedIds?: HallucinatedIds | undefined;
}

const pct = (part: number, whole: number) => (whole === 0 ? "-" : `${((100 * part) / whole).toFixed(1)}%`);
const usd = (value: number | null) => (value === null ? "n/a" : `$${value.toFixed(4)}`);

/** Trials up to which the per-task grid has one cell per trial (more would not fit a terminal line). */
const GRID_MAX_TRIALS = 32;

/** The outcome symbol of one simulation: ✓ success, ✗ failure, ! infrastructure error. */
export function outcomeSymbol(simulation: SimulationRun | undefined): string {
  if (!simulation) return "·";
  if (simulation.termination_reason === "infrastructure_error" || !simulation.reward_info) return "!";
  return isSuccessful(simulation.reward_info.reward) ? "✓" : "✗";
}

/** The judge model recorded for a run, when taubench wrote it (null = `--judge none`). */
function judgeOf(input: SummaryInput): string | null | undefined {
  const value = input.info.taubench?.judge_llm;
  return typeof value === "string" || value === null ? value : undefined;
}

/** The full summary text (no trailing newline). */
export function renderSummary(input: SummaryInput): string {
  const { info, simulations } = input;
  const metrics = input.metrics ?? computeMetrics(simulations, { numTrials: info.num_trials });
  const lines: string[] = [];
  const model = (llm: string | null | undefined) => (llm ? ` (${llm})` : "");
  lines.push(
    `Domain ${info.environment_info.domain_name} — agent ${info.agent_info.implementation}${model(info.agent_info.llm)}, user ${info.user_info.implementation}${model(info.user_info.llm)}`,
  );
  lines.push(`Prompts ${describePrompts(recordedPrompts(info))}`);
  if (info.taubench?.no_policy === true)
    lines.push("Ablation --no-policy: the agent was given no policy document (τ-bench Table 3)");
  lines.push(
    `Simulations ${metrics.totalSimulations} (${metrics.evaluatedSimulations} evaluated, ${metrics.infraErrorCount} infrastructure errors) · tasks ${metrics.totalTasks} · trials ${info.num_trials} · seed ${info.seed ?? "-"}`,
  );
  lines.push("");
  lines.push(`Average reward  ${metrics.avgReward === null ? "-" : metrics.avgReward.toFixed(4)}`);
  if (metrics.passHatK.length > 0) {
    const row = (label: string, values: readonly number[]) =>
      `${label.padEnd(15)}${values.map((v) => v.toFixed(3).padStart(7)).join("")}`;
    lines.push(`pass^k         ${metrics.passHatK.map((_, i) => `k=${i + 1}`.padStart(7)).join("")}`);
    lines.push(row("", metrics.passHatK));
    const level = formatLevel(metrics.intervalMethod.level);
    lines.push(
      row(
        `${level} low`,
        metrics.passHatKIntervals.map(([low]) => low),
      ),
    );
    lines.push(
      row(
        `${level} high`,
        metrics.passHatKIntervals.map(([, high]) => high),
      ),
    );
    lines.push(`intervals: ${describeIntervalMethod(metrics.intervalMethod)}`);
    if (metrics.maxK < info.num_trials)
      lines.push(
        `note: k stops at ${metrics.maxK} because some task has only ${metrics.maxK} evaluated trial(s)`,
      );
  } else {
    lines.push("pass^k         - (no evaluated simulations)");
  }
  if (metrics.notEvaluatedCount > 0) {
    const judge = judgeOf(input);
    const why = judge === null ? " (--judge none)" : "";
    lines.push(
      `NL assertions NOT evaluated in ${metrics.notEvaluatedCount} simulation(s)${why}: their reward covers the other components only`,
    );
  }
  lines.push(`Cost per simulation  agent ${usd(metrics.avgAgentCost)} · user ${usd(metrics.avgUserCost)}`);
  // Only taubench records provider traffic (upstream files and version-1 checkpoints have none).
  const usage = parseRunUsage(info.taubench?.llm_usage);
  if (usage) lines.push(formatUsageLine(usage));
  const { readActions: read, writeActions: write, dbMatch } = metrics;
  lines.push(
    `Actions  read ${read.correct}/${read.total} (${pct(read.correct, read.total)}) · write ${write.correct}/${write.total} (${pct(write.correct, write.total)})`,
  );
  lines.push(
    `DB match ✓ ${dbMatch.match} / ✗ ${dbMatch.mismatch} (${pct(dbMatch.match, dbMatch.match + dbMatch.mismatch)}) · not checked ${dbMatch.notChecked}`,
  );
  // Computed by the caller from full simulations: a checkpoint's slim rows carry no tool outputs.
  if (input.hallucinatedIds) {
    const ids = input.hallucinatedIds;
    lines.push(
      `Hallucinated ids  ${ids.perSimulation === null ? "-" : ids.perSimulation.toFixed(2)} per task (${ids.calls} tool call(s) naming an id that does not exist, in ${ids.simulationsWithAny} of ${ids.simulations} simulations)`,
    );
  }
  const reasons = new Map<TerminationReason, number>();
  for (const simulation of simulations)
    reasons.set(simulation.termination_reason, (reasons.get(simulation.termination_reason) ?? 0) + 1);
  // Most frequent first, ties by name: the line does not depend on the order simulations were read.
  lines.push(
    `Termination  ${
      [...reasons]
        .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
        .filter(([reason]) => reason !== "infrastructure_error")
        .map(([reason, count]) => `${reason} ${count}`)
        .join(" · ") || "-"
    }`,
  );
  const infra = simulations
    .filter((s) => s.termination_reason === "infrastructure_error")
    .sort(byTaskAndTrial);
  if (infra.length > 0) {
    lines.push("");
    lines.push(`Infrastructure errors (not scored, re-run on resume): ${infra.length}`);
    for (const simulation of infra.slice(0, 20))
      lines.push(
        `  ${simulation.task_id} trial ${simulation.trial ?? 0}: ${errorLine(simulation, "unknown error")}`,
      );
    if (infra.length > 20) lines.push(`  … and ${infra.length - 20} more`);
  }
  lines.push(...participantErrorLines(simulations));
  // `tau run --against RUN --until-decided`: the sequential comparison's looks and decision.
  const untilDecided = readUntilDecidedRecord(info.taubench);
  if (untilDecided) lines.push("", ...describeUntilDecided(untilDecided));
  lines.push(...renderTelecomBreakdowns(input));
  lines.push("");
  lines.push(...renderOutcomeGrid(input));
  return lines.join("\n");
}

/** Task id order, then trial. */
const byTaskAndTrial = (a: SimulationRun, b: SimulationRun) =>
  compareTaskIds(a.task_id, b.task_id) || (a.trial ?? 0) - (b.trial ?? 0);

/** The first line of a simulation's recorded error, at most 160 characters (`fallback` when none). */
const errorLine = (simulation: SimulationRun, fallback: string) =>
  String(simulation.info?.error ?? fallback)
    .split("\n")[0]!
    .slice(0, 160);

/** Distinct messages shown under "Agent and user errors". */
const ERROR_GROUPS_SHOWN = 5;

/**
 * The agent's and user's exceptions (scored 0, unlike infrastructure errors), grouped by the first
 * line of the error, most frequent first, each with its first simulation: a participant that fails
 * the same way everywhere shows as one line with its count.
 */
function participantErrorLines(simulations: readonly SimulationRun[]): string[] {
  const failed = simulations
    .filter((s) => s.termination_reason === "agent_error" || s.termination_reason === "user_error")
    .sort(byTaskAndTrial);
  if (failed.length === 0) return [];
  const groups = new Map<string, { who: string; error: string; count: number; first: SimulationRun }>();
  for (const simulation of failed) {
    const who = simulation.termination_reason === "agent_error" ? "agent" : "user";
    const error = errorLine(simulation, "no error recorded");
    const key = `${who}\u0000${error}`;
    const group = groups.get(key);
    if (group) group.count++;
    else groups.set(key, { who, error, count: 1, first: simulation });
  }
  const sorted = [...groups].sort(([a, x], [b, y]) => y.count - x.count || (a < b ? -1 : 1));
  const lines = ["", `Agent and user errors (scored 0): ${failed.length}`];
  for (const [, { who, error, count, first }] of sorted.slice(0, ERROR_GROUPS_SHOWN))
    lines.push(`  ${count}× ${error} (${who}; first: ${first.task_id} trial ${first.trial ?? 0})`);
  if (sorted.length > ERROR_GROUPS_SHOWN)
    lines.push(`  … and ${sorted.length - ERROR_GROUPS_SHOWN} other message(s)`);
  return lines;
}

/** Telecom's breakdowns by intent, persona and number of sub-issues (none for other domains). */
export function renderTelecomBreakdowns(input: SummaryInput): string[] {
  const ids = new Set(input.simulations.map((simulation) => simulation.task_id));
  if (ids.size === 0 || ![...ids].every((id) => telecomTaskFacets(id) !== null)) return [];
  const options = { numTrials: input.info.num_trials };
  const out = ["", "Telecom breakdowns (pass^1 per group, each group's tasks scored as a run of their own)"];
  const facets: [string, (id: string) => string, (a: string, b: string) => number][] = [
    ["intent", (id) => telecomTaskFacets(id)!.intent, (a, b) => (a < b ? -1 : a > b ? 1 : 0)],
    ["persona", (id) => telecomTaskFacets(id)!.persona, (a, b) => (a < b ? -1 : a > b ? 1 : 0)],
    ["sub-issues", (id) => String(telecomTaskFacets(id)!.subIssues.length), (a, b) => Number(a) - Number(b)],
  ];
  for (const [label, groupOf, order] of facets) {
    const groups = metricsByGroup(input.simulations, groupOf, options).sort((a, b) =>
      order(a.group, b.group),
    );
    const cells = groups.map(({ group, metrics }) => {
      const pass1 = metrics.passHatK[0];
      return `${group} ${pass1 === undefined ? "-" : pass1.toFixed(3)} (${metrics.perTask.length})`;
    });
    out.push(`  ${label.padEnd(11)}${cells.join(" · ")}`);
  }
  return out;
}

/** The per-task grid: one row per task, one symbol per trial. */
export function renderOutcomeGrid(input: SummaryInput): string[] {
  const byTaskTrial = new Map<string, SimulationRun>();
  const listed = input.tasks.map((task) => task.id);
  const known = new Set(listed);
  // Tasks the run's task list lacks follow it in task-id order (not in the order they were read).
  const unlisted = new Set<string>();
  for (const simulation of input.simulations) {
    if (!known.has(simulation.task_id)) unlisted.add(simulation.task_id);
    const key = `${simulation.task_id}\u0000${simulation.trial ?? 0}`;
    const existing = byTaskTrial.get(key);
    // A finished simulation outranks an infrastructure error of the same slot.
    if (!existing || outcomeSymbol(existing) === "!") byTaskTrial.set(key, simulation);
  }
  const ran = new Set(input.simulations.map((simulation) => simulation.task_id));
  const rows = [...listed, ...[...unlisted].sort(compareTaskIds)].filter((id) => ran.has(id));
  const trials = Math.max(
    input.info.num_trials,
    ...input.simulations.map((simulation) => (simulation.trial ?? 0) + 1),
  );
  const width = Math.min(48, Math.max(4, ...rows.map((id) => id.length)));
  const labelOf = (id: string) => (id.length > width ? `${id.slice(0, width - 1)}…` : id.padEnd(width));
  const legend = "✓ success · ✗ failure · ! infrastructure error · · not run";
  const cellsOf = (id: string) =>
    Array.from({ length: trials }, (_, trial) => outcomeSymbol(byTaskTrial.get(`${id}\u0000${trial}`)));
  if (trials > GRID_MAX_TRIALS) {
    // One cell per trial would not fit a terminal line: counts per outcome instead.
    const symbols = ["✓", "✗", "!", "·"] as const;
    const digits = String(trials).length + 2;
    const out = [`Per-task outcomes, counts over ${trials} trials (${legend})`];
    out.push(`  ${"task".padEnd(width)}${symbols.map((symbol) => symbol.padStart(digits)).join("")}`);
    for (const id of rows) {
      const cells = cellsOf(id);
      const counts = symbols.map((symbol) => String(cells.filter((cell) => cell === symbol).length));
      out.push(`  ${labelOf(id)}${counts.map((count) => count.padStart(digits)).join("")}`);
    }
    return out;
  }
  const out = [`Per-task outcomes (${legend})`];
  out.push(
    `  ${"task".padEnd(width)}  ${Array.from({ length: trials }, (_, i) => String(i % 10)).join(" ")}`,
  );
  for (const id of rows) out.push(`  ${labelOf(id)}  ${cellsOf(id).join(" ")}`);
  return out;
}

function indent(text: string, prefix = "    "): string {
  return text
    .split("\n")
    .map((line) => prefix + line)
    .join("\n");
}

function renderMessage(message: Message, maxToolChars: number): string {
  switch (message.role) {
    case "assistant":
    case "user": {
      const who = message.role === "assistant" ? "agent" : "user";
      const parts: string[] = [];
      if (message.content !== null && message.content !== "") parts.push(indent(message.content));
      for (const call of message.tool_calls ?? []) {
        const requestor = call.requestor === "user" ? " [user tool]" : "";
        parts.push(`    → ${call.name}(${JSON.stringify(call.arguments)})${requestor}`);
      }
      const cost = message.cost === null ? "" : `  ($${message.cost.toFixed(4)})`;
      return `[${message.turn_idx ?? "-"}] ${who}${cost}\n${parts.join("\n")}`;
    }
    case "tool": {
      const content = message.content ?? "";
      const clipped =
        content.length > maxToolChars
          ? `${content.slice(0, maxToolChars)}… (${content.length} chars)`
          : content;
      return `[${message.turn_idx ?? "-"}] tool${message.error ? " ERROR" : ""} → ${message.requestor}\n${indent(clipped)}`;
    }
    case "system":
      return `[${message.turn_idx ?? "-"}] system\n${indent(message.content ?? "")}`;
    default: {
      const never: never = message;
      throw new Error(`unhandled message ${String(never)}`);
    }
  }
}

/** One simulation: header, grading, then the conversation. */
export function renderTrajectory(simulation: SimulationRun, options: { maxToolChars?: number } = {}): string {
  const lines: string[] = [];
  const reward = simulation.reward_info;
  lines.push(
    `Task ${simulation.task_id} · trial ${simulation.trial ?? 0} · seed ${simulation.seed ?? "-"} · ${outcomeSymbol(simulation)} reward ${reward ? reward.reward.toFixed(3) : "none"} · ${simulation.termination_reason}`,
  );
  lines.push(
    `Duration ${simulation.duration.toFixed(1)} s · agent cost ${usd(simulation.agent_cost)} · user cost ${usd(simulation.user_cost)} · id ${simulation.id}`,
  );
  if (reward) {
    if (reward.reward_breakdown)
      lines.push(
        `Breakdown ${Object.entries(reward.reward_breakdown)
          .map(([k, v]) => `${k} ${v}`)
          .join(" · ")}`,
      );
    if (reward.db_check) lines.push(`DB match ${reward.db_check.db_match ? "yes" : "no"}`);
    for (const check of reward.env_assertions ?? [])
      lines.push(
        `Env assertion ${check.met ? "✓" : "✗"} ${check.env_assertion.func_name}(${JSON.stringify(check.env_assertion.arguments)})`,
      );
    for (const check of reward.action_checks ?? [])
      lines.push(
        `Action ${check.action_match ? "✓" : "✗"} ${check.action.name}(${JSON.stringify(check.action.arguments)})`,
      );
    for (const check of reward.communicate_checks ?? [])
      lines.push(`Communicate ${check.met ? "✓" : "✗"} ${check.info}`);
    for (const check of reward.nl_assertions ?? [])
      lines.push(
        `NL assertion ${check.met ? "✓" : "✗"} ${check.nl_assertion}${check.justification ? ` — ${check.justification}` : ""}`,
      );
    const notEvaluated = reward.info?.not_evaluated;
    if (Array.isArray(notEvaluated) && notEvaluated.length > 0)
      lines.push(`Not evaluated: ${notEvaluated.join(", ")}`);
    const note = reward.info?.note;
    if (typeof note === "string") lines.push(`Note: ${note}`);
  }
  // An infrastructure error, or the exception of a participant that ended the episode (agent_error).
  if (simulation.info?.error) {
    const by = simulation.info.raised_by ? ` raised by the ${String(simulation.info.raised_by)}` : "";
    lines.push(
      `Error (${String(simulation.info.error_type ?? "error")}${by}): ${String(simulation.info.error)}`,
    );
  }
  lines.push("");
  for (const message of simulation.messages) lines.push(renderMessage(message, options.maxToolChars ?? 500));
  return lines.join("\n");
}
