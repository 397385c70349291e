/**
 * Continuing a run that has a results JSON but no checkpoint: one written by
 * upstream's `tau2 run` (monolithic or dir layout), or one taubench exported
 * and whose checkpoint is gone. Like upstream's `try_resume` (spec §11.3) the
 * stored `info` must describe the same run (the policy text aside), tasks may
 * be added but not removed or changed, and infrastructure errors are dropped so
 * they run again. The file is backed up, then a checkpoint is written that
 * holds its simulations; from there the run resumes like any other.
 */
import { cpSync, existsSync, rmSync } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { UsageError } from "../core/errors.ts";
import { nowIso } from "../core/messages.ts";
import { pyDumps, pyEquals } from "../core/py-json.ts";
import { type Info, type Results, taskToPy } from "../core/results.ts";
import { readResultsFile, resultsLayout } from "../core/results-file.ts";
import type { SimulationRun } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import { providerKey } from "../llm/model-id.ts";
import {
  CHECKPOINT_VERSION,
  type CheckpointRecord,
  formatCheckpointLine,
  type RunFingerprint,
  type RunRecord,
} from "./checkpoint.ts";
import { parseRunUsage } from "./llm-usage.ts";
import { trialSeeds } from "./seeds.ts";

/** What the requested run looks like, to check an existing results file against. */
export interface ImportTarget {
  resultsPath: string;
  checkpointPath: string;
  /** The `info` this run records (planRun's). */
  info: Info;
  fingerprint: RunFingerprint;
  /** The tasks this invocation selected. */
  tasks: readonly Task[];
  seed: number;
  numTrials: number;
  resumeCommand: string | null;
}

/** What an import did. */
export interface ImportSummary {
  /** `upstream` when the file has no `info.taubench` stamp. */
  source: "upstream" | "taubench";
  layout: "json" | "dir";
  /** Simulations carried over into the checkpoint. */
  kept: number;
  /** Infrastructure errors left out so they run again. */
  dropped: number;
  /** Copies of the original file (and, for the dir layout, its `simulations/` folder). */
  backups: string[];
}

/** A model name in taubench's canonical `provider/model` form; upstream's LiteLLM names map onto it. */
export function canonicalModelName(model: string | null | undefined): string | null {
  if (model === null || model === undefined) return null;
  try {
    return providerKey(model);
  } catch {
    // A name we cannot place (an upstream provider we lack) still compares as written.
    return model;
  }
}

const show = (value: unknown) => pyDumps(value ?? null, { sortKeys: true });

/**
 * Lines naming the settings in which a stored run's `info` differs from this
 * run's. As upstream, the policy text is left out; so are what legitimately
 * differs between two tools or checkouts (git commit, trial count, version
 * stamps), and a model that this run's participant does not use.
 */
export function importedInfoDifferences(stored: Info, current: Info): string[] {
  const out: string[] = [];
  const check = (label: string, a: unknown, b: unknown) => {
    if (!pyEquals(a ?? null, b ?? null)) out.push(`${label}: ${show(a)} → ${show(b)}`);
  };
  check(
    "environment_info.domain_name",
    stored.environment_info.domain_name,
    current.environment_info.domain_name,
  );
  check("environment_info.tool_defs", stored.environment_info.tool_defs, current.environment_info.tool_defs);
  check("agent_info.implementation", stored.agent_info.implementation, current.agent_info.implementation);
  check("user_info.implementation", stored.user_info.implementation, current.user_info.implementation);
  // Replay, scripted and dummy participants record no model here, upstream always records one.
  if (current.agent_info.llm !== null) {
    check(
      "agent_info.llm",
      canonicalModelName(stored.agent_info.llm),
      canonicalModelName(current.agent_info.llm),
    );
    check("agent_info.llm_args", stored.agent_info.llm_args, current.agent_info.llm_args);
  }
  if (current.user_info.llm !== null) {
    check(
      "user_info.llm",
      canonicalModelName(stored.user_info.llm),
      canonicalModelName(current.user_info.llm),
    );
    check("user_info.llm_args", stored.user_info.llm_args, current.user_info.llm_args);
  }
  check("agent_info.voice_settings", stored.agent_info.voice_settings, current.agent_info.voice_settings);
  check("user_info.voice_settings", stored.user_info.voice_settings, current.user_info.voice_settings);
  check("user_info.persona_config", stored.user_info.persona_config, current.user_info.persona_config);
  if (
    stored.user_info.global_simulation_guidelines !== null &&
    current.user_info.global_simulation_guidelines !== null
  )
    if (stored.user_info.global_simulation_guidelines !== current.user_info.global_simulation_guidelines)
      out.push("user_info.global_simulation_guidelines: the user simulator guidelines text differs");
  check("max_steps", stored.max_steps, current.max_steps);
  check("max_errors", stored.max_errors, current.max_errors);
  // An old file without a seed is checked simulation by simulation instead (trial seeds).
  if (stored.seed !== null) check("seed", stored.seed, current.seed);
  check("text_streaming_config", stored.text_streaming_config, current.text_streaming_config);
  check("speech_complexity", stored.speech_complexity, current.speech_complexity);
  check("audio_native_config", stored.audio_native_config, current.audio_native_config);
  check("retrieval_config", stored.retrieval_config, current.retrieval_config);
  check("retrieval_config_kwargs", stored.retrieval_config_kwargs, current.retrieval_config_kwargs);
  // Settings only taubench records (upstream has no judge choice and infers solo mode from the agent).
  const mine = stored.taubench;
  const theirs = current.taubench;
  if (mine && theirs) {
    if ("solo_mode" in mine) check("taubench.solo_mode", mine.solo_mode, theirs.solo_mode);
    if ("judge_llm" in mine)
      check(
        "taubench.judge_llm",
        canonicalModelName(mine.judge_llm as string | null),
        canonicalModelName(theirs.judge_llm as string | null),
      );
  }
  return out;
}

