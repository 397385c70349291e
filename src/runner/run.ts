/**
 * One run end to end: plan it, open (or resume) its checkpoint, build the
 * model clients, run every missing `(trial, task, seed)` unit through the
 * {@link SimulationRunner} with retries and per-provider concurrency, and
 * export upstream's results JSON at the end. Progress is reported as
 * {@link RunEvent}s; nothing here prints.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { FileIoError, fileOperation } from "../core/errors.ts";
import { makeFolder } from "../core/make-folder.ts";
import type { Info } from "../core/results.ts";
import type { SimulationRun } from "../core/simulation.ts";
import { pyDumps } from "../core/py-json.ts";
import type { Task } from "../core/task.ts";
import type { RetrievalServices } from "../domains/banking_knowledge/index.ts";
import type { LlmEvent, LlmEventListener } from "../llm/events.ts";
import { planUnits, runBatch } from "./batch.ts";
import { CHECKPOINT_VERSION, CheckpointWriter, checkpointPathFor, type RunRecord } from "./checkpoint.ts";
import { keepWinner, slimSimulation } from "./checkpoint-state.ts";
import { type RunEventListener, safeListener } from "./events.ts";
import { exportResults } from "./export.ts";
import { undoImport } from "./import-results.ts";
import { runUsageToPy, sumRunUsage } from "./llm-usage.ts";
import { planRun, type RunConfig, type RunPlan } from "./plan.ts";
import { clientEndpoints, createRunClients, type LlmFactory, type SimulationClients } from "./run-clients.ts";
import { describeRun, openResumeState, runRecordChanged } from "./resume.ts";
import { RunLock } from "./run-lock.ts";
import { SimulationRunner } from "./simulation-runner.ts";
import type { ExecutorFactory, UnitExecutor } from "./unit-executor.ts";
import { exportTau1Results } from "./tau1-results.ts";
import type { HumanIo } from "../users/tau1-users.ts";
import { isTau1Domain } from "../domains/tau1/index.ts";
import { UsageSession } from "./usage-session.ts";

export {
  DEFAULT_LLM,
  defaultLlmArgs,
  fingerprintDifferences,
  planRun,
  type RunConfig,
  type RunPlan,
} from "./plan.ts";

/** What the runner needs from the outside world (injected so tests can stay offline). */
export interface RunDependencies extends LlmFactory {
  /** Receives the run's progress (see {@link RunEvent}). */
  onEvent?: RunEventListener;
  /** Aborts the run: nothing new starts, in-flight work is abandoned, finished work is kept. */
  signal?: AbortSignal;
  /** How often the session's provider usage is saved while the run goes on (default 30 s; it is saved at the end too). */
  usageSaveIntervalMs?: number;
  /**
   * Embedding models and the reranker's model for banking_knowledge's retrieval configs; their
   * provider events go to the listener, so the run's usage counts them.
   */
  retrievalServices?(onEvent: LlmEventListener): RetrievalServices;
  /**
   * Called once the plan, the resume state and the clients exist and before
   * anything is written or run (checks that should stop a run early go here).
   */
  beforeFirstSimulation?(plan: RunPlan, clients: SimulationClients): Promise<void> | void;
  /**
   * Runs the units in other processes (`--workers`, `--queue`); this process stays the only
   * writer of the checkpoint. Default: in this process.
   */
  executor?: ExecutorFactory;
  /** The terminal of the original τ-bench `human` user strategy. */
  humanUser?: HumanIo;
}

