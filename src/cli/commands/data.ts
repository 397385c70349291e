/** `tau data pull|extract-texts|where`: fetch and locate the official benchmark data and upstream's texts. */
import { resolve } from "node:path";
import type { Command } from "commander";
import { DATA_MANIFEST, DEFAULT_DATA_URL, UPSTREAM_RELEASE } from "../../domains/data-manifest.ts";
import { defaultDataDir, resolveDataDir } from "../../domains/data-dir.ts";
import { pullData } from "../../domains/data-pull.ts";
import { extractTextsFromCheckout, textsRelativePath } from "../../domains/texts/store.ts";

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
      console.log(`TAU_DATA_DIR: ${process.env.TAU_DATA_DIR ?? "(not set)"}`);
      console.log(`default cache: ${defaultDataDir()}`);
      console.log(`expected files (${DATA_MANIFEST.length}): ${DATA_MANIFEST.map((f) => f.path).join(", ")}`);
      console.log(
        `upstream's exact texts: ${textsRelativePath()} (written by \`tau data pull\` or \`tau data extract-texts\`)`,
      );
    });
}
