/**
 * Leaderboard submissions as upstream's tooling makes and checks them
 * (`tau2 submit prepare | validate | verify-trajs`,
 * `tau2/scripts/leaderboard/`):
 *
 * - a trajectory file passes when it loads, covers its domain's `base` split
 *   exactly with identical task definitions, and has `num_trials`
 *   simulations of every task;
 * - a set of files passes when each domain appears once and the agent and
 *   user models and arguments agree across them;
 * - `submission.json` reports pass^1..4 as percentages and the average agent
 *   cost per trajectory, computed as upstream's `compute_metrics` does:
 *   tasks in id order, then sorted by their number of expected actions, and
 *   the mean summed pairwise as numpy does, so the floats come out equal.
 *
 * A submission folder is `DIR/<model>_<org>_<date>/submission.json` plus
 * `trajectories/<domain>_results.json` (upstream's results format).
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { UsageError } from "../core/errors.ts";
import { PyFloat, pyDumps } from "../core/py-json.ts";
import { type Results, serializeResults, taskToPy } from "../core/results.ts";
import { packageVersion, readResultsFile } from "../core/results-file.ts";
import type { Task } from "../core/task.ts";
import { loadDomain } from "../domains/registry.ts";
import { isSuccessful } from "../metrics/index.ts";
import type { LoadedRun } from "../runner/run-file.ts";
import { selectTasks } from "../runner/task-selection.ts";
import {
  type DomainResults,
  LEADERBOARD_DOMAINS,
  type LeaderboardDomain,
  type Reference,
  SUBMISSION_FIELD_ORDER,
  SUBMISSION_FILE_NAME,
  Submission,
  TRAJECTORY_FILES_DIR_NAME,
} from "./submission-schema.ts";
import { makeFolder } from "../core/make-folder.ts";

// ---------------------------------------------------------------------------
// Upstream's numbers

/** numpy's pairwise summation of a float64 array (`np.add.reduce`; blocks of 8, 128 per leaf). */
export function pairwiseSum(values: readonly number[], start = 0, end = values.length): number {
  const n = end - start;
  if (n < 8) {
    let sum = 0;
    for (let i = start; i < end; i++) sum += values[i]!;
    return sum;
  }
  if (n <= 128) {
    const r = values.slice(start, start + 8) as number[];
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) r[j]! += values[start + i + j]!;
    let sum = r[0]! + r[1]! + (r[2]! + r[3]!) + (r[4]! + r[5]! + (r[6]! + r[7]!));
    for (; i < n; i++) sum += values[start + i]!;
    return sum;
  }
  let half = Math.floor(n / 2);
  half -= half % 8;
  return pairwiseSum(values, start, start + half) + pairwiseSum(values, start + half, end);
}

/** pandas' `Series.mean()` of floats with missing values (NaN counts as 0 in the sum and not in the count). */
function pandasMean(values: readonly (number | null)[]): number | null {
  const present = values.filter((value) => value !== null).length;
  if (present === 0) return null;
  return pairwiseSum(values.map((value) => value ?? 0)) / present;
}

