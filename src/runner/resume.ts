/**
 * What a run finds on disk before it starts: its checkpoint (resume: which
 * keys are finished, is it the same run), or a results file without one
 * (upstream's, or ours with the checkpoint gone), which is imported first.
 * Also the `run` record this invocation writes.
 */
import { existsSync, rmSync } from "node:fs";
import { fileOperation, UsageError } from "../core/errors.ts";
import { nowIso } from "../core/messages.ts";
import { pyDumps } from "../core/py-json.ts";
import type { Info } from "../core/results.ts";
import { resultsLayout } from "../core/results-file.ts";
import type { SimulationRun } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import { CHECKPOINT_VERSION, checkpointPathFor, type RunRecord, type SessionRecord } from "./checkpoint.ts";
import { loadCheckpointState } from "./checkpoint-state.ts";
import { type ImportSummary, importResultsFile } from "./import-results.ts";
import { fingerprintDifferences, type RunPlan, unreadOptionsError } from "./plan.ts";
import { type AllowedChange, type SentStamp, sentDifferences } from "./sent-hashes.ts";
import { trialSeeds } from "./seeds.ts";

/** The state a run starts from. */
export interface ResumeState {
  checkpointPath: string;
  /** Set when a results file without a checkpoint was imported (so a failed start can take it back). */
  imported: ImportSummary | null;
  /** The checkpoint's `run` record; null for a new run. */
  previous: RunRecord | null;
  /** Provider usage of earlier sessions. */
  previousSessions: SessionRecord[];
  /** Per key the simulation that counts (infrastructure errors included), without transcripts. */
  all: Map<string, SimulationRun>;
  /** The keys that need not run again (everything but infrastructure errors). */
  finished: Map<string, SimulationRun>;
  /** Every task of the run: the checkpoint's, then the ones this invocation adds. */
  tasks: Task[];
  /** The run's trial count (a resume may ask for fewer than the run has). */
  numTrials: number;
  /** Every resume that continued although what is sent changed (`allowChanged`), this one last. */
  allowedChanges: AllowedChange[];
}

/** Whether a results file (upstream's monolithic file, or either half of its dir layout) is at `path`. */
function resultsFileExists(path: string): boolean {
  return existsSync(path) || existsSync(resultsLayout(path).simulationsDir);
}

/**
 * Opens what the plan's results path holds. A checkpoint of a run with other
 * settings, or whose tasks changed, is refused with a {@link UsageError}.
 */
