/**
 * Breakdowns of a run the papers plot: metrics per group of tasks (telecom's
 * intent, persona and number of sub-issues, the number of expected write
 * actions, …) and how often each reward component passed. Pure: the web
 * viewer runs this in the browser.
 */
import type { SimulationRun } from "../core/simulation.ts";
import { type AgentMetrics, computeMetrics, isSuccessful, type MetricsOptions } from "./index.ts";

/** What a telecom task id encodes: `[intent]sub_issue|sub_issue[PERSONA:persona]`. */
export interface TelecomTaskFacets {
  intent: string;
  subIssues: string[];
  persona: string;
}

const TELECOM_ID = /^\[([^\]]+)\](.*)\[PERSONA:([^\]]*)\]$/;

/** Parses a telecom task id (upstream's generator names every composite task this way); null for any other id. */
export function telecomTaskFacets(taskId: string): TelecomTaskFacets | null {
  const match = TELECOM_ID.exec(taskId);
  if (!match) return null;
  const subIssues = match[2]!.split("|").filter((part) => part !== "");
  return { intent: match[1]!, subIssues, persona: match[3]! };
}

/** One group's metrics. */
export interface GroupMetrics {
  group: string;
  metrics: AgentMetrics;
}

/**
 * Metrics of each group of simulations, `groupOf` naming the group of a task
 * (null leaves the task out). Each group is scored as a run of its own
 * (pass^k over its tasks); infrastructure errors are never scored, as in
 * {@link computeMetrics}. Groups come in first-seen order.
 */
export function metricsByGroup(
  simulations: readonly SimulationRun[],
  groupOf: (taskId: string) => string | null,
  options: MetricsOptions = {},
): GroupMetrics[] {
  const groups = new Map<string, SimulationRun[]>();
  for (const simulation of simulations) {
    const group = groupOf(simulation.task_id);
    if (group === null) continue;
    let list = groups.get(group);
    if (!list) groups.set(group, (list = []));
    list.push(simulation);
  }
  return [...groups].map(([group, list]) => ({ group, metrics: computeMetrics(list, options) }));
}

/** How one reward component fared over the evaluated simulations that were graded on it. */
export interface ComponentOutcome {
  /** `DB`, `ENV_ASSERTION`, `ACTION`, `COMMUNICATE`, `NL_ASSERTION`. */
  component: string;
  /** Simulations whose reward includes this component. */
  graded: number;
  passed: number;
  /** Mean of the component's value (null when none was graded). */
  mean: number | null;
  /** Failed simulations where this was the only failing component of the reward. */
  soleCause: number;
}

/** Upstream's reward components in the order the papers list them. */
export const REWARD_COMPONENTS = ["DB", "ENV_ASSERTION", "ACTION", "COMMUNICATE", "NL_ASSERTION"] as const;

/**
 * Pass counts per reward component, from each simulation's `reward_breakdown`
 * (the components its task's `reward_basis` names). Infrastructure errors and
 * simulations that ended before grading (no breakdown) are left out.
 */
export function componentOutcomes(simulations: readonly SimulationRun[]): ComponentOutcome[] {
  const tallies = new Map<string, { graded: number; passed: number; sum: number; soleCause: number }>();
  for (const component of REWARD_COMPONENTS)
    tallies.set(component, { graded: 0, passed: 0, sum: 0, soleCause: 0 });
  for (const simulation of simulations) {
    if (simulation.termination_reason === "infrastructure_error") continue;
    const breakdown = simulation.reward_info?.reward_breakdown;
    if (!breakdown) continue;
    const failing: string[] = [];
    for (const [component, value] of Object.entries(breakdown)) {
      let tally = tallies.get(component);
      if (!tally) tallies.set(component, (tally = { graded: 0, passed: 0, sum: 0, soleCause: 0 }));
      tally.graded++;
      tally.sum += value;
      if (isSuccessful(value)) tally.passed++;
      else failing.push(component);
    }
    if (failing.length === 1) tallies.get(failing[0]!)!.soleCause++;
  }
  return [...tallies]
    .filter(([, tally]) => tally.graded > 0)
    .map(([component, tally]) => ({
      component,
      graded: tally.graded,
      passed: tally.passed,
      mean: tally.sum / tally.graded,
      soleCause: tally.soleCause,
    }));
}
