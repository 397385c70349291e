/**
 * `tau mcp --domain D --task ID`: serve one episode over MCP (stdio by
 * default, Streamable HTTP on 127.0.0.1 with `--http`). The user simulator
 * runs here; the graded simulation is written like a `tau run` of that one
 * task, and the command exits once the client got the grading.
 */
import { basename } from "node:path";
import type { Command } from "commander";
import { resolveDataDir } from "../../domains/data-dir.ts";
import { createLlmClient, providerKey } from "../../llm/index.ts";
import { serveEpisode } from "../../mcp/serve.ts";
import {
  DEFAULT_LLM,
  defaultLlmArgs,
  parseIntegerOption,
  parsePortOption,
  parseJsonObjectOption,
  parseModelOption,
  requireTau2Domain,
} from "../options.ts";
import { isModulePath } from "../../runner/participant-module.ts";
import { defaultRunName, resolveResultsPath } from "../../runner/run-paths.ts";
import { getUserDefinition } from "../../users/registry.ts";
import { localBaseUrl } from "../../llm/local-base-url.ts";
import { explainMissingKey, judgeRole, USER_ROLE } from "../missing-key.ts";

/** Raw commander options of `tau mcp`. */
export interface McpCommandOptions {
  domain: string;
  task: string;
  user: string;
  userLlm: string;
  userLlmArgs?: string;
  judge: string;
  seed: string;
  maxSteps: string;
  maxErrors: string;
  saveTo?: string;
  dataDir?: string;
  llmBaseUrl?: string;
  http?: boolean;
  port: string;
}

/** Runs `tau mcp`; resolves with the exit code once the episode is graded and reported. */
export async function mcpCommand(options: McpCommandOptions, log: (line: string) => void): Promise<number> {
  requireTau2Domain("tau mcp", options.domain);
  const dataDir = resolveDataDir(options.dataDir);
  const userLlm = parseModelOption("--user-llm", options.userLlm);
  const judgeLlm = options.judge.trim() === "none" ? null : parseModelOption("--judge", options.judge);
  // A module is loaded by the runner (it knows whether it needs a model); a name is checked here.
  const user = isModulePath(options.user) ? null : getUserDefinition(options.user);
  const userModel = user === null || user.needsLlm ? userLlm : null;
  const saveTo =
    options.saveTo ??
    defaultRunName({
      domain: options.domain,
      agent: "mcp_client",
      agentLlm: null,
      user: user?.name ?? basename(options.user).replace(/\.[cm]?[jt]s$/, ""),
      userLlm: userModel,
    });
  const served = await serveEpisode({
    config: {
      domain: options.domain,
      dataDir,
      split: null,
      taskIds: [options.task],
      numTrials: 1,
      seed: parseIntegerOption("--seed", options.seed, Number.MIN_SAFE_INTEGER),
      maxSteps: parseIntegerOption("--max-steps", options.maxSteps, 1),
      maxErrors: parseIntegerOption("--max-errors", options.maxErrors, 1),
      maxConcurrency: 1,
      maxRetries: 0,
      retryDelayMs: 0,
      timeoutMs: null,
      user: options.user,
      agentLlm: DEFAULT_LLM,
      userLlm,
      judgeLlm,
      agentLlmArgs: {},
      userLlmArgs: options.userLlmArgs
        ? parseJsonObjectOption("--user-llm-args", options.userLlmArgs)
        : defaultLlmArgs(),
      judgeLlmArgs: defaultLlmArgs(),
      enforceCommunicationProtocol: false,
      resultsPath: resolveResultsPath(saveTo, { dataDir }),
    },
    deps: {
      createLlm: (model, onEvent) => {
        try {
          return createLlmClient(model, { ...localBaseUrl(model, options.llmBaseUrl), onEvent });
        } catch (error) {
          throw explainMissingKey(error, model, model === userLlm ? [USER_ROLE] : [judgeRole("--judge")]);
        }
      },
      providerKey,
      onEvent: (event) => {
        if (event.type === "note") log(event.message);
      },
    },
    transport: options.http
      ? { kind: "http", port: parsePortOption("--port", options.port) }
      : { kind: "stdio" },
    log,
  });
  if (options.http) log(`MCP endpoint: ${served.endpoint}`);
  try {
    const graded = await served.graded;
    await served.done;
    const reward = graded.simulation.reward_info?.reward;
    log(
      `Episode over (${graded.simulation.termination_reason}), reward ${reward ?? "n/a"}. Results: ${graded.resultsPath}`,
    );
    return 0;
  } finally {
    await served.close();
  }
}

/** Registers `tau mcp`. */
export function registerMcpCommand(program: Command): void {
  program
    .command("mcp")
    .description(
      "serve one episode of a task over MCP (stdio, or Streamable HTTP on 127.0.0.1 with --http): the domain tools, a tool to talk to the simulated user, and the grading at the end",
    )
    .requiredOption("-d, --domain <name>", "domain")
    .requiredOption("--task <id>", "the task to serve")
    .option(
      "--user <name|file>",
      "user implementation (runs here): a built-in name or a module file",
      "user_simulator",
    )
    .option("--user-llm <provider/model>", "user simulator model", DEFAULT_LLM)
    .option("--user-llm-args <json>", 'user model arguments; replaces the default {"temperature": 0.0}')
    .option("--judge <provider/model|none>", "NL-assertion judge (retail)", DEFAULT_LLM)
    .option("--seed <n>", "run seed (the trial seed is drawn from it as in tau run)", "300")
    .option("--max-steps <n>", "steps before the episode stops (every hop counts)", "200")
    .option("--max-errors <n>", "failed tool calls before the episode stops", "10")
    .option(
      "--save-to <name|file.json>",
      "run name (saved under ./runs/NAME/) or a results path ending in .json",
    )
    .option("--data-dir <dir>", "data folder (default: TAU_DATA_DIR or the pulled cache)")
    .option("--llm-base-url <url>", "endpoint of the OpenAI-compatible server for local/… user models")
    .option("--http", "serve Streamable HTTP on 127.0.0.1 instead of stdio")
    .option("--port <n>", "port for --http (0 = any free port, printed on stderr)", "0")
    .action(async (options: McpCommandOptions) => {
      // stdout belongs to the protocol under stdio: every line of ours goes to stderr.
      process.exitCode = await mcpCommand(options, (line) => console.error(line));
    });
}