/** Python's `str` order (code points), for `groupby("task_id")`. */
function codePointCompare(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** Upstream's `task_num_actions`: expected actions of both sides, -1 for a lone transfer. */
function numActions(task: Task | undefined): number {
  const actions = task?.evaluation_criteria?.actions ?? null;
  if (actions !== null && actions.length === 1 && actions[0]!.name.toLowerCase().includes("transfer"))
    return -1;
  return actions?.length ?? 0;
}

function comb(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let result = 1;
  for (let i = 1; i <= k; i++) result = (result * (n - k + i)) / i;
  return Math.round(result);
}

/** A domain's `DomainResults` as upstream's `get_metrics` computes them from a results file. */
export function upstreamDomainResults(results: Results): DomainResults {
  const evaluated = results.simulations.filter((s) => s.termination_reason !== "infrastructure_error");
  const out: DomainResults = { pass_1: null, pass_2: null, pass_3: null, pass_4: null, cost: null };
  if (results.simulations.length === 0 || evaluated.length === 0) {
    // Upstream's metrics of an empty set: no pass^k, average cost 0.0.
    out.cost = 0;
    return out;
  }
  const tasks = new Map(results.tasks.map((task) => [task.id, task]));
  const byTask = new Map<string, { trials: number; successes: number }>();
  for (const simulation of evaluated) {
    const entry = byTask.get(simulation.task_id) ?? { trials: 0, successes: 0 };
    entry.trials++;
    if (isSuccessful(simulation.reward_info?.reward ?? 0)) entry.successes++;
    byTask.set(simulation.task_id, entry);
  }
  // groupby sorts task ids; then the frame is sorted by the number of expected actions.
  const order = [...byTask.keys()]
    .sort(codePointCompare)
    .map((id, position) => ({ id, position, actions: numActions(tasks.get(id)) }))
    .sort((a, b) => a.actions - b.actions || a.position - b.position);
  const maxK = Math.min(results.info.num_trials, ...[...byTask.values()].map((entry) => entry.trials));
  for (let k = 1; k <= Math.min(maxK, 4); k++) {
    const values = order.map(({ id }) => {
      const { trials, successes } = byTask.get(id)!;
      return comb(successes, k) / comb(trials, k);
    });
    out[`pass_${k}` as "pass_1"] = (pairwiseSum(values) / values.length) * 100;
  }
  out.cost = pandasMean(evaluated.map((simulation) => simulation.agent_cost));
  if (results.info.environment_info.domain_name === "banking_knowledge" && results.info.retrieval_config)
    out.retrieval_config = results.info.retrieval_config;
  return out;
}

// ---------------------------------------------------------------------------
// Checks

/** One check's outcome. */
export interface CheckResult {
  name: string;
  ok: boolean;
  error?: string;
}

const taskText = (task: Task) => pyDumps(taskToPy(task), { sortKeys: true });

/** Upstream `check_tasks`: the results hold exactly the domain's `base` split, with identical definitions. */
export function checkTasks(results: Results, dataDir: string): CheckResult {
  const name = "Tasks validation";
  const domainName = results.info.environment_info.domain_name;
  let expected: Task[];
  try {
    expected = selectTasks(loadDomain(domainName, dataDir), { split: "base" });
  } catch (error) {
    return { name, ok: false, error: (error as Error).message };
  }
  const mine = new Map(results.tasks.map((task) => [task.id, task]));
  const theirs = new Map(expected.map((task) => [task.id, task]));
  const missing = [...theirs.keys()].filter((id) => !mine.has(id));
  const extra = [...mine.keys()].filter((id) => !theirs.has(id));
  if (missing.length || extra.length) {
    const parts = [];
    if (missing.length) parts.push(`Missing tasks: ${missing.join(", ")}`);
    if (extra.length) parts.push(`Extra tasks: ${extra.join(", ")}`);
    return { name, ok: false, error: parts.join("; ") };
  }
  const changed = [...theirs]
    .filter(([id, task]) => taskText(task) !== taskText(mine.get(id)!))
    .map(([id]) => id);
  if (changed.length)
    return {
      name,
      ok: false,
      error: `Task mismatches found in ${changed.length} tasks (${changed.slice(0, 5).join(", ")})`,
    };
  return { name, ok: true };
}

/** Upstream `check_num_trials`: every task has exactly `info.num_trials` simulations. */
export function checkNumTrials(results: Results): CheckResult {
  const counts = new Map<string, number>();
  for (const simulation of results.simulations)
    counts.set(simulation.task_id, (counts.get(simulation.task_id) ?? 0) + 1);
  const wrong = results.tasks.filter((task) => (counts.get(task.id) ?? 0) !== results.info.num_trials);
  return wrong.length
    ? { name: "Trial count validation", ok: false, error: `Incorrect trial counts for ${wrong.length} tasks` }
    : { name: "Trial count validation", ok: true };
}

/** Upstream `verify_single_file` (public mode): format, tasks, trial counts. */
export function verifyTrajectoryFile(
  path: string,
  dataDir: string,
): { results: Results | null; checks: CheckResult[] } {
  let results: Results;
  try {
    results = readResultsFile(path);
  } catch (error) {
    return {
      results: null,
      checks: [
        { name: "Format validation", ok: false, error: `Error loading results: ${(error as Error).message}` },
      ],
    };
  }
  return {
    results,
    checks: [{ name: "Format validation", ok: true }, checkTasks(results, dataDir), checkNumTrials(results)],
  };
}

const settingsText = (results: Results) =>
  pyDumps(
    {
      llm_agent: results.info.agent_info.llm,
      llm_args_agent: results.info.agent_info.llm_args,
      llm_user: results.info.user_info.llm,
      llm_args_user: results.info.user_info.llm_args,
    },
    { sortKeys: true },
  );

/** Upstream `validate_submission_traj_set`: one file per domain, the same agent and user settings. */
export function checkTrajectorySet(all: readonly Results[]): CheckResult {
  const name = "Submission trajectory set validation";
  const seen = new Set<string>();
  for (const results of all) {
    const domain = results.info.environment_info.domain_name;
    if (seen.has(domain)) return { name, ok: false, error: `Domain ${domain} appears multiple times` };
    seen.add(domain);
  }
  const first = all[0];
  for (const results of all.slice(1))
    if (first && settingsText(results) !== settingsText(first))
      return {
        name,
        ok: false,
        error: `Agent / User Simulator should be the same for all results. Got ${settingsText(first)} and ${settingsText(results)}`,
      };
  for (const results of all) {
    const domain = results.info.environment_info.domain_name;
    if (!(LEADERBOARD_DOMAINS as readonly string[]).includes(domain))
      return {
        name,
        ok: false,
        error: `Domain ${domain} is not on the leaderboard (${LEADERBOARD_DOMAINS.join(", ")})`,
      };
  }
  return { name, ok: true };
}

/** Two reported numbers agree (upstream compares floats exactly; see {@link validateSubmissionMetrics}). */
function sameNumber(a: number | null | undefined, b: number | null | undefined): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  return a === b || Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

/**
 * Upstream `validate_submission_metrics`: the model, the user simulator and
 * every domain's numbers must match the trajectories. Upstream compares the
 * floats exactly; its own pass^k depends on numpy's sort and summation order
 * on the machine that computed it, so this check accepts a difference in the
 * last bits (relative 1e-9) and reports anything larger.
 */
export function validateSubmissionMetrics(submission: Submission, all: readonly Results[]): string[] {
  const warnings: string[] = [];
  const model = all[0]?.info.agent_info.llm ?? null;
  const userSimulator = all[0]?.info.user_info.llm ?? null;
  if (submission.model_name !== model)
    warnings.push(
      `Model name ${submission.model_name} does not match model used for the trajectories set ${model}`,
    );
  if (submission.methodology && (submission.methodology.user_simulator ?? null) !== userSimulator)
    warnings.push(
      `User simulator ${submission.methodology.user_simulator} does not match user simulator used for the trajectories set ${userSimulator}`,
    );
  for (const results of all) {
    const domain = results.info.environment_info.domain_name as LeaderboardDomain;
    const computed = upstreamDomainResults(results);
    const reported = submission.results[domain];
    if (!reported) {
      warnings.push(`Domain ${domain} found in trajectories but missing from submission.json`);
      continue;
    }
    for (const k of [1, 2, 3, 4] as const) {
      const key = `pass_${k}` as const;
      if (!sameNumber(reported[key], computed[key]))
        warnings.push(`Pass^${k} for ${domain} does not match computed results ${computed[key]}`);
    }
    if (!sameNumber(reported.cost, computed.cost))
      warnings.push(`Cost for ${domain} does not match computed results ${computed.cost}`);
  }
  return warnings;
}

// ---------------------------------------------------------------------------
// Preparing

/** What goes into `submission.json` besides the numbers (flags or prompts). */
export interface SubmissionMetadata {
  modelName: string;
  modelOrganization: string;
  submittingOrganization: string;
  contactEmail: string;
  contactName?: string | null;
  github?: string | null;
  isNew: boolean;
  submissionType: "standard" | "custom";
  reasoningEffort?: string | null;
  evaluationDate: string;
  userSimulator: string | null;
  notes?: string | null;
  modifiedPrompts: boolean;
  omittedQuestions: boolean;
  verificationDetails?: string | null;
  references?: Reference[];
  releaseDate?: string | null;
  announcementUrl?: string | null;
  announcementTitle?: string | null;
}

/**
 * Whether a run sent upstream's exact texts to the models: taubench records
 * `info.taubench.prompts` ("upstream" | "paraphrased"); a run that does not
 * say so (or ran `--no-policy`) counts as modified.
 */
export function runUsedUpstreamPrompts(results: Pick<Results, "info">): boolean {
  const stamp = results.info.taubench as Record<string, unknown> | undefined;
  return stamp?.prompts === "upstream" && stamp.no_policy !== true;
}

/** Upstream's folder name: `{model}_{org}_{date}`, lower case, spaces, slashes and dots as dashes. */
export function submissionDirName(modelName: string, organization: string, date: string): string {
  const slug = (text: string) => text.toLowerCase().replace(/[ /.]/g, "-");
  return `${slug(modelName)}_${slug(organization)}_${date}`;
}

/** A run's results in upstream's format, with full simulations (a checkpoint is exported on the way). */
export async function runResults(run: LoadedRun): Promise<Results> {
  const simulations = await run.full(run.simulations.map((_, index) => index));
  return { timestamp: null, info: run.info, tasks: run.tasks, simulations, simulation_index: null };
}

const float = (value: number | null | undefined) =>
  value === null || value === undefined ? undefined : new PyFloat(value);

/** `submission.model_dump_json(indent=2, exclude_none=True, ensure_ascii=False)` plus a newline. */
export function serializeSubmission(submission: Submission): string {
  const domains = new Map<string, unknown>();
  for (const domain of LEADERBOARD_DOMAINS) {
    const entry = submission.results[domain];
    if (!entry) continue;
    domains.set(
      domain,
      dropNone({
        pass_1: float(entry.pass_1),
        pass_2: float(entry.pass_2),
        pass_3: float(entry.pass_3),
        pass_4: float(entry.pass_4),
        cost: float(entry.cost),
        retrieval_config: entry.retrieval_config,
      }),
    );
  }
  const value: Record<string, unknown> = { ...submission, results: domains };
  const ordered = new Map<string, unknown>();
  for (const key of SUBMISSION_FIELD_ORDER) ordered.set(key, dropNoneDeep(value[key]));
  return `${pyDumps(dropNone(ordered), { indent: 2, ensureAscii: false })}\n`;
}

function dropNone(value: Map<string, unknown> | Record<string, unknown>): Map<string, unknown> {
  const entries = value instanceof Map ? [...value] : Object.entries(value);
  return new Map(entries.filter(([, v]) => v !== null && v !== undefined));
}

function dropNoneDeep(value: unknown): unknown {
  if (value instanceof Map) return new Map([...dropNone(value)].map(([k, v]) => [k, dropNoneDeep(v)]));
  if (Array.isArray(value)) return value.map(dropNoneDeep);
  if (value !== null && typeof value === "object" && !(value instanceof PyFloat))
    return new Map([...dropNone(value as Record<string, unknown>)].map(([k, v]) => [k, dropNoneDeep(v)]));
  return value;
}

/** What preparing produced. */
export interface PreparedSubmission {
  dir: string;
  submission: Submission;
  trajectoryFiles: string[];
}

/** Writes the submission folder from verified runs (their checks are the caller's). */
export function writeSubmission(
  outputDir: string,
  all: readonly Results[],
  metadata: SubmissionMetadata,
  today: string,
): PreparedSubmission {
  const dir = join(outputDir, submissionDirName(metadata.modelName, metadata.modelOrganization, today));
  const trajectoriesDir = join(dir, TRAJECTORY_FILES_DIR_NAME);
  makeFolder(trajectoriesDir);
  const trajectoryFiles: Record<string, string> = {};
  const results: Record<string, DomainResults> = {};
  const written: string[] = [];
  for (const entry of all) {
    const domain = entry.info.environment_info.domain_name;
    const name = `${domain}_results.json`;
    writeFileSync(join(trajectoriesDir, name), serializeResults(entry));
    written.push(join(trajectoriesDir, name));
    trajectoryFiles[domain] = name;
    results[domain] = upstreamDomainResults(entry);
  }
  const references = metadata.references ?? [];
  const submission = Submission.parse({
    model_name: metadata.modelName,
    model_organization: metadata.modelOrganization,
    submitting_organization: metadata.submittingOrganization,
    submission_date: today,
    submission_type: metadata.submissionType,
    modality: "text",
    contact_info: {
      email: metadata.contactEmail,
      name: metadata.contactName ?? null,
      github: metadata.github ?? null,
    },
    results,
    is_new: metadata.isNew,
    trajectories_available: written.length > 0,
    trajectory_files: written.length > 0 ? trajectoryFiles : null,
    references: references.length > 0 ? references : null,
    methodology: {
      evaluation_date: metadata.evaluationDate,
      tau2_bench_version: `taubench ${packageVersion()}`,
      user_simulator: metadata.userSimulator,
      notes: metadata.notes ?? null,
      verification: {
        modified_prompts: metadata.modifiedPrompts,
        omitted_questions: metadata.omittedQuestions,
        details: metadata.verificationDetails ?? null,
      },
    },
    model_release: metadata.releaseDate
      ? {
          release_date: metadata.releaseDate,
          announcement_url: metadata.announcementUrl ?? null,
          announcement_title: metadata.announcementTitle ?? null,
        }
      : null,
    reasoning_effort: metadata.reasoningEffort ?? null,
  });
  writeFileSync(join(dir, SUBMISSION_FILE_NAME), serializeSubmission(submission));
  return { dir, submission, trajectoryFiles: written };
}

// ---------------------------------------------------------------------------
// Validating a folder

/** The JSON files under a folder, sorted (upstream `expand_paths(..., ".json")` of a folder). */
export function jsonFilesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".json")) out.push(path);
    }
  };
  walk(dir);
  return out.sort();
}

