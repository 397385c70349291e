/**
 * The web viewer's data: what the server answers and the static export
 * writes, and what the browser app reads. Pure (no `node:` imports): the app
 * bundles this file. A run is sent as slim rows, one per simulation that
 * counts; a trajectory is fetched on its own when it is opened.
 */
import type { SimulationAnalysisRecord, SimulationReviewRecord } from "../core/review-records.ts";
import type { SimulationRun, TerminationReason } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import type { ComponentOutcome } from "../metrics/breakdowns.ts";
import type { AnalysisBreakdown, FaultAudit } from "../metrics/fault-audit.ts";
import type { AgentMetrics } from "../metrics/index.ts";

/** Version of this data format (in every payload, so an old export is told apart). */
export const VIEWER_DATA_VERSION = 1;

/** Who played a role: the module and, when it has one, the model. */
export interface Participant {
  implementation: string;
  llm: string | null;
}

/** One line of the runs list. */
export interface RunSummary {
  /** URL-safe and unique among the runs served. */
  id: string;
  /** Display name (the run folder's name, or the file's). */
  name: string;
  /** The file read, as given or found (relative to where `tau view` started when inside it). */
  path: string;
  format: "checkpoint" | "results" | "results-dir";
  domain: string;
  agent: Participant;
  user: Participant;
  /** When the run started (the checkpoint's run record, or the results file's timestamp). */
  createdAt: string | null;
  numTrials: number;
  /** Tasks of the run. */
  tasks: number;
  /** Simulations that count (one per trial, task and seed; a finished one replaces an infrastructure error). */
  simulations: number;
  /** Tasks × trials, when the run says how many it plans. */
  expected: number | null;
  passHat1: number | null;
  passHat1Interval: [number, number] | null;
  avgReward: number | null;
  /** Agent plus user-simulator cost over every simulation that has one (null when none does). */
  costUsd: number | null;
  infraErrors: number;
  /** The checkpoint is followed and grew a short while ago. */
  live: boolean;
  /** The file's modification time (ISO). */
  updatedAt: string;
  /** Bumped whenever the server's index of the run changes. */
  version: number;
  /** `info.taubench.prompts` ("upstream" or "paraphrased") when the run records it. */
  prompts: string | null;
  /** Why the run could not be read (the rest of the fields are then empty). */
  error: string | null;
}

/** Run settings shown on the run page (the policy and tool definitions are left out: large, and not needed). */
export interface RunSettings {
  agent: Participant & { args: Record<string, unknown> | null };
  user: Participant & { args: Record<string, unknown> | null };
  /** The NL-assertion judge; null when it was turned off, undefined when the file does not say. */
  judge?: string | null;
  seed: number | null;
  maxSteps: number;
  maxErrors: number;
  gitCommit: string;
  /** taubench's stamp (version, commit, hashes, usage) without its large parts; null for upstream's files. */
  taubench: Record<string, unknown> | null;
}

/** One task of a run. */
export interface TaskRow {
  id: string;
  /** Expected write actions (τ-bench Fig. 6's x axis); null when it cannot be told. */
  writeActions: number | null;
  rewardBasis: string[] | null;
}

/** One simulation, cut to what the run page, the grid and the metrics need. */
export interface SimRow {
  /** Stable within one server (or export); names the trajectory to fetch. */
  serial: number;
  /** Index into {@link RunData.tasks}. */
  task: number;
  trial: number;
  seed: number | null;
  termination: TerminationReason;
  /** null for an infrastructure error (never scored). */
  reward: number | null;
  breakdown: Record<string, number> | null;
  dbMatch: boolean | null;
  /** Read and write actions matched / expected: `[correct, total]`. */
  readActions: [number, number];
  writeActions: [number, number];
  notEvaluated: string[] | null;
  agentCost: number | null;
  userCost: number | null;
  /** Prompt and completion tokens of the agent's and the user simulator's messages. */
  tokens: { agentIn: number; agentOut: number; userIn: number; userOut: number };
  durationS: number;
  messages: number;
  /** First line of the error a simulation recorded (`info.error`: infrastructure errors), else null. */
  error: string | null;
}

/** pass^1 of one group of tasks (a number of write actions, a telecom intent, …). */
export interface GroupStats {
  group: string;
  tasks: number;
  simulations: number;
  passHat1: number | null;
  passHat1Interval: [number, number] | null;
}

/** A run's statistics, from `computeMetrics` and the breakdowns (see `stats.ts`). */
export interface RunStats {
  metrics: AgentMetrics;
  components: ComponentOutcome[];
  /** By the number of expected write actions, ascending (tasks whose count is unknown left out). */
  byWriteActions: GroupStats[];
  /** By intent, persona and number of sub-issues, when every task id is a telecom one. */
  telecom: { intent: GroupStats[]; persona: GroupStats[]; subIssues: GroupStats[] } | null;
}

/**
 * What `tau review` and `tau analyze` left beside a run, as the server
 * computed it (`metrics/fault-audit.ts`, the terminal report's computation).
 */
