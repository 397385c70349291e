/**
 * `tau submit prepare | validate | verify-trajs`: leaderboard submissions in
 * upstream's format (`tau2 submit …`). `prepare` takes its metadata from
 * flags and asks for what is missing only on a terminal; elsewhere a missing
 * required field is one line naming its flag.
 */
import { createInterface } from "node:readline/promises";
import { resolve } from "node:path";
import type { Command } from "commander";
import { UsageError } from "../../core/errors.ts";
import type { Results } from "../../core/results.ts";
import { resolveDataDir } from "../../domains/data-dir.ts";
import type { Reference } from "../../analysis/submission-schema.ts";
import {
  assertLeaderboardDomain,
  checkTrajectorySet,
  runResults,
  runUsedUpstreamPrompts,
  type SubmissionMetadata,
  validateSubmissionDir,
  verifyTrajectoryFile,
  checkTasks,
  checkNumTrials,
  type CheckResult,
  writeSubmission,
} from "../../analysis/submission.ts";
import { loadRun } from "../../runner/run-file.ts";

/** Options of `tau submit prepare`. */
export interface PrepareOptions {
  output: string;
  modelName?: string;
  modelOrganization?: string;
  submittingOrganization?: string;
  contactEmail?: string;
  contactName?: string;
  github?: string;
  submissionType?: string;
  reasoningEffort?: string;
  evaluationDate?: string;
  userSimulator?: string;
  notes?: string;
  verificationDetails?: string;
  reference?: string[];
  releaseDate?: string;
  announcementUrl?: string;
  announcementTitle?: string;
  isNew: boolean;
  verify: boolean;
  dataDir?: string;
}

/** Asks a question on the terminal (absent elsewhere). */
export type Ask = (question: string, fallback?: string) => Promise<string>;

/** Where a submit command writes; `ask` only when stdin and stdout are a terminal. */
export interface SubmitIo {
  out(line: string): void;
  ask?: Ask;
  today?: string;
}

function printChecks(io: SubmitIo, source: string, checks: readonly CheckResult[]): boolean {
  io.out(`📁 ${source}`);
  for (const check of checks)
    io.out(`  ${check.ok ? "✅" : "❌"} ${check.name}${check.ok ? "" : `: ${check.error}`}`);
  return checks.every((check) => check.ok);
}

function parseReference(text: string): Reference {
  const [title, url, type] = text.split("|").map((part) => part.trim());
  if (!title || !url) throw new UsageError(`--reference takes "title|url[|type]", got '${text}'`);
  return { title, url, type: type ?? null };
}

async function required(
  value: string | undefined,
  flag: string,
  question: string,
  io: SubmitIo,
  fallback?: string,
): Promise<string> {
  if (value !== undefined && value.trim() !== "") return value.trim();
  if (io.ask) {
    const answer = (await io.ask(question, fallback)).trim();
    if (answer !== "") return answer;
  } else if (fallback !== undefined) return fallback;
  throw new UsageError(`${flag} is required (not on a terminal, so it cannot be asked for)`);
}

