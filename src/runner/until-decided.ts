/**
 * `tau run … --against BASELINE --until-decided`: grow a run in rounds of
 * trials and stop as soon as the sequential test (`metrics/sequential.ts`)
 * decides its paired difference in pass^1 with the baseline. A round is the
 * same run resumed with a larger trial count; this module only decides how
 * many trials the next round asks for, takes each look, and keeps the record
 * that goes into the results (`info.taubench.until_decided`). Looks taken are
 * facts: a resumed sequence keeps the recorded ones and goes on from there.
 */
import { z } from "zod";
import { UsageError } from "../core/errors.ts";
import type { SimulationRun } from "../core/simulation.ts";
import {
  designSequential,
  isSuccessful,
  type PairedCounts,
  type SequentialDesign,
  SEQUENTIAL_TEST,
  type SequentialLook,
  sequentialLook,
  type TaskCounts,
} from "../metrics/index.ts";
import { CheckpointWriter } from "./checkpoint.ts";
import { loadCheckpointState } from "./checkpoint-state.ts";
import { exportResults } from "./export.ts";

/** What `--until-decided` was asked. */
export interface UntilDecidedSettings {
  /** The baseline run's path (recorded) and its per-task counts. */
  against: { path: string; tasks: readonly TaskCounts[] };
  /** The new run's task ids (the comparison pairs the tasks both have). */
  taskIds: readonly string[];
  effect: number;
  alpha?: number;
  power?: number;
  /** Trials per task added by each round (default: a fifth of the planned trials, at least 1). */
  roundTrials?: number;
  /** Most trials per task the new run may reach (default: no limit). */
  maxTrials?: number;
}

/** One look as recorded (snake_case, as the rest of `info.taubench`; infinite boundaries are null). */
export interface RecordedLook {
  look: number;
  /** Trials per task the round asked for. */
  requested_trials: number;
  /** Fewest evaluated trials of a paired task (lower when infrastructure errors are left). */
  trials: number;
  tasks: number;
  difference: number;
  standard_error: number;
  z: number | null;
  information: number | null;
  information_fraction: number;
  final: boolean;
  alpha_spent: number;
  beta_spent: number;
  efficacy_boundary: number | null;
  futility_boundary: number | null;
  decision: SequentialLook["decision"];
}

/** What the results record of a sequential comparison (`info.taubench.until_decided`). */
export interface UntilDecidedRecord {
  test: SequentialDesign["test"];
  against: string;
  effect: number;
  alpha: number;
  power: number;
  interim_alpha_share: number;
  interim_beta_share: number;
  between_task: number;
  tasks: number;
  required_information: number;
  planned_trials: number;
  round_trials: number;
  looks: RecordedLook[];
  /** Null while the comparison goes on (or was interrupted). */
  decision: "difference" | "futile" | "undecided" | null;
  /** For a difference: the new run relative to the baseline. */
  direction: "better" | "worse" | null;
}

const nullableNumber = z.number().nullable();

/** The schema of a recorded look (what a results file holds under `until_decided.looks`). */
const RecordedLookSchema = z.object({
  look: z.number(),
  requested_trials: z.number(),
  trials: z.number(),
  tasks: z.number(),
  difference: z.number(),
  standard_error: z.number(),
  z: nullableNumber,
  information: nullableNumber,
  information_fraction: z.number(),
  final: z.boolean(),
  alpha_spent: z.number(),
  beta_spent: z.number(),
  efficacy_boundary: nullableNumber,
  futility_boundary: nullableNumber,
  decision: z.enum(["continue", "difference", "futile", "undecided"]),
});

/** The schema of {@link UntilDecidedRecord}. */
const UntilDecidedRecordSchema = z.object({
  test: z.literal(SEQUENTIAL_TEST),
  against: z.string(),
  effect: z.number(),
  alpha: z.number(),
  power: z.number(),
  interim_alpha_share: z.number(),
  interim_beta_share: z.number(),
  between_task: z.number(),
  tasks: z.number(),
  required_information: z.number(),
  planned_trials: z.number(),
  round_trials: z.number(),
  looks: z.array(RecordedLookSchema),
  decision: z.enum(["difference", "futile", "undecided"]).nullable(),
  direction: z.enum(["better", "worse"]).nullable(),
});

/**
 * The record of a sequential comparison found in a run's `info.taubench.until_decided`; null when
 * there is none or it is not one this version understands (written by another test).
 */
export function readUntilDecidedRecord(
  taubench: Record<string, unknown> | undefined,
): UntilDecidedRecord | null {
  const parsed = UntilDecidedRecordSchema.safeParse(taubench?.until_decided);
  return parsed.success ? parsed.data : null;
}

/** What a round reports back: the run's simulations so far, and whether it was cut short. */
export interface RoundOutcome {
  simulations: readonly SimulationRun[];
  interrupted: boolean;
}

