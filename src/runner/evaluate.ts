/**
 * The library's way to run an evaluation: `runEvaluation(options)` takes the
 * settings of `tau run` (with upstream's defaults), runs or resumes the run,
 * and returns its simulations, `info` and metrics. `tau run` is a client of
 * this function like any program.
 */
import { existsSync } from "node:fs";
import { UsageError } from "../core/errors.ts";
import type { Info } from "../core/results.ts";
import type { RetrievalServices } from "../domains/banking_knowledge/index.ts";
import { resolveDataDir } from "../domains/data-dir.ts";
import { resolveTau1DataDir } from "../domains/tau1/data-dir.ts";
import { isTau1DomainName } from "../domains/tau1/index.ts";
import type { HumanIo } from "../users/tau1-users.ts";
import { type AgentMetrics, computeMetrics } from "../metrics/index.ts";
import { createLlmClient } from "../llm/index.ts";
import type { LlmEventListener } from "../llm/events.ts";
import { localBaseUrl } from "../llm/local-base-url.ts";
import { providerKey } from "../llm/model-id.ts";
import type { PriceTable } from "../llm/prices.ts";
import type { LlmClient } from "../llm/types.ts";
import { type RunEventListener, safeListener } from "./events.ts";
import {
  type AgentSpec,
  DEFAULT_LLM,
  defaultLlmArgs,
  planRun,
  type RunConfig,
  type RunPlan,
  type UserSpec,
} from "./plan.ts";
import { executePlan, type RunDependencies, type RunOutcome } from "./run.ts";
import { createRetrievalServices } from "./retrieval-services.ts";
import { preflightEndpoints } from "./preflight.ts";
import type { LlmFactory, ModelUse, SimulationClients } from "./run-clients.ts";
import { checkpointPathFor } from "./checkpoint.ts";
import { loadCheckpointState } from "./checkpoint-state.ts";
import { type LoadedRun, loadRun } from "./run-file.ts";
import { defaultRunName, resolveResultsPath } from "./run-paths.ts";
import {
  readUntilDecidedRecord,
  type RoundRunner,
  runUntilDecided,
  saveUntilDecided,
  type UntilDecidedRecord,
  type UntilDecidedSettings,
} from "./until-decided.ts";
import { checkEvaluationOptions } from "./evaluation-options.ts";
import type { ExecutorFactory } from "./unit-executor.ts";
import { TAU1_DEFAULTS } from "./tau1-run.ts";

/** How the run's model clients are built when {@link EvaluationOptions.createLlm} is not given. */
export interface LlmSettings {
  /** The OpenAI-compatible server of `local/…` models (`--llm-base-url`); hosted providers keep their own. */
  localBaseUrl?: string;
  /** Folder of the SQLite response cache (`--llm-cache`); off when unset. */
  cacheDir?: string;
  /** Prices for cost accounting (`--price-table`); default the bundled table. */
  priceTable?: PriceTable;
  /** Ask providers to cache prompt prefixes (default true; `--no-prompt-cache`). */
  promptCache?: boolean;
}

