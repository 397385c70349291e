/**
 * `tau run`: run a domain's tasks with an agent and a user, resumable and
 * crash-safe (results stream to `<run>/results.jsonl`, exported to upstream's
 * `results.json` at the end). Ctrl-C keeps finished work and prints the
 * command that resumes the run (exit 130). `--save-to` an existing results
 * file without a checkpoint (for example one upstream's `tau2 run` wrote)
 * continues that run once its settings are checked; the original is backed up.
 */
import { basename, isAbsolute, relative } from "node:path";
import type { Command } from "commander";
import { getAgentDefinition } from "../../agents/registry.ts";
import { resolveDataDir } from "../../domains/data-dir.ts";
import { createLlmClient, loadPriceTable, type PriceTable, providerKey } from "../../llm/index.ts";
import { localBaseUrl } from "../llm-options.ts";
import {
  DEFAULT_LLM,
  defaultLlmArgs,
  parseIntegerOption,
  parseJsonObjectOption,
  parseModelOption,
  parseNumberOption,
  resumeCommandFor,
  shellQuote,
} from "../../runner/cli-options.ts";
import { createProgressRenderer } from "../../runner/progress.ts";
import { executeRun, type RunConfig } from "../../runner/run.ts";
import { defaultRunName, resolveResultsPath } from "../../runner/run-paths.ts";
import { renderSummary } from "../../runner/summary.ts";
import { parseTaskIds, splitOption } from "../../runner/task-selection.ts";
import { getUserDefinition } from "../../users/registry.ts";
import { AGENT_ROLE, explainMissingKey, judgeRole, type ModelRole, USER_ROLE } from "../missing-key.ts";

/** Raw commander options of `tau run`. */
export interface RunCommandOptions {
  domain: string;
  /** `--task-split-name` (upstream's flag) or `--split` (`tau tasks`'s); default `base`. */
  taskSplitName?: string;
  split?: string;
  taskIds?: string[];
  numTasks?: string;
  numTrials: string;
  seed: string;
  maxSteps: string;
  maxErrors: string;
  maxConcurrency: string;
  maxRetries: string;
  retryDelay: string;
  timeout?: string;
  saveTo?: string;
  agent: string;
  user: string;
  agentLlm: string;
  userLlm: string;
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
  enforceCommunicationProtocol?: boolean;
  progressInterval: string;
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
}

/**
 * Whether this process is `npx tau …` itself. npx sets `npm_lifecycle_event=npx` and puts the quoted
 * bin name in `npm_lifecycle_script`; checking the name keeps `tau` spawned under `npx vitest` out.
 */
