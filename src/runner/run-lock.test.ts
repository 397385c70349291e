import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lockPathFor, RunLock, RunLockedError } from "./run-lock.ts";

const checkpointIn = () => join(mkdtempSync(join(tmpdir(), "tau-lock-")), "results.jsonl");
/** A pid that existed a moment ago and is gone now. */
const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid!;

describe("RunLock", () => {
  it("records pid, host and start time; a second writer is refused with one line naming the holder", () => {
    const checkpoint = checkpointIn();
    const first = new RunLock(checkpoint);
    first.acquire();
    first.acquire(); // idempotent
    const holder = JSON.parse(readFileSync(lockPathFor(checkpoint), "utf8"));
    expect(holder).toMatchObject({ pid: process.pid, host: hostname() });
    expect(holder.started_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const second = new RunLock(checkpoint);
    let refused: unknown;
    try {
      second.acquire();
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(RunLockedError);
    const message = (refused as Error).message;
    expect(message.split("\n")).toHaveLength(1);
    expect(message).toContain(
      `${checkpoint} is being written by another tau run (pid ${process.pid} on this host`,
    );
    expect(message).toContain(`delete ${lockPathFor(checkpoint)}`);
    expect((refused as RunLockedError).exitCode).toBe(2);
    first.release();
    expect(existsSync(lockPathFor(checkpoint))).toBe(false);
    second.acquire();
    second.release();
  });

  it("takes over the lock of a process that is gone, with a note", () => {
    const checkpoint = checkpointIn();
    const pid = deadPid();
    writeFileSync(lockPathFor(checkpoint), JSON.stringify({ pid, host: hostname(), started_at: "then" }));
    const notes: string[] = [];
    const lock = new RunLock(checkpoint, (line) => notes.push(line));
    lock.acquire();
    expect(notes).toEqual([
      `note: took over the lock of a run that is no longer running (pid ${pid} on this host, started then)`,
    ]);
    expect(JSON.parse(readFileSync(lockPathFor(checkpoint), "utf8")).pid).toBe(process.pid);
    lock.release();
  });

  it("never takes over a lock from another host, nor one it cannot read", () => {
    const checkpoint = checkpointIn();
    writeFileSync(
      lockPathFor(checkpoint),
      JSON.stringify({ pid: deadPid(), host: "build-box-7", started_at: "t" }),
    );
    expect(() => new RunLock(checkpoint).acquire()).toThrow(/on host build-box-7, started t/);
    writeFileSync(lockPathFor(checkpoint), "{garbage");
    expect(() => new RunLock(checkpoint).acquire()).toThrow(/a lock file that cannot be read/);
  });

  it("gives back only its own lock", () => {
    const checkpoint = checkpointIn();
    const lock = new RunLock(checkpoint);
    lock.acquire();
    const other = { pid: process.pid + 1, host: hostname(), started_at: "x" };
    writeFileSync(lockPathFor(checkpoint), JSON.stringify(other));
    lock.release();
    expect(JSON.parse(readFileSync(lockPathFor(checkpoint), "utf8"))).toEqual(other);
  });
});