/** `tau submit prepare RUN… --output DIR`; returns the exit code. */
export async function prepareCommand(
  targets: readonly string[],
  options: PrepareOptions,
  io: SubmitIo,
): Promise<number> {
  const dataDir = resolveDataDir(options.dataDir);
  const all: Results[] = [];
  let verified = true;
  let omitted = false;
  for (const target of targets) {
    const run = await loadRun(target);
    const results = await runResults(run);
    assertLeaderboardDomain(results, run.path);
    const checks = [checkTasks(results, dataDir), checkNumTrials(results)];
    omitted ||= !checks[0]!.ok;
    if (options.verify) verified = printChecks(io, run.path, checks) && verified;
    all.push(results);
  }
  if (!verified) {
    io.out("❌ Trajectory verification failed; no submission was written (--no-verify skips it)");
    return 1;
  }
  const set = checkTrajectorySet(all);
  if (!set.ok) {
    io.out(`❌ ${set.error}`);
    return 1;
  }
  const first = all[0]!;
  const upstreamPrompts = all.every(runUsedUpstreamPrompts);
  const modelName = await required(
    options.modelName,
    "--model-name",
    "Model name",
    io,
    first.info.agent_info.llm ?? undefined,
  );
  const modelOrganization = await required(
    options.modelOrganization,
    "--model-organization",
    "Model organization (who developed the model)",
    io,
  );
  const submittingOrganization = await required(
    options.submittingOrganization,
    "--submitting-organization",
    "Submitting organization (who ran the evaluation)",
    io,
    modelOrganization,
  );
  const contactEmail = await required(options.contactEmail, "--contact-email", "Contact email", io);
  const submissionType = options.submissionType ?? (upstreamPrompts ? "standard" : "custom");
  if (submissionType !== "standard" && submissionType !== "custom")
    throw new UsageError(`--submission-type is standard or custom, got '${submissionType}'`);
  const today = io.today ?? new Date().toISOString().slice(0, 10);
  const metadata: SubmissionMetadata = {
    modelName,
    modelOrganization,
    submittingOrganization,
    contactEmail,
    contactName: options.contactName ?? null,
    github: options.github ?? null,
    isNew: options.isNew,
    submissionType,
    reasoningEffort: options.reasoningEffort ?? null,
    evaluationDate: options.evaluationDate ?? today,
    userSimulator: options.userSimulator ?? first.info.user_info.llm,
    notes: options.notes ?? null,
    modifiedPrompts: !upstreamPrompts,
    omittedQuestions: omitted,
    verificationDetails:
      options.verificationDetails ??
      (upstreamPrompts
        ? null
        : "Run with taubench (a TypeScript reimplementation of tau2-bench); the runs did not record upstream's exact prompt texts."),
    references: (options.reference ?? []).map(parseReference),
    releaseDate: options.releaseDate ?? null,
    announcementUrl: options.announcementUrl ?? null,
    announcementTitle: options.announcementTitle ?? null,
  };
  const prepared = writeSubmission(resolve(options.output), all, metadata, today);
  io.out(`🎉 Submission prepared: ${prepared.dir}`);
  for (const [domain, entry] of Object.entries(prepared.submission.results)) {
    if (!entry) continue;
    const scores = [1, 2, 3, 4]
      .map((k) => [k, entry[`pass_${k}` as "pass_1"]] as const)
      .filter(([, value]) => value !== null && value !== undefined)
      .map(([k, value]) => `Pass^${k}: ${value!.toFixed(1)}%`);
    io.out(`  ${domain}: ${scores.join(" | ") || "no scores"}`);
  }
  if (!upstreamPrompts)
    io.out(
      "  note: methodology.verification.modified_prompts is true (the runs did not use upstream's exact texts)",
    );
  io.out("Next: check submission.json, share the whole folder (with trajectories/) with the maintainers,");
  io.out("copy only submission.json to web/leaderboard/public/submissions/<folder>/ upstream,");
  io.out("add the folder name to the 'submissions' list of manifest.json there, and open a pull request.");
  return 0;
}

/** `tau submit validate DIR`; returns the exit code. */
export function validateCommand(dir: string, options: { dataDir?: string }, io: SubmitIo): number {
  const report = validateSubmissionDir(resolve(dir), resolveDataDir(options.dataDir));
  for (const line of report.lines) io.out(line);
  io.out(report.ok ? "✅ Submission validation successful" : "❌ Submission validation failed");
  return report.ok ? 0 : 1;
}

