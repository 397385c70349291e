/**
 * One `tau run`: resolve the domain, participants and tasks; open (or resume)
 * the checkpoint; run every missing `(trial, task, seed)` unit with retries and
 * per-provider concurrency; export upstream's results JSON at the end.
 */
import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { UsageError } from "../core/errors.ts";
import { nowIso } from "../core/messages.ts";
import { pyDumps } from "../core/py-json.ts";
import { Info } from "../core/results.ts";
import { resultsLayout, sourceGitCommit, taubenchStamp } from "../core/results-file.ts";
import type { SimulationRun } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import type { RetrievalServices } from "../domains/banking_knowledge/index.ts";
import { configureDomain, loadDomain } from "../domains/registry.ts";
import type { Domain } from "../domains/types.ts";
import type { Environment } from "../env/environment.ts";
import type { ToolSchema } from "../env/toolkit.ts";
import { createLlmJudge, type NlAssertionJudge } from "../evaluation/nl-assertions.ts";
import type { LlmEvent, LlmEventListener } from "../llm/events.ts";
import type { LlmClient } from "../llm/types.ts";
import { getAgentDefinition, type AgentDefinition } from "../agents/registry.ts";
import { getUserDefinition, type UserDefinition } from "../users/registry.ts";
import { GUIDELINES_FILE, guidelinesFileFor } from "../users/user-simulator.ts";
import { runEpisode } from "../orchestrator/episode.ts";
import { planUnits, runBatch, type WorkUnit } from "./batch.ts";
import {
  CHECKPOINT_VERSION,
  CheckpointWriter,
  checkpointPathFor,
  type RunFingerprint,
  type RunRecord,
  type SessionRecord,
} from "./checkpoint.ts";
import { keepWinner, loadCheckpointState, slimSimulation } from "./checkpoint-state.ts";
import { ProviderScheduler } from "./concurrency.ts";
import { RunLock } from "./run-lock.ts";
import { exportResults } from "./export.ts";
import { importResultsFile, undoImport } from "./import-results.ts";
import { LlmUsageCounter, runUsageToPy, sumRunUsage } from "./llm-usage.ts";
import { type ProgressRenderer, RunProgress } from "./progress.ts";
import { tasksNeedJudge } from "./regrade.ts";
import { trialSeeds } from "./seeds.ts";
import { selectTasks } from "./task-selection.ts";

/** Everything `tau run` was asked to do. */
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
  /** banking_knowledge's `--retrieval-config` (default `alltools`); other domains have none. */
  retrievalConfig?: string | null | undefined;
  /** `--retrieval-config-kwargs` (`top_k`, `grep_top_k`, `case_sensitive`, `reranker_min_score`). */
  retrievalConfigKwargs?: Record<string, unknown> | null | undefined;
}

/** What the runner needs from the outside world (injected so tests can stay offline). */
export interface RunDependencies {
  /** Builds a model client; the listener receives its events (calls, retries, 429s). */
  createLlm(model: string, onEvent: LlmEventListener): LlmClient;
  /** Queue key of a model (`providerKey` of the LLM layer). */
  providerKey(model: string): string;
  /** Creates the progress display for this run (none when absent). */
  createProgress?(progress: RunProgress): ProgressRenderer;
  /** Informational lines (resume notes). */
  log?(line: string): void;
  /** Aborts the run: nothing new starts, in-flight work is abandoned, finished work is kept. */
  signal?: AbortSignal;
  /** How often the session's provider usage is saved while the run goes on (default 30 s; it is saved at the end too). */
  usageSaveIntervalMs?: number;
  /** Embedding models and the reranker's model for banking_knowledge's retrieval configs. */
  retrievalServices?: RetrievalServices;
}

/** How a run ended. */
export interface RunOutcome {
  resultsPath: string;
  checkpointPath: string;
  interrupted: boolean;
  /** The error that stopped the run before its end (e.g. a rejected API key); null when none did. */
  stoppedBy: Error | null;
  /** Every simulation of the run (resumed ones included), without transcripts. */
  simulations: SimulationRun[];
  tasks: Task[];
  info: Info;
  /** Simulations run in this session. */
  ranNow: number;
  /** Simulations found finished in the checkpoint. */
  resumed: number;
}