/** The report of `tau submit validate`. */
export interface SubmissionReport {
  /** Lines in the order the checks ran (✅ / ❌). */
  lines: string[];
  ok: boolean;
  warnings: string[];
}

/** Upstream `validate_submission`: files, schema, trajectory set, each trajectory file, the numbers. */
export function validateSubmissionDir(dir: string, dataDir: string): SubmissionReport {
  const lines: string[] = [];
  const fail = (line: string): SubmissionReport => ({
    lines: [...lines, `❌ ${line}`],
    ok: false,
    warnings: [],
  });
  if (!existsSync(dir)) return fail(`Submission directory ${dir} not found`);
  const file = join(dir, SUBMISSION_FILE_NAME);
  if (!existsSync(file)) return fail(`Submission file ${file} not found`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    return fail(`${file}: invalid JSON (${(error as Error).message})`);
  }
  const parsed = Submission.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return fail(`${file}: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  const trajectoriesDir = join(dir, TRAJECTORY_FILES_DIR_NAME);
  if (!existsSync(trajectoriesDir)) return fail(`Trajectory files directory ${trajectoriesDir} not found`);
  const files = jsonFilesUnder(trajectoriesDir);
  const all: Results[] = [];
  for (const path of files) {
    try {
      all.push(readResultsFile(path));
    } catch (error) {
      return fail(`Submission data could not be loaded: ${(error as Error).message}`);
    }
  }
  lines.push("✅ Submission data loaded successfully");
  const set = checkTrajectorySet(all);
  if (!set.ok) return fail(`Submission trajectory set validation failed: ${set.error}`);
  lines.push("✅ Submission trajectory set");
  let ok = true;
  for (const path of files) {
    const { checks } = verifyTrajectoryFile(path, dataDir);
    lines.push(`📁 ${relative(dir, path)}`);
    for (const check of checks) {
      lines.push(`  ${check.ok ? "✅" : "❌"} ${check.name}${check.ok ? "" : `: ${check.error}`}`);
      ok &&= check.ok;
    }
  }
  const warnings = validateSubmissionMetrics(parsed.data, all);
  if (warnings.length === 0) lines.push("✅ Submission metrics match the trajectories");
  else {
    lines.push(`❌ ${warnings.length} warning(s) found`);
    for (const warning of warnings) lines.push(`  • ${warning}`);
  }
  return { lines, ok: ok && warnings.length === 0, warnings };
}

/** Refuses inputs that cannot make a submission (named in one line). */
export function assertLeaderboardDomain(results: Results, source: string): void {
  const domain = results.info.environment_info.domain_name;
  if (!(LEADERBOARD_DOMAINS as readonly string[]).includes(domain))
    throw new UsageError(
      `${source}: domain '${domain}' is not on the leaderboard (${LEADERBOARD_DOMAINS.join(", ")})`,
    );
}
