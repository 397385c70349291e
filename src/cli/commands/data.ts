/** `tau data pull|extract-texts|where|verify`: fetch, locate and check the official benchmark data and upstream's texts. */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { DATA_MANIFEST, DEFAULT_DATA_URL, UPSTREAM_RELEASE } from "../../domains/data-manifest.ts";
import { defaultDataDir, resolveDataDir } from "../../domains/data-dir.ts";
import { pullData, verifyData } from "../../domains/data-pull.ts";
import {
  extractTextsFromCheckout,
  loadUpstreamTexts,
  TEXTS_HOW_TO,
  textsRelativePath,
} from "../../domains/texts/store.ts";
import { defaultTau1DataDir } from "../../domains/tau1/data-dir.ts";
import {
  DEFAULT_TAU1_URL,
  isOptionalTau1File,
  TAU1_COMMIT,
  TAU1_MANIFEST,
} from "../../domains/tau1/manifest.ts";
import { pullTau1Data } from "../../domains/tau1/pull.ts";

/** The folder commands read when no --data-dir is given, and what chose it. */
function chosenDataDir(flag?: string): { dir: string; source: string } {
  if (flag) return { dir: resolve(flag), source: "--data-dir" };
  if (process.env.TAU_DATA_DIR) return { dir: resolve(process.env.TAU_DATA_DIR), source: "TAU_DATA_DIR" };
  return { dir: defaultDataDir(), source: "the default cache" };
}

/** The original τ-bench data folder in use, and what chose it. */
function chosenTau1DataDir(flag?: string): { dir: string; source: string } {
  if (flag) return { dir: resolve(flag), source: "--tau1-data-dir" };
  if (process.env.TAU1_DATA_DIR) return { dir: resolve(process.env.TAU1_DATA_DIR), source: "TAU1_DATA_DIR" };
  return { dir: defaultTau1DataDir(), source: "the default cache" };
}

/**
 * A file list as folders and counts ("domains/airline/ 4, …, LICENSE"): a domain folder (up to two
 * levels) stands for the files below it; `tau data verify` names any one that is missing.
 */
function filesByFolder(files: readonly { path: string }[]): string {
  const counts = new Map<string, number>();
  for (const { path } of files) {
    const parts = path.split("/");
    const key = parts.length === 1 ? path : `${parts.slice(0, Math.min(2, parts.length - 1)).join("/")}/`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, count]) => (key.endsWith("/") ? `${key} ${count}` : key)).join(", ");
}

/** The lines of `tau data verify`, and whether the folder holds the pinned data. */
export function verifyReport(dir: string, source: string): { lines: string[]; ok: boolean } {
  const result = verifyData(dir);
  const release = `upstream ${UPSTREAM_RELEASE}`;
  if (!result.exists)
    return {
      ok: false,
      lines: [`${dir} (from ${source}) does not exist. Run \`tau data pull\` or set TAU_DATA_DIR.`],
    };
  const lines: string[] = [];
  for (const path of result.missing) lines.push(`missing: ${path}`);
  for (const path of result.mismatched) lines.push(`differs from ${release}: ${path}`);
  let ok = result.missing.length === 0 && result.mismatched.length === 0;
  lines.push(
    ok
      ? `${dir} (from ${source}): all ${result.checked} files match ${release}'s sha256.`
      : `${dir} (from ${source}): ${result.missing.length} missing, ${result.mismatched.length} differ from ${release} (of ${DATA_MANIFEST.length} expected files).`,
  );
  try {
    const texts = loadUpstreamTexts(dir);
    lines.push(
      texts
        ? `upstream's exact texts: ${texts.path} (${texts.release}, sha256 ${texts.sha256.slice(0, 12)}…).`
        : `upstream's exact texts: none, so runs use taubench's own wording (${TEXTS_HOW_TO}).`,
    );
  } catch (error) {
    ok = false;
    lines.push(`upstream's exact texts: ${(error as Error).message}`);
  }
  return { lines, ok };
}

/** `tau data pull --tau1`: the original τ-bench's data, converted from its repository archive. */
async function pullTau1(options: { dest?: string; url?: string }): Promise<void> {
  const dest = options.dest ?? defaultTau1DataDir();
  const url = options.url ?? DEFAULT_TAU1_URL;
  console.log(`Fetching ${url} …`);
  const result = await pullTau1Data({ dest, url });
  const where =
    resolve(result.dest) === resolve(defaultTau1DataDir())
      ? "The tau1-* domains find it there unless TAU1_DATA_DIR or --tau1-data-dir names another folder."
      : `Use it with --tau1-data-dir ${result.dest} or TAU1_DATA_DIR=${result.dest}.`;
  console.log(
    `Converted and verified ${result.files} files (${(result.bytes / 1e6).toFixed(1)} MB) into ${result.dest}. ${where}`,
  );
}