/** The settings of one evaluation; every field but `domain` has `tau run`'s default. */
export interface EvaluationOptions {
  domain: string;
  /**
   * The data folder; default `TAU_DATA_DIR`, else the cache `tau data pull` fills. For the original
   * τ-bench domains (`tau1-*`) its folder: default `TAU1_DATA_DIR`, else what `tau data pull --tau1` fills.
   */
  dataDir?: string;
  /** Task split (default `base`); null = every task. */
  split?: string | null;
  taskIds?: readonly string[];
  /** Only the first N tasks (after the split and the ids). */
  numTasks?: number;
  /** Trials per task (default 1). */
  numTrials?: number;
  /** Run seed (default 300); trial seeds are drawn from it as upstream does. */
  seed?: number;
  /** Simulations in flight at once (default 3). */
  maxConcurrency?: number;
  /** Steps before a simulation stops (default 200). */
  maxSteps?: number;
  /** Failed tool calls before a simulation stops (default 10). */
  maxErrors?: number;
  /** Re-runs of a simulation that raised before it is recorded as an infrastructure error (default 3). */
  maxRetries?: number;
  /** Pause before such a re-run (default 1000 ms). */
  retryDelayMs?: number;
  /** Wall-clock limit per simulation, checked between steps; on τ² domains a call still running 60 s past it is abandoned (the simulation ends `timeout`). Default none. */
  timeoutMs?: number | null;
  /**
   * A run name (saved as `<cwd>/runs/NAME/results.json`) or a path ending in `.json`; an existing
   * run there is resumed. Default: a new timestamped name, as `tau run` makes.
   */
  saveTo?: string;
  /** Folder that run names, results paths and module paths are resolved against (default the process's). */
  cwd?: string;
  /** A registered agent's name (default `llm_agent`), a module path (`./my-agent.ts`), or a definition from `defineAgent`. */
  agent?: AgentSpec;
  agentOptions?: Record<string, unknown>;
  /** A registered user's name (default `user_simulator`), a module path, or a definition from `defineUser`. */
  user?: UserSpec;
  userOptions?: Record<string, unknown>;
  /** `provider/model` of the agent (default upstream's GPT-4.1), used when the agent needs a model. */
  agentLlm?: string;
  userLlm?: string;
  /** The NL-assertion judge model; null (or `"none"`) leaves NL assertions unevaluated. */
  judge?: string | null;
  /** Model arguments; each replaces the default `{"temperature": 0.0}` wholesale. */
  agentLlmArgs?: Record<string, unknown>;
  userLlmArgs?: Record<string, unknown>;
  judgeLlmArgs?: Record<string, unknown>;
  /** Force solo mode (normally the agent's definition decides). */
  solo?: boolean;
  /** Turn protocol violations into agent_error / user_error. */
  enforceCommunicationProtocol?: boolean;
  /** banking_knowledge's retrieval config (`--retrieval-config`; default `alltools`). */
  retrievalConfig?: string | null;
  /** Its overrides (`--retrieval-config-kwargs`: `top_k`, `grep_top_k`, …). */
  retrievalConfigKwargs?: Record<string, unknown> | null;
  /** τ-bench's Table 3 ablation: the agent gets no policy document (recorded as `info.taubench.no_policy`). */
  noPolicy?: boolean;
  /** Builds the embedding and reranker services of the retrieval configs (default: from `llm`); `onEvent` counts their calls. */
  retrievalServices?: (onEvent: LlmEventListener) => RetrievalServices;
  /** How model clients are built (ignored when `createLlm` is given). */
  llm?: LlmSettings;
  /** Builds the model clients yourself (your own {@link LlmClient}, a test double). */
  createLlm?: LlmFactory["createLlm"];
  /** Receives the run's progress events. */
  onEvent?: RunEventListener;
  /** Stops the run: nothing new starts, in-flight simulations are abandoned, finished ones are kept. */
  signal?: AbortSignal;
  /** The command that resumes this run, given its results path (stored in the checkpoint). */
  resumeCommand?: (resultsPath: string) => string;
  /** Write `results.json` at the end (default true); the checkpoint is always written. */
  writeResultsJson?: boolean;
  /** Runs the units in other processes (local workers, a queue); default this process. */
  executor?: ExecutorFactory;
  /**
   * Resume a run although what its participants are sent changed (data files, policy, agent
   * instructions, task definitions); recorded in `info.taubench.allowed_changes`. Default false:
   * such a resume is refused with one line per difference.
   */
  allowChanged?: boolean;
  /**
   * Before the first simulation, call each distinct model endpoint once and stop with one line
   * when one cannot serve the run (dead, rejected key, unknown model, refused arguments). Default
   * false here (a test double need not answer it); `tau run` does it unless `--no-preflight`.
   */
  preflight?: boolean;
  /** `tau1-*` few-shot agent: the example dialogues (default: the data folder's file for the domain). */
  fewShotDisplaysPath?: string;
  /** `tau1-*` `human` user: where its lines are shown and typed. */
  humanUser?: HumanIo;
  /**
   * Grow the run in rounds until a sequential test decides its difference in pass^1 with a
   * baseline (`tau run --against RUN --until-decided`); the rounds then set the trials, so
   * `numTrials` is not given.
   */
  untilDecided?: UntilDecidedOptions;
}

