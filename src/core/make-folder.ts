/**
 * `mkdir -p` whose failure says why, made level by level. Node's recursive
 * mkdir reports ENOENT when a missing level cannot be made on a read-only file
 * system, and where the parent exists but refuses a child with ENOENT (`/proc`,
 * `/sys`) it retries forever. Here the level that fails throws its own code
 * (EROFS, EACCES, ENOENT…), once.
 */
import { mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

/** Creates `path` and its missing parents; a failure carries the real errno of the level that could not be made. */
export function makeFolder(path: string): void {
  const missing: string[] = [];
  for (let level = resolve(path); ; level = dirname(level)) {
    const stat = statSync(level, { throwIfNoEntry: false });
    if (stat !== undefined) {
      // An existing file where a folder is wanted: mkdir says so (EEXIST, or ENOTDIR below it).
      if (!stat.isDirectory()) missing.unshift(level);
      break;
    }
    missing.unshift(level);
    if (dirname(level) === level) break;
  }
  for (const level of missing) {
    try {
      mkdirSync(level);
    } catch (error) {
      // Made meanwhile by someone else (a race): fine, as long as it is a folder.
      if ((error as { code?: unknown }).code !== "EEXIST" || !statSync(level).isDirectory()) throw error;
    }
  }
}