export function registerDataCommand(program: Command): void {
  const data = program.command("data").description("manage the official benchmark data folder");
  data
    .command("pull")
    .description(
      `download upstream ${UPSTREAM_RELEASE}'s data and verify every file's sha256 (--tau1: the original τ-bench's, commit ${TAU1_COMMIT.slice(0, 7)})`,
    )
    .option(
      "--dest <dir>",
      `where to put the data folder (an earlier pull there is replaced; other folders are refused; default ${defaultDataDir()}, with --tau1 ${defaultTau1DataDir()})`,
    )
    .option("--url <url>", `archive URL or local .tar.gz path (default ${DEFAULT_DATA_URL})`)
    .option(
      "--tau1",
      "pull the original τ-bench data instead (its repository archive, converted and verified)",
    )
    .action(async (flags: { dest?: string; url?: string; tau1?: boolean }) => {
      if (flags.tau1) return pullTau1(flags);
      const options = { dest: flags.dest ?? defaultDataDir(), url: flags.url ?? DEFAULT_DATA_URL };
      console.log(`Fetching ${options.url} …`);
      const result = await pullData({ dest: options.dest, url: options.url });
      // Only the default cache is found without being named; a --dest elsewhere must be passed on.
      const where =
        resolve(result.dest) === resolve(defaultDataDir())
          ? "Every command finds it there unless TAU_DATA_DIR or --data-dir names another folder."
          : `Use it with --data-dir ${result.dest} or TAU_DATA_DIR=${result.dest}.`;
      console.log(
        `Verified ${result.files} files (${(result.bytes / 1e6).toFixed(1)} MB) into ${result.dest}. ${where}`,
      );
      if (result.texts)
        console.log(
          `Extracted upstream's exact texts (${result.texts.entries} entries) into ${result.texts.path}.`,
        );
    });
  data
    .command("extract-texts")
    .description(
      `extract upstream ${UPSTREAM_RELEASE}'s exact texts (tool descriptions, prompt templates) from a tau2-bench checkout into the data folder`,
    )
    .requiredOption(
      "--from <dir>",
      `a tau2-bench checkout at ${UPSTREAM_RELEASE} (the folder that holds src/tau2/)`,
    )
    .option(
      "--data-dir <dir>",
      "the data folder to write into (default: TAU_DATA_DIR, else the default cache)",
    )
    .action((options: { from: string; dataDir?: string }) => {
      const dataDir = resolveDataDir(options.dataDir);
      const result = extractTextsFromCheckout(resolve(options.from), dataDir);
      console.log(`Extracted upstream's exact texts (${result.entries} entries) into ${result.path}.`);
    });
  data
    .command("where")
    .description("print where taubench looks for data, and the files it expects")
    .action(() => {
      const { dir, source } = chosenDataDir();
      console.log(`TAU_DATA_DIR: ${process.env.TAU_DATA_DIR ?? "(not set)"}`);
      console.log(`default cache: ${defaultDataDir()}`);
      console.log(`in use: ${dir} (from ${source}; ${existsSync(dir) ? "exists" : "does not exist"})`);
      console.log(`expected files (${DATA_MANIFEST.length}): ${filesByFolder(DATA_MANIFEST)}`);
      console.log(`TAU1_DATA_DIR: ${process.env.TAU1_DATA_DIR ?? "(not set)"}`);
      console.log(`τ-bench default cache: ${defaultTau1DataDir()}`);
      console.log(`τ-bench files (${TAU1_MANIFEST.length}): ${filesByFolder(TAU1_MANIFEST)}`);
      console.log("`tau data verify` checks them against the pinned sha256 list.");
      console.log(
        `upstream's exact texts: ${textsRelativePath()} (written by \`tau data pull\` or \`tau data extract-texts\`)`,
      );
    });
  data
    .command("verify")
    .description(
      `check the data folder's files against upstream ${UPSTREAM_RELEASE}'s sha256 (exit 1 if any is missing or differs; --tau1: the original τ-bench's folder)`,
    )
    .option("--data-dir <dir>", "data folder (default: TAU_DATA_DIR or the pulled cache)")
    .option("--tau1", "check the original τ-bench data folder instead")
    .option(
      "--tau1-data-dir <dir>",
      "original τ-bench data folder (default: TAU1_DATA_DIR or the pulled cache)",
    )
    .action((options: { dataDir?: string; tau1?: boolean; tau1DataDir?: string }) => {
      if (options.tau1) {
        const { dir, source } = chosenTau1DataDir(options.tau1DataDir);
        const result = verifyData(dir, TAU1_MANIFEST);
        // The prompt texts may be absent (a copy of the data files alone): runs then use our wording.
        const optional = new Set(TAU1_MANIFEST.filter(isOptionalTau1File).map((entry) => entry.path));
        const missingTexts = result.missing.filter((path) => optional.has(path));
        result.missing = result.missing.filter((path) => !optional.has(path));
        const ok = result.exists && result.missing.length === 0 && result.mismatched.length === 0;
        if (!result.exists)
          console.log(`${dir} (from ${source}) does not exist. Run \`tau data pull --tau1\`.`);
        for (const path of result.missing) console.log(`missing: ${path}`);
        if (result.exists && missingTexts.length > 0)
          console.log(
            `no upstream prompt texts (${missingTexts.length} files of texts/ absent): runs use taubench's own wording; \`tau data pull --tau1\` extracts them`,
          );
        for (const path of result.mismatched)
          console.log(`differs from τ-bench ${TAU1_COMMIT.slice(0, 7)}: ${path}`);
        if (result.exists)
          console.log(
            ok
              ? `${dir} (from ${source}): all ${result.checked} files match τ-bench ${TAU1_COMMIT.slice(0, 7)}'s sha256.`
              : `${dir} (from ${source}): ${result.missing.length} missing, ${result.mismatched.length} differ (of ${TAU1_MANIFEST.length} expected files).`,
          );
        if (!ok) process.exitCode = 1;
        return;
      }
      const { dir, source } = chosenDataDir(options.dataDir);
      const report = verifyReport(dir, source);
      for (const line of report.lines) console.log(line);
      if (!report.ok) process.exitCode = 1;
    });
}
