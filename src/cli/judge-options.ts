/**
 * Flags `tau review` and `tau analyze` share: the judge model and its
 * arguments, concurrency, task filter and limit; and the run dependencies
 * that build the judge's client (a missing key names the flag).
 */
import { createLlmClient, providerKey } from "../llm/index.ts";
import { pyDumps } from "../core/py-json.ts";
import type { JudgePassDependencies } from "../analysis/judge-pass.ts";
import { parseIntegerOption, parseJsonObjectOption, parseModelOption } from "./options.ts";
import { parseTaskIds } from "../runner/task-selection.ts";
import { localBaseUrl } from "../llm/local-base-url.ts";
import { explainMissingKey } from "./missing-key.ts";

/** Raw commander options shared by the judge commands. */
export interface JudgeCommandOptions {
  maxConcurrency: string;
  taskIds?: string[];
  limit?: string;
  maxAttempts: string;
  llmBaseUrl?: string;
  llmCache?: string;
}

/** The parsed shared settings. */
export interface JudgeSettings {
  llm: string;
  llmArgs: Record<string, unknown>;
  maxConcurrency: number;
  taskIds: string[] | null;
  limit: number | null;
  maxAttempts: number;
}

/** Parses the shared flags; `modelFlag` names the model option of the command. */
export function judgeSettings(
  modelFlag: string,
  model: string,
  argsFlag: string,
  args: string | undefined,
  options: JudgeCommandOptions,
): JudgeSettings {
  // Arguments as plain JSON values (0.0 is 0 here): they are compared and stored as JSON.
  const llmArgs = args
    ? (JSON.parse(pyDumps(parseJsonObjectOption(argsFlag, args))) as Record<string, unknown>)
    : {};
  return {
    llm: parseModelOption(modelFlag, model),
    llmArgs,
    maxConcurrency: parseIntegerOption("--max-concurrency", options.maxConcurrency, 1),
    taskIds: parseTaskIds(options.taskIds) ?? null,
    limit: options.limit === undefined ? null : parseIntegerOption("--limit", options.limit, 1),
    maxAttempts: parseIntegerOption("--max-attempts", options.maxAttempts, 1),
  };
}

/** Dependencies building the judge's client for real providers. */
export function judgeDependencies(
  modelFlag: string,
  roleName: string,
  options: JudgeCommandOptions,
  log: (line: string) => void,
  signal?: AbortSignal,
): JudgePassDependencies {
  return {
    createLlm: (model, onEvent) => {
      try {
        return createLlmClient(model, {
          ...localBaseUrl(model, options.llmBaseUrl),
          ...(options.llmCache ? { cacheDir: options.llmCache } : {}),
          onEvent,
        });
      } catch (error) {
        throw explainMissingKey(error, model, [{ name: roleName, flag: modelFlag }]);
      }
    },
    providerKey,
    log,
    ...(signal ? { signal } : {}),
  };
}

/** Adds the shared flags to a command. */
export function addJudgeOptions<T extends { option(flags: string, description: string, value?: string): T }>(
  command: T,
): T {
  return command
    .option("--max-concurrency <n>", "simulations judged at once (per-model adaptive limit below it)", "10")
    .option("--task-ids <ids...>", "only these tasks' simulations")
    .option("--limit <n>", "only the first N selected simulations")
    .option(
      "--max-attempts <n>",
      "judge calls per question before the simulation is recorded as a failure",
      "3",
    )
    .option("--llm-base-url <url>", "endpoint of the OpenAI-compatible server for local/… judge models")
    .option("--llm-cache <dir>", "SQLite response cache folder");
}

/** Where a judge command prints, and the signal Ctrl-C aborts. */
export interface JudgeCommandIo {
  out(line: string): void;
  err(line: string): void;
  signal?: AbortSignal;
}

/** Runs a judge command on the console: Ctrl-C stops it (finished simulations are kept); sets the exit code. */
export async function runJudgeCommand(command: (io: JudgeCommandIo) => Promise<number>): Promise<void> {
  const controller = new AbortController();
  const onSigint = () => controller.abort(new Error("interrupted"));
  process.once("SIGINT", onSigint);
  try {
    process.exitCode = await command({
      out: (line) => console.log(line),
      err: (line) => console.error(line),
      signal: controller.signal,
    });
  } finally {
    process.off("SIGINT", onSigint);
  }
}