/** A task as upstream hashes it for resume: its full validated dump. */
const taskFingerprint = (task: Task) => pyDumps(taskToPy(task), { sortKeys: true });

/** A file name beside `path` that does not exist yet: `<path>.bak`, else `<path>.bak.1`, … */
function freeBackupPath(path: string): string {
  let candidate = `${path}.bak`;
  for (let n = 1; existsSync(candidate); n++) candidate = `${path}.bak.${n}`;
  return candidate;
}

/** The simulations to carry over, after checking that their trial seeds are this run's. */
function keptSimulations(
  path: string,
  results: Results,
  seed: number,
): { kept: SimulationRun[]; dropped: number } {
  const kept: SimulationRun[] = [];
  let dropped = 0;
  const maxTrial = Math.max(-1, ...results.simulations.map((simulation) => simulation.trial ?? -1));
  const seeds = trialSeeds(seed, maxTrial + 1);
  for (const simulation of results.simulations) {
    if (simulation.termination_reason === "infrastructure_error") {
      dropped++;
      continue;
    }
    const { trial, seed: trialSeed } = simulation;
    if (trial === null || trial === undefined || trialSeed === null || trialSeed === undefined)
      throw new UsageError(
        `${path}: simulation ${simulation.id} (task '${simulation.task_id}') records no trial or seed, so it cannot be matched to a unit of this run; use another --save-to`,
      );
    // Skipping finished units relies on (trial, task, seed) keys; a seed drawn from another --seed never matches.
    if (seeds[trial] !== trialSeed)
      throw new UsageError(
        `${path}: simulation ${simulation.id} (task '${simulation.task_id}', trial ${trial}) has seed ${trialSeed}, but --seed ${seed} gives trial ${trial} the seed ${seeds[trial]}; use the run's --seed or another --save-to`,
      );
    kept.push(simulation);
  }
  return { kept, dropped };
}

/**
 * Checks an existing results file against the requested run and turns it into
 * this run's checkpoint (the original is backed up first). Nothing is written
 * when the file is unreadable or belongs to another run: the error is one line.
 */