/** What `runEvaluation` is asked for a sequential comparison (docs/statistics.md, "Stopping when it is decided"). */
export interface UntilDecidedOptions {
  /** The baseline: a run name, folder, checkpoint or results file (resolved against `cwd`), or a loaded run. */
  against: string | LoadedRun;
  /** The difference in pass^1 the comparison must detect. */
  effect: number;
  /** Two-sided significance level (default 0.05). */
  alpha?: number;
  /** Power against a true difference of `effect` (default 0.8). */
  power?: number;
  /** Trials per task each round adds (default a fifth of the planned trials, at least 1). */
  roundTrials?: number;
  /** Most trials per task the run may reach (default no limit); a design that needs more is refused. */
  maxTrials?: number;
}

/** What {@link runEvaluation} returns: the run's outcome and its metrics. */
export interface EvaluationResult extends RunOutcome {
  /** pass^k, average reward, costs, breakdowns, computed over {@link RunOutcome.simulations}. */
  metrics: AgentMetrics;
  /** With `untilDecided`: the comparison's record, looks and decision (also `info.taubench.until_decided`). */
  untilDecided?: UntilDecidedRecord;
}

/** A model client of the LLM layer with `settings` (`onEvent` hears its calls). */
function settingsClient(model: string, settings: LlmSettings, onEvent?: LlmEventListener): LlmClient {
  return createLlmClient(model, {
    ...localBaseUrl(model, settings.localBaseUrl),
    ...(settings.cacheDir ? { cacheDir: settings.cacheDir } : {}),
    ...(settings.priceTable ? { priceTable: settings.priceTable } : {}),
    promptCache: settings.promptCache ?? true,
    ...(onEvent ? { onEvent } : {}),
  });
}

/** The model factory `runEvaluation` uses by default: the LLM layer's clients, with `settings`. */
export function llmFactory(settings: LlmSettings = {}): LlmFactory {
  return {
    providerKey,
    createLlm: (model: string, onEvent: LlmEventListener, _uses: readonly ModelUse[]): LlmClient =>
      settingsClient(model, settings, onEvent),
  };
}

/** banking_knowledge's embedder and reranker, the reranker's client built from `settings`; `onEvent` hears both. */
export function defaultRetrievalServices(
  settings: LlmSettings,
  onEvent: LlmEventListener,
): RetrievalServices {
  return createRetrievalServices({ createLlm: (model) => settingsClient(model, settings, onEvent), onEvent });
}

function integer(name: string, value: number | undefined, fallback: number, min: number): number {
  const n = value ?? fallback;
  if (!Number.isSafeInteger(n) || n < min)
    throw new UsageError(`${name} must be an integer ≥ ${min}, got ${n}`);
  return n;
}

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  const n = value ?? fallback;
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`${name} must be a non-negative number, got ${n}`);
  return n;
}

