/**
 * The first step of every run: from a serializable {@link RunConfig} to a
 * {@link RunPlan} — the domain, the participants, the tasks, the trial seeds,
 * the resume fingerprint and the `info` the results record. Nothing is run or
 * written; a queue worker builds the same plan from the same config.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DataDirError, UsageError } from "../core/errors.ts";
import { PyFloat, pyDumps } from "../core/py-json.ts";
import { Info } from "../core/results.ts";
import { loadSourceGitCommit, sourceGitCommit, taubenchStamp } from "../core/results-file.ts";
import type { Task } from "../core/task.ts";
import type { RetrievalServices } from "../domains/banking_knowledge/index.ts";
import { configureDomain, loadDomain } from "../domains/registry.ts";
import { isTau1Domain, isTau1DomainName } from "../domains/tau1/index.ts";
import type { Domain } from "../domains/types.ts";
import type { Environment } from "../env/environment.ts";
import type { ToolSchema } from "../env/toolkit.ts";
import type { LlmEventListener } from "../llm/events.ts";
import { AGENT_FIELDS } from "../agents/define.ts";
import { type AgentDefinition, type AgentOrigin, getAgentDefinition } from "../agents/registry.ts";
import { checkDefinition, type DefinitionFields } from "../core/definition.ts";
import { USER_FIELDS } from "../users/define.ts";
import { getUserDefinition, type UserDefinition } from "../users/registry.ts";
import { GUIDELINES_FILE, guidelinesFileFor } from "../users/user-simulator.ts";
import type { RunFingerprint } from "./checkpoint.ts";
import { isModulePath, loadAgentModule, loadUserModule, type ModuleSource } from "./participant-module.ts";
import { type RunPrompts, runPrompts, tau1RunPrompts } from "./prompts.ts";
import { tasksNeedJudge } from "./regrade.ts";
import { dataFileHashes } from "./sent-hashes.ts";
import { trialSeeds } from "./seeds.ts";
import { selectTasks } from "./task-selection.ts";
import { tau1AgentStrategy, tau1Definitions, tau1Stamp, tau1UserStrategy } from "./tau1-run.ts";

/** Upstream's default agent, user and judge model, with our provider prefix. */
export const DEFAULT_LLM = "openai/gpt-4.1-2025-04-14";

/** Upstream's default `llm_args` (`{"temperature": 0.0}`; the float is kept as a float). */
export function defaultLlmArgs(): Record<string, unknown> {
  return { temperature: new PyFloat(0) };
}

/** An agent by registry name, or its definition. */
export type AgentSpec = string | AgentDefinition;
/** A user by registry name, or its definition. */
export type UserSpec = string | UserDefinition;

/** Where a participant's definition came from: the registry, the caller (an object), or a module file. */
export type ParticipantSource = { kind: "registry" } | { kind: "object" } | ModuleSource;

/** A participant resolved for a run: its definition, origin, and options (raw as given, and parsed). */
export interface ResolvedParticipant<Definition> {
  definition: Definition;
  source: ParticipantSource;
  /** As given (recorded in results and the fingerprint); `{}` when none were. */
  rawOptions: Record<string, unknown>;
  /** What the definition's `parseOptions` made of them (given to every context). */
  options: unknown;
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
  /**
   * A registered agent's name, a module path (`./my-agent.ts`), or a definition. A definition
   * object cannot cross a process: a queue worker needs a name or a path.
   */
  agent: AgentSpec;
  /** A registered user's name, a module path, or a definition. */
  user: UserSpec;
  /** The folder module paths are resolved against (default the process's). */
  cwd?: string | undefined;
  /** Options for the agent's definition (`--agent-options`); recorded, and part of the fingerprint. */
  agentOptions?: Record<string, unknown> | undefined;
  /** Options for the user's definition (`--user-options`). */
  userOptions?: Record<string, unknown> | undefined;
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
  /**
   * Resume although what the participants are sent changed (data files, policy, agent instructions,
   * task definitions; `--allow-changed`): the differences are noted and recorded in
   * `info.taubench.allowed_changes` instead of refusing the resume.
   */
  allowChanged?: boolean | undefined;
  /** The command line that resumes this run (printed on Ctrl-C, stored in the checkpoint). */
  resumeCommand?: string | undefined;
  /** Write the results JSON when the batch ends (default true; `tau export` can do it later). */
  writeResultsJson?: boolean | undefined;
  /** banking_knowledge's `--retrieval-config` (default `alltools`); other domains have none. */
  retrievalConfig?: string | null | undefined;
  /** `--retrieval-config-kwargs` (`top_k`, `grep_top_k`, `case_sensitive`, `reranker_min_score`). */
  retrievalConfigKwargs?: Record<string, unknown> | null | undefined;
  /** `--no-policy` (τ-bench Table 3 ablation): the agent is given an empty policy document. */
  noPolicy?: boolean | undefined;
  /** Original τ-bench `few-shot` agent: the displays file (default: the data folder's for the domain). */
  fewShotDisplaysPath?: string | undefined;
}

