/**
 * Parsing of command-line values for the run commands, with one-line
 * {@link UsageError}s that name the flag (no commander dependency, so the
 * rules are testable on their own).
 */
import { UsageError } from "../core/errors.ts";
import { parsePyJson } from "../core/py-json.ts";
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

/** A non-negative number flag value (seconds and the like). */
export function parseNumberOption(flag: string, value: string | number): number {
  const text = String(value).trim();
  const n = text === "" ? Number.NaN : Number(text);
  if (!Number.isFinite(n) || n < 0)
    throw new UsageError(`${flag} must be a non-negative number, got '${text}'`);
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

/** The command that resumes a run: the same arguments, with `--save-to` pinned to the run's file. */
export function resumeCommandFor(args: readonly string[], resultsPath: string): string {
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
  return ["tau", ...out, "--save-to", resultsPath].map(shellQuote).join(" ");
}