/** How the loop runs rounds and keeps its record (the CLI implements both with the runner). */
export interface RoundRunner {
  /** Runs (or resumes) the run up to `numTrials` trials per task, recording `record` in its results. */
  run(numTrials: number, record: UntilDecidedRecord): Promise<RoundOutcome>;
  /** Writes the final record into the run's results without running anything. */
  save(record: UntilDecidedRecord): Promise<void>;
}

const finite = (value: number) => (Number.isFinite(value) ? value : null);

function recordLook(look: SequentialLook, requested: number): RecordedLook {
  return {
    look: look.look,
    requested_trials: requested,
    trials: look.trials,
    tasks: look.tasks,
    difference: look.difference,
    standard_error: look.standardError,
    z: finite(look.z),
    information: finite(look.information),
    information_fraction: look.informationFraction,
    final: look.final,
    alpha_spent: look.alphaSpent,
    beta_spent: look.betaSpent,
    efficacy_boundary: finite(look.efficacyBoundary),
    futility_boundary: look.futilityBoundary,
    decision: look.decision,
  };
}

function restoreLook(look: RecordedLook): SequentialLook {
  const infinite = (value: number | null, sign: number) => value ?? sign * Number.POSITIVE_INFINITY;
  return {
    look: look.look,
    trials: look.trials,
    tasks: look.tasks,
    difference: look.difference,
    standardError: look.standard_error,
    z: infinite(look.z, Math.sign(look.difference)),
    information: infinite(look.information, 1),
    informationFraction: look.information_fraction,
    final: look.final,
    alphaSpent: look.alpha_spent,
    betaSpent: look.beta_spent,
    efficacyBoundary: infinite(look.efficacy_boundary, 1),
    futilityBoundary: look.futility_boundary,
    decision: look.decision,
  };
}

/** Per-task counts of the run's evaluated simulations with trial index below `trials`. */
export function countsUpTo(simulations: readonly SimulationRun[], trials: number): Map<string, TaskCounts> {
  const byTask = new Map<string, TaskCounts>();
  for (const simulation of simulations) {
    if (simulation.termination_reason === "infrastructure_error" || (simulation.trial ?? 0) >= trials)
      continue;
    let counts = byTask.get(simulation.task_id);
    if (!counts) {
      counts = { taskId: simulation.task_id, trials: 0, successes: 0 };
      byTask.set(simulation.task_id, counts);
    }
    counts.trials++;
    if (isSuccessful(simulation.reward_info?.reward ?? 0)) counts.successes++;
  }
  return byTask;
}

/** The design for these settings, or a usage error saying why none can promise its power. */
export function designFor(settings: UntilDecidedSettings): {
  design: SequentialDesign;
  baseline: TaskCounts[];
} {
  const wanted = new Set(settings.taskIds);
  const baseline = settings.against.tasks.filter((task) => wanted.has(task.taskId));
  if (baseline.length < 2)
    throw new UsageError(
      `--against ${settings.against.path} shares ${baseline.length} evaluated task(s) with this run; a paired comparison needs at least 2`,
    );
  const design = designSequential(baseline, {
    effect: settings.effect,
    ...(settings.alpha === undefined ? {} : { alpha: settings.alpha }),
    ...(settings.power === undefined ? {} : { power: settings.power }),
    ...(settings.maxTrials === undefined ? {} : { maxTrials: settings.maxTrials }),
  });
  const problem = design.infeasible;
  if (problem) {
    const advice =
      problem.reason === "baseline"
        ? `; extend the baseline first (resume it with --num-trials ${problem.trialsNeeded}) or ask for a larger --effect`
        : problem.reason === "budget"
          ? "; allow more with --max-trials or ask for a larger --effect"
          : "; ask for a larger --effect";
    throw new UsageError(
      `--until-decided cannot promise to detect ${settings.effect}: ${problem.message}${advice}`,
    );
  }
  return { design, baseline };
}

/** A fresh record for a design (no looks yet). */
export function startRecord(settings: UntilDecidedSettings, design: SequentialDesign): UntilDecidedRecord {
  const planned = design.plannedTrials!;
  return {
    test: design.test,
    against: settings.against.path,
    effect: design.effect,
    alpha: design.alpha,
    power: design.power,
    interim_alpha_share: design.interimAlphaShare,
    interim_beta_share: design.interimBetaShare,
    between_task: design.betweenTask,
    tasks: design.tasks,
    required_information: design.requiredInformation,
    planned_trials: planned,
    round_trials: settings.roundTrials ?? Math.max(1, Math.ceil(planned / 5)),
    looks: [],
    decision: null,
    direction: null,
  };
}

/** Whether a recorded sequence belongs to these settings (so its looks can be continued). */
function continues(previous: UntilDecidedRecord, fresh: UntilDecidedRecord): boolean {
  const same = (key: keyof UntilDecidedRecord) => previous[key] === fresh[key];
  return (["test", "against", "effect", "alpha", "power", "round_trials", "planned_trials"] as const).every(
    same,
  );
}