export async function importResultsFile(
  target: ImportTarget,
  log: (line: string) => void = () => {},
): Promise<ImportSummary> {
  const path = target.resultsPath;
  const layout = resultsLayout(path);
  if (!existsSync(layout.metadataPath))
    throw new UsageError(
      `${layout.simulationsDir} exists but ${layout.metadataPath} does not, so the run there cannot be resumed; pick another --save-to`,
    );
  const results = readResultsFile(path);
  const source = results.info.taubench ? "taubench" : "upstream";

  const differences = importedInfoDifferences(results.info, target.info);
  if (differences.length > 0)
    throw new UsageError(
      `${path} belongs to a run with different settings (${differences.join("; ")}); use another --save-to to start a new run`,
    );

  const selected = new Map(target.tasks.map((task) => [task.id, task]));
  const removed = results.tasks.filter((task) => !selected.has(task.id)).map((task) => task.id);
  if (removed.length > 0)
    throw new UsageError(
      `${path} has tasks this run does not select (${removed.join(", ")}); select the same tasks (--task-split-name, --task-ids, --num-tasks) or use another --save-to`,
    );
  const modified = results.tasks
    .filter((task) => taskFingerprint(task) !== taskFingerprint(selected.get(task.id)!))
    .map((task) => task.id);
  if (modified.length > 0)
    throw new UsageError(
      `Task${modified.length === 1 ? "" : "s"} ${modified.map((id) => `'${id}'`).join(", ")} changed since the run in ${path} was written; use another --save-to to start a new run`,
    );
  const { kept, dropped } = keptSimulations(path, results, target.seed);

  // The stored tasks equal the selected ones as upstream compares them; keep this run's parse of them (the
  // checkpoint's own resume check compares parsed tasks) in the stored order, then the new tasks.
  const known = new Set(results.tasks.map((task) => task.id));
  const tasks = [
    ...results.tasks.map((task) => selected.get(task.id)!),
    ...target.tasks.filter((task) => !known.has(task.id)),
  ];
  const highestTrial = Math.max(-1, ...kept.map((simulation) => simulation.trial ?? 0));
  const numTrials = Math.max(target.numTrials, results.info.num_trials, highestTrial + 1);
  const seeds = trialSeeds(target.seed, numTrials);

  // Everything checked: from here on the original is only copied, never changed in place.
  const backups: string[] = [];
  const metadataBackup = freeBackupPath(layout.metadataPath);
  cpSync(layout.metadataPath, metadataBackup, { errorOnExist: true, force: false });
  backups.push(metadataBackup);
  if (layout.format === "dir" && existsSync(layout.simulationsDir)) {
    const folderBackup = freeBackupPath(layout.simulationsDir);
    cpSync(layout.simulationsDir, folderBackup, { recursive: true, errorOnExist: true, force: false });
    backups.push(folderBackup);
  }

  const info: Info = {
    ...target.info,
    num_trials: numTrials,
    ...(target.info.taubench
      ? {
          taubench: {
            ...target.info.taubench,
            trial_seeds: seeds,
            imported_from: {
              path,
              source,
              layout: layout.format,
              git_commit: results.info.git_commit,
              simulations: kept.length,
              infrastructure_errors_dropped: dropped,
              backups,
            },
          },
        }
      : {}),
  };
  const runRecord: RunRecord = {
    kind: "run",
    version: CHECKPOINT_VERSION,
    // The results file's creation time stays the run's timestamp.
    created_at: results.timestamp ?? nowIso(),
    fingerprint: target.fingerprint,
    num_trials: numTrials,
    seeds,
    info: info as unknown as Record<string, unknown>,
    tasks,
    resume_command: target.resumeCommand,
  };
  const records: CheckpointRecord[] = [
    runRecord,
    ...kept.map(
      (simulation): CheckpointRecord => ({ kind: "simulation", version: CHECKPOINT_VERSION, simulation }),
    ),
  ];
  // A taubench file carries its provider usage; keep it as one earlier session so totals stay whole.
  const usage = parseRunUsage(results.info.taubench?.llm_usage);
  if (usage) {
    const stamp = results.timestamp ?? runRecord.created_at;
    records.push({
      kind: "session",
      version: CHECKPOINT_VERSION,
      session_id: `imported:${basename(path)}`,
      started_at: stamp,
      updated_at: stamp,
      simulations: kept.length,
      usage,
    });
  }
  await writeCheckpointAtomically(target.checkpointPath, records);
  log(
    `Imported ${path} (${source} results, ${layout.format} layout): ${kept.length} simulation${kept.length === 1 ? "" : "s"} kept` +
      (dropped > 0 ? `, ${dropped} infrastructure error${dropped === 1 ? "" : "s"} to re-run` : "") +
      `; original saved as ${backups.join(" and ")}`,
  );
  return { source, layout: layout.format, kept: kept.length, dropped, backups };
}

/** Takes an import back (its checkpoint and backups) when the run cannot start after all. */
export function undoImport(checkpointPath: string, summary: ImportSummary): void {
  rmSync(checkpointPath, { force: true });
  for (const backup of summary.backups) rmSync(backup, { recursive: true, force: true });
}

// A half-written checkpoint would be taken as the truth on the next resume; write it whole or not at all.
async function writeCheckpointAtomically(path: string, records: readonly CheckpointRecord[]): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.import.tmp`);
  const handle = await open(temporary, "w");
  try {
    for (const record of records) await handle.write(`${formatCheckpointLine(record)}\n`);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temporary, path);
}
