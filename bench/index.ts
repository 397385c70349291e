/**
 * Benchmarks entry point (`npm run bench`, which runs Node with
 * `--expose-gc` so heap numbers are exact). Runs every module in
 * {@link MODULES} and prints one table of medians against their targets.
 *
 * Options: `--only <module>[,<module>]`, `--quick` (fewer samples),
 * `--json` (machine-readable results on stdout). The data folder is
 * `TAU_DATA_DIR`, else `../shared/tau2-data` next to the repository.
 */
import { availableParallelism, loadavg } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { bankingRetrievalBench } from "./banking-retrieval.ts";
import { domainBench } from "./domains.ts";
import {
  type BenchModule,
  type BenchResult,
  canCollectGarbage,
  formatTable,
  ratioToTarget,
} from "./harness.ts";
import { llmClientBench } from "./llm-client.ts";
import { runProcessBench } from "./run-process.ts";
import { runnerBench } from "./runner-throughput.ts";
import { soakBench } from "./soak.ts";
import { startupBench } from "./startup.ts";
import { tau1Bench } from "./tau1.ts";
import { telecomGeneratorBench } from "./telecom-generator.ts";
import { viewerBench } from "./viewer.ts";
import { workersBench } from "./workers.ts";

/** Every benchmark module, in the order they run. Add new modules here. */
export const MODULES: readonly BenchModule[] = [
  startupBench,
  domainBench,
  tau1Bench,
  bankingRetrievalBench,
  telecomGeneratorBench,
  runnerBench,
  llmClientBench,
  runProcessBench,
  workersBench,
  soakBench,
  viewerBench,
];

function option(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

async function main(args: string[]): Promise<number> {
  const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const dataDir = process.env.TAU_DATA_DIR ?? resolve(repoRoot, "..", "shared", "tau2-data");
  const only = option(args, "--only")?.split(",");
  const quick = args.includes("--quick");
  const json = args.includes("--json");
  const log = (line: string) => process.stderr.write(`${line}\n`);
  if (!canCollectGarbage()) log("note: run with node --expose-gc for exact heap numbers");
  const modules = MODULES.filter((module) => !only || only.includes(module.name));
  if (modules.length === 0) {
    log(`no benchmark named ${only?.join(", ")}; known: ${MODULES.map((m) => m.name).join(", ")}`);
    return 2;
  }
  const results: BenchResult[] = [];
  for (const module of modules) {
    log(`== ${module.name}: ${module.description}`);
    results.push(...(await module.run({ dataDir, scale: quick ? 0.2 : 1, log })));
  }
  if (json) process.stdout.write(`${JSON.stringify({ dataDir, results }, null, 2)}\n`);
  else {
    // Wall-clock medians depend on what else runs; the load average says how busy the machine was.
    const load = loadavg()
      .map((value) => value.toFixed(2))
      .join(" ");
    process.stdout.write(
      `data: ${dataDir}\nnode ${process.version}, ${availableParallelism()} cores, load average ${load}\n\n${formatTable(results)}\n`,
    );
  }
  const missed = results.filter((result) => (ratioToTarget(result) ?? 0) > 1);
  if (missed.length > 0) log(`${missed.length} target(s) missed`);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
