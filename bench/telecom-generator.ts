/**
 * Telecom task generation: the whole set (compose, create and validate 2,285
 * tasks on fresh environments, serialize) timed end to end, median of a few
 * runs, plus loading the texts from the data folder.
 */
import { loadDomain } from "../src/domains/registry.ts";
import {
  generateTelecomTasks,
  loadTelecomTaskTexts,
  serializeTasks,
} from "../src/domains/telecom/generator/index.ts";
import { type BenchContext, type BenchModule, type BenchResult, median } from "./harness.ts";

/** Target for one full generation (ms): fast enough to run in a test. */
export const GENERATION_TARGET_MS = 10_000;

/** Times `runs` full generations from `dataDir`; returns the median and the task count. */
export function timeTelecomGeneration(
  dataDir: string,
  runs: number,
): { medianMs: number; tasks: number; textsMs: number } {
  const domain = loadDomain("telecom", dataDir);
  const textsStart = performance.now();
  const texts = loadTelecomTaskTexts(dataDir);
  const textsMs = performance.now() - textsStart;
  const samples: number[] = [];
  let tasks = 0;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const result = generateTelecomTasks(() => domain.makeEnvironment(), texts);
    serializeTasks(result.tasks);
    samples.push(performance.now() - start);
    tasks = result.tasks.length;
  }
  return { medianMs: median(samples), tasks, textsMs };
}

/** The benchmark module `bench/index.ts` runs. */
export const telecomGeneratorBench: BenchModule = {
  name: "telecom-generator",
  description: "full telecom task generation with validation (median of runs)",
  run(context: BenchContext): BenchResult[] {
    const runs = Math.max(1, Math.round(5 * context.scale));
    const { medianMs, tasks, textsMs } = timeTelecomGeneration(context.dataDir, runs);
    context.log(`telecom-generator: ${tasks} tasks, median ${medianMs.toFixed(0)} ms over ${runs} run(s)`);
    return [
      {
        subject: "telecom",
        metric: "generate all tasks",
        value: medianMs,
        unit: "ms",
        target: GENERATION_TARGET_MS,
        note: `${tasks} tasks + validation + serialization, median of ${runs}`,
      },
      { subject: "telecom", metric: "per task", value: medianMs / Math.max(1, tasks), unit: "ms" },
      { subject: "telecom", metric: "load generator texts", value: textsMs, unit: "ms" },
    ];
  },
};