/** The {@link RunConfig} of `options`, with `tau run`'s defaults; the results path is settled after planning. */
export function runConfigFor(options: EvaluationOptions, dataDir: string): RunConfig {
  const judge = options.judge === undefined ? DEFAULT_LLM : options.judge;
  const timeoutMs = options.timeoutMs ?? null;
  // The original τ-bench domains have upstream τ-bench's defaults (its run.py): tool-calling agent,
  // llm user on gpt-4o with no temperature given, 30 steps, seed 10.
  const tau1 = isTau1DomainName(options.domain);
  // 0 would end every simulation at its first step as a timeout (scored 0); null is no limit.
  if (timeoutMs !== null && !(timeoutMs > 0))
    throw new UsageError(`timeoutMs must be a positive number of milliseconds (or null), got ${timeoutMs}`);
  return {
    domain: options.domain,
    dataDir,
    split: options.split === undefined ? "base" : options.split,
    taskIds: options.taskIds,
    numTasks: options.numTasks === undefined ? undefined : integer("numTasks", options.numTasks, 1, 1),
    numTrials: integer("numTrials", options.numTrials, 1, 1),
    seed: integer("seed", options.seed, tau1 ? TAU1_DEFAULTS.seed : 300, Number.MIN_SAFE_INTEGER),
    maxSteps: integer("maxSteps", options.maxSteps, tau1 ? TAU1_DEFAULTS.maxSteps : 200, 1),
    maxErrors: integer("maxErrors", options.maxErrors, 10, 1),
    maxConcurrency: integer("maxConcurrency", options.maxConcurrency, 3, 1),
    maxRetries: integer("maxRetries", options.maxRetries, 3, 0),
    retryDelayMs: nonNegative("retryDelayMs", options.retryDelayMs, 1000),
    timeoutMs,
    ...(options.cwd ? { cwd: options.cwd } : {}),
    agent: options.agent ?? (tau1 ? TAU1_DEFAULTS.agent : "llm_agent"),
    user: options.user ?? (tau1 ? TAU1_DEFAULTS.user : "user_simulator"),
    agentOptions: options.agentOptions,
    userOptions: options.userOptions,
    agentLlm: options.agentLlm ?? DEFAULT_LLM,
    userLlm: options.userLlm ?? (tau1 ? TAU1_DEFAULTS.userLlm : DEFAULT_LLM),
    judgeLlm: judge === null || judge.trim() === "none" ? null : judge,
    agentLlmArgs: options.agentLlmArgs ?? defaultLlmArgs(),
    userLlmArgs: options.userLlmArgs ?? (tau1 ? {} : defaultLlmArgs()),
    judgeLlmArgs: options.judgeLlmArgs ?? defaultLlmArgs(),
    solo: options.solo,
    enforceCommunicationProtocol: options.enforceCommunicationProtocol ?? false,
    retrievalConfig: options.retrievalConfig ?? null,
    retrievalConfigKwargs: options.retrievalConfigKwargs ?? null,
    ...(options.noPolicy ? { noPolicy: true } : {}),
    resultsPath: "",
    writeResultsJson: options.writeResultsJson,
    ...(options.allowChanged ? { allowChanged: true } : {}),
    ...(options.fewShotDisplaysPath ? { fewShotDisplaysPath: options.fewShotDisplaysPath } : {}),
  };
}

/**
 * Where the plan's results go: `saveTo`, or upstream's default run name (a participant that uses
 * no model contributes no model part), never inside the data folder.
 */