export async function openResumeState(plan: RunPlan, log: (line: string) => void): Promise<ResumeState> {
  const { config } = plan;
  const checkpointPath = checkpointPathFor(config.resultsPath);
  const startsNew = () => {
    const refused = unreadOptionsError(plan);
    if (refused) throw refused;
  };
  if (!existsSync(checkpointPath)) startsNew();
  // A results file without our checkpoint (upstream's, or ours with the checkpoint gone): continue it
  // the way upstream's try_resume would, after checking it describes this run; it is backed up first.
  const imported =
    !existsSync(checkpointPath) && resultsFileExists(config.resultsPath)
      ? await importResultsFile(
          {
            resultsPath: config.resultsPath,
            checkpointPath,
            info: plan.info,
            fingerprint: plan.fingerprint,
            tasks: plan.tasks,
            seed: config.seed,
            numTrials: config.numTrials,
            resumeCommand: config.resumeCommand ?? null,
          },
          log,
        )
      : null;

  const state: ResumeState = {
    checkpointPath,
    imported,
    previous: null,
    previousSessions: [],
    all: new Map(),
    finished: new Map(),
    tasks: plan.tasks,
    numTrials: config.numTrials,
    allowedChanges: [],
  };
  if (!existsSync(checkpointPath)) return state;

  const stored = await loadCheckpointState(checkpointPath);
  const previous = stored.run;
  const storedStamp = previous?.info.taubench as SentStamp | undefined;
  const differences = previous ? fingerprintDifferences(previous.fingerprint, plan.fingerprint) : [];
  const changed = previous
    ? sentDifferences(storedStamp, plan.info.taubench as SentStamp | undefined, stored.tasks, plan.tasks)
    : [];
  const evaluatedNone = ![...stored.simulations.values()].some(
    (simulation) => simulation.termination_reason !== "infrastructure_error",
  );
  // Nothing evaluated (a module that failed to build, a run stopped before its first result): the
  // settings may change freely, so fixing an agent module and running the same command again works.
  // Only our own single-file layout: a run imported from upstream's folder layout keeps its folder.
  if (
    (differences.length > 0 || changed.length > 0) &&
    evaluatedNone &&
    resultsLayout(config.resultsPath).format === "json"
  ) {
    startsNew();
    const infra = stored.simulations.size;
    const dropped = [
      ...(infra > 0 ? [`${infra} infrastructure error${infra === 1 ? "" : "s"}`] : []),
      ...(stored.sessions.size > 0 ? ["the provider usage of its earlier sessions"] : []),
    ];
    log(
      `note: ${checkpointPath} holds no evaluated simulation, so the run starts again with the new settings (${[...differences, ...changed].join("; ")})${dropped.length > 0 ? `; dropped with it: ${dropped.join(" and ")}` : ""}`,
    );
    fileOperation(checkpointPath, "remove", () => rmSync(checkpointPath, { force: true }));
    fileOperation(config.resultsPath, "remove", () => rmSync(config.resultsPath, { force: true }));
    return state;
  }
  state.previous = previous;
  state.previousSessions = [...stored.sessions.values()];
  if (stored.tornLine !== null)
    log(`note: ignored a torn last line (${stored.tornLine}) in ${checkpointPath}`);
  if (previous) {
    if (differences.length > 0)
      throw new UsageError(
        `${checkpointPath} belongs to a run with different settings (${differences.join("; ")}); use another --save-to to start a new run`,
      );
    state.allowedChanges = [...(storedStamp?.allowed_changes ?? [])];
    if (changed.length > 0 && !config.allowChanged)
      throw new UsageError(
        [
          `${checkpointPath}: what the participants are sent changed since this run started:`,
          ...changed.map((line) => `  - ${line}`),
          "Use another --save-to to start a new run, or pass --allow-changed to continue this one anyway (recorded in the results).",
        ].join("\n"),
      );
    let tasks = stored.tasks;
    if (changed.length > 0) {
      for (const line of changed) log(`note: continuing although ${line} (--allow-changed)`);
      state.allowedChanges.push({ at: nowIso(), differences: changed });
      // The simulations to come get today's definitions; the ones already run keep their grades.
      tasks = new Map(stored.tasks);
      for (const task of plan.tasks) if (tasks.has(task.id)) tasks.set(task.id, task);
    }
    state.tasks = [...tasks.values(), ...plan.tasks.filter((task) => !tasks.has(task.id))];
    state.numTrials = Math.max(previous.num_trials, config.numTrials);
  }
  for (const [key, simulation] of stored.simulations) {
    state.all.set(key, simulation);
    if (simulation.termination_reason !== "infrastructure_error") state.finished.set(key, simulation);
  }
  const infra = stored.simulations.size - state.finished.size;
  const kept = state.finished.size;
  log(
    `Resuming ${checkpointPath}: ${kept} finished simulation${kept === 1 ? "" : "s"} kept` +
      (infra > 0 ? `, ${infra} infrastructure error${infra === 1 ? "" : "s"} to re-run` : ""),
  );
  return state;
}

/** The run's `info` (trial count and seeds of the whole run) and the `run` record describing it. */
export function describeRun(plan: RunPlan, state: ResumeState): { info: Info; record: RunRecord } {
  const seeds = trialSeeds(plan.config.seed, state.numTrials);
  const info: Info = {
    ...plan.info,
    num_trials: state.numTrials,
    ...(plan.info.taubench
      ? {
          taubench: {
            ...plan.info.taubench,
            trial_seeds: seeds,
            ...(state.allowedChanges.length > 0 ? { allowed_changes: state.allowedChanges } : {}),
          },
        }
      : {}),
  };
  const record: RunRecord = {
    kind: "run",
    version: CHECKPOINT_VERSION,
    created_at: nowIso(),
    fingerprint: plan.fingerprint,
    num_trials: state.numTrials,
    seeds,
    info: info as unknown as Record<string, unknown>,
    tasks: state.tasks,
    resume_command: plan.config.resumeCommand ?? null,
  };
  return { info, record };
}

/** `info.taubench.until_decided` of a run record (the sequential comparison's looks so far), as text. */
const untilDecidedText = (record: RunRecord) =>
  pyDumps((record.info.taubench as Record<string, unknown> | undefined)?.until_decided ?? null);

/**
 * Whether the checkpoint needs this invocation's `run` record (a new run, one that grew or moved,
 * or a round of `--until-decided` with more looks).
 */
export function runRecordChanged(previous: RunRecord | null, record: RunRecord): boolean {
  return (
    !previous ||
    previous.num_trials !== record.num_trials ||
    previous.tasks.length !== record.tasks.length ||
    previous.resume_command !== record.resume_command ||
    pyDumps(previous.info.taubench?.allowed_changes ?? null) !==
      pyDumps(record.info.taubench?.allowed_changes ?? null) ||
    (untilDecidedText(record) !== "null" && untilDecidedText(record) !== untilDecidedText(previous))
  );
}
