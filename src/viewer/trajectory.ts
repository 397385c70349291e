/**
 * One simulation for the trajectory page: the record read from disk, the
 * task the run embedded, the expected actions as the gold environment ran
 * them, and the field-level DB difference between the gold environment and
 * the one the conversation left (both rebuilt on fresh environments, as the
 * evaluator builds them).
 */
import { toPlain } from "../core/py-json.ts";
import type { SimulationRun } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import { loadDomain } from "../domains/registry.ts";
import { resolveTau1DataDir } from "../domains/tau1/data-dir.ts";
import { isTau1Domain, isTau1DomainName, type Tau1Domain, taskToRecord } from "../domains/tau1/index.ts";
import type { Domain } from "../domains/types.ts";
import { diffDbStates } from "../env/db-diff.ts";
import type { DbState } from "../env/db-state.ts";
import { buildGoldEnvironment, replayPredicted, toolKinds } from "../evaluation/index.ts";
import { actionsFromMessages, replayedTau1Data } from "../evaluation/tau1.ts";
import { isSoloRun } from "../runner/regrade.ts";
import type { RunIndex } from "./run-index.ts";
import type { DbDiffReport, DbDifferenceRow, GoldStepRow, TrajectoryData } from "./wire.ts";
import { VIEWER_DATA_VERSION } from "./wire.ts";

/** Differences listed per DB before the list is cut (the page says it was). */
const DIFF_LIMIT = 300;

/** Finds the loaded domain for a run, or says why there is none. */
export type DomainLoader = (name: string) => Domain | string;

/**
 * A loader over a data folder (null: no data folder, with the reason). The original τ-bench
 * domains read theirs (`tau1DataDir`, else `TAU1_DATA_DIR` or its pulled cache).
 */
export function domainLoader(dataDir: string | { missing: string }, tau1DataDir?: string): DomainLoader {
  return (name) => {
    if (isTau1DomainName(name)) {
      try {
        return loadDomain(name, resolveTau1DataDir(tau1DataDir));
      } catch (error) {
        return `domain ${name} could not be loaded: ${(error as Error).message.split("\n")[0]}`;
      }
    }
    if (typeof dataDir !== "string") return dataDir.missing;
    try {
      return loadDomain(name, dataDir);
    } catch (error) {
      return `domain ${name} could not be loaded from ${dataDir}: ${(error as Error).message.split("\n")[0]}`;
    }
  };
}

/** Expected write actions of a task, from the domain's tool kinds (for runs whose grading did not record them). */
export function writeActionCounter(load: DomainLoader): (domain: string, task: Task) => number | null {
  const kinds = new Map<string, Map<string, string> | null>();
  return (domainName, task) => {
    if (!kinds.has(domainName)) {
      const domain = load(domainName);
      // The original τ-bench's tools are not classed as reads and writes.
      kinds.set(
        domainName,
        typeof domain === "string" || isTau1Domain(domain) ? null : toolKinds(domain, false),
      );
    }
    const known = kinds.get(domainName);
    if (!known) return null;
    return (task.evaluation_criteria?.actions ?? []).filter((action) => known.get(action.name) === "write")
      .length;
  };
}

function rowsOf(differences: ReturnType<typeof diffDbStates>["differences"]): DbDifferenceRow[] {
  return differences.map((difference) => ({
    path: difference.path,
    kind: difference.kind,
    ...(difference.before !== undefined ? { gold: difference.before } : {}),
    ...(difference.after !== undefined ? { predicted: difference.after } : {}),
  }));
}

/** The report when replaying the task threw. */
function replayFailed(error: unknown): { report: DbDiffReport; gold: null } {
  return {
    report: {
      status: "unavailable",
      reason: `replaying the task failed: ${(error as Error).message.split("\n")[0]}`,
    },
    gold: null,
  };
}

