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

/** The folder commands read when no --data-dir is given, and what chose it. */
function chosenDataDir(flag?: string): { dir: string; source: string } {
  if (flag) return { dir: resolve(flag), source: "--data-dir" };
  if (process.env.TAU_DATA_DIR) return { dir: resolve(process.env.TAU_DATA_DIR), source: "TAU_DATA_DIR" };
  return { dir: defaultDataDir(), source: "the default cache" };
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

export function registerDataCommand(program: Command): void {
  const data = program.command("data").description("manage the official benchmark data folder");
  data
    .command("pull")
    .description(`download upstream ${UPSTREAM_RELEASE}'s data and verify every file's sha256`)
    .option(
      "--dest <dir>",
      "where to put the data folder (an earlier pull there is replaced; other folders are refused)",
      defaultDataDir(),
    )
    .option("--url <url>", "archive URL or local .tar.gz path", DEFAULT_DATA_URL)
    .action(async (options: { dest: string; url: string }) => {
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
      console.log(`expected files (${DATA_MANIFEST.length}): ${DATA_MANIFEST.map((f) => f.path).join(", ")}`);
      console.log("`tau data verify` checks them against the pinned sha256 list.");
      console.log(
        `upstream's exact texts: ${textsRelativePath()} (written by \`tau data pull\` or \`tau data extract-texts\`)`,
      );
    });
  data
    .command("verify")
    .description(
      `check the data folder's files against upstream ${UPSTREAM_RELEASE}'s sha256 (exit 1 if any is missing or differs)`,
    )
    .option("--data-dir <dir>", "data folder (default: TAU_DATA_DIR or the pulled cache)")
    .action((options: { dataDir?: string }) => {
      const { dir, source } = chosenDataDir(options.dataDir);
      const report = verifyReport(dir, source);
      for (const line of report.lines) console.log(line);
      if (!report.ok) process.exitCode = 1;
    });
}