/** The resolved pieces of a run, before anything is executed. */
export interface RunPlan {
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

/** The user's tools for a task (none when the domain gives the user none); the user simulator picks its guideline file from them. */
function userToolsFor(domain: Domain, template: Environment, task: Task): ToolSchema[] {
  return domain.hasUserTools ? template.getUserToolSchemas(task.user_tools) : [];
}

/**
 * sha256 of the texts that shape the model's behaviour (the agent's fixed
 * instructions, the policy, the user simulator's guidelines), so two results
 * files can be checked for prompt drift without storing the texts twice.
 * The guideline file is chosen per task, as the simulator chooses it; when the
 * tasks of a run get different files, the hash covers their texts joined in
 * file-name order.
 */
function promptHashes(
  dataDir: string,
  domain: Domain,
  tasks: readonly Task[],
  agentInstructions: string | undefined,
  userUsesLlm: boolean,
  soloMode: boolean,
): Record<string, string | null> {
  let guidelines: string | null = null;
  if (userUsesLlm) {
    const template = domain.makeEnvironment({ soloMode });
    const files = [...new Set(tasks.map((task) => guidelinesFileFor(userToolsFor(domain, template, task))))];
    const texts = files.sort().map((file) => readGuidelinesText(dataDir, file));
    guidelines = texts.includes(null) ? null : texts.join("\n");
  }
  return {
    agent_instructions: agentInstructions === undefined ? null : sha256(agentInstructions),
    policy: sha256(domain.policy({ soloMode })),
    user_guidelines: guidelines === null ? null : sha256(guidelines),
  };
}

/** Resolves domain, participants, tasks, seeds and the recorded `info` (no I/O besides the data folder); `log` hears warnings. */
export function planRun(
  config: RunConfig,
  log: (line: string) => void = () => {},
  services?: RetrievalServices,
): RunPlan {
  if (!Number.isInteger(config.numTrials) || config.numTrials < 1)
    throw new UsageError(`--num-trials must be a positive integer, got ${config.numTrials}`);
  if (config.timeoutMs !== null && !(config.timeoutMs > 0))
    throw new UsageError(`--timeout must be a positive number of seconds, got ${config.timeoutMs / 1000}`);
  const agent = getAgentDefinition(config.agent);
  const user = getUserDefinition(config.user);
  const domain = configureDomain(loadDomain(config.domain, config.dataDir), {
    retrievalConfig: config.retrievalConfig ?? null,
    retrievalConfigKwargs: config.retrievalConfigKwargs ?? null,
    services,
  });
  // Only an agent that can call the retrieval tools needs their services (the offline agents never do).
  if (agent.needsLlm || agent.origin) domain.checkRequirements?.();
  const soloMode = config.solo ?? agent.soloMode;
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
  const tasks = selectTasks(domain, {
    split: config.split,
    taskIds: config.taskIds ?? null,
    numTasks: config.numTasks ?? null,
    agentFilter: agent.taskFilter ?? null,
    onWarning: log,
  });
  if (tasks.length === 0)
    throw new UsageError(`No tasks left to run for agent '${agent.name}' after filtering`);
  const seeds = trialSeeds(config.seed, config.numTrials);
  const agentLlm = agent.origin ? (agent.origin.llm ?? null) : agent.needsLlm ? config.agentLlm : null;
  const userLlm = user.needsLlm ? config.userLlm : null;
  const needsJudge = tasksNeedJudge(tasks);
  const fingerprint: RunFingerprint = {
    domain: domain.name,
    agent: agent.name,
    user: user.name,
    agent_llm: agentLlm,
    user_llm: userLlm,
    agent_llm_args: config.agentLlmArgs,
    user_llm_args: config.userLlmArgs,
    judge_llm: config.judgeLlm ?? "none",
    judge_llm_args: config.judgeLlmArgs,
    max_steps: config.maxSteps,
    max_errors: config.maxErrors,
    seed: config.seed,
    solo_mode: soloMode,
    enforce_communication_protocol: config.enforceCommunicationProtocol,
    ...(domain.settings
      ? {
          retrieval_config: domain.settings.retrievalConfig,
          retrieval_config_kwargs: domain.settings.retrievalConfigKwargs,
        }
      : {}),
  };
  const commit = sourceGitCommit();
  const info = Info.parse({
    git_commit: commit ?? "unknown",
    num_trials: config.numTrials,
    max_steps: config.maxSteps,
    max_errors: config.maxErrors,
    seed: config.seed,
    user_info: {
      implementation: user.name,
      llm: userLlm,
      llm_args: config.userLlmArgs,
      // Upstream records the non-tools guideline text whatever the user got (P20).
      global_simulation_guidelines: readGuidelinesText(config.dataDir, GUIDELINES_FILE),
    },
    agent_info: { implementation: agent.name, llm: agentLlm, llm_args: config.agentLlmArgs },
    environment_info: { domain_name: domain.name, policy: domain.policy({ soloMode }) },
    retrieval_config: domain.settings?.retrievalConfig ?? null,
    retrieval_config_kwargs: domain.settings?.retrievalConfigKwargs ?? null,
    taubench: taubenchStamp({
      task_split_name: config.split,
      solo_mode: soloMode,
      judge_llm: config.judgeLlm,
      judge_llm_args: config.judgeLlmArgs,
      trial_seeds: seeds,
      prompt_hashes: promptHashes(config.dataDir, domain, tasks, agent.instructions, user.needsLlm, soloMode),
      ...(agent.origin ? { agent: agentOriginRecord(agent.origin) } : {}),
    }),
  });
  return { domain, agent, user, soloMode, tasks, seeds, fingerprint, info, needsJudge };
}

/** The adapter and endpoint of an agent that is not one of ours, as recorded in `info.taubench.agent`. */
function agentOriginRecord(origin: NonNullable<AgentDefinition["origin"]>): Record<string, string> {
  return { adapter: origin.adapter, ...(origin.endpoint ? { endpoint: origin.endpoint } : {}) };
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

const taskText = (task: Task) => pyDumps(task, { sortKeys: true });

/** Whether a results file (upstream's monolithic file, or either half of its dir layout) is at `path`. */
function resultsFileExists(path: string): boolean {
  return existsSync(path) || existsSync(resultsLayout(path).simulationsDir);
}

/** The endpoint of each role's client (`{agent: url, …}`), or null when no client reports one. */
function llmEndpoints(
  roles: readonly (readonly [string, LlmClient | null, Record<string, unknown>])[],
): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const [role, client, args] of roles) if (client?.endpoint) out[role] = client.endpoint(args);
  return Object.keys(out).length > 0 ? out : null;
}

