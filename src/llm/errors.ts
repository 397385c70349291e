/**
 * Errors of the provider layer. Every provider failure becomes an
 * {@link LlmError} with a `kind` the retry loop and the runner can act on.
 */
import { InfrastructureError, TauError } from "../core/errors.ts";

/** Why a call failed; decides whether the call is retried. */
export type LlmErrorKind =
  | "rate_limit"
  | "server"
  | "network"
  | "timeout"
  | "auth"
  | "bad_request"
  | "not_found"
  | "quota"
  | "context_overflow"
  | "invalid_tool_arguments"
  | "empty_response"
  | "invalid_response";

/** Kinds that a second attempt can fix. */
const RETRYABLE_KINDS: ReadonlySet<LlmErrorKind> = new Set(["rate_limit", "server", "network", "timeout"]);

/** Kinds that would fail every simulation the same way: they stop the run (see `InfrastructureError.stopsRun`). */
const RUN_STOPPING_KINDS: ReadonlySet<LlmErrorKind> = new Set(["auth", "not_found", "quota"]);

/** A provider call that failed (after retries, when retryable); an infrastructure error, never scored. */
export class LlmError extends InfrastructureError {
  readonly kind: LlmErrorKind;
  readonly statusCode: number | undefined;
  readonly retryAfterMs: number | undefined;
  readonly model: string;
  constructor(
    message: string,
    options: {
      kind: LlmErrorKind;
      model: string;
      statusCode?: number;
      retryAfterMs?: number;
      cause?: unknown;
    },
  ) {
    super(message, {
      cause: options.cause,
      isRetryable: RETRYABLE_KINDS.has(options.kind),
      stopsRun: RUN_STOPPING_KINDS.has(options.kind),
    });
    this.kind = options.kind;
    this.model = options.model;
    this.statusCode = options.statusCode;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** The API key of a provider is not set; the message names the environment variable. */
export class MissingApiKeyError extends TauError {
  readonly variable: string;
  constructor(variable: string, model: string) {
    super(`${variable} is not set (needed for model ${model})`, { exitCode: 2 });
    this.variable = variable;
  }
}

const CONTEXT_OVERFLOW =
  /context_length_exceeded|context length|context window|prompt is too long|maximum context|exceeds the maximum number of tokens|input is too long|too many tokens|maximum prompt length/i;

/** Classifies an HTTP failure by status code and body text (context overflow arrives as a 400/413). */
export function kindForStatus(statusCode: number, body: string): LlmErrorKind {
  if ((statusCode === 400 || statusCode === 413 || statusCode === 422) && CONTEXT_OVERFLOW.test(body)) {
    return "context_overflow";
  }
  if (statusCode === 429) return /insufficient_quota|billing/i.test(body) ? "quota" : "rate_limit";
  if (statusCode === 401 || statusCode === 403) return "auth";
  if (statusCode === 404) return "not_found";
  if (statusCode === 408) return "timeout";
  // 409 (conflict/lock) is transient on OpenAI; 5xx includes Anthropic's 529 "overloaded".
  if (statusCode === 409 || statusCode >= 500) return "server";
  return "bad_request";
}

/**
 * Reads `retry-after-ms` (OpenAI) or `retry-after` (seconds or an HTTP date)
 * from response headers; undefined when absent or unparsable.
 */
export function parseRetryAfter(
  headers: Record<string, string | undefined> | undefined,
  now = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const lower: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(headers)) lower[key.toLowerCase()] = value;
  const ms = lower["retry-after-ms"];
  if (ms !== undefined && ms.trim() !== "" && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const after = lower["retry-after"];
  if (after === undefined || after.trim() === "") return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