export interface RunFaults {
  /** The review's fault audit (a non-standard view), with the file it was read from. */
  review: { file: string; audit: FaultAudit } | null;
  /** τ-bench's error identification of the failures. */
  analysis: { file: string; breakdown: AnalysisBreakdown } | null;
  /** Why a review or analysis file could not be read (one line naming it). */
  error: string | null;
}

/** A run as the run page loads it. */
export interface RunData {
  dataVersion: number;
  summary: RunSummary;
  settings: RunSettings;
  tasks: TaskRow[];
  simulations: SimRow[];
  stats: RunStats;
  /** Absent in exports made before reviews were shown. */
  faults?: RunFaults;
}

/** The DB difference between the gold environment and the one the conversation left. */
export type DbDiffReport =
  | { status: "match" }
  | {
      status: "different";
      /** Field-level differences, gold → predicted (see `env/db-diff.ts`). */
      agent: DbDifferenceRow[];
      user: DbDifferenceRow[];
      truncated: boolean;
      /** Write-tool outputs that came out differently on the replay (the environment changed since the run). */
      replayMismatches: string[];
    }
  | { status: "unavailable"; reason: string };

/** One field-level difference; values are Python JSON text. */
export interface DbDifferenceRow {
  path: (string | number)[];
  kind: "changed" | "added" | "removed";
  gold?: string;
  predicted?: string;
}

/** One expected action as the gold environment ran it. */
export interface GoldStepRow {
  actionId: string;
  requestor: "assistant" | "user";
  name: string;
  arguments: Record<string, unknown>;
  output: string;
  error: boolean;
}

/** One simulation, whole: the trajectory page. */
export interface TrajectoryData {
  dataVersion: number;
  runId: string;
  serial: number;
  /** The simulation as recorded (numbers plain). */
  simulation: SimulationRun;
  /** The task as the run embedded it (null when the run lacks it). */
  task: Task | null;
  /** Expected actions with the gold environment's outputs (null without the data folder). */
  gold: GoldStepRow[] | null;
  dbDiff: DbDiffReport;
  /** This simulation's review record (`tau review`) and analysis record (`tau analyze`), when there are. */
  review?: SimulationReviewRecord | null;
  analysis?: SimulationAnalysisRecord | null;
}

/** An update the server pushes (server-sent events, `event: run`). */
export interface RunUpdate {
  id: string;
  version: number;
}

/** Placeholder action for the checks rebuilt from counts: metrics read only `tool_type` and `action_match`. */
const COUNTED_ACTION = Object.freeze({
  action_id: "",
  requestor: "assistant" as const,
  name: "",
  arguments: {},
  info: null,
  compare_args: null,
});

/**
 * The simulation record `computeMetrics` and the breakdowns read, rebuilt
 * from a row: the same numbers as on the full simulation (the browser tests
 * check them against `computeMetrics` on the original file).
 */
export function simulationOfRow(row: SimRow, taskId: string): SimulationRun {
  const checks: NonNullable<NonNullable<SimulationRun["reward_info"]>["action_checks"]> = [];
  const counted = ([correct, total]: [number, number], toolType: "read" | "write") => {
    for (let i = 0; i < total; i++)
      checks.push({
        action: COUNTED_ACTION,
        action_match: i < correct,
        action_reward: i < correct ? 1 : 0,
        tool_type: toolType,
      });
  };
  counted(row.readActions, "read");
  counted(row.writeActions, "write");
  return {
    id: String(row.serial),
    task_id: taskId,
    start_time: "",
    end_time: "",
    duration: row.durationS,
    termination_reason: row.termination,
    agent_cost: row.agentCost,
    user_cost: row.userCost,
    reward_info:
      row.reward === null
        ? null
        : {
            reward: row.reward,
            db_check: row.dbMatch === null ? null : { db_match: row.dbMatch, db_reward: row.dbMatch ? 1 : 0 },
            env_assertions: null,
            action_checks: checks.length > 0 ? checks : null,
            nl_assertions: null,
            communicate_checks: null,
            reward_basis: null,
            reward_breakdown: row.breakdown,
            info: row.notEvaluated ? { not_evaluated: row.notEvaluated } : null,
          },
    messages: [],
    trial: row.trial,
    seed: row.seed,
    mode: "half_duplex",
    info: null,
  };
}

/** Where a static export keeps each payload, relative to its `index.html`. */
export const staticPaths = {
  runs: () => "data/runs.js",
  run: (runId: string) => `data/${runId}/run.js`,
  trajectory: (runId: string, serial: number) => `data/${runId}/sim-${serial}.js`,
};

/** The name under which a static payload file hands its data to the app (`window[STATIC_CALLBACK](key, data)`). */
export const STATIC_CALLBACK = "__tauViewerData";

/** The key a static payload file announces itself with. */
export const staticKeys = {
  runs: () => "runs",
  run: (runId: string) => `run/${runId}`,
  trajectory: (runId: string, serial: number) => `sim/${runId}/${serial}`,
};
