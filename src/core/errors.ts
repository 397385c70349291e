/**
 * The error hierarchy: one base class with ES2022 `cause` and a few subclasses
 * carrying structured fields. The CLI prints `message` as one line; the stack
 * only with `--verbose`. Known secrets are masked out of every message.
 */
import { maskSecrets } from "./secrets.ts";

/** The names of an error's classes, up to TauError (a symbol shared by every copy of taubench). */
const CLASS_NAMES = Symbol.for("taubench.errorClassNames");

/**
 * Base class of every error taubench raises on purpose. `instanceof` also holds for an error from
 * another loaded copy of taubench: a `.ts` agent module is loaded through tsx with its own copy of
 * everything it imports, so the `InfrastructureError` or `LlmError` it throws is another class than
 * the runner's, and an outage would otherwise be scored as the agent's error.
 */
export class TauError extends Error {
  /** Process exit code the CLI uses for this error. */
  readonly exitCode: number;
  declare readonly [CLASS_NAMES]: readonly string[];
  constructor(message: string, options: { cause?: unknown; exitCode?: number } = {}) {
    // Masked before the stack is captured, so neither message nor traceback carries a known key.
    super(maskSecrets(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.exitCode = options.exitCode ?? 1;
    const names: string[] = [];
    for (
      let at: unknown = new.target;
      typeof at === "function" && at !== Error;
      at = Object.getPrototypeOf(at)
    )
      names.push(at.name);
    Object.defineProperty(this, CLASS_NAMES, { value: names });
  }

  // `this` is the class tested against (a subclass too), so it cannot be named.
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: as above.
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    const names = value instanceof Error ? (value as { [CLASS_NAMES]?: unknown })[CLASS_NAMES] : undefined;
    // biome-ignore lint/complexity/noThisInStatic: as above.
    return Array.isArray(names) && names.includes(this.name);
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

/** What a file-system error code means, in words a user can act on. */
const IO_REASONS: Record<string, string> = {
  ENOSPC: "no space left on the device",
  EDQUOT: "the disk quota is used up",
  EFBIG: "the file would grow past the size this process may write",
  EROFS: "the file system is read-only",
  EACCES: "permission denied",
  EPERM: "the operation is not permitted here",
  ENOENT: "no such file or folder (or the file system does not allow creating it)",
  ENOTDIR: "a part of the path is a file, not a folder",
  EISDIR: "it is a folder",
  EEXIST: "a file or folder of that name is in the way",
  EIO: "an input/output error of the device",
  EMFILE: "too many open files",
};

/** A file could not be read or written: names the file, the operation and the reason (and what to do next). */
export class FileIoError extends TauError {
  constructor(
    readonly path: string,
    readonly operation: string,
    readonly code: string,
    options: { cause?: unknown; hint?: string } = {},
  ) {
    const reason = `cannot ${operation} ${path}: ${IO_REASONS[code] ?? "a file-system error"} (${code})`;
    super(options.hint ? `${reason}; ${options.hint}` : reason, {
      ...(options.cause === undefined ? {} : { cause: options.cause }),
      exitCode: 1,
    });
  }

  /** The same failure with what to do next appended (the resume command, say). */
  withHint(hint: string): FileIoError {
    return new FileIoError(this.path, this.operation, this.code, { cause: this.cause, hint });
  }
}

/** The errno code of a file-system error (`ENOSPC`, `EROFS`…), or null for anything else. */
function ioCode(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^E[A-Z]+$/.test(code) ? code : null;
}

/** Turns a file-system error from `run` into a {@link FileIoError} naming `path` and `operation`. */
export function fileOperation<T>(path: string, operation: string, run: () => T): T {
  let result: T;
  try {
    result = run();
  } catch (error) {
    throw asFileIoError(error, path, operation);
  }
  if (result instanceof Promise)
    return result.catch((error: unknown) => {
      throw asFileIoError(error, path, operation);
    }) as T;
  return result;
}

/** `error` as a {@link FileIoError} naming `path` and `operation` when it is a file-system error; else as is. */
export function asFileIoError(error: unknown, path: string, operation: string): unknown {
  if (error instanceof FileIoError) return error;
  const code = ioCode(error);
  return code === null ? error : new FileIoError(path, operation, code, { cause: error });
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
