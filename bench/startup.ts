/**
 * Start-up of the `tau` command: `tau --version` from the build in dist/ (what
 * an installed package runs), median wall time of fresh processes, and the CPU
 * time they used (less sensitive to other load on the machine). Also shown for
 * comparison: `tau view` of a small run from dist/ (a command that loads the
 * runner but no model SDK), and `--version` from the sources through tsx.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type BenchContext, type BenchModule, type BenchResult, median } from "./harness.ts";

/** Target for `tau --version` from dist/ (ms of wall time, on an idle machine). */
export const STARTUP_TARGET_MS = 250;

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Median wall and CPU milliseconds of `runs` processes of `node <args>`. */
function timeProcess(args: string[], runs: number): { wallMs: number; cpuMs: number } {
  const walls: number[] = [];
  const cpus: number[] = [];
  // The child reports its own CPU time (user + system) on exit, on stderr.
  const probe = join(repo, "bench", "startup-probe.cjs");
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const result = spawnSync(process.execPath, ["--require", probe, ...args], { encoding: "utf8" });
    walls.push(performance.now() - started);
    if (result.status !== 0) throw new Error(`node ${args.join(" ")} failed: ${result.stderr}`);
    const cpu = /cpu-ms (\d+(?:\.\d+)?)/.exec(result.stderr)?.[1];
    if (cpu) cpus.push(Number(cpu));
  }
  return { wallMs: median(walls), cpuMs: cpus.length > 0 ? median(cpus) : Number.NaN };
}

/** The benchmark module `bench/index.ts` runs. */
export const startupBench: BenchModule = {
  name: "startup",
  description: "tau --version from dist/ (fresh processes)",
  run(context: BenchContext): BenchResult[] {
    const bin = join(repo, "bin", "tau.js");
    if (!existsSync(join(repo, "dist", "cli", "main.js"))) {
      context.log("skipped: dist/ is missing (npm run build)");
      return [];
    }
    const runs = Math.max(5, Math.round(21 * context.scale));
    const built = timeProcess([bin, "--version"], runs);
    const source = timeProcess(
      [join(repo, "scripts", "tau-from-source.js"), "--version"],
      Math.max(3, runs >> 2),
    );
    return [
      {
        subject: "startup",
        metric: "tau --version (dist), wall",
        value: built.wallMs,
        unit: "ms",
        target: STARTUP_TARGET_MS,
        note: `median of ${runs} processes`,
      },
      { subject: "startup", metric: "tau --version (dist), CPU", value: built.cpuMs, unit: "ms" },
      {
        subject: "startup",
        metric: "tau --version (sources via tsx), wall",
        value: source.wallMs,
        unit: "ms",
        note: "development path, for comparison",
      },
    ];
  },
};