/** How a run ended. */
export interface RunOutcome {
  resultsPath: string;
  checkpointPath: string;
  /** The command that resumes the run, when the caller gave one. */
  resumeCommand: string | null;
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

/** A run's id for its workers: from when its checkpoint was started and what it runs. */
function runIdOf(record: RunRecord): string {
  const text = `${record.created_at}\n${pyDumps(record.fingerprint, { sortKeys: true })}`;
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** Runs (or resumes) a whole run; see {@link RunConfig}. */
export async function executeRun(config: RunConfig, deps: RunDependencies): Promise<RunOutcome> {
  const log = (message: string) => safeListener(deps.onEvent)({ type: "note", message });
  const retrievalServices = deps.retrievalServices?.bind(deps);
  return executePlan(await planRun(config, { log, retrievalServices }), deps);
}

/** Runs (or resumes) a planned run: {@link executeRun} after {@link planRun}. */
export async function executePlan(plan: RunPlan, deps: RunDependencies): Promise<RunOutcome> {
  // One writer per run (`tau run` and the library's runEvaluation both come here): the lock is taken
  // before anything of the run is read for resuming (when its folder exists) or written, and given
  // back however the run ends.
  const note = (message: string) => safeListener(deps.onEvent)({ type: "note", message });
  const lock = new RunLock(checkpointPathFor(plan.config.resultsPath), note);
  try {
    if (existsSync(dirname(plan.config.resultsPath))) lock.acquire();
    return await executeLockedPlan(plan, deps, lock);
  } catch (error) {
    throw error instanceof FileIoError ? error.withHint(afterIoFailure(plan.config)) : error;
  } finally {
    lock.release();
  }
}

/** What a file-system failure leaves behind and how to go on (the run's resume command). */
function afterIoFailure(config: RunConfig): string {
  const checkpointPath = checkpointPathFor(config.resultsPath);
  const again = config.resumeCommand ?? "the same command";
  return existsSync(checkpointPath)
    ? `the simulations already in ${checkpointPath} are kept; once it can be written again, resume with: ${again}`
    : `nothing of the run was written; once the folder can be written, run: ${again}`;
}

async function executeLockedPlan(plan: RunPlan, deps: RunDependencies, lock: RunLock): Promise<RunOutcome> {
  const { config } = plan;
  const emit = safeListener(deps.onEvent);
  const note = (message: string) => emit({ type: "note", message });
  const resume = await openResumeState(plan, note);
  const { checkpointPath, finished, all } = resume;
  const { info, record } = describeRun(plan, resume);

  // This invocation's units; a resume may cover fewer trials or tasks than the whole run.
  const requested = planUnits(plan.tasks, plan.seeds);
  const units = requested.filter((unit) => !finished.has(unit.key));
  const inScope = new Set(requested.map((unit) => unit.key));
  const resumedInScope = [...finished]
    .filter(([key]) => inScope.has(key))
    .map(([, simulation]) => simulation);

  const session = new UsageSession(units.length > 0);
  const onLlmEvent = (event: LlmEvent) => {
    emit({ type: "llm", event });
    session.counter.onLlmEvent(event);
  };
  plan.serviceEvents.listener = onLlmEvent;
  // Build clients before anything is written, so a missing API key leaves no checkpoint behind
  // (an import's checkpoint and backups are taken back; the imported file itself was never changed).
  let clients: SimulationClients;
  let remote: UnitExecutor | null = null;
  try {
    clients = createRunClients(plan, deps, onLlmEvent, units.length > 0);
    await deps.beforeFirstSimulation?.(plan, clients);
    // Workers start before anything is written too: a refused or unreachable pool leaves no trace.
    if (deps.executor && units.length > 0)
      remote = await deps.executor(plan, { runId: runIdOf(resume.previous ?? record), onLlmEvent, note });
  } catch (error) {
    if (resume.imported) undoImport(checkpointPath, resume.imported);
    throw error;
  }

  // Where each role's model was reached (a local server behind OPENAI_BASE_URL must not pass for OpenAI).
  const endpoints = clientEndpoints(plan, clients);
  const storedEndpoints = (resume.previous?.info.taubench as { llm_endpoints?: unknown } | undefined)
    ?.llm_endpoints;
  const endpointsChanged =
    endpoints !== null &&
    pyDumps(endpoints, { sortKeys: true }) !== pyDumps(storedEndpoints ?? null, { sortKeys: true });
  if (endpoints !== null && info.taubench) info.taubench.llm_endpoints = endpoints;

  if (plan.prompts.note && (plan.agent.needsLlm || plan.user.needsLlm)) note(plan.prompts.note);
  note(`Run ${config.resultsPath}`);
  const folder = dirname(config.resultsPath);
  let writer: CheckpointWriter | null = null;
  try {
    fileOperation(folder, "create the run folder", () => makeFolder(folder));
    lock.acquire();
    const checkpoint = await CheckpointWriter.open(checkpointPath);
    writer = checkpoint;
    if (runRecordChanged(resume.previous, record) || endpointsChanged) await checkpoint.append(record);
    const runner = new SimulationRunner(
      plan,
      clients,
      onLlmEvent,
      deps.humanUser ? { humanUser: deps.humanUser } : {},
    );
    session.startSaving(checkpoint, deps.usageSaveIntervalMs ?? 30_000);
    emit({
      type: "run_started",
      resultsPath: config.resultsPath,
      checkpointPath,
      total: inScope.size,
      resumed: resumedInScope,
      toRun: units.length,
    });
    let batch: Awaited<ReturnType<typeof runBatch>>;
    try {
      batch = await runBatch({
        units,
        maxConcurrency: config.maxConcurrency,
        maxRetries: config.maxRetries,
        retryDelayMs: config.retryDelayMs,
        runSimulation: (unit, signal) => (remote ? remote.run(unit, signal) : runner.run(unit, signal)),
        record: (simulation) => {
          // Counted before the write, so the session trailer of this very write includes it.
          session.simulationRecorded();
          return checkpoint.append({ kind: "simulation", version: CHECKPOINT_VERSION, simulation });
        },
        onStart: (unit) => emit({ type: "simulation_started", unit }),
        onRetry: (unit, attempt, error) => {
          session.counter.simulationRetried();
          emit({ type: "simulation_retried", unit, attempt, error });
        },
        onFinished: (simulation, unit) => {
          // Only the slim copy outlives this call (`finished` is not read after planning); the key
          // string is the unit's, so a finished simulation adds no key of its own.
          const slim = slimSimulation(simulation);
          keepWinner(all, unit.key, slim);
          remote?.recorded?.(unit);
          emit({ type: "simulation_finished", unit, simulation: slim });
        },
        ...(deps.signal ? { signal: deps.signal } : {}),
      });
    } finally {
      session.stopSaving();
      emit({ type: "batch_finished", interrupted: deps.signal?.aborted ?? false });
    }
    await session.save();
    await checkpoint.close();
    const runUsage = sumRunUsage([
      ...resume.previousSessions.map((previous) => previous.usage),
      session.counter.snapshot(),
    ]);
    const outcomeInfo: Info = info.taubench
      ? { ...info, taubench: { ...info.taubench, llm_usage: runUsageToPy(runUsage) } }
      : info;
    if (config.writeResultsJson ?? true)
      await fileOperation(config.resultsPath, "write", () =>
        // The original τ-bench domains export τ-bench's own results format (a list of EnvRunResult).
        isTau1Domain(plan.domain)
          ? exportTau1Results(checkpointPath, config.resultsPath, plan.domain)
          : exportResults(checkpointPath, config.resultsPath, {
              winnerIds: new Set(Array.from(all.values(), (simulation) => simulation.id)),
            }),
      );
    return {
      resultsPath: config.resultsPath,
      checkpointPath,
      resumeCommand: config.resumeCommand ?? null,
      interrupted: batch.interrupted,
      stoppedBy: batch.stoppedBy,
      simulations: [...all.values()],
      tasks: resume.tasks,
      info: outcomeInfo,
      ranNow: batch.recorded,
      resumed: resumedInScope.length,
    };
  } finally {
    await writer?.close();
    await remote?.close();
  }
}
