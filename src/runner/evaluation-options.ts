/**
 * The check of `runEvaluation`'s options at the library boundary: a JavaScript caller (or a cast)
 * can pass anything, and a misspelt option (`numTrial: 4`) silently running one trial, or a string
 * where a number goes failing deep inside with a TypeError, would cost a lab a run. Each problem is
 * one {@link UsageError} line naming the option.
 */
import { UsageError } from "../core/errors.ts";
import type { EvaluationOptions, LlmSettings, UntilDecidedOptions } from "./evaluate.ts";

/** What an option holds. */
type Kind =
  | "string"
  | "string?" // a string or null
  | "number"
  | "number?" // a number or null
  | "boolean"
  | "function"
  | "object"
  | "object?" // an object or null
  | "strings"
  | "participant" // a name, a module path or a definition object
  | "signal"
  | "run"; // a run name or path, or a loaded run

const EVALUATION_OPTIONS = {
  domain: "string",
  dataDir: "string",
  split: "string?",
  taskIds: "strings",
  numTasks: "number",
  numTrials: "number",
  seed: "number",
  maxConcurrency: "number",
  maxSteps: "number",
  maxErrors: "number",
  maxRetries: "number",
  retryDelayMs: "number",
  timeoutMs: "number?",
  saveTo: "string",
  cwd: "string",
  agent: "participant",
  agentOptions: "object",
  user: "participant",
  userOptions: "object",
  agentLlm: "string",
  userLlm: "string",
  judge: "string?",
  agentLlmArgs: "object",
  userLlmArgs: "object",
  judgeLlmArgs: "object",
  solo: "boolean",
  enforceCommunicationProtocol: "boolean",
  retrievalConfig: "string?",
  retrievalConfigKwargs: "object?",
  noPolicy: "boolean",
  retrievalServices: "function",
  llm: "object",
  createLlm: "function",
  onEvent: "function",
  signal: "signal",
  resumeCommand: "function",
  writeResultsJson: "boolean",
  executor: "function",
  allowChanged: "boolean",
  preflight: "boolean",
  fewShotDisplaysPath: "string",
  humanUser: "object",
  untilDecided: "object",
} as const satisfies Record<keyof EvaluationOptions, Kind>;

const LLM_SETTINGS = {
  localBaseUrl: "string",
  cacheDir: "string",
  priceTable: "object",
  promptCache: "boolean",
} as const satisfies Record<keyof LlmSettings, Kind>;

const UNTIL_DECIDED_OPTIONS = {
  against: "run",
  effect: "number",
  alpha: "number",
  power: "number",
  roundTrials: "number",
  maxTrials: "number",
} as const satisfies Record<keyof UntilDecidedOptions, Kind>;

/** The value's type in words, for messages. */
function described(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string")
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === "object") return "an object";
  return `${typeof value === "function" ? "a function" : `the ${typeof value}`}${typeof value === "number" || typeof value === "boolean" ? ` ${String(value)}` : ""}`;
}

const isObject = (value: unknown) => value !== null && typeof value === "object" && !Array.isArray(value);

function fits(kind: Kind, value: unknown): boolean {
  switch (kind) {
    case "string":
      return typeof value === "string";
    case "string?":
      return value === null || typeof value === "string";
    case "number":
      return typeof value === "number";
    case "number?":
      return value === null || typeof value === "number";
    case "boolean":
      return typeof value === "boolean";
    case "function":
      return typeof value === "function";
    case "object":
      return isObject(value);
    case "object?":
      return value === null || isObject(value);
    case "strings":
      return Array.isArray(value) && value.every((item) => typeof item === "string");
    case "participant":
    case "run":
      return typeof value === "string" || isObject(value);
    case "signal":
      return value instanceof AbortSignal;
    default: {
      const never: never = kind;
      return never;
    }
  }
}

const EXPECTED: Record<Kind, string> = {
  string: "a string",
  "string?": "a string or null",
  number: "a number",
  "number?": "a number or null",
  boolean: "true or false",
  function: "a function",
  object: "an object",
  "object?": "an object or null",
  strings: "an array of strings",
  participant: "a name, a module path or a definition object",
  signal: "an AbortSignal",
  run: "a run name or path, or a loaded run",
};

/** The edit distance of two short names (for "did you mean"). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = current;
  }
  return previous[b.length]!;
}

function checkFields(where: string, value: Record<string, unknown>, kinds: Record<string, Kind>): void {
  for (const [key, option] of Object.entries(value)) {
    const kind = kinds[key];
    if (kind === undefined) {
      const near = Object.keys(kinds).find((known) => distance(known.toLowerCase(), key.toLowerCase()) <= 2);
      throw new UsageError(
        `${where}: unknown option '${key}'${near ? ` (did you mean '${near}'?)` : ""}; the options are ${Object.keys(kinds).join(", ")}`,
      );
    }
    // Left out and `undefined` are the same: the default.
    if (option !== undefined && !fits(kind, option))
      throw new UsageError(`${where}: ${key} must be ${EXPECTED[kind]}, got ${described(option)}`);
  }
}

/** Throws a one-line {@link UsageError} naming the first option of `options` that is unknown or of the wrong type. */
export function checkEvaluationOptions(options: unknown): asserts options is EvaluationOptions {
  if (!isObject(options))
    throw new UsageError(`runEvaluation takes an options object ({ domain, … }), got ${described(options)}`);
  const record = options as Record<string, unknown>;
  checkFields("runEvaluation", record, EVALUATION_OPTIONS);
  if (record.domain === undefined)
    throw new UsageError("runEvaluation: domain is required (a domain name such as 'airline')");
  if (Array.isArray(record.taskIds) && record.taskIds.length === 0)
    throw new UsageError(
      "runEvaluation: taskIds is empty; give at least one task id, or leave it out to run every task",
    );
  if (isObject(record.llm))
    checkFields("runEvaluation: llm", record.llm as Record<string, unknown>, LLM_SETTINGS);
  if (isObject(record.untilDecided))
    checkFields(
      "runEvaluation: untilDecided",
      record.untilDecided as Record<string, unknown>,
      UNTIL_DECIDED_OPTIONS,
    );
}
