/**
 * The error hierarchy: one base class with ES2022 `cause` and a few subclasses
 * carrying structured fields. The CLI prints `message` as one line; the stack
 * only with `--verbose`. Known secrets are masked out of every message.
 */
import { maskSecrets } from "./secrets.ts";

/** Base class of every error taubench raises on purpose. */
export class TauError extends Error {
  /** Process exit code the CLI uses for this error. */
  readonly exitCode: number;
  constructor(message: string, options: { cause?: unknown; exitCode?: number } = {}) {
    // Masked before the stack is captured, so neither message nor traceback carries a known key.
    super(maskSecrets(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.exitCode = options.exitCode ?? 1;
  }
}

/** Bad input from the user: flags, ids, names. Exit code 2. */
export class UsageError extends TauError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, exitCode: 2 });
  }
}

/** A file that cannot be read or does not match its format; names the file and the field. */
export class FileFormatError extends TauError {
  constructor(
    readonly path: string,
    detail: string,
    options: { cause?: unknown } = {},
  ) {
    super(`${path}: ${detail}`, { ...options, exitCode: 2 });
  }
}

/** The data folder is missing or incomplete. */
export class DataDirError extends TauError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, exitCode: 2 });
  }
}

/** A failure outside the agent's control (provider errors after retries, broken replays): never scored. */
export class InfrastructureError extends TauError {
  readonly isRetryable: boolean;
  readonly taskId: string | undefined;
  /**
   * The failure would repeat for every simulation (rejected credentials): the runner stops the run,
   * keeps what finished and prints the resume command instead of recording each task as failed.
   */
  readonly stopsRun: boolean;
  constructor(
    message: string,
    options: { cause?: unknown; isRetryable?: boolean; taskId?: string; stopsRun?: boolean } = {},
  ) {
    super(message, options);
    this.isRetryable = options.isRetryable ?? true;
    this.taskId = options.taskId;
    this.stopsRun = options.stopsRun ?? false;
  }
}

/** System error codes of a failed connection (as opposed to, say, a missing file). */
const TRANSPORT_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
]);

/**
 * Whether an error is a failure of the infrastructure rather than of the code
 * that threw it: an {@link InfrastructureError} (the LLM layer's errors among
 * them) or a transport failure (fetch's "fetch failed", a reset connection),
 * anywhere in its `cause` chain.
 */
export function isInfrastructureFailure(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 10; depth++) {
    if (current instanceof InfrastructureError) return true;
    if (current instanceof TypeError && /^(fetch failed|terminated)$/.test(current.message)) return true;
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && (TRANSPORT_CODES.has(code) || code.startsWith("UND_ERR"))) return true;
    current = current.cause;
  }
  return false;
}

/** The error (the thrown one or one of its causes) that asks the runner to stop the whole run, if any. */
export function runStoppingError(error: unknown): InfrastructureError | null {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof InfrastructureError && e.stopsRun) return e;
  }
  return null;
}

/** Formats a zod issue path like `tasks[3].evaluation_criteria.actions[0].name`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out || "(root)";
}
