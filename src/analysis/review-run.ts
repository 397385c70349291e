/**
 * `tau review RUN`: every evaluated simulation of a run reviewed by a judge
 * model (upstream `tau2 review`), recorded in `review.jsonl` (or
 * `review-user.jsonl` for `--mode user`) beside the run, resumable; at the
 * end upstream's output, `results_reviewed.json` (the run with each
 * simulation's `review` / `user_only_review` and `auth_classification`), is
 * written beside it too.
 */
import { dirname, join } from "node:path";
import { UsageError } from "../core/errors.ts";
import { pyFloat } from "../core/py-json.ts";
import { writeResultsFile } from "../core/results-file.ts";
import { readReviewFile, reviewFilePath } from "../core/review-file.ts";
import { reviewFileKind, type SimulationReviewRecord } from "../core/review-records.ts";
import type { ReviewMode } from "../core/reviews.ts";
import type { SimulationRun } from "../core/simulation.ts";
import { type JudgePassDependencies, type JudgePassOutcome, runJudgePass } from "./judge-pass.ts";
import { reviewSimulation } from "./review.ts";
import type { LoadedRun } from "../runner/run-file.ts";

/** Upstream's default review model (`DEFAULT_LLM_EVAL_USER_SIMULATOR`). */
export const DEFAULT_REVIEW_LLM = "anthropic/claude-opus-4-5";

/** What `tau review` was asked. */
export interface ReviewRunOptions {
  mode: ReviewMode;
  llm: string;
  llmArgs: Record<string, unknown>;
  maxConcurrency: number;
  /** Only these tasks' simulations. */
  taskIds?: readonly string[] | null;
  /** Only the first N selected simulations. */
  limit?: number | null;
  /** Judge calls per simulation part before it is recorded as a failure. */
  maxAttempts?: number;
}

/** What a review pass produced. */
export interface ReviewRunResult extends JudgePassOutcome {
  filePath: string;
  /** Every record of the file for this run's selected simulations. */
  records: SimulationReviewRecord[];
  reviewedResultsPath: string;
}

/** The simulations a review or analysis covers: evaluated ones, optionally by task, then the first N. */
export function selectSimulations(
  run: LoadedRun,
  filter: (simulation: SimulationRun) => boolean,
  options: { taskIds?: readonly string[] | null; limit?: number | null },
): number[] {
  const tasks = options.taskIds && options.taskIds.length > 0 ? new Set(options.taskIds) : null;
  const known = new Set(run.simulations.map((simulation) => simulation.task_id));
  for (const id of tasks ?? [])
    if (!known.has(id)) throw new UsageError(`Task '${id}' has no simulation in ${run.path}`);
  const selected = run.simulations
    .map((simulation, index) => ({ simulation, index }))
    .filter(({ simulation }) => simulation.termination_reason !== "infrastructure_error")
    .filter(({ simulation }) => tasks === null || tasks.has(simulation.task_id))
    .filter(({ simulation }) => filter(simulation))
    .map(({ index }) => index);
  return options.limit ? selected.slice(0, options.limit) : selected;
}

/** Reviews a run (see the module comment). */
export async function reviewRun(
  run: LoadedRun,
  options: ReviewRunOptions,
  deps: JudgePassDependencies,
): Promise<ReviewRunResult> {
  const guidelines = run.info.user_info.global_simulation_guidelines;
  if (!guidelines)
    throw new UsageError(
      `${run.path} records no user-simulator guidelines (info.user_info.global_simulation_guidelines); the review needs them`,
    );
  const policy = run.info.environment_info.policy;
  if (options.mode === "full" && !policy)
    throw new UsageError(
      `${run.path} records no policy (info.environment_info.policy); the full review needs it`,
    );
  const kind = reviewFileKind(options.mode);
  const filePath = reviewFilePath(run.path, kind);
  const state = readReviewFile(filePath);
  const selected = selectSimulations(run, () => true, options);
  const outcome = await runJudgePass(
    {
      run,
      kind,
      filePath,
      llm: options.llm,
      llmArgs: options.llmArgs,
      maxConcurrency: options.maxConcurrency,
      selected,
      state,
      async work(simulation, task, client, signal) {
        const result = await reviewSimulation(options.mode, simulation, task, {
          policy,
          guidelines,
          client,
          args: options.llmArgs,
          signal,
          ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}),
        });
        return result.status === "reviewed"
          ? {
              status: "reviewed",
              review: result.review,
              auth_classification: result.authClassification,
            }
          : { status: "failed", failure: result.failure };
      },
    },
    deps,
  );
  const after = readReviewFile(filePath);
  const records = selected
    .map((index) => after.simulations.get(run.simulations[index]!.id))
    .filter((record): record is SimulationReviewRecord => record !== undefined);
  const reviewedResultsPath = join(dirname(run.path), "results_reviewed.json");
  await writeReviewedResults(run, reviewedResultsPath);
  return { ...outcome, filePath, records, reviewedResultsPath };
}

const boxCost = <T extends { cost: number | null }>(value: T): T =>
  ({ ...value, cost: value.cost === null ? null : pyFloat(value.cost) }) as T;

/**
 * Upstream's `results_reviewed.json`: the run's results with each reviewed
 * simulation carrying its `review` (full mode), `user_only_review` (user
 * mode) and `auth_classification`, from whichever review files exist.
 */
export async function writeReviewedResults(run: LoadedRun, path: string): Promise<void> {
  const full = readReviewFile(reviewFilePath(run.path, "review_full")).simulations;
  const user = readReviewFile(reviewFilePath(run.path, "review_user")).simulations;
  const simulations = await run.full(run.simulations.map((_, index) => index));
  const reviewed = simulations.map((simulation) => {
    const fullRecord = full.get(simulation.id);
    const userRecord = user.get(simulation.id);
    const out: Record<string, unknown> = { ...simulation };
    if (fullRecord?.status === "reviewed") {
      out.review = boxCost(fullRecord.review);
      if (fullRecord.auth_classification) out.auth_classification = boxCost(fullRecord.auth_classification);
    }
    if (userRecord?.status === "reviewed") out.user_only_review = boxCost(userRecord.review);
    return out as SimulationRun;
  });
  writeResultsFile(path, {
    timestamp: null,
    info: run.info,
    tasks: run.tasks,
    simulations: reviewed,
    simulation_index: null,
  });
}
