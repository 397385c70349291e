/**
 * The check of `runEvaluation`'s options at the library boundary: a JavaScript caller (or a cast)
 * can pass anything, and a misspelt option (`numTrial: 4`) silently running one trial, or a string
 * where a number goes failing deep inside with a TypeError, would cost a lab a run. Each problem is
 * one {@link UsageError} line naming the option.
 */
import { UsageError } from "../core/errors.ts";
import type { EvaluationOptions, LlmSettings, UntilDecidedOptions } from "./evaluate.ts";

const isObject = (value: unknown) => value !== null && typeof value === "object" && !Array.isArray(value);

/** A kind of option value: what it must be, in words, and the test of a value. */
interface ValueKind {
  expected: string;
  fits(value: unknown): boolean;
}

const valueKind = (expected: string, fits: (value: unknown) => boolean): ValueKind => ({ expected, fits });
/** The same kind, null allowed. */
const orNull = ({ expected, fits }: ValueKind): ValueKind =>
  valueKind(`${expected} or null`, (value) => value === null || fits(value));

const STRING = valueKind("a string", (value) => typeof value === "string");
const NUMBER = valueKind("a number", (value) => typeof value === "number");
const OBJECT = valueKind("an object", isObject);
const stringOrObject = (value: unknown) => typeof value === "string" || isObject(value);

/** What an option holds. */
const KINDS = {
  string: STRING,
  "string?": orNull(STRING),
  number: NUMBER,
  "number?": orNull(NUMBER),
  boolean: valueKind("true or false", (value) => typeof value === "boolean"),
  function: valueKind("a function", (value) => typeof value === "function"),
  object: OBJECT,
  "object?": orNull(OBJECT),
  strings: valueKind(
    "an array of strings",
    (value) => Array.isArray(value) && value.every((item) => typeof item === "string"),
  ),
  participant: valueKind("a name, a module path or a definition object", stringOrObject),
  signal: valueKind("an AbortSignal", (value) => value instanceof AbortSignal),
  run: valueKind("a run name or path, or a loaded run", stringOrObject),
} satisfies Record<string, ValueKind>;
type Kind = keyof typeof KINDS;

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
    if (option !== undefined && !KINDS[kind].fits(option))
      throw new UsageError(`${where}: ${key} must be ${KINDS[kind].expected}, got ${described(option)}`);
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