/** The DB difference of one simulation (see the module comment). */
export function dbDiffOf(
  simulation: SimulationRun,
  task: Task | undefined,
  domain: Domain | string,
  soloMode: boolean,
): { report: DbDiffReport; gold: GoldStepRow[] | null } {
  if (simulation.termination_reason === "infrastructure_error")
    return { report: { status: "unavailable", reason: "an infrastructure error is not graded" }, gold: null };
  if (!task)
    return { report: { status: "unavailable", reason: "the run does not include this task" }, gold: null };
  if (typeof domain === "string") return { report: { status: "unavailable", reason: domain }, gold: null };
  if (isTau1Domain(domain)) return tau1DbDiff(simulation, task, domain);
  try {
    const built = buildGoldEnvironment(domain, task);
    const gold: GoldStepRow[] = built.steps.map((step) => ({
      actionId: step.action_id,
      requestor: step.requestor,
      name: step.name,
      arguments: toPlain(step.arguments) as Record<string, unknown>,
      output: step.output,
      error: step.error,
    }));
    if (simulation.reward_info?.db_check?.db_match === true) return { report: { status: "match" }, gold };
    const mismatches: string[] = [];
    const predicted = replayPredicted({
      domain,
      task,
      trajectory: simulation.messages,
      soloMode,
      strictReplay: false,
      onReplayMismatch: (error) =>
        mismatches.push(
          `${error.toolName}: recorded ${error.expected.slice(0, 200)}, replayed ${error.actual.slice(0, 200)}`,
        ),
    });
    const agent = diffDbStates(built.env.tools.db as DbState<any>, predicted.tools.db as DbState<any>, {
      limit: DIFF_LIMIT,
    });
    const goldUser = built.env.userTools?.db;
    const predictedUser = predicted.userTools?.db;
    const user =
      goldUser && predictedUser && goldUser !== built.env.tools.db
        ? diffDbStates(goldUser, predictedUser, { limit: DIFF_LIMIT })
        : { differences: [], truncated: false };
    if (agent.differences.length === 0 && user.differences.length === 0 && mismatches.length === 0)
      return { report: { status: "match" }, gold };
    return {
      report: {
        status: "different",
        agent: rowsOf(agent.differences),
        user: rowsOf(user.differences),
        truncated: agent.truncated || user.truncated,
        replayMismatches: mismatches,
      },
      gold,
    };
  } catch (error) {
    return replayFailed(error);
  }
}

/**
 * The original τ-bench's DB difference: the task's actions replayed on fresh data against the
 * episode's tool calls replayed on fresh data (as its grading compares their hashes).
 */
function tau1DbDiff(
  simulation: SimulationRun,
  task: Task,
  domain: Tau1Domain,
): { report: DbDiffReport; gold: GoldStepRow[] | null } {
  try {
    const userId = (simulation.info?.tau1 as { user_id?: string } | undefined)?.user_id ?? "";
    const record = taskToRecord(task, userId);
    const steps: GoldStepRow[] = [];
    const gold = domain.tau1.freshData();
    for (const [index, action] of record.actions.entries()) {
      const { observation } = domain.tau1.tools.step(gold, action);
      steps.push({
        actionId: String(index),
        requestor: "assistant",
        name: action.name,
        arguments: toPlain(action.kwargs) as Record<string, unknown>,
        output: observation,
        error: observation.startsWith("Error"),
      });
    }
    // The grading's gold replay skips the terminating transfer, which changes no data.
    const expected = gold;
    const predicted = replayedTau1Data(domain, actionsFromMessages(simulation.messages));
    if (expected.hash() === predicted.hash()) return { report: { status: "match" }, gold: steps };
    const diff = expected.diff(predicted, DIFF_LIMIT);
    return {
      report: {
        status: "different",
        agent: rowsOf(diff.differences),
        user: [],
        truncated: diff.truncated,
        replayMismatches: [],
      },
      gold: steps,
    };
  } catch (error) {
    return replayFailed(error);
  }
}

/** The trajectory page's data for one row of a run; undefined for an unknown serial. */
export function trajectoryData(
  index: RunIndex,
  serial: number,
  load: DomainLoader,
): TrajectoryData | undefined {
  const simulation = index.readSimulation(serial);
  if (!simulation) return undefined;
  const task = index.task(simulation.task_id);
  const info = index.info;
  const domain = info ? load(info.environment_info.domain_name) : "the run has no metadata";
  const { report, gold } = dbDiffOf(simulation, task, domain, info ? isSoloRun(info) : false);
  return {
    dataVersion: VIEWER_DATA_VERSION,
    runId: index.id,
    serial,
    simulation: toPlain(simulation) as SimulationRun,
    task: task ? (toPlain(task) as Task) : null,
    gold,
    dbDiff: report,
    ...index.reviewsOf(simulation.id),
  };
}