/** One line describing a look, for the terminal. */
export function describeLook(look: RecordedLook, effect: number): string {
  const boundary = (value: number | null) => (value === null ? "none" : value.toFixed(2));
  const verdict =
    look.decision === "continue"
      ? "continue"
      : look.decision === "difference"
        ? `decided: the difference is real (${look.difference > 0 ? "better" : "worse"})`
        : look.decision === "futile"
          ? `decided: no difference of ${effect} (cannot reach the effect)`
          : "undecided";
  return `look ${look.look} at ${look.requested_trials} trial(s) per task: difference ${look.difference >= 0 ? "+" : ""}${look.difference.toFixed(3)}, z ${look.z === null ? "∞" : look.z.toFixed(2)}; difference if |z| ≥ ${boundary(look.efficacy_boundary)}, futility if |z| < ${boundary(look.futility_boundary)} → ${verdict}`;
}

/** The record as lines for a run's summary (`tau run`, `tau view`). */
export function describeUntilDecided(record: UntilDecidedRecord): string[] {
  const last = record.looks.at(-1);
  const at = last ? ` at look ${last.look} (${last.requested_trials} trial(s) per task)` : "";
  const verdict =
    record.decision === "difference"
      ? `decided${at}: the difference is real, this run is ${record.direction} than the baseline`
      : record.decision === "futile"
        ? `decided${at}: no difference of ${record.effect} (stopped for futility: it cannot reach the effect)`
        : record.decision === "undecided"
          ? `undecided${at}: the planned trials crossed neither boundary`
          : `not decided yet after ${record.looks.length} look(s); run the same command again to go on`;
  return [
    `Until decided against ${record.against}: ${verdict}`,
    `  test: ${record.test}; effect ${record.effect}, alpha ${record.alpha}, power ${record.power}; up to ${record.planned_trials} trials per task in rounds of ${record.round_trials}`,
    ...record.looks.map((look) => `  ${describeLook(look, record.effect)}`),
  ];
}

/**
 * Writes `record` into a run's checkpoint as a new `run` record (the latest
 * one with `info.taubench.until_decided` replaced), so the decision is kept
 * without running anything; the results JSON is exported again when `resultsPath` is given.
 */
export async function saveUntilDecided(
  checkpointPath: string,
  record: UntilDecidedRecord,
  resultsPath: string | null,
): Promise<void> {
  const { run } = await loadCheckpointState(checkpointPath);
  if (!run) throw new UsageError(`${checkpointPath} has no run record to keep the decision in`);
  const taubench = (run.info.taubench ?? {}) as Record<string, unknown>;
  const writer = await CheckpointWriter.open(checkpointPath);
  try {
    await writer.append({ ...run, info: { ...run.info, taubench: { ...taubench, until_decided: record } } });
  } finally {
    await writer.close();
  }
  if (resultsPath !== null) await exportResults(checkpointPath, resultsPath);
}

/**
 * Runs rounds until the test decides (or a round is interrupted). `previous`
 * is the record found in the run's results, continued when it matches.
 */
export async function runUntilDecided(
  settings: UntilDecidedSettings,
  rounds: RoundRunner,
  options: { previous?: UntilDecidedRecord | null; log?: (line: string) => void } = {},
): Promise<{ record: UntilDecidedRecord; outcome: RoundOutcome | null }> {
  const log = options.log ?? (() => {});
  const { design, baseline } = designFor(settings);
  const fresh = startRecord(settings, design);
  const record =
    options.previous && continues(options.previous, fresh)
      ? { ...options.previous, looks: [...options.previous.looks] }
      : fresh;
  if (record.decision !== null) {
    log(`already decided at look ${record.looks.length}: ${record.decision}`);
    return { record, outcome: null };
  }
  const planned = record.planned_trials;
  log(
    `--until-decided: ${design.test}; effect ${design.effect}, alpha ${design.alpha}, power ${design.power}; up to ${planned} trials per task in rounds of ${record.round_trials}`,
  );
  const baselineById = new Map(baseline.map((task) => [task.taskId, task]));
  let outcome: RoundOutcome | null = null;
  for (;;) {
    const last = record.looks.at(-1);
    const trials = Math.min(planned, (last?.requested_trials ?? 0) + record.round_trials);
    outcome = await rounds.run(trials, record);
    if (outcome.interrupted) return { record, outcome };
    const counts = countsUpTo(outcome.simulations, trials);
    const pairs: PairedCounts[] = [];
    for (const [taskId, a] of baselineById) {
      const b = counts.get(taskId);
      if (b && b.trials > 0) pairs.push({ taskId, a, b });
    }
    if (pairs.length < 2)
      throw new UsageError(
        `after ${trials} trial(s) per task, fewer than 2 tasks are evaluated in both runs`,
      );
    const look = sequentialLook(design, record.looks.map(restoreLook), pairs, {
      final: trials >= planned,
    });
    const recorded = recordLook(look, trials);
    record.looks.push(recorded);
    log(describeLook(recorded, design.effect));
    if (look.decision === "continue") continue;
    record.decision = look.decision;
    record.direction = look.decision === "difference" ? (look.z > 0 ? "better" : "worse") : null;
    await rounds.save(record);
    return { record, outcome };
  }
}
