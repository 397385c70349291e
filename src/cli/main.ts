/**
 * The `tau` command line. Each subcommand lives in `commands/<name>.ts` and
 * registers itself on the program; only the command being run is loaded (so
 * `tau --version` and `tau view` do not pay for the model SDKs). Errors become
 * one clear line (stack only with `--verbose`) and an exit code (2 for bad input).
 */
import { Command, CommanderError } from "commander";
import { asFileIoError, FileIoError, TauError } from "../core/errors.ts";
import { hasSecrets, maskSecrets, registerSecretsFromEnv, registerUrlCredentials } from "../core/secrets.ts";
import { packageVersion } from "../core/version.ts";
import { registerCommands } from "./commands/index.ts";

/** Builds the commander program with the commands `args` (the arguments after `tau`) need. */
export async function buildProgram(args: readonly string[] = []): Promise<Command> {
  const program = new Command("tau")
    .description("Evaluate tool-using conversational agents, τ-bench style (faithful to tau2-bench)")
    .version(packageVersion(), "--version", "print taubench's version")
    .option("--verbose", "print stack traces and debug output")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  await registerCommands(program, args);
  return program;
}

/**
 * The low-level reason under an error, as ` (reason)`, when the message does not already say it:
 * a cause with a system error code, or whatever lies under Node's fetch, which reports every network
 * failure as "fetch failed" and keeps the reason (`getaddrinfo ENOTFOUND host`, `bad port`) below.
 */
export function systemCauseDetail(error: Error): string {
  let parent: Error = error;
  let cause: unknown = error.cause;
  let reason: string | undefined;
  for (let depth = 0; cause instanceof Error && depth < 10; depth++) {
    if (typeof (cause as NodeJS.ErrnoException).code === "string" || parent.message === "fetch failed")
      reason = cause.message.split("\n")[0];
    parent = cause;
    cause = cause.cause;
  }
  return reason && !error.message.includes(reason) ? ` (${reason})` : "";
}

/** Prints an error as one line (or with its stack when verbose) and returns the exit code. */
export function reportError(error: unknown, verbose: boolean): number {
  if (error instanceof CommanderError) {
    // commander already printed its message
    return error.exitCode === 0 ? 0 : 2;
  }
  if (verbose) {
    console.error(error);
  } else if (error instanceof TauError) {
    // A file error already says what the system said, in words.
    console.error(`tau: ${error.message}${error instanceof FileIoError ? "" : systemCauseDetail(error)}`);
  } else {
    const file = fileSystemError(error);
    if (file !== null) {
      console.error(`tau: ${file.message}`);
      return file.exitCode;
    }
    const message = error instanceof Error ? error.message : String(error);
    console.error(`tau: unexpected error: ${message.split("\n")[0]} (run with --verbose for details)`);
  }
  return error instanceof TauError ? error.exitCode : 1;
}

/** What Node's file-system calls were doing, in the words of {@link FileIoError}. */
const SYSCALL_OPERATIONS: Record<string, string> = {
  mkdir: "create",
  open: "open",
  read: "read",
  write: "write",
  rename: "rename",
  unlink: "remove",
  rmdir: "remove",
  copyfile: "copy",
  stat: "read",
  lstat: "read",
  scandir: "list",
};

/**
 * A file-system error no command wrapped (Node's own, carrying `syscall` and `path`) as the one line
 * a {@link FileIoError} prints, or null for anything else: the file and the reason, not "unexpected".
 */
export function fileSystemError(error: unknown): FileIoError | null {
  const { code, syscall, path, dest } = (error ?? {}) as NodeJS.ErrnoException & { dest?: unknown };
  if (typeof code !== "string" || typeof syscall !== "string" || typeof path !== "string") return null;
  const operation = SYSCALL_OPERATIONS[syscall] ?? syscall;
  // copyfile and rename have two paths; either may be the one at fault, so both are named.
  const converted =
    typeof dest === "string"
      ? asFileIoError(error, dest, `${operation} ${path} to`)
      : asFileIoError(error, path, operation);
  return converted instanceof FileIoError ? converted : null;
}

/**
 * Passes everything written to a stream through {@link maskSecrets}: progress lines, summaries,
 * error lines and `--verbose` stacks never show a known key, whatever printed them.
 */
export function maskStream(stream: NodeJS.WritableStream): void {
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (!hasSecrets() || (typeof chunk !== "string" && !(chunk instanceof Uint8Array)))
      return write(chunk, ...rest);
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    return write(maskSecrets(text), ...rest);
  }) as typeof stream.write;
}

/** Entry point used by bin/tau.js. */
export async function main(argv: string[]): Promise<void> {
  registerSecretsFromEnv(process.env);
  // `--llm-base-url https://user:key@host/…` (or `--flag=URL`): its credentials are secrets too.
  for (const arg of argv) registerUrlCredentials(arg.replace(/^--[\w-]+=/, ""));
  maskStream(process.stdout);
  maskStream(process.stderr);
  // `tau view … | head` closes the pipe early: that is not an error.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
  const verbose = argv.includes("--verbose");
  try {
    const program = await buildProgram(argv.slice(2));
    await program.parseAsync(argv);
  } catch (error) {
    process.exitCode = reportError(error, verbose);
  }
}