/** `tau submit verify-trajs RUN…`; returns the exit code. */
export async function verifyTrajsCommand(
  targets: readonly string[],
  options: { dataDir?: string },
  io: SubmitIo,
): Promise<number> {
  const dataDir = resolveDataDir(options.dataDir);
  let failed = 0;
  for (const target of targets) {
    let checks: CheckResult[];
    let source = target;
    if (target.endsWith(".json")) checks = verifyTrajectoryFile(resolve(target), dataDir).checks;
    else {
      const run = await loadRun(target);
      source = run.path;
      const results = await runResults(run);
      checks = [
        { name: "Format validation", ok: true },
        checkTasks(results, dataDir),
        checkNumTrials(results),
      ];
    }
    if (!printChecks(io, source, checks)) failed++;
  }
  io.out(`📊 ${targets.length} file(s): ${targets.length - failed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

/** A question on the terminal, with the default in brackets. */
function terminalAsk(): Ask | undefined {
  if (!process.stdin.isTTY || !process.stdout.isTTY) return undefined;
  return async (question, fallback) => {
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    try {
      const answer = await rl.question(`${question}${fallback ? ` [${fallback}]` : ""}: `);
      return answer.trim() === "" ? (fallback ?? "") : answer;
    } finally {
      rl.close();
    }
  };
}

/** Registers `tau submit`. */
export function registerSubmitCommand(program: Command): void {
  const submit = program.command("submit").description("leaderboard submissions in upstream's format");
  const io = (): SubmitIo => {
    const ask = terminalAsk();
    return { out: (line) => console.log(line), ...(ask ? { ask } : {}) };
  };
  submit
    .command("prepare")
    .description("make a submission folder (submission.json + trajectories/) from runs, one per domain")
    .argument("<runs...>", "run names, folders, checkpoints or results files")
    .requiredOption("-o, --output <dir>", "where the submission folder goes")
    .option("--model-name <name>", "model name (default: the runs' agent model)")
    .option("--model-organization <org>", "who developed the model (required)")
    .option("--submitting-organization <org>", "who ran the evaluation (default: the model organization)")
    .option("--contact-email <email>", "contact email (required)")
    .option("--contact-name <name>", "contact name")
    .option("--github <user>", "GitHub user name")
    .option(
      "--submission-type <type>",
      "standard or custom (default: custom unless the runs used upstream's exact texts)",
    )
    .option("--reasoning-effort <level>", "reasoning effort used (high, low, none, …)")
    .option("--evaluation-date <YYYY-MM-DD>", "when the evaluation ran (default: today)")
    .option("--user-simulator <model>", "user simulator model (default: the runs' user model)")
    .option("--notes <text>", "methodology notes")
    .option("--verification-details <text>", "what was modified or omitted")
    .option("--reference <title|url|type...>", "a reference link (repeatable)")
    .option("--release-date <YYYY-MM-DD>", "the model's public release date")
    .option("--announcement-url <url>", "the model's release announcement")
    .option("--announcement-title <title>", "its title")
    .option("--not-new", "do not highlight the model as new")
    .option("--no-verify", "skip the trajectory checks")
    .option("--data-dir <dir>", "data folder (default: TAU_DATA_DIR or the pulled cache)")
    .action(async (targets: string[], options: PrepareOptions & { notNew?: boolean }) => {
      process.exitCode = await prepareCommand(targets, { ...options, isNew: !options.notNew }, io());
    });
  submit
    .command("validate")
    .description("check a submission folder as upstream's validator does")
    .argument("<dir>", "the submission folder (holding submission.json)")
    .option("--data-dir <dir>", "data folder (default: TAU_DATA_DIR or the pulled cache)")
    .action((dir: string, options: { dataDir?: string }) => {
      process.exitCode = validateCommand(dir, options, io());
    });
  submit
    .command("verify-trajs")
    .description("check runs or trajectory files: base split covered exactly, task definitions, trial counts")
    .argument("<runs...>", "run names, folders, checkpoints or results files")
    .option("--data-dir <dir>", "data folder (default: TAU_DATA_DIR or the pulled cache)")
    .action(async (targets: string[], options: { dataDir?: string }) => {
      process.exitCode = await verifyTrajsCommand(targets, options, io());
    });
}
