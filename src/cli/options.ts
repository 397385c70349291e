/**
 * Parsing of command-line values for the run commands, with one-line
 * {@link UsageError}s that name the flag (no commander dependency, so the
 * rules are testable on their own).
 */
import { UsageError } from "../core/errors.ts";
import { parsePyJson } from "../core/py-json.ts";
import { isTau1DomainName } from "../domains/tau1/index.ts";
import { DEFAULT_LLM } from "../runner/plan.ts";

export { DEFAULT_LLM, defaultLlmArgs } from "../runner/plan.ts";

/** An integer flag value, at least `min`. */
export function parseIntegerOption(flag: string, value: string | number, min = 0): number {
  const text = String(value).trim();
  const n = /^[+-]?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min)
    throw new UsageError(
      `${flag} must be an integer${min > 0 ? ` ≥ ${min}` : min === 0 ? " ≥ 0" : ""}, got '${text}'`,
    );
  return n;
}

/** Refuses an original τ-bench domain for a command built on the τ² environments (before any data folder is looked for). */
export function requireTau2Domain(command: string, domain: string): void {
  if (isTau1DomainName(domain))
    throw new UsageError(
      `${command} supports the τ²-bench domains only; ${domain} is an original τ-bench domain (tau run, tau replay and tau tasks take it)`,
    );
}

/** A TCP port flag value: 0 (any free port) to 65535. */
export function parsePortOption(flag: string, value: string | number): number {
  const port = parseIntegerOption(flag, value, 0);
  if (port > 65535) throw new UsageError(`${flag} must be a port number from 0 to 65535, got '${port}'`);
  return port;
}

/** A non-negative number flag value (seconds and the like); `positive` also refuses 0. */
export function parseNumberOption(
  flag: string,
  value: string | number,
  options: { positive?: boolean } = {},
): number {
  const text = String(value).trim();
  const n = text === "" ? Number.NaN : Number(text);
  if (!Number.isFinite(n) || n < 0 || (options.positive && n === 0))
    throw new UsageError(
      `${flag} must be a ${options.positive ? "positive" : "non-negative"} number, got '${text}'`,
    );
  return n;
}

/** A fraction flag value: strictly between 0 and 1 (`--alpha`, `--power`), or up to 1 with `allowOne` (`--effect`). */
export function parseFractionOption(flag: string, value: string | number, allowOne = false): number {
  const text = String(value).trim();
  const n = text === "" ? Number.NaN : Number(text);
  if (!(n > 0 && (allowOne ? n <= 1 : n < 1)))
    throw new UsageError(
      `${flag} must be a number between 0 and 1${allowOne ? " (1 included)" : ""}, got '${text}'`,
    );
  return n;
}

/** A JSON object flag value (`--agent-llm-args`); it replaces the default dict wholesale, as upstream. */
export function parseJsonObjectOption(flag: string, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parsePyJson(text);
  } catch (error) {
    throw new UsageError(`${flag} must be a JSON object: ${(error as Error).message}`, { cause: error });
  }
  if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof Map)
    throw new UsageError(`${flag} must be a JSON object, got ${text}`);
  return value as Record<string, unknown>;
}

/** A `provider/model` name (the LLM layer checks the provider). */
export function parseModelOption(flag: string, text: string): string {
  const model = text.trim();
  if (!/^[^/\s]+\/\S+$/.test(model))
    throw new UsageError(`${flag} takes provider/model (for example ${DEFAULT_LLM}), got '${text}'`);
  return model;
}

/** Quotes one argument for a copy-pasteable shell command. */
export function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}

/**
 * The command that resumes a run: the same arguments, with `--save-to` pinned to the run's file.
 * `launcher` is what starts tau, already quoted for the shell (`tau`, `npx tau`, `node bin/tau.js`).
 */
export function resumeCommandFor(
  args: readonly string[],
  resultsPath: string,
  { launcher = "tau" }: { launcher?: string } = {},
): string {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--save-to") {
      i++;
      continue;
    }
    if (arg.startsWith("--save-to=")) continue;
    out.push(arg);
  }
  return [launcher, ...[...out, "--save-to", resultsPath].map(shellQuote)].join(" ");
}
