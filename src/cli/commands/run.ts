/**
 * `tau run`: run a domain's tasks with an agent and a user, resumable and
 * crash-safe (results stream to `<run>/results.jsonl`, exported to upstream's
 * `results.json` at the end). Ctrl-C keeps finished work and prints the
 * command that resumes the run (exit 130). `--save-to` an existing results
 * file without a checkpoint (for example one upstream's `tau2 run` wrote)
 * continues that run once its settings are checked; the original is backed up.
 */
import { basename, isAbsolute, relative, resolve } from "node:path";
import { createInterface } from "node:readline";
import type { Command } from "commander";
import { UsageError } from "../../core/errors.ts";
import { isTau1DomainName } from "../../domains/tau1/index.ts";
import { loadPriceTable } from "../../llm/index.ts";
import {
  type EvaluationOptions,
  llmFactory,
  type LlmSettings,
  runEvaluation,
  type UntilDecidedOptions,
} from "../../runner/evaluate.ts";
import { isModulePath } from "../../runner/participant-module.ts";
import type { ModelUse } from "../../runner/run-clients.ts";
import type { ExecutorFactory } from "../../runner/unit-executor.ts";
import { parseTaskIds, splitOption } from "../../runner/task-selection.ts";
import { tau1MetricsLines } from "../../runner/tau1-results.ts";
import { TAU1_DEFAULTS } from "../../runner/tau1-run.ts";
import type { HumanIo } from "../../users/tau1-users.ts";
import { urlAgentFromFlags, urlAgentSpecFromFlags } from "../agent-flags.ts";
import { EXIT_ERROR, EXIT_INTERRUPTED, runExitCode } from "../exit-codes.ts";
import { guardRun, RunFault } from "../run-guard.ts";
import { AGENT_ROLE, explainMissingKey, judgeRole, type ModelRole, USER_ROLE } from "../missing-key.ts";
import {
  DEFAULT_LLM,
  parseIntegerOption,
  parseJsonObjectOption,
  parseModelOption,
  parseFractionOption,
  parseNumberOption,
  resumeCommandFor,
  shellQuote,
} from "../options.ts";
import { progressListener } from "../progress.ts";
import { renderSummary } from "../summary.ts";

/** Raw commander options of `tau run`. */
export interface RunCommandOptions {
  domain: string;
  /** `--task-split-name` (upstream's flag) or `--split` (`tau tasks`'s); default `base`. */
  taskSplitName?: string;
  split?: string;
  taskIds?: string[];
  numTasks?: string;
  numTrials: string;
  /** Default 300 (tau1-*: 10, upstream τ-bench's), applied by the library. */
  seed?: string;
  maxSteps?: string;
  maxErrors: string;
  maxConcurrency: string;
  maxRetries: string;
  retryDelay: string;
  timeout?: string;
  saveTo?: string;
  agent?: string;
  agentUrl?: string;
  agentA2a?: string;
  agentTimeout?: string;
  user?: string;
  /** The original τ-bench's name for `--user` on its domains. */
  userStrategy?: string;
  agentOptions?: string;
  userOptions?: string;
  agentLlm: string;
  userLlm?: string;
  judgeLlm: string;
  judge?: string;
  agentLlmArgs?: string;
  userLlmArgs?: string;
  judgeLlmArgs?: string;
  llmBaseUrl?: string;
  llmCache?: string;
  promptCache: boolean;
  priceTable?: string;
  solo?: boolean;
  dataDir?: string;
  tau1DataDir?: string;
  fewShotDisplaysPath?: string;
  enforceCommunicationProtocol?: boolean;
  progressInterval: string;
  retrievalConfig?: string;
  retrievalConfigKwargs?: string;
  allowChanged?: boolean;
  /** False with `--no-preflight`. */
  preflight?: boolean;
  /** `--against RUN --until-decided`: the sequential comparison with a baseline. */
  against?: string;
  untilDecided?: boolean;
  effect?: string;
  alpha?: string;
  power?: string;
  roundTrials?: string;
  maxTrials?: string;
  /** commander's `--no-policy` (false when given). */
  policy?: boolean;
  workers?: string;
  queue?: string;
}

