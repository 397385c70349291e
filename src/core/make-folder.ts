/**
 * `mkdir -p` whose failure says why. Node's recursive mkdir reports ENOENT
 * when a missing level cannot be made on a read-only file system; made level
 * by level, the level that fails throws its own code (EROFS, EACCES…).
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";

/** Creates `path` and its missing parents; a failure carries the real errno of the level that could not be made. */
export function makeFolder(path: string): void {
  try {
    mkdirSync(path, { recursive: true });
  } catch (error) {
    if ((error as { code?: unknown }).code !== "ENOENT") throw error;
    const missing: string[] = [];
    for (let level = resolve(path); !existsSync(level); level = dirname(level)) {
      missing.unshift(level);
      if (dirname(level) === level) break;
    }
    // The first level that cannot be made throws its own reason; if every one could (a race), the folder exists.
    for (const level of missing) mkdirSync(level);
  }
}