function withResultsPath(plan: RunPlan, options: EvaluationOptions): RunPlan {
  const { fingerprint, config } = plan;
  const saveTo =
    options.saveTo ??
    defaultRunName({
      domain: fingerprint.domain,
      agent: fingerprint.agent,
      agentLlm: fingerprint.agent_llm,
      user: fingerprint.user,
      userLlm: fingerprint.user_llm,
    });
  const resultsPath = resolveResultsPath(saveTo, {
    dataDir: config.dataDir,
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  const resumeCommand = options.resumeCommand?.(resultsPath);
  return { ...plan, config: { ...config, resultsPath, ...(resumeCommand ? { resumeCommand } : {}) } };
}

/**
 * Resolves an evaluation without running it: the domain, participants, tasks, seeds, the `info`
 * it will record and where its results go (`plan.config.resultsPath`).
 */
export async function planEvaluation(options: EvaluationOptions): Promise<RunPlan> {
  checkEvaluationOptions(options);
  const dataDir = isTau1DomainName(options.domain)
    ? resolveTau1DataDir(options.dataDir)
    : resolveDataDir(options.dataDir);
  const plan = await planRun(runConfigFor(options, dataDir), {
    log: (message) => safeListener(options.onEvent)({ type: "note", message }),
    retrievalServices:
      options.retrievalServices ?? ((onEvent) => defaultRetrievalServices(options.llm ?? {}, onEvent)),
  });
  return withResultsPath(plan, options);
}

/** The run dependencies of `options` (model clients, events, the stop signal). */
function runDependencies(options: EvaluationOptions): RunDependencies {
  const factory = llmFactory(options.llm);
  return {
    providerKey: factory.providerKey,
    createLlm: options.createLlm ?? factory.createLlm,
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.executor ? { executor: options.executor } : {}),
    ...(options.preflight
      ? {
          beforeFirstSimulation: (planned: RunPlan, clients: SimulationClients) =>
            preflightEndpoints(
              planned,
              clients,
              (message) => safeListener(options.onEvent)({ type: "note", message }),
              options.signal,
            ),
        }
      : {}),
    ...(options.humanUser ? { humanUser: options.humanUser } : {}),
  };
}

const withMetrics = (outcome: RunOutcome): EvaluationResult => ({
  ...outcome,
  metrics: computeMetrics(outcome.simulations, { numTrials: outcome.info.num_trials }),
});

/** Runs (or resumes) an evaluation and returns its simulations (without transcripts), `info` and metrics. */
export async function runEvaluation(options: EvaluationOptions): Promise<EvaluationResult> {
  checkEvaluationOptions(options);
  if (options.untilDecided) return evaluateUntilDecided(options, options.untilDecided);
  return withMetrics(await executePlan(await planEvaluation(options), runDependencies(options)));
}

/** A plan that records `record` as `info.taubench.until_decided`. */
function recording(plan: RunPlan, record: UntilDecidedRecord): RunPlan {
  const taubench = { ...plan.info.taubench, until_decided: structuredClone(record) };
  return { ...plan, info: { ...plan.info, taubench: taubench as NonNullable<Info["taubench"]> } };
}

/**
 * The rounds of `untilDecided`: each round is the same run (one results path, planned once)
 * resumed with more trials per task; the sequential test looks after each
 * (`runner/until-decided.ts`), and its record rides in the run's `info` all along.
 */
async function evaluateUntilDecided(
  options: EvaluationOptions,
  asked: UntilDecidedOptions,
): Promise<EvaluationResult> {
  if (options.numTrials !== undefined)
    throw new UsageError("numTrials and untilDecided do not go together: the rounds set the trials per task");
  const note = (message: string) => safeListener(options.onEvent)({ type: "note", message });
  const first = await planEvaluation({ ...options, numTrials: 1 });
  const { resultsPath } = first.config;
  // A default run name is stamped with the time: every round resumes the first round's path.
  const fixed: EvaluationOptions = { ...options, saveTo: resultsPath };
  const baseline =
    typeof asked.against === "string" ? await loadRun(asked.against, options.cwd) : asked.against;
  const baselineDomain = baseline.info.environment_info.domain_name;
  if (baselineDomain !== first.domain.name)
    throw new UsageError(
      `--against ${baseline.path} is a run of ${baselineDomain}, this run is of ${first.domain.name}`,
    );
  const settings: UntilDecidedSettings = {
    against: {
      path: baseline.path,
      tasks: computeMetrics(baseline.simulations, { numTrials: baseline.info.num_trials }).perTask,
    },
    taskIds: first.tasks.map((task) => task.id),
    effect: asked.effect,
    ...(asked.alpha === undefined ? {} : { alpha: asked.alpha }),
    ...(asked.power === undefined ? {} : { power: asked.power }),
    ...(asked.roundTrials === undefined
      ? {}
      : { roundTrials: integer("untilDecided.roundTrials", asked.roundTrials, 1, 1) }),
    ...(asked.maxTrials === undefined
      ? {}
      : { maxTrials: integer("untilDecided.maxTrials", asked.maxTrials, 1, 1) }),
  };
  const checkpointPath = checkpointPathFor(resultsPath);
  const previous = existsSync(checkpointPath)
    ? readUntilDecidedRecord(
        (await loadCheckpointState(checkpointPath)).run?.info.taubench as Record<string, unknown> | undefined,
      )
    : null;
  const deps = runDependencies(options);
  const latest: { outcome: RunOutcome | null } = { outcome: null };
  const round = async (numTrials: number, record: UntilDecidedRecord) => {
    latest.outcome = await executePlan(
      recording(await planEvaluation({ ...fixed, numTrials }), record),
      deps,
    );
    return latest.outcome;
  };
  const rounds: RoundRunner = {
    async run(numTrials, record) {
      const outcome = await round(numTrials, record);
      return {
        simulations: outcome.simulations,
        interrupted: outcome.interrupted || outcome.stoppedBy !== null,
      };
    },
    save: (record) =>
      saveUntilDecided(checkpointPath, record, (options.writeResultsJson ?? true) ? resultsPath : null),
  };
  const { record } = await runUntilDecided(settings, rounds, { previous, log: note });
  // Already decided earlier: the run as it stands (nothing new to run but infrastructure errors).
  const final: RunOutcome =
    latest.outcome ?? (await round(record.looks.at(-1)?.requested_trials ?? 1, record));
  const taubench = { ...final.info.taubench, until_decided: record } as NonNullable<Info["taubench"]>;
  return { ...withMetrics({ ...final, info: { ...final.info, taubench } }), untilDecided: record };
}