/** Where `tau run` writes and how it reacts to the terminal (tests pass their own). */
export interface RunCommandIo {
  stdout(line: string): void;
  stderr(line: string): void;
  /** Draw a live bar (else plain lines). */
  isTty: boolean;
  signal?: AbortSignal;
  /** The arguments after `tau` (to print the resume command). */
  argv: readonly string[];
  /** Started through `npx tau`: a clone has no `tau` on the PATH, so the resume command says `npx tau` too. */
  viaNpx?: boolean;
  /** Started as `node bin/tau.js`: the script path as the user typed it, so the resume command starts the same way. */
  script?: string;
  cwd?: string;
  /** The terminal of the original τ-bench `human` user (default: stdin/stdout). */
  human?: HumanIo;
}

/** The `human` user's terminal: the text on stdout, the typed line from stdin (upstream's `input()`). */
function terminalHuman(): HumanIo {
  let lines: AsyncIterator<string> | null = null;
  return {
    async ask(prompt) {
      process.stdout.write(prompt);
      lines ??= createInterface({ input: process.stdin })[Symbol.asyncIterator]();
      const next = await lines.next();
      if (next.done) throw new UsageError("the human user's input ended");
      return next.value;
    },
  };
}

/**
 * Whether this process is `npx tau …` itself. npx sets `npm_lifecycle_event=npx` and puts the quoted
 * bin name in `npm_lifecycle_script`; checking the name keeps `tau` spawned under `npx vitest` out.
 */