/** What planning needs besides the config (none of it is serializable, so it is passed apart). */
export interface PlanOptions {
  /** Hears warnings (a split that names a missing task, …). */
  log?: (line: string) => void;
  /**
   * Embedding models and the reranker's model for banking_knowledge's retrieval configs; their
   * provider events go to the listener, which relays them to the run's usage ({@link RunPlan.serviceEvents}).
   */
  retrievalServices?: ((onEvent: LlmEventListener) => RetrievalServices) | undefined;
}

/** Relays provider events of services built while planning to whoever runs the plan (it sets `listener`). */
export class LlmEventRelay {
  listener: LlmEventListener = () => {};
  readonly emit: LlmEventListener = (event) => this.listener(event);
}

/** The resolved pieces of a run, before anything is executed. */
export interface RunPlan {
  config: RunConfig;
  domain: Domain;
  agent: AgentDefinition;
  user: UserDefinition;
  /** The agent's origin and options. */
  agentParticipant: ResolvedParticipant<AgentDefinition>;
  /** The user's origin and options. */
  userParticipant: ResolvedParticipant<UserDefinition>;
  soloMode: boolean;
  tasks: Task[];
  seeds: number[];
  fingerprint: RunFingerprint;
  info: Info;
  /** Whether some selected task is graded on NL assertions (so a judge is needed). */
  needsJudge: boolean;
  /** Provider events of the domain's services (banking's embedder and reranker). */
  serviceEvents: LlmEventRelay;
  /** Upstream's exact texts or taubench's own wording, and the texts participants speak. */
  prompts: RunPrompts;
}

