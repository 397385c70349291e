/**
 * Where the official data lives: `--data-dir`, else `TAU_DATA_DIR`, else a
 * per-user cache filled by `tau data pull`.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { DataDirError } from "../core/errors.ts";

/** The per-user cache folder for pulled data. */
export function defaultDataDir(): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "taubench", "data");
}

/** Resolves the data folder and checks that it looks like upstream's layout. */
export function resolveDataDir(flag?: string): string {
  const chosen = flag ?? process.env.TAU_DATA_DIR ?? defaultDataDir();
  const dir = resolve(chosen);
  const source = flag ? "--data-dir" : process.env.TAU_DATA_DIR ? "TAU_DATA_DIR" : "the default cache";
  if (!existsSync(join(dir, "domains"))) {
    throw new DataDirError(
      `No benchmark data at ${dir} (from ${source}). Run \`tau data pull\` to download it, or pass --data-dir DIR / set TAU_DATA_DIR to a folder with upstream's layout (domains/<name>/...).`,
    );
  }
  return dir;
}
