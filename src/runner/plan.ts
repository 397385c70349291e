/**
 * The first step of every run: from a serializable {@link RunConfig} to a
 * {@link RunPlan} — the domain, the participants, the tasks, the trial seeds,
 * the resume fingerprint and the `info` the results record. Nothing is run or
 * written; a queue worker builds the same plan from the same config.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../core/errors.ts";
import { PyFloat, pyDumps } from "../core/py-json.ts";
import { Info } from "../core/results.ts";
import { sourceGitCommit, taubenchStamp } from "../core/results-file.ts";
import type { Task } from "../core/task.ts";
import { loadDomain } from "../domains/registry.ts";
import type { Domain } from "../domains/types.ts";
import { getAgentDefinition, type AgentDefinition } from "../agents/registry.ts";
import { getUserDefinition, type UserDefinition } from "../users/registry.ts";
import { GUIDELINES_FILE, GUIDELINES_WITH_TOOLS_FILE } from "../users/user-simulator.ts";
import type { RunFingerprint } from "./checkpoint.ts";
import { tasksNeedJudge } from "./regrade.ts";
import { trialSeeds } from "./seeds.ts";
import { selectTasks } from "./task-selection.ts";

/** Upstream's default agent, user and judge model, with our provider prefix. */
export const DEFAULT_LLM = "openai/gpt-4.1-2025-04-14";

/** Upstream's default `llm_args` (`{"temperature": 0.0}`; the float is kept as a float). */
export function defaultLlmArgs(): Record<string, unknown> {
  return { temperature: new PyFloat(0) };
}

/** Everything a run was asked to do (the settings of `tau run`, resolved). */
export interface RunConfig {
  domain: string;
  dataDir: string;
  split: string | null;
  taskIds?: readonly string[] | undefined;
  numTasks?: number | undefined;
  numTrials: number;
  seed: number;
  maxSteps: number;
  maxErrors: number;
  maxConcurrency: number;
  maxRetries: number;
  retryDelayMs: number;
  /** Wall-clock limit per simulation (termination reason `timeout`); null = none. */
  timeoutMs: number | null;
  agent: string;
  user: string;
  agentLlm: string;
  userLlm: string;
  /** Null = `--judge none`: NL assertions are not evaluated. */
  judgeLlm: string | null;
  agentLlmArgs: Record<string, unknown>;
  userLlmArgs: Record<string, unknown>;
  judgeLlmArgs: Record<string, unknown>;
  /** Force solo mode; undefined = the agent's metadata decides. */
  solo?: boolean | undefined;
  enforceCommunicationProtocol: boolean;
  /** The results JSON path; the checkpoint is the same path with `.jsonl`. */
  resultsPath: string;
  /** The command line that resumes this run (printed on Ctrl-C, stored in the checkpoint). */
  resumeCommand?: string | undefined;
  /** Write the results JSON when the batch ends (default true; `tau export` can do it later). */
  writeResultsJson?: boolean | undefined;
}

/** The resolved pieces of a run, before anything is executed. */
export interface RunPlan {
  config: RunConfig;
  domain: Domain;
  agent: AgentDefinition;
  user: UserDefinition;
  soloMode: boolean;
  tasks: Task[];
  seeds: number[];
  fingerprint: RunFingerprint;
  info: Info;
  /** Whether some selected task is graded on NL assertions (so a judge is needed). */
  needsJudge: boolean;
}

