/**
 * `tau tool --domain D [--task ID] [--retrieval-config C] NAME ['{json}']`:
 * calls one tool on a task's initial state (or a fresh environment) and
 * prints exactly the tool message the agent would receive, for debugging a
 * task and for checking tool outputs against upstream's.
 */
import type { Command } from "commander";
import { UsageError } from "../../core/errors.ts";
import type { ToolMessage } from "../../core/messages.ts";
import { PyFloat, parsePyJson, PyJsonSyntaxError } from "../../core/py-json.ts";
import { resolveDataDir } from "../../domains/data-dir.ts";
import { configureDomain, loadDomain } from "../../domains/registry.ts";
import type { Domain } from "../../domains/types.ts";
import { applyInitialState } from "../../evaluation/gold.ts";
import { createLlmClient } from "../../llm/index.ts";
import { createRetrievalServices } from "../../runner/retrieval-services.ts";
import { requireTau2Domain } from "../options.ts";

/** Options of {@link toolMessage}. */
export interface ToolCallOptions {
  domain: Domain;
  /** The task whose initial state the call runs on (none: a fresh environment). */
  taskId?: string | undefined;
  name: string;
  /** The arguments as the model would write them (a JSON object). */
  argumentsJson?: string | undefined;
  /** Call as the user simulator (its toolkit) instead of the agent. */
  asUser?: boolean;
  signal?: AbortSignal;
}

/** The tool message for one call (what the orchestrator would append to the trajectory). */
export async function toolMessage(options: ToolCallOptions): Promise<ToolMessage> {
  const { domain } = options;
  const task = options.taskId === undefined ? undefined : domain.tasks().find((t) => t.id === options.taskId);
  if (options.taskId !== undefined && !task)
    throw new UsageError(`Unknown task id for domain '${domain.name}': ${options.taskId}`);
  let args: unknown = {};
  if (options.argumentsJson !== undefined) {
    try {
      args = parsePyJson(options.argumentsJson);
    } catch (error) {
      if (error instanceof PyJsonSyntaxError)
        throw new UsageError(`The tool arguments are not valid JSON: ${error.message}`, { cause: error });
      throw error;
    }
    if (args === null || typeof args !== "object" || Array.isArray(args) || args instanceof PyFloat)
      throw new UsageError(`The tool arguments must be a JSON object, got ${options.argumentsJson}`);
  }
  const env = domain.makeEnvironment({ task: task ?? null });
  if (task) applyInitialState(env, task);
  const toolkit = options.asUser ? env.userTools : env.tools;
  if (!toolkit?.hasTool(options.name)) {
    const offered = toolkit?.offeredTools().map((tool) => tool.name) ?? [];
    throw new UsageError(
      `No ${options.asUser ? "user" : "agent"} tool '${options.name}' in domain '${domain.name}'${offered.length > 0 ? ` (tools: ${offered.join(", ")})` : ""}`,
    );
  }
  return env.respond(
    {
      id: "tau_tool",
      name: options.name,
      arguments: args as Record<string, unknown>,
      requestor: options.asUser ? "user" : "assistant",
    },
    options.signal,
  );
}

interface ToolCommandOptions {
  domain: string;
  task?: string;
  retrievalConfig?: string;
  retrievalConfigKwargs?: string;
  user?: boolean;
  json?: boolean;
  dataDir?: string;
}

function parseKwargs(text: string | undefined): Record<string, unknown> | null {
  if (text === undefined) return null;
  let value: unknown;
  try {
    value = parsePyJson(text);
  } catch (error) {
    throw new UsageError(`--retrieval-config-kwargs must be a JSON object: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof PyFloat)
    throw new UsageError(`--retrieval-config-kwargs must be a JSON object, got ${text}`);
  return value as Record<string, unknown>;
}

export function registerToolCommand(program: Command): void {
  program
    .command("tool")
    .description("call one tool on a task's initial state and print the tool message the agent would receive")
    .argument("<name>", "tool name (agent tool; --user for the user's)")
    .argument("[arguments]", "arguments as a JSON object", "{}")
    .requiredOption("--domain <name>", "domain name")
    .option("--task <id>", "run on this task's initial state (default: a fresh environment)")
    .option("--retrieval-config <name>", "banking_knowledge retrieval config (default alltools)")
    .option("--retrieval-config-kwargs <json>", 'banking_knowledge retrieval overrides, e.g. {"top_k": 5}')
    .option("--user", "call the user simulator's tool")
    .option("--json", "print the whole tool message as JSON")
    .option("--data-dir <dir>", "data folder (default: TAU_DATA_DIR or the pulled cache)")
    .action(async (name: string, argumentsJson: string, options: ToolCommandOptions) => {
      requireTau2Domain("tau tool", options.domain);
      const domain = configureDomain(loadDomain(options.domain, resolveDataDir(options.dataDir)), {
        retrievalConfig: options.retrievalConfig ?? null,
        retrievalConfigKwargs: parseKwargs(options.retrievalConfigKwargs),
        services: createRetrievalServices({ createLlm: (model) => createLlmClient(model) }),
      });
      const message = await toolMessage({
        domain,
        taskId: options.task,
        name,
        argumentsJson,
        asUser: options.user ?? false,
      });
      if (options.json) console.log(JSON.stringify(message, null, 2));
      else process.stdout.write(`${message.content ?? ""}\n`);
      // A raised error (`error: true` in the message) exits 1; an error text a tool returns exits 0.
      if (message.error) process.exitCode = 1;
    });
}
