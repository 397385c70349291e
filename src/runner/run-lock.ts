/**
 * One writer per run: a lock file beside the checkpoint (`results.jsonl.lock`)
 * holding the writer's pid, host and start time. A second `tau run` on the same
 * run refuses with one line naming the holder; a lock whose process is gone
 * (a dead pid on this host: a kill -9, a crash) is taken over with a note. A
 * lock from another host cannot be checked and is never taken over.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { z } from "zod";
import { asFileIoError, fileOperation, TauError } from "../core/errors.ts";
import { nowIso } from "../core/messages.ts";

/** What the lock file says about the process writing the run. */
export const LockHolder = z.object({
  pid: z.number().int(),
  host: z.string(),
  started_at: z.string(),
});
export type LockHolder = z.infer<typeof LockHolder>;

/** Another process is writing this run. */
export class RunLockedError extends TauError {
  constructor(
    readonly lockPath: string,
    readonly holder: LockHolder | null,
  ) {
    const who = holder
      ? `pid ${holder.pid} on ${holder.host === hostname() ? "this host" : `host ${holder.host}`}, started ${holder.started_at}`
      : "a lock file that cannot be read";
    super(
      `${lockPath.replace(/\.lock$/, "")} is being written by another tau run (${who}); wait for it or stop it — if no such run is going on, delete ${lockPath}`,
      { exitCode: 2 },
    );
  }
}

/** The lock file of a checkpoint. */
export function lockPathFor(checkpointPath: string): string {
  return `${checkpointPath}.lock`;
}

/** Whether a process with this pid exists on this host (a process of another user counts). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readHolder(path: string): { text: string; holder: LockHolder | null } | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  try {
    const parsed = LockHolder.safeParse(JSON.parse(text));
    return { text, holder: parsed.success ? parsed.data : null };
  } catch {
    return { text, holder: null };
  }
}

/** Creates the lock file only if there is none (O_EXCL); false when one exists. */
function createExclusively(path: string, holder: LockHolder): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw asFileIoError(error, path, "create the lock file");
  }
  try {
    fileOperation(path, "write the lock file", () => writeSync(fd, `${JSON.stringify(holder)}\n`));
  } catch (error) {
    closeSync(fd);
    // An empty lock would block every later run: take it back.
    unlinkSync(path);
    throw error;
  }
  closeSync(fd);
  return true;
}

/**
 * The lock of one run, taken on first {@link acquire} and given back by
 * {@link release} (only if it is still this process's).
 */
export class RunLock {
  readonly path: string;
  private held = false;
  private readonly holder: LockHolder;

  constructor(
    checkpointPath: string,
    private readonly log: (line: string) => void = () => {},
  ) {
    this.path = lockPathFor(checkpointPath);
    this.holder = { pid: process.pid, host: hostname(), started_at: nowIso() };
  }

  /** Takes the lock (idempotent); throws {@link RunLockedError} when a live process holds it. */
  acquire(): void {
    if (this.held) return;
    for (let attempt = 0; attempt < 3; attempt++) {
      if (createExclusively(this.path, this.holder)) {
        this.held = true;
        return;
      }
      const found = readHolder(this.path);
      if (found === null) continue; // released meanwhile: try again
      const { holder } = found;
      const stale = holder !== null && holder.host === this.holder.host && !processExists(holder.pid);
      if (!stale) throw new RunLockedError(this.path, holder);
      // Remove it only if it is still the stale one (another starter may have taken it over already).
      if (readHolder(this.path)?.text !== found.text) continue;
      unlinkSync(this.path);
      this.log(
        `note: took over the lock of a run that is no longer running (pid ${holder.pid} on this host, started ${holder.started_at})`,
      );
    }
    throw new RunLockedError(this.path, readHolder(this.path)?.holder ?? null);
  }

  /** Gives the lock back, if this process holds it. */
  release(): void {
    if (!this.held) return;
    this.held = false;
    const found = readHolder(this.path);
    if (found?.holder?.pid === this.holder.pid && found.holder.host === this.holder.host) {
      try {
        unlinkSync(this.path);
      } catch {
        // Already gone: nothing to give back.
      }
    }
  }
}