/** Runs (or resumes) a whole run; see {@link RunConfig}. */
export async function executeRun(config: RunConfig, deps: RunDependencies): Promise<RunOutcome> {
  // One writer per run: the lock is taken before anything of the run is read for resuming (when its
  // folder exists) or written, and given back however the run ends.
  const lock = new RunLock(checkpointPathFor(config.resultsPath), deps.log);
  try {
    if (existsSync(dirname(config.resultsPath))) lock.acquire();
    return await executeLockedRun(config, deps, lock);
  } finally {
    lock.release();
  }
}

async function executeLockedRun(
  config: RunConfig,
  deps: RunDependencies,
  lock: RunLock,
): Promise<RunOutcome> {
  const log = deps.log ?? (() => {});
  const plan = planRun(config, log, deps.retrievalServices);
  const checkpointPath = checkpointPathFor(config.resultsPath);
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

  // Resume: what is already done, and is it the same run?
  const finished = new Map<string, SimulationRun>();
  /** Per key the simulation that counts (infrastructure errors included), without transcripts. */
  const all = new Map<string, SimulationRun>();
  let allTasks: Task[] = plan.tasks;
  let numTrials = config.numTrials;
  let previous: RunRecord | null = null;
  let previousSessions: SessionRecord[] = [];
  if (existsSync(checkpointPath)) {
    const state = await loadCheckpointState(checkpointPath);
    previous = state.run;
    previousSessions = [...state.sessions.values()];
    if (state.tornLine !== null)
      log(`note: ignored a torn last line (${state.tornLine}) in ${checkpointPath}`);
    if (previous) {
      const differences = fingerprintDifferences(previous.fingerprint, plan.fingerprint);
      if (differences.length > 0)
        throw new UsageError(
          `${checkpointPath} belongs to a run with different settings (${differences.join("; ")}); use another --save-to to start a new run`,
        );
      for (const task of plan.tasks) {
        const stored = state.tasks.get(task.id);
        if (stored && taskText(stored) !== taskText(task))
          throw new UsageError(
            `Task '${task.id}' changed since the run in ${checkpointPath} started; use another --save-to to start a new run`,
          );
      }
      const known = new Set(state.tasks.keys());
      allTasks = [...state.tasks.values(), ...plan.tasks.filter((task) => !known.has(task.id))];
      numTrials = Math.max(previous.num_trials, config.numTrials);
    }
    for (const [key, simulation] of state.simulations) {
      all.set(key, simulation);
      if (simulation.termination_reason !== "infrastructure_error") finished.set(key, simulation);
    }
    const infra = state.simulations.size - finished.size;
    log(
      `Resuming ${checkpointPath}: ${finished.size} finished simulation${finished.size === 1 ? "" : "s"} kept` +
        (infra > 0 ? `, ${infra} infrastructure error${infra === 1 ? "" : "s"} to re-run` : ""),
    );
  }

  const seeds = trialSeeds(config.seed, numTrials);
  const info: Info = {
    ...plan.info,
    num_trials: numTrials,
    ...(plan.info.taubench ? { taubench: { ...plan.info.taubench, trial_seeds: seeds } } : {}),
  };
  const runRecord: RunRecord = {
    kind: "run",
    version: CHECKPOINT_VERSION,
    created_at: nowIso(),
    fingerprint: plan.fingerprint,
    num_trials: numTrials,
    seeds,
    info: info as unknown as Record<string, unknown>,
    tasks: allTasks,
    resume_command: config.resumeCommand ?? null,
  };
  // This invocation's units; a resume may cover fewer trials or tasks than the whole run.
  const requested = planUnits(plan.tasks, plan.seeds);
  const units = requested.filter((unit) => !finished.has(unit.key));
  const inScope = new Set(requested.map((unit) => unit.key));
  const resumedInScope = [...finished]
    .filter(([key]) => inScope.has(key))
    .map(([, simulation]) => simulation);

  const progress = new RunProgress(inScope.size, resumedInScope);
  const scheduler = new ProviderScheduler({ maxConcurrency: config.maxConcurrency }, deps.providerKey);
  const usage = new LlmUsageCounter();
  const onLlmEvent = (event: LlmEvent) => {
    progress.onLlmEvent(event);
    usage.onLlmEvent(event);
    if (event.type === "rate_limited") scheduler.rateLimited(event.model);
  };
  const clients = new Map<string, LlmClient>();
  const client = (model: string) => {
    let existing = clients.get(model);
    if (!existing) {
      existing = scheduler.wrap(deps.createLlm(model, onLlmEvent));
      clients.set(model, existing);
    }
    return existing;
  };
  // Build clients before anything is written, so a missing API key leaves no checkpoint behind
  // (an import's checkpoint and backups are taken back; the imported file itself was never changed).
  let agentLlm: LlmClient | null;
  let userLlm: LlmClient | null;
  let judgeLlm: LlmClient | null = null;
  let judge: NlAssertionJudge | null = null;
  try {
    agentLlm = plan.agent.needsLlm && units.length > 0 ? client(config.agentLlm) : null;
    userLlm = plan.user.needsLlm && units.length > 0 ? client(config.userLlm) : null;
    if (config.judgeLlm !== null && plan.needsJudge && units.length > 0) {
      judgeLlm = client(config.judgeLlm);
      judge = createLlmJudge(judgeLlm, config.judgeLlmArgs);
    }
  } catch (error) {
    if (imported) undoImport(checkpointPath, imported);
    throw error;
  }
  // Where each role's model was reached (a local server behind OPENAI_BASE_URL must not pass for OpenAI).
  const endpoints = llmEndpoints([
    ["agent", agentLlm, config.agentLlmArgs],
    ["user", userLlm, config.userLlmArgs],
    ["judge", judgeLlm, config.judgeLlmArgs],
  ]);
  const endpointsChanged =
    endpoints !== null &&
    pyDumps(endpoints, { sortKeys: true }) !==
      pyDumps((previous?.info.taubench as { llm_endpoints?: unknown } | undefined)?.llm_endpoints ?? null, {
        sortKeys: true,
      });
  if (endpoints !== null && info.taubench) info.taubench.llm_endpoints = endpoints;

  log(`Run ${config.resultsPath}`);
  mkdirSync(dirname(config.resultsPath), { recursive: true });
  lock.acquire();
  const writer = await CheckpointWriter.open(checkpointPath);
  try {
    if (
      !previous ||
      previous.num_trials !== numTrials ||
      previous.tasks.length !== allTasks.length ||
      previous.resume_command !== runRecord.resume_command ||
      endpointsChanged
    )
      await writer.append(runRecord);

    const template = plan.domain.makeEnvironment({ soloMode: plan.soloMode });
    const agentTools: ToolSchema[] = plan.soloMode
      ? [...template.getToolSchemas(), ...template.getUserToolSchemas()]
      : template.getToolSchemas();
    const guidelinesDir = join(config.dataDir, "user_simulator");

    const runSimulation = async (unit: WorkUnit, signal: AbortSignal) => {
      const simulationId = randomUUID();
      const userTools = userToolsFor(plan.domain, template, unit.task);
      const agent = plan.agent.create({
        domainName: plan.domain.name,
        task: unit.task,
        tools: agentTools,
        // Per task: golden_retrieval shows each task its own documents.
        policy: plan.domain.policy({ soloMode: plan.soloMode, task: unit.task }),
        soloMode: plan.soloMode,
        llm: agentLlm,
        llmArgs: { ...config.agentLlmArgs },
        onLlmEvent,
        simulationId,
        trial: unit.trial,
      });
      const user = plan.user.create({
        domainName: plan.domain.name,
        task: unit.task,
        tools: userTools.length > 0 ? userTools : null,
        guidelinesDir,
        llm: userLlm,
        llmArgs: { ...config.userLlmArgs },
      });
      return runEpisode({
        domain: plan.domain,
        task: unit.task,
        agent,
        user,
        soloMode: plan.soloMode,
        maxSteps: config.maxSteps,
        maxErrors: config.maxErrors,
        seed: unit.seed,
        trial: unit.trial,
        timeoutMs: config.timeoutMs,
        judge,
        enforceCommunicationProtocol: config.enforceCommunicationProtocol,
        simulationId,
        signal,
      });
    };

    // This session's provider usage: written with every batch of simulation records (so what a
    // durable simulation cost is durable too; a kill -9 loses only the usage of simulations in
    // flight), now and then while nothing finishes, and at the end.
    const session = { id: randomUUID(), startedAt: nowIso(), recorded: 0, appended: 0 };
    let savedMark = "";
    const sessionRecord = (): SessionRecord | null => {
      const mark = `${usage.version}/${session.appended}`;
      if (units.length === 0 || mark === savedMark || mark === "0/0") return null;
      savedMark = mark;
      return {
        kind: "session",
        version: CHECKPOINT_VERSION,
        session_id: session.id,
        started_at: session.startedAt,
        updated_at: nowIso(),
        simulations: session.appended,
        usage: usage.snapshot(),
      };
    };
    const saveUsage = async () => {
      const record = sessionRecord();
      if (record) await writer.append(record);
    };
    writer.setTrailer(sessionRecord);
    const usageTimer = setInterval(() => {
      saveUsage().catch(() => {
        // A failed periodic save is retried by the final one, which does report errors.
      });
    }, deps.usageSaveIntervalMs ?? 30_000);
    usageTimer.unref();

    const renderer = deps.createProgress?.(progress) ?? null;
    renderer?.start();
    let batch: Awaited<ReturnType<typeof runBatch>>;
    try {
      batch = await runBatch({
        units,
        maxConcurrency: config.maxConcurrency,
        maxRetries: config.maxRetries,
        retryDelayMs: config.retryDelayMs,
        runSimulation,
        record: (simulation) => {
          session.appended++;
          return writer.append({ kind: "simulation", version: CHECKPOINT_VERSION, simulation });
        },
        onStart: () => {
          progress.started();
          renderer?.update();
        },
        onRetry: () => {
          progress.retried();
          usage.simulationRetried();
          renderer?.update();
        },
        onFinished: (simulation, unit) => {
          // Only the slim copy outlives this call (`finished` is not read after planning); the key
          // string is the unit's, so a finished simulation adds no key of its own.
          keepWinner(all, unit.key, slimSimulation(simulation));
          session.recorded++;
          progress.finished(simulation);
          renderer?.update();
        },
        ...(deps.signal ? { signal: deps.signal } : {}),
      });
    } finally {
      clearInterval(usageTimer);
      renderer?.stop();
    }
    await saveUsage();
    await writer.close();
    const runUsage = sumRunUsage([...previousSessions.map((record) => record.usage), usage.snapshot()]);
    const outcomeInfo: Info = info.taubench
      ? { ...info, taubench: { ...info.taubench, llm_usage: runUsageToPy(runUsage) } }
      : info;
    if (config.writeResultsJson ?? true) await exportResults(checkpointPath, config.resultsPath);
    return {
      resultsPath: config.resultsPath,
      checkpointPath,
      interrupted: batch.interrupted,
      stoppedBy: batch.stoppedBy,
      simulations: [...all.values()],
      tasks: allTasks,
      info: outcomeInfo,
      ranNow: batch.recorded,
      resumed: resumedInScope.length,
    };
  } finally {
    await writer.close();
  }
}
