/**
 * Test helpers for runs with upstream's exact texts: the shared copy of
 * upstream's sources, and a data folder that has the texts file (the shared
 * data folder is read-only and holds only upstream's `data/tau2`).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { extractTexts } from "../domains/texts/extract.ts";
import { writeTextsFile } from "../domains/texts/store.ts";
import { TAU2_TEXT_SOURCE } from "../domains/texts/tau2.ts";

/** The folder holding upstream's `src/tau2/` for tests: `TAU2_SRC_DIR`, else `tau2-src` next to the data folder; null if absent. */
export function tau2SourceDir(dataDir: string | undefined): string | null {
  const dir = process.env.TAU2_SRC_DIR ?? (dataDir ? join(dataDir, "..", "tau2-src") : undefined);
  return dir && existsSync(join(dir, "src", "tau2")) ? resolve(dir) : null;
}

/** A fresh data folder: every entry of `dataDir` symlinked, plus the texts extracted from `sourceDir`. */
export function dataDirWithUpstreamTexts(dataDir: string, sourceDir: string): string {
  const dir = mkdtempSync(join(tmpdir(), "tau-data-texts-"));
  for (const name of readdirSync(dataDir)) {
    if (name !== "taubench") symlinkSync(resolve(dataDir, name), join(dir, name));
  }
  const read = (path: string) =>
    existsSync(join(sourceDir, path)) ? readFileSync(join(sourceDir, path)) : undefined;
  writeTextsFile(dir, extractTexts(TAU2_TEXT_SOURCE, read, sourceDir));
  return dir;
}