export function startedViaNpx(env: Record<string, string | undefined>): boolean {
  return env.npm_lifecycle_event === "npx" && env.npm_lifecycle_script?.replace(/['"]/g, "").trim() === "tau";
}

/**
 * The script path when this process was started as `node …/bin/tau.js` (then `tau` need not be on
 * the PATH); undefined when started through a `tau` bin link (installed, `npx`). Relative to `cwd`
 * when below it, as a user in a clone types it.
 */
export function startedAsScript(argv1: string | undefined, cwd = process.cwd()): string | undefined {
  if (argv1 === undefined || basename(argv1) !== "tau.js") return undefined;
  const path = relative(cwd, argv1);
  return path.startsWith("..") || isAbsolute(path) ? argv1 : path;
}

/** Turns the flags into a {@link RunConfig} (all validation errors are one-line usage errors). */
export function runConfigFromOptions(
  options: RunCommandOptions,
  io: Pick<RunCommandIo, "argv" | "cwd" | "viaNpx" | "script">,
): RunConfig {
  const dataDir = resolveDataDir(options.dataDir);
  const agentLlm = parseModelOption("--agent-llm", options.agentLlm);
  const userLlm = parseModelOption("--user-llm", options.userLlm);
  const judgeText = options.judge ?? options.judgeLlm;
  const judgeLlm = judgeText.trim() === "none" ? null : parseModelOption("--judge", judgeText);
  // Offline participants (replay, scripted, dummy) use no model, so the name leaves their model out.
  const saveTo =
    options.saveTo ??
    defaultRunName({
      domain: options.domain,
      agent: options.agent,
      agentLlm: getAgentDefinition(options.agent).needsLlm ? agentLlm : null,
      user: options.user,
      userLlm: getUserDefinition(options.user).needsLlm ? userLlm : null,
    });
  const resultsPath = resolveResultsPath(saveTo, { dataDir, ...(io.cwd ? { cwd: io.cwd } : {}) });
  return {
    domain: options.domain,
    dataDir,
    split: splitOption(options) ?? "base",
    taskIds: parseTaskIds(options.taskIds),
    numTasks:
      options.numTasks === undefined ? undefined : parseIntegerOption("--num-tasks", options.numTasks, 1),
    numTrials: parseIntegerOption("--num-trials", options.numTrials, 1),
    seed: parseIntegerOption("--seed", options.seed, Number.MIN_SAFE_INTEGER),
    maxSteps: parseIntegerOption("--max-steps", options.maxSteps, 1),
    maxErrors: parseIntegerOption("--max-errors", options.maxErrors, 1),
    maxConcurrency: parseIntegerOption("--max-concurrency", options.maxConcurrency, 1),
    maxRetries: parseIntegerOption("--max-retries", options.maxRetries, 0),
    retryDelayMs: parseNumberOption("--retry-delay", options.retryDelay) * 1000,
    // 0 s would end every simulation at its first step as a timeout (scored 0); no limit is the default.
    timeoutMs:
      options.timeout === undefined
        ? null
        : parseNumberOption("--timeout", options.timeout, { positive: true }) * 1000,
    agent: options.agent,
    user: options.user,
    agentLlm,
    userLlm,
    judgeLlm,
    agentLlmArgs: options.agentLlmArgs
      ? parseJsonObjectOption("--agent-llm-args", options.agentLlmArgs)
      : defaultLlmArgs(),
    userLlmArgs: options.userLlmArgs
      ? parseJsonObjectOption("--user-llm-args", options.userLlmArgs)
      : defaultLlmArgs(),
    judgeLlmArgs: options.judgeLlmArgs
      ? parseJsonObjectOption("--judge-llm-args", options.judgeLlmArgs)
      : defaultLlmArgs(),
    solo: options.solo ? true : undefined,
    enforceCommunicationProtocol: options.enforceCommunicationProtocol ?? false,
    resultsPath,
    resumeCommand: resumeCommandFor(io.argv, resultsPath, {
      launcher: io.viaNpx ? "npx tau" : io.script ? `node ${shellQuote(io.script)}` : "tau",
    }),
  };
}

/** Runs `tau run` and returns the exit code (0; 1 when an error stopped the run; 130 after Ctrl-C). */
export async function runCommand(options: RunCommandOptions, io: RunCommandIo): Promise<number> {
  const config = runConfigFromOptions(options, io);
  const priceTable: PriceTable | undefined = options.priceTable
    ? loadPriceTable(options.priceTable)
    : undefined;
  const progressIntervalMs = parseNumberOption("--progress-interval", options.progressInterval) * 1000;
  // The runner builds the agent's client, then the user's, then the judge's: a model shared with the
  // agent or user fails there first, so the judge is named only when it alone uses the model.
  const rolesOf = (model: string): ModelRole[] => {
    const roles: ModelRole[] = [];
    if (getAgentDefinition(config.agent).needsLlm && config.agentLlm === model) roles.push(AGENT_ROLE);
    if (getUserDefinition(config.user).needsLlm && config.userLlm === model) roles.push(USER_ROLE);
    if (roles.length === 0 && config.judgeLlm === model)
      roles.push(judgeRole(options.judge === undefined ? "--judge-llm" : "--judge"));
    return roles;
  };
  const outcome = await executeRun(config, {
    createLlm: (model, onEvent) => {
      try {
        return createLlmClient(model, {
          ...localBaseUrl(model, options.llmBaseUrl),
          ...(options.llmCache ? { cacheDir: options.llmCache } : {}),
          ...(priceTable ? { priceTable } : {}),
          promptCache: options.promptCache,
          onEvent,
        });
      } catch (error) {
        throw explainMissingKey(error, model, rolesOf(model));
      }
    },
    providerKey,
    createProgress: (progress) =>
      createProgressRenderer(progress, { isTty: io.isTty, write: io.stderr, intervalMs: progressIntervalMs }),
    log: io.stderr,
    ...(io.signal ? { signal: io.signal } : {}),
  });
  io.stdout(renderSummary({ info: outcome.info, tasks: outcome.tasks, simulations: outcome.simulations }));
  io.stdout("");
  io.stdout(`Results: ${outcome.resultsPath}`);
  io.stdout(`Checkpoint: ${outcome.checkpointPath}`);
  if (outcome.stoppedBy) {
    io.stderr(`tau: ${outcome.stoppedBy.message}`);
    io.stderr(
      `Stopped the run: this error would repeat for every simulation. ${outcome.ranNow} simulation(s) finished in this session are saved. Fix the cause, then resume with:\n  ${config.resumeCommand}`,
    );
    return 1;
  }
  if (outcome.interrupted) {
    io.stderr(
      `Interrupted: ${outcome.ranNow} simulation(s) finished in this session are saved. Resume with:\n  ${config.resumeCommand}`,
    );
    return 130;
  }
  return 0;
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
    .option("--seed <n>", "run seed (trial seeds are drawn from it as upstream does)", "300")
    .option("--max-steps <n>", "steps before a simulation stops (every hop counts)", "200")
    .option("--max-errors <n>", "failed tool calls before a simulation stops (cumulative)", "10")
    .option("--max-concurrency <n>", "simulations in flight at once", "3")
    .option(
      "--max-retries <n>",
      "re-runs of a simulation that raised, before it is recorded as an infrastructure error",
      "3",
    )
    .option("--retry-delay <seconds>", "pause before re-running a simulation", "1.0")
    .option("--timeout <seconds>", "wall-clock limit per simulation")
    .option(
      "--save-to <name|file.json>",
      "run name (saved under ./runs/NAME/) or a results path ending in .json; an existing run there is resumed, an upstream results.json included (backed up to .bak)",
    )
    .option("--agent <name>", "agent implementation", "llm_agent")
    .option("--user <name>", "user implementation", "user_simulator")
    .option("--agent-llm <provider/model>", "agent model", DEFAULT_LLM)
    .option("--user-llm <provider/model>", "user simulator model", DEFAULT_LLM)
    .option("--judge-llm <provider/model>", "NL-assertion judge model", DEFAULT_LLM)
    .option("--judge <provider/model|none>", "NL-assertion judge; 'none' leaves NL assertions unevaluated")
    .option("--agent-llm-args <json>", 'agent model arguments; replaces the default {"temperature": 0.0}')
    .option("--user-llm-args <json>", 'user model arguments; replaces the default {"temperature": 0.0}')
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
    .option("--enforce-communication-protocol", "turn protocol violations into agent_error / user_error")
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
        // Abandoned simulations may still hold sockets open; leave now that finished work is on disk.
        if (code === 130) process.exit(130);
        process.exitCode = code;
      } finally {
        process.off("SIGINT", onSigint);
      }
    });
}