/** A user-simulator guideline file's text, or null when the data folder lacks it. */
function readGuidelinesText(dataDir: string, file: string): string | null {
  const path = join(dataDir, "user_simulator", file);
  return existsSync(path) ? readFileSync(path, "utf8") : null;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * sha256 of the texts that shape the model's behaviour (the agent's fixed
 * instructions, the policy, the user simulator's guidelines), so two results
 * files can be checked for prompt drift without storing the texts twice.
 */
function promptHashes(
  dataDir: string,
  domain: Domain,
  agentInstructions: string | undefined,
  userUsesLlm: boolean,
  soloMode: boolean,
): Record<string, string | null> {
  const guidelines = userUsesLlm
    ? readGuidelinesText(dataDir, domain.hasUserTools ? GUIDELINES_WITH_TOOLS_FILE : GUIDELINES_FILE)
    : null;
  return {
    agent_instructions: agentInstructions === undefined ? null : sha256(agentInstructions),
    policy: sha256(domain.policy({ soloMode })),
    user_guidelines: guidelines === null ? null : sha256(guidelines),
  };
}

/** The participants and the domain a fingerprint is computed over. */
export interface FingerprintInput {
  config: RunConfig;
  domain: Domain;
  agent: AgentDefinition;
  user: UserDefinition;
  soloMode: boolean;
}

/**
 * The settings that change what a simulation means; a resume with a different
 * fingerprint is refused. Every resume check goes through this one function.
 */
export function runFingerprint({ config, domain, agent, user, soloMode }: FingerprintInput): RunFingerprint {
  return {
    domain: domain.name,
    agent: agent.name,
    user: user.name,
    agent_llm: agent.needsLlm ? config.agentLlm : null,
    user_llm: user.needsLlm ? config.userLlm : null,
    agent_llm_args: config.agentLlmArgs,
    user_llm_args: config.userLlmArgs,
    judge_llm: config.judgeLlm ?? "none",
    judge_llm_args: config.judgeLlmArgs,
    max_steps: config.maxSteps,
    max_errors: config.maxErrors,
    seed: config.seed,
    solo_mode: soloMode,
    enforce_communication_protocol: config.enforceCommunicationProtocol,
  };
}

/** Lines naming the settings that differ between a stored run and this one. */
export function fingerprintDifferences(stored: RunFingerprint, current: RunFingerprint): string[] {
  const out: string[] = [];
  for (const key of Object.keys(current) as (keyof RunFingerprint)[]) {
    const a = pyDumps(stored[key] ?? null, { sortKeys: true });
    const b = pyDumps(current[key] ?? null, { sortKeys: true });
    if (a !== b) out.push(`${key}: ${a} → ${b}`);
  }
  return out;
}

/** Checks that the agent, the user and the domain fit together (solo mode needs all three to agree). */
function checkPairing(domain: Domain, agent: AgentDefinition, user: UserDefinition, soloMode: boolean): void {
  if (soloMode && !domain.supportsSolo)
    throw new UsageError(`Domain '${domain.name}' does not support solo mode (only mock and telecom do)`);
  if (soloMode && !agent.soloMode)
    throw new UsageError(
      `Agent '${agent.name}' is not a solo agent; solo mode needs llm_agent_solo or replay_solo`,
    );
  if (soloMode && !user.requiresSoloAgent)
    throw new UsageError(`Solo mode has no user to talk to: pass --user dummy_user (got '${user.name}')`);
  if (user.requiresSoloAgent && !soloMode)
    throw new UsageError(`User '${user.name}' only works with a solo agent (llm_agent_solo, replay_solo)`);
}

/** Resolves domain, participants, tasks, seeds and the recorded `info` (no I/O besides the data folder). */
export async function planRun(config: RunConfig): Promise<RunPlan> {
  if (!Number.isInteger(config.numTrials) || config.numTrials < 1)
    throw new UsageError(`--num-trials must be a positive integer, got ${config.numTrials}`);
  const agent = getAgentDefinition(config.agent);
  const user = getUserDefinition(config.user);
  const domain = loadDomain(config.domain, config.dataDir);
  const soloMode = config.solo ?? agent.soloMode;
  checkPairing(domain, agent, user, soloMode);
  const tasks = selectTasks(domain, {
    split: config.split,
    taskIds: config.taskIds ?? null,
    numTasks: config.numTasks ?? null,
    agentFilter: agent.taskFilter ?? null,
  });
  if (tasks.length === 0)
    throw new UsageError(`No tasks left to run for agent '${agent.name}' after filtering`);
  const seeds = trialSeeds(config.seed, config.numTrials);
  const fingerprint = runFingerprint({ config, domain, agent, user, soloMode });
  const info = Info.parse({
    git_commit: sourceGitCommit() ?? "unknown",
    num_trials: config.numTrials,
    max_steps: config.maxSteps,
    max_errors: config.maxErrors,
    seed: config.seed,
    user_info: {
      implementation: user.name,
      llm: fingerprint.user_llm,
      llm_args: config.userLlmArgs,
      // Upstream records the non-tools guideline text whatever the user got (P20).
      global_simulation_guidelines: readGuidelinesText(config.dataDir, GUIDELINES_FILE),
    },
    agent_info: { implementation: agent.name, llm: fingerprint.agent_llm, llm_args: config.agentLlmArgs },
    environment_info: { domain_name: domain.name, policy: domain.policy({ soloMode }) },
    taubench: taubenchStamp({
      task_split_name: config.split,
      solo_mode: soloMode,
      judge_llm: config.judgeLlm,
      judge_llm_args: config.judgeLlmArgs,
      trial_seeds: seeds,
      prompt_hashes: promptHashes(config.dataDir, domain, agent.instructions, user.needsLlm, soloMode),
    }),
  });
  return {
    config,
    domain,
    agent,
    user,
    soloMode,
    tasks,
    seeds,
    fingerprint,
    info,
    needsJudge: tasksNeedJudge(tasks),
  };
}
