/**
 * Where the original τ-bench data lives: `--tau1-data-dir`, else
 * `TAU1_DATA_DIR`, else the per-user cache that `tau data pull --tau1` fills.
 * The layout is the one of `../shared/tau-bench-data`: `retail/`, `airline/`,
 * `few_shot/`.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { DataDirError } from "../../core/errors.ts";
import { defaultDataDir } from "../data-dir.ts";

/** The per-user cache folder for the pulled τ-bench data (beside the τ²-bench one). */
export function defaultTau1DataDir(): string {
  return join(defaultDataDir(), "..", "tau1-data");
}

/** Resolves the τ-bench data folder and checks that it holds a domain folder. */
export function resolveTau1DataDir(flag?: string): string {
  const chosen = flag ?? process.env.TAU1_DATA_DIR ?? defaultTau1DataDir();
  const dir = resolve(chosen);
  const source = flag ? "--tau1-data-dir" : process.env.TAU1_DATA_DIR ? "TAU1_DATA_DIR" : "the default cache";
  if (!existsSync(join(dir, "retail")) && !existsSync(join(dir, "airline"))) {
    throw new DataDirError(
      `No original τ-bench data at ${dir} (from ${source}). Run \`tau data pull --tau1\` to download it, or pass --tau1-data-dir DIR / set TAU1_DATA_DIR to a folder with retail/ and airline/ inside.`,
    );
  }
  return dir;
}