/** A user-simulator guideline file's text, or null when the data folder lacks it. */
function readGuidelinesText(dataDir: string, file: string): string | null {
  const path = join(dataDir, "user_simulator", file);
  return existsSync(path) ? readFileSync(path, "utf8") : null;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** The user's tools for a task (none when the domain gives the user none); the user simulator picks its guideline file from them. */
export function userToolsFor(domain: Domain, template: Environment, task: Task): ToolSchema[] {
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
  noPolicy: boolean,
): Record<string, string | null> {
  let guidelines: string | null = null;
  // The original τ-bench's users have no guideline files (info.taubench.tau1 records their texts).
  if (userUsesLlm && !isTau1Domain(domain)) {
    const texts = guidelineFiles(domain, tasks, soloMode).map((file) => readGuidelinesText(dataDir, file));
    guidelines = texts.includes(null) ? null : texts.join("\n");
  }
  return {
    agent_instructions: agentInstructions === undefined ? null : sha256(agentInstructions),
    policy: sha256(noPolicy ? "" : domain.policy({ soloMode })),
    user_guidelines: guidelines === null ? null : sha256(guidelines),
  };
}

/** The user-simulator guideline files the tasks get (one for tasks with user tools, one without), in name order. */
function guidelineFiles(domain: Domain, tasks: readonly Task[], soloMode: boolean): string[] {
  const template = domain.makeEnvironment({ soloMode });
  return [...new Set(tasks.map((task) => guidelinesFileFor(userToolsFor(domain, template, task))))].sort();
}

/** Pre-flight: the guideline files a user that reads them needs exist (found now, not inside every simulation). */
function checkGuidelineFiles(
  config: RunConfig,
  plan: Pick<RunPlan, "domain" | "user" | "tasks" | "soloMode">,
) {
  if (!plan.user.readsGuidelines) return;
  for (const file of guidelineFiles(plan.domain, plan.tasks, plan.soloMode)) {
    const path = join(config.dataDir, "user_simulator", file);
    if (!existsSync(path))
      throw new DataDirError(
        `user '${plan.user.name}' needs ${path} for these tasks, and it is missing; run \`tau data pull\` or check --data-dir / TAU_DATA_DIR`,
      );
  }
}

/**
 * The most simulations one run plans: its units, results and checkpoint index live in one process's
 * memory, and a typo such as `--num-trials 100000000` would otherwise spend minutes drawing seeds
 * before running out of memory.
 */
export const MAX_SIMULATIONS_PER_RUN = 1_000_000;

/** The participants and the domain a fingerprint is computed over. */
export interface FingerprintInput {
  config: RunConfig;
  domain: Domain;
  agent: ResolvedParticipant<AgentDefinition>;
  user: ResolvedParticipant<UserDefinition>;
  soloMode: boolean;
  /** The run's wording (absent: taubench's own, which the fingerprint leaves out as it always did). */
  prompts?: RunPrompts;
}

const hasKeys = (value: Record<string, unknown>) => Object.keys(value).length > 0;

/**
 * The settings that change what a simulation means; a resume with a different
 * fingerprint is refused. Every resume check goes through this one function.
 */
export function runFingerprint(input: FingerprintInput): RunFingerprint {
  const { config, domain, soloMode } = input;
  const agent = input.agent.definition;
  const user = input.user.definition;
  return {
    domain: domain.name,
    agent: agent.name,
    user: user.name,
    agent_llm: agentModel(agent, config),
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
    ...(agent.version !== undefined ? { agent_version: agent.version } : {}),
    ...(user.version !== undefined ? { user_version: user.version } : {}),
    ...(hasKeys(input.agent.rawOptions) ? { agent_options: input.agent.rawOptions } : {}),
    ...(hasKeys(input.user.rawOptions) ? { user_options: input.user.rawOptions } : {}),
    ...(input.agent.source.kind === "module" ? { agent_module_sha256: input.agent.source.sha256 } : {}),
    ...(input.user.source.kind === "module" ? { user_module_sha256: input.user.source.sha256 } : {}),
    ...(input.prompts?.wording === "upstream" ? { prompts: `upstream:${input.prompts.sha256}` } : {}),
    ...(domain.settings
      ? {
          retrieval_config: domain.settings.retrievalConfig,
          retrieval_config_kwargs: domain.settings.retrievalConfigKwargs,
        }
      : {}),
    // Only when set, so runs without the ablation keep the fingerprint they always had.
    ...(config.noPolicy ? { no_policy: true } : {}),
  };
}

/** The agent's model as recorded: an adapter's own (`origin.llm`), else `--agent-llm` when the agent uses it. */
function agentModel(agent: AgentDefinition, config: RunConfig): string | null {
  if (agent.origin) return agent.origin.llm ?? null;
  return agent.needsLlm ? config.agentLlm : null;
}

/** Lines naming the settings that differ between a stored run and this one. */
export function fingerprintDifferences(stored: RunFingerprint, current: RunFingerprint): string[] {
  const out: string[] = [];
  const keys = new Set([...Object.keys(current), ...Object.keys(stored)]) as Set<keyof RunFingerprint>;
  for (const key of keys) {
    const a = pyDumps(stored[key] ?? null, { sortKeys: true });
    const b = pyDumps(current[key] ?? null, { sortKeys: true });
    if (a !== b) out.push(`${key}: ${a} → ${b}`);
  }
  return out;
}

/**
 * Options given to a built-in that reads none (no `parseOptions`): they would be recorded yet change
 * nothing, so a new run refuses them. A run started with them before this check resumes as it was
 * (they are part of its fingerprint).
 */
export function unreadOptionsError(
  plan: Pick<RunPlan, "agentParticipant" | "userParticipant">,
): UsageError | null {
  for (const [kind, participant] of [
    ["agent", plan.agentParticipant],
    ["user", plan.userParticipant],
  ] as const) {
    const { source, definition, rawOptions } = participant;
    if (source.kind === "registry" && !definition.parseOptions && hasKeys(rawOptions))
      return new UsageError(
        `${kind} '${definition.name}' takes no options, so --${kind}-options ${JSON.stringify(rawOptions)} would change nothing; leave the flag out`,
      );
  }
  return null;
}

/** What every definition has, for resolving either kind. */
interface Definition {
  name: string;
  version?: string;
  origin?: AgentOrigin;
  parseOptions?(options: Record<string, unknown>): unknown;
}

/** How a kind of participant is found: by registry name, or in a module file. */
interface ParticipantLookup<D> {
  byName(name: string): D;
  fromModule(spec: string, cwd: string): Promise<{ definition: D; source: ModuleSource }>;
  /** A definition object the caller built: checked, its left-out flags filled in. */
  fromObject(spec: D): D;
}

/**
 * A definition object given to the library as it is (not through `defineAgent`/`defineUser`):
 * checked like a module's export, so a misspelt or mistyped field is one line before anything runs,
 * and its left-out flags default to false on an object that inherits everything else from it (a
 * definition whose methods live on a class prototype keeps them).
 */
function checkedDefinitionObject<D extends object>(
  kind: "agent" | "user",
  spec: D,
  fields: DefinitionFields,
  flags: readonly string[],
): D {
  checkDefinition(kind, spec, fields);
  const record = spec as Record<string, unknown>;
  const filled: Record<string, unknown> = {};
  if (record.description === undefined) filled.description = "";
  for (const flag of flags) if (record[flag] === undefined) filled[flag] = false;
  return Object.keys(filled).length === 0 ? spec : Object.assign(Object.create(spec) as D, filled);
}

/** Every field an {@link AgentDefinition} may have: `defineAgent`'s, and what built-in adapters add. */
const AGENT_DEFINITION_FIELDS: DefinitionFields = {
  ...AGENT_FIELDS,
  functions: [...AGENT_FIELDS.functions, "wordedInstructions", "preflight"],
};

/** Every field a {@link UserDefinition} may have: `defineUser`'s, and what built-in users add. */
const USER_DEFINITION_FIELDS: DefinitionFields = {
  ...USER_FIELDS,
  booleans: [...USER_FIELDS.booleans, "readsGuidelines", "speaksUpstreamTexts"],
};

const AGENTS: ParticipantLookup<AgentDefinition> = {
  byName: getAgentDefinition,
  fromModule: loadAgentModule,
  fromObject: (spec) =>
    checkedDefinitionObject("agent", spec, AGENT_DEFINITION_FIELDS, ["needsLlm", "soloMode"]),
};
const USERS: ParticipantLookup<UserDefinition> = {
  byName: getUserDefinition,
  fromModule: loadUserModule,
  fromObject: (spec) => checkedDefinitionObject("user", spec, USER_DEFINITION_FIELDS, ["needsLlm"]),
};

/** Finds a participant (a name, a module path, or a definition as given), and parses its options once. */
async function resolveParticipant<D extends Definition>(
  kind: "agent" | "user",
  spec: string | D,
  lookup: ParticipantLookup<D>,
  options: Record<string, unknown> | undefined,
  cwd: string,
): Promise<ResolvedParticipant<D>> {
  let definition: D;
  let source: ParticipantSource;
  if (typeof spec !== "string") {
    definition = lookup.fromObject(spec);
    source = { kind: "object" };
  } else if (isModulePath(spec)) {
    ({ definition, source } = await lookup.fromModule(spec, cwd));
  } else {
    definition = lookup.byName(spec);
    source = { kind: "registry" };
  }
  const rawOptions = options ?? {};
  let parsed: unknown = rawOptions;
  if (definition.parseOptions) {
    try {
      parsed = definition.parseOptions(rawOptions);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new UsageError(
        `${kind} '${definition.name}' rejected its options (--${kind}-options): ${message}`,
        {
          cause: error,
        },
      );
    }
  }
  return { definition, source, rawOptions, options: parsed };
}

/**
 * `info.taubench.agent` / `.user`: name, version, options and origin of a participant that is not
 * a built-in one used as is (absent then, so those runs record exactly what they always did).
 */
function participantStamp(
  kind: "agent" | "user",
  participant: ResolvedParticipant<Definition>,
): Record<string, unknown> {
  const { definition, source, rawOptions } = participant;
  const { origin } = definition;
  if (source.kind === "registry" && definition.version === undefined && !hasKeys(rawOptions) && !origin)
    return {};
  return {
    [kind]: {
      name: definition.name,
      version: definition.version ?? null,
      source: source.kind,
      options: rawOptions,
      ...(source.kind === "module" ? { module: { path: source.path, sha256: source.sha256 } } : {}),
      // An adapter (AI SDK, a URL, an MCP client) and where it lives, without credentials.
      ...(origin
        ? { adapter: origin.adapter, ...(origin.endpoint ? { endpoint: origin.endpoint } : {}) }
        : {}),
    },
  };
}

/**
 * The participants of an original τ-bench run: its strategies by name (no modules, definitions
 * or options: upstream's agents and users are what is measured there).
 */
function tau1Participants(config: RunConfig): {
  agent: ResolvedParticipant<AgentDefinition>;
  user: ResolvedParticipant<UserDefinition>;
} {
  if (typeof config.agent !== "string" || typeof config.user !== "string" || isModulePath(config.agent))
    throw new UsageError(
      `Domain '${config.domain}' runs the original τ-bench's agent and user strategies by name (--agent tool-calling|act|react|few-shot, --user llm|react|verify|reflection|human)`,
    );
  if (hasKeys(config.agentOptions ?? {}) || hasKeys(config.userOptions ?? {}))
    throw new UsageError(`Domain '${config.domain}' takes no --agent-options or --user-options`);
  const { agent, user } = tau1Definitions(config.agent, config.user);
  const resolved = <D>(definition: D): ResolvedParticipant<D> => ({
    definition,
    source: { kind: "registry" },
    rawOptions: {},
    options: {},
  });
  return { agent: resolved(agent), user: resolved(user) };
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

/** Resolves domain, participants, tasks, seeds and the recorded `info` (no I/O besides the data folder and modules). */
export async function planRun(config: RunConfig, options: PlanOptions = {}): Promise<RunPlan> {
  const log = options.log ?? (() => {});
  if (!Number.isInteger(config.numTrials) || config.numTrials < 1)
    throw new UsageError(`--num-trials must be a positive integer, got ${config.numTrials}`);
  if (config.timeoutMs !== null && !(config.timeoutMs > 0))
    throw new UsageError(`--timeout must be a positive number of seconds, got ${config.timeoutMs / 1000}`);
  // git answers while the domain loads (read below through sourceGitCommit's cache).
  const gitCommit = loadSourceGitCommit();
  const cwd = config.cwd ?? process.cwd();
  // The original τ-bench domains run their own agent and user strategies (runner/tau1-run.ts).
  const tau1 = isTau1DomainName(config.domain) ? tau1Participants(config) : null;
  const agentParticipant =
    tau1?.agent ?? (await resolveParticipant("agent", config.agent, AGENTS, config.agentOptions, cwd));
  const userParticipant =
    tau1?.user ?? (await resolveParticipant("user", config.user, USERS, config.userOptions, cwd));
  const agent = agentParticipant.definition;
  const user = userParticipant.definition;
  const serviceEvents = new LlmEventRelay();
  const domain = configureDomain(loadDomain(config.domain, config.dataDir), {
    retrievalConfig: config.retrievalConfig ?? null,
    retrievalConfigKwargs: config.retrievalConfigKwargs ?? null,
    services: options.retrievalServices?.(serviceEvents.emit),
  });
  // Only an agent that can call the retrieval tools needs their services (the offline agents never do).
  if (agent.needsLlm || agent.origin || agentParticipant.source.kind !== "registry")
    domain.checkRequirements?.();
  const soloMode = config.solo ?? agent.soloMode;
  checkPairing(domain, agent, user, soloMode);
  const tasks = selectTasks(domain, {
    split: config.split,
    taskIds: config.taskIds ?? null,
    numTasks: config.numTasks ?? null,
    agentFilter: agent.taskFilter ?? null,
    onWarning: log,
  });
  if (tasks.length === 0)
    throw new UsageError(`No tasks left to run for agent '${agent.name}' after filtering`);
  checkGuidelineFiles(config, { domain, user, tasks, soloMode });
  const planned = tasks.length * config.numTrials;
  if (planned > MAX_SIMULATIONS_PER_RUN)
    throw new UsageError(
      `${config.numTrials} trials × ${tasks.length} task${tasks.length === 1 ? "" : "s"} = ${planned} simulations; a run holds at most ${MAX_SIMULATIONS_PER_RUN} (fewer trials, or several runs with different --seed)`,
    );
  const seeds = trialSeeds(config.seed, config.numTrials);
  const tau1Record = isTau1Domain(domain)
    ? tau1Stamp(
        domain,
        tau1AgentStrategy(agent.name),
        tau1UserStrategy(user.name),
        agent.name === "few-shot" ? (config.fewShotDisplaysPath ?? domain.tau1.fewShotPath()) : null,
      )
    : null;
  // τ-bench's runs have texts of their own (its data folder's texts/, recorded in the tau1 stamp).
  const prompts = tau1Record
    ? tau1RunPrompts(tau1Record, agent)
    : runPrompts(config.dataDir, domain, agent, user, {
        agent: agentParticipant.source.kind === "registry",
        user: userParticipant.source.kind === "registry",
      });
  const fingerprint = runFingerprint({
    config,
    domain,
    agent: agentParticipant,
    user: userParticipant,
    soloMode,
    prompts,
  });
  await gitCommit;
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
    // The policy the agent saw: none under --no-policy.
    environment_info: {
      domain_name: domain.name,
      policy: config.noPolicy ? "" : domain.policy({ soloMode }),
    },
    retrieval_config: domain.settings?.retrievalConfig ?? null,
    retrieval_config_kwargs: domain.settings?.retrievalConfigKwargs ?? null,
    taubench: taubenchStamp({
      task_split_name: config.split,
      solo_mode: soloMode,
      judge_llm: config.judgeLlm,
      judge_llm_args: config.judgeLlmArgs,
      trial_seeds: seeds,
      prompt_hashes: promptHashes(
        config.dataDir,
        domain,
        tasks,
        prompts.agentInstructions,
        user.needsLlm,
        soloMode,
        config.noPolicy === true,
      ),
      prompts: prompts.wording,
      prompts_sha256: prompts.sha256,
      data_hashes: dataFileHashes(config.dataDir, domain.dataFolder),
      ...participantStamp("agent", agentParticipant),
      ...participantStamp("user", userParticipant),
      ...(config.noPolicy ? { no_policy: true } : {}),
      ...(tau1Record ? { tau1: tau1Record } : {}),
    }),
  });
  return {
    config,
    domain,
    agent,
    user,
    agentParticipant,
    userParticipant,
    soloMode,
    tasks,
    seeds,
    fingerprint,
    info,
    needsJudge: tasksNeedJudge(tasks),
    serviceEvents,
    prompts,
  };
}