export function startedViaNpx(env: Record<string, string | undefined>): boolean {
  return env.npm_lifecycle_event === "npx" && env.npm_lifecycle_script?.replace(/['"]/g, "").trim() === "tau";
}

/** The entry scripts that start tau from a clone (`bin/tau.js`, or the sources' `scripts/tau-from-source.js`). */
const SCRIPT_NAMES = new Set(["tau.js", "tau-from-source.js"]);

/**
 * The script path when this process was started as `node …/bin/tau.js` (then `tau` need not be on
 * the PATH); undefined when started through a `tau` bin link (installed, `npx`). Relative to `cwd`
 * when below it, as a user in a clone types it.
 */
export function startedAsScript(argv1: string | undefined, cwd = process.cwd()): string | undefined {
  if (argv1 === undefined || !SCRIPT_NAMES.has(basename(argv1))) return undefined;
  const path = relative(cwd, argv1);
  return path.startsWith("..") || isAbsolute(path) ? argv1 : path;
}

const SEQUENTIAL_FLAGS = [
  ["against", "--against"],
  ["effect", "--effect"],
  ["alpha", "--alpha"],
  ["power", "--power"],
  ["roundTrials", "--round-trials"],
  ["maxTrials", "--max-trials"],
] as const;

/** `--against RUN --until-decided` and its settings, as the library's {@link UntilDecidedOptions}. */
function untilDecidedFromFlags(options: RunCommandOptions): UntilDecidedOptions | null {
  if (!options.untilDecided) {
    const stray = SEQUENTIAL_FLAGS.filter(([key]) => options[key] !== undefined).map(([, flag]) => flag);
    if (stray.length > 0)
      throw new UsageError(`${stray.join(", ")} go${stray.length === 1 ? "es" : ""} with --until-decided`);
    return null;
  }
  if (options.against === undefined)
    throw new UsageError("--until-decided needs --against RUN (the baseline run to compare with)");
  if (options.effect === undefined)
    throw new UsageError("--until-decided needs --effect D (the difference in pass^1 to detect, e.g. 0.1)");
  return {
    against: options.against,
    effect: parseFractionOption("--effect", options.effect, true),
    ...(options.alpha !== undefined ? { alpha: parseFractionOption("--alpha", options.alpha) } : {}),
    ...(options.power !== undefined ? { power: parseFractionOption("--power", options.power) } : {}),
    ...(options.roundTrials !== undefined
      ? { roundTrials: parseIntegerOption("--round-trials", options.roundTrials, 1) }
      : {}),
    ...(options.maxTrials !== undefined
      ? { maxTrials: parseIntegerOption("--max-trials", options.maxTrials, 1) }
      : {}),
  };
}

/** Turns the flags into the library's {@link EvaluationOptions} (all validation errors are one-line usage errors). */
export function evaluationOptionsFromFlags(
  options: RunCommandOptions,
  io: Pick<RunCommandIo, "argv" | "cwd" | "viaNpx" | "script">,
): EvaluationOptions {
  // An agent behind a URL is a definition of its adapter's (`--agent-url`, `--agent-a2a`).
  const urlAgent = urlAgentFromFlags(options, process.env);
  const judgeText = options.judge ?? options.judgeLlm;
  const llm: LlmSettings = {
    ...(options.llmBaseUrl !== undefined ? { localBaseUrl: options.llmBaseUrl } : {}),
    ...(options.llmCache ? { cacheDir: options.llmCache } : {}),
    ...(options.priceTable ? { priceTable: loadPriceTable(options.priceTable) } : {}),
    promptCache: options.promptCache,
  };
  const jsonArgs = (flag: string, text: string | undefined) =>
    text ? { value: parseJsonObjectOption(flag, text) } : null;
  const agentLlmArgs = jsonArgs("--agent-llm-args", options.agentLlmArgs);
  const userLlmArgs = jsonArgs("--user-llm-args", options.userLlmArgs);
  const judgeLlmArgs = jsonArgs("--judge-llm-args", options.judgeLlmArgs);
  const untilDecided = untilDecidedFromFlags(options);
  // The original τ-bench domains read their own data folder; the library applies their defaults.
  const tau1 = isTau1DomainName(options.domain);
  const dataDir = tau1 ? options.tau1DataDir : options.dataDir;
  if (
    options.userStrategy !== undefined &&
    options.user !== undefined &&
    options.userStrategy !== options.user
  )
    throw new UsageError("--user and --user-strategy name the same thing; pass one of them");
  const user = options.userStrategy ?? options.user;
  const optional = <K extends string, V>(key: K, value: V | undefined) =>
    (value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;
  return {
    domain: options.domain,
    ...optional("dataDir", dataDir),
    split: splitOption(options) ?? "base",
    ...(options.taskIds !== undefined ? { taskIds: parseTaskIds(options.taskIds) } : {}),
    ...(options.numTasks !== undefined
      ? { numTasks: parseIntegerOption("--num-tasks", options.numTasks, 1) }
      : {}),
    // With --until-decided the rounds set the trials per task.
    ...(untilDecided
      ? { untilDecided }
      : { numTrials: parseIntegerOption("--num-trials", options.numTrials, 1) }),
    ...optional(
      "seed",
      options.seed === undefined
        ? undefined
        : parseIntegerOption("--seed", options.seed, Number.MIN_SAFE_INTEGER),
    ),
    ...optional(
      "maxSteps",
      options.maxSteps === undefined ? undefined : parseIntegerOption("--max-steps", options.maxSteps, 1),
    ),
    maxErrors: parseIntegerOption("--max-errors", options.maxErrors, 1),
    maxConcurrency: parseIntegerOption("--max-concurrency", options.maxConcurrency, 1),
    maxRetries: parseIntegerOption("--max-retries", options.maxRetries, 0),
    retryDelayMs: parseNumberOption("--retry-delay", options.retryDelay) * 1000,
    // 0 s would end every simulation at its first step as a timeout (scored 0); no limit is the default.
    timeoutMs:
      options.timeout === undefined
        ? null
        : parseNumberOption("--timeout", options.timeout, { positive: true }) * 1000,
    ...(options.saveTo !== undefined ? { saveTo: options.saveTo } : {}),
    ...(options.allowChanged ? { allowChanged: true } : {}),
    preflight: options.preflight !== false,
    ...(io.cwd ? { cwd: io.cwd } : {}),
    ...optional("agent", urlAgent ?? options.agent),
    ...optional("user", user),
    ...(options.agentOptions !== undefined
      ? { agentOptions: parseJsonObjectOption("--agent-options", options.agentOptions) }
      : {}),
    ...(options.userOptions !== undefined
      ? { userOptions: parseJsonObjectOption("--user-options", options.userOptions) }
      : {}),
    agentLlm: parseModelOption("--agent-llm", options.agentLlm),
    ...optional(
      "userLlm",
      options.userLlm === undefined ? undefined : parseModelOption("--user-llm", options.userLlm),
    ),
    judge: judgeText.trim() === "none" ? null : parseModelOption("--judge", judgeText),
    ...(agentLlmArgs ? { agentLlmArgs: agentLlmArgs.value } : {}),
    ...(userLlmArgs ? { userLlmArgs: userLlmArgs.value } : {}),
    ...(judgeLlmArgs ? { judgeLlmArgs: judgeLlmArgs.value } : {}),
    ...(options.solo ? { solo: true } : {}),
    enforceCommunicationProtocol: options.enforceCommunicationProtocol ?? false,
    retrievalConfig: options.retrievalConfig ?? null,
    retrievalConfigKwargs: options.retrievalConfigKwargs
      ? parseJsonObjectOption("--retrieval-config-kwargs", options.retrievalConfigKwargs)
      : null,
    ...(options.policy === false ? { noPolicy: true } : {}),
    ...optional(
      "fewShotDisplaysPath",
      options.fewShotDisplaysPath === undefined ? undefined : resolve(options.fewShotDisplaysPath),
    ),
    llm,
    resumeCommand: (resultsPath) =>
      resumeCommandFor(io.argv, resultsPath, {
        launcher: io.viaNpx ? "npx tau" : io.script ? `node ${shellQuote(io.script)}` : "tau",
      }),
  };
}

/**
 * The roles a missing key is reported for: the runner builds the agent's client, then the user's,
 * then the judge's, so a model the judge shares with the agent or user is named for them alone.
 */
function rolesFor(uses: readonly ModelUse[], judgeFlag: string): ModelRole[] {
  const roles: ModelRole[] = [];
  if (uses.includes("agent")) roles.push(AGENT_ROLE);
  if (uses.includes("user")) roles.push(USER_ROLE);
  if (roles.length === 0 && uses.includes("judge")) roles.push(judgeRole(judgeFlag));
  return roles;
}

/** Runs `tau run` and returns the exit code (see {@link runExitCode}: 0, 3, 4 or 130). */
export async function runCommand(options: RunCommandOptions, io: RunCommandIo): Promise<number> {
  const evaluation = evaluationOptionsFromFlags(options, io);
  const progressIntervalMs = parseNumberOption("--progress-interval", options.progressInterval) * 1000;
  const judgeFlag = options.judge === undefined ? "--judge-llm" : "--judge";
  const factory = llmFactory(evaluation.llm);
  const showProgress = progressListener({
    isTty: io.isTty,
    write: io.stderr,
    intervalMs: progressIntervalMs,
  });
  const result = await runEvaluation({
    ...evaluation,
    ...(await executorFromFlags(options, evaluation)),
    createLlm: (model, onEvent, uses) => {
      try {
        return factory.createLlm(model, onEvent, uses);
      } catch (error) {
        throw explainMissingKey(error, model, rolesFor(uses, judgeFlag));
      }
    },
    onEvent: (event) => {
      if (event.type === "note") io.stderr(event.message);
      else showProgress(event);
    },
    ...(io.signal ? { signal: io.signal } : {}),
    ...(isTau1DomainName(evaluation.domain) && evaluation.user === "human"
      ? { humanUser: io.human ?? terminalHuman() }
      : {}),
  });
  io.stdout(
    renderSummary({
      info: result.info,
      tasks: result.tasks,
      simulations: result.simulations,
      metrics: result.metrics,
    }),
  );
  if (isTau1DomainName(evaluation.domain))
    for (const line of tau1MetricsLines(result.simulations)) io.stdout(line);
  io.stdout("");
  io.stdout(`Results: ${result.resultsPath}`);
  io.stdout(`Checkpoint: ${result.checkpointPath}`);
  const fault = io.signal?.reason instanceof RunFault ? io.signal.reason : null;
  if (fault) {
    io.stderr(`tau: ${fault.message}`);
    io.stderr(
      `Stopped the run: ${result.ranNow} simulation(s) finished in this session are saved. Fix the cause, then resume with:\n  ${result.resumeCommand}`,
    );
    return EXIT_ERROR;
  }
  if (result.stoppedBy) {
    io.stderr(`tau: ${result.stoppedBy.message}`);
    io.stderr(
      `Stopped the run: this error would repeat for every simulation. ${result.ranNow} simulation(s) finished in this session are saved. Fix the cause, then resume with:\n  ${result.resumeCommand}`,
    );
  } else if (result.interrupted) {
    io.stderr(
      `Interrupted: ${result.ranNow} simulation(s) finished in this session are saved. Resume with:\n  ${result.resumeCommand}`,
    );
  } else {
    const infra = result.simulations.filter((s) => s.termination_reason === "infrastructure_error").length;
    if (infra > 0)
      io.stderr(
        `${infra} of ${result.simulations.length} simulation(s) ended in an infrastructure error and are not evaluated (left out of pass^k); resume to re-run them:\n  ${result.resumeCommand}`,
      );
  }
  return runExitCode(result);
}

/**
 * `--workers N` (local processes) or `--queue URL` (`tau worker`s): where the units run. The worker
 * layer is loaded only then, so a run without them pays nothing for it (nor for BullMQ).
 */
async function executorFromFlags(
  options: RunCommandOptions,
  evaluation: EvaluationOptions,
): Promise<{ executor?: ExecutorFactory }> {
  if (options.workers !== undefined && options.queue !== undefined)
    throw new UsageError(
      "--workers and --queue exclude each other (queue workers are started with tau worker)",
    );
  const llm = evaluation.llm ?? {};
  // An agent behind a URL travels as its spec: each worker calls the URL itself.
  const agent = urlAgentSpecFromFlags(options);
  const withAgent = agent === null ? {} : { agent };
  if (options.queue !== undefined) {
    const { queueExecutor } = await import("../../worker/queue.ts");
    return { executor: queueExecutor(options.queue, llm, withAgent) };
  }
  if (options.workers === undefined) return {};
  const count = parseIntegerOption("--workers", options.workers, 1);
  if (count === 1) return {};
  const { localWorkers } = await import("../../worker/local-pool.ts");
  return { executor: localWorkers(count, llm, withAgent) };
}

/** Registers `tau run`. */
export function registerRunCommand(program: Command): void {
  program
    .command("run")
    .description("run a domain's tasks with an agent and a user simulator; resumable, crash-safe results")
    .requiredOption("-d, --domain <name>", "domain to run")
    .option("--task-split-name <name>", "task split (default: base)")
    .option("--split <name>", "same as --task-split-name")
    .option("--task-ids <ids...>", "only these task ids (comma or space separated)")
    .option("--num-tasks <n>", "only the first N tasks (after the split and --task-ids)")
    .option("--num-trials <n>", "trials per task", "1")
    .option(
      "--seed <n>",
      "run seed (trial seeds are drawn from it as upstream does; default 300, tau1-*: 10)",
    )
    .option(
      "--max-steps <n>",
      "steps before a simulation stops (default 200, every hop counts; tau1-*: 30 agent model calls)",
    )
    .option("--max-errors <n>", "failed tool calls before a simulation stops (cumulative)", "10")
    .option("--max-concurrency <n>", "simulations in flight at once", "3")
    .option(
      "--max-retries <n>",
      "re-runs of a simulation that raised, before it is recorded as an infrastructure error",
      "3",
    )
    .option("--retry-delay <seconds>", "pause before re-running a simulation", "1.0")
    .option(
      "--timeout <seconds>",
      "wall-clock limit per simulation, checked between steps as upstream does; on τ² domains a call still running 60 s past it is abandoned",
    )
    .option(
      "--save-to <name|file.json>",
      "run name (saved under ./runs/NAME/) or a results path ending in .json; an existing run there is resumed, an upstream results.json included (backed up to .bak)",
    )
    .option(
      "--agent <name|file>",
      "agent: a built-in name (default llm_agent; tau1-*: tool-calling, act, react or few-shot, default tool-calling), or a module whose default export is an agent definition (./my-agent.ts, .js, .mjs)",
    )
    .option(
      "--user <name|file>",
      "user: a built-in name (default user_simulator; tau1-*: llm, react, verify, reflection or human, default llm), or a module exporting a user definition",
    )
    .option("--user-strategy <name>", "tau1-*: the user strategy (the same as --user)")
    .option(
      "--agent-url <base-url>",
      "an agent service speaking OpenAI Chat Completions (docs/agent-protocol.md)",
    )
    .option("--agent-a2a <url>", "an agent speaking A2A (docs/agent-protocol.md)")
    .option("--agent-timeout <seconds>", "limit per call to a --agent-url / --agent-a2a agent (default 600)")
    .option("--agent-options <json>", "options given to the agent's definition (a JSON object)")
    .option("--user-options <json>", "options given to the user's definition (a JSON object)")
    .option("--agent-llm <provider/model>", "agent model", DEFAULT_LLM)
    .option(
      "--user-llm <provider/model>",
      `user simulator model (default ${DEFAULT_LLM}; tau1-*: ${TAU1_DEFAULTS.userLlm})`,
    )
    .option("--judge-llm <provider/model>", "NL-assertion judge model", DEFAULT_LLM)
    .option("--judge <provider/model|none>", "NL-assertion judge; 'none' leaves NL assertions unevaluated")
    .option("--agent-llm-args <json>", 'agent model arguments; replaces the default {"temperature": 0.0}')
    .option(
      "--user-llm-args <json>",
      'user model arguments; replaces the default {"temperature": 0.0} (tau1-*: {}, the provider\'s default)',
    )
    .option("--judge-llm-args <json>", 'judge model arguments; replaces the default {"temperature": 0.0}')
    .option(
      "--llm-base-url <url>",
      "endpoint of the OpenAI-compatible server for local/… models (default TAU_LLM_BASE_URL); other providers keep their own endpoints (OPENAI_BASE_URL, ANTHROPIC_BASE_URL, …)",
    )
    .option("--llm-cache <dir>", "SQLite response cache folder (replays identical requests offline)")
    .option("--no-prompt-cache", "do not ask the provider to cache prompt prefixes")
    .option("--price-table <file>", "JSON price table for cost accounting")
    .option("--solo", "solo mode (normally inferred from the agent)")
    .option("--data-dir <dir>", "data folder (default: TAU_DATA_DIR or the pulled cache)")
    .option(
      "--no-preflight",
      "skip the check that each model endpoint answers (one short call each) before the first simulation",
    )
    .option(
      "--allow-changed",
      "resume although the data files, policy, agent instructions or tasks changed since the run started (recorded in the results)",
    )
    .option(
      "--tau1-data-dir <dir>",
      "original τ-bench data folder, for tau1-* domains (default: TAU1_DATA_DIR or the pulled cache)",
    )
    .option(
      "--few-shot-displays-path <file>",
      "tau1-* few-shot agent: the example dialogues (JSONL; default: the data folder's file for the domain)",
    )
    .option("--enforce-communication-protocol", "turn protocol violations into agent_error / user_error")
    .option(
      "--no-policy",
      "ablation (τ-bench Table 3): the agent gets no policy document; recorded in the results",
    )
    .option(
      "--retrieval-config <name>",
      "banking_knowledge: the agent's knowledge-base tools and policy (default alltools; offline: bm25, bm25_grep, grep_only, no_knowledge, full_kb, golden_retrieval)",
    )
    .option(
      "--retrieval-config-kwargs <json>",
      'banking_knowledge: overrides such as {"top_k": 5, "grep_top_k": 10, "case_sensitive": false, "reranker_min_score": 5}',
    )
    .option(
      "--against <run>",
      "with --until-decided: the baseline run (name, folder or file) to compare this run's pass^1 with",
    )
    .option(
      "--until-decided",
      "add trials in rounds until a sequential test decides the difference with --against (docs/statistics.md); sets the trials itself, --num-trials is ignored",
    )
    .option("--effect <d>", "with --until-decided: the difference in pass^1 to detect")
    .option("--alpha <p>", "with --until-decided: two-sided significance level (default 0.05)")
    .option("--power <p>", "with --until-decided: power against --effect (default 0.8)")
    .option(
      "--round-trials <n>",
      "with --until-decided: trials per task each round adds (default a fifth of the planned trials)",
    )
    .option("--max-trials <n>", "with --until-decided: most trials per task the run may reach")
    .option(
      "--workers <n>",
      "spread simulations over N local processes, one core each: this one and N-1 workers; default 1, this process only",
    )
    .option(
      "--queue <redis-url>",
      "enqueue the simulations on Redis (redis://HOST:PORT/DB) for `tau worker`s on any machine; this process coordinates and writes the results, and --max-concurrency and the per-provider limits are the whole fleet's (docs/scale.md)",
    )
    .option(
      "--progress-interval <seconds>",
      "seconds between plain progress lines when not on a terminal",
      "30",
    )
    .action(async (options: RunCommandOptions) => {
      const controller = new AbortController();
      let interrupts = 0;
      const onSigint = () => {
        interrupts++;
        if (interrupts > 1) process.exit(130);
        console.error(
          "\nStopping: no new simulations start; finished ones are kept (Ctrl-C again to quit now)",
        );
        controller.abort(new Error("interrupted"));
      };
      process.on("SIGINT", onSigint);
      const modules = [options.agent, options.user].filter(
        (spec): spec is string => spec !== undefined && isModulePath(spec),
      );
      const unguard = guardRun(controller, modules);
      try {
        const code = await runCommand(options, {
          stdout: (line) => console.log(line),
          stderr: (line) => console.error(line),
          // A live bar only when both streams are a terminal (`tau run | tee log` gets plain lines).
          isTty: Boolean(process.stdout.isTTY && process.stderr.isTTY),
          signal: controller.signal,
          argv: process.argv.slice(2),
          viaNpx: startedViaNpx(process.env),
          script: startedAsScript(process.argv[1]),
        });
        // Abandoned simulations (or a module's stray timers) may still hold the process open; leave
        // now that finished work is on disk.
        if (code === EXIT_INTERRUPTED || controller.signal.reason instanceof RunFault) process.exit(code);
        process.exitCode = code;
      } finally {
        unguard();
        process.off("SIGINT", onSigint);
      }
    });
}
