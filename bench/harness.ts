/**
 * Shared pieces of the benchmarks: timing with medians, heap measurement,
 * one process per subject, and the report table (value, target, ratio to target).
 */
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** One measured number, optionally with the target it must stay under. */
export interface BenchResult {
  /** What was measured on (a domain name, "runner", …). */
  readonly subject: string;
  readonly metric: string;
  readonly value: number;
  /** `per s` and `ratio` are better when higher (their target is a floor); the others when lower. */
  readonly unit: "ms" | "bytes" | "per s" | "count" | "ratio";
  /** Upper bound the value should stay under (lower bound for `per s`); absent for information-only rows. */
  readonly target?: number;
  /** A remark shown after the row (e.g. which tool was timed). */
  readonly note?: string;
}

/** What every benchmark module receives. */
export interface BenchContext {
  /** Official data folder (upstream layout). */
  readonly dataDir: string;
  /** Multiplies iteration counts (`--quick` lowers it). */
  readonly scale: number;
  /** Progress lines go here (stderr), so stdout stays the report. */
  log(line: string): void;
}

/** A benchmark module: `bench/index.ts` runs each in turn and prints their results together. */
export interface BenchModule {
  readonly name: string;
  readonly description: string;
  run(context: BenchContext): Promise<BenchResult[]> | BenchResult[];
}

/**
 * Runs a benchmark module's file in child mode once per subject, each in a
 * Node process of its own (as a `tau run` would: the JIT and heap then carry
 * only that subject's shapes), and collects the results they print.
 */
export function runInChildren(
  moduleUrl: string,
  subjects: readonly string[],
  context: BenchContext,
  env: Record<string, string | undefined>,
): BenchResult[] {
  const results: BenchResult[] = [];
  for (const subject of subjects) {
    const child = spawnSync(
      process.execPath,
      ["--expose-gc", "--import", "tsx", fileURLToPath(moduleUrl), subject, String(context.scale)],
      { encoding: "utf8", env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 },
    );
    for (const line of child.stderr.split("\n")) if (line.trim() !== "") context.log(line);
    if (child.status !== 0) {
      context.log(`${subject}: skipped (benchmark process exited with ${child.status})`);
      continue;
    }
    results.push(...(JSON.parse(child.stdout) as BenchResult[]));
  }
  return results;
}

/**
 * The child side of {@link runInChildren}: when `moduleUrl` is the process's
 * entry point (`<file> <subject> <scale>`), benchmarks the subject and prints
 * its results as JSON on stdout.
 */
export function runChildMode(
  moduleUrl: string,
  dataDir: string | undefined,
  bench: (subject: string, context: BenchContext) => BenchResult[],
): void {
  if (process.argv[1] !== fileURLToPath(moduleUrl)) return;
  const [subject, scale] = process.argv.slice(2);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  try {
    process.stdout.write(
      JSON.stringify(bench(subject!, { dataDir: dataDir!, scale: Number(scale ?? 1), log })),
    );
  } catch (error) {
    log(`${subject}: skipped (${error instanceof Error ? error.message : String(error)})`);
    process.exitCode = 1;
  }
}

/**
 * Runs `moduleUrl` in a fresh Node process through tsx, as `<file> <mode> <JSON of payload>`
 * (with `--expose-gc` unless told otherwise), and returns the JSON it prints on stdout;
 * `label` names the process when it fails.
 */
export async function measureInFreshProcess<T>(
  moduleUrl: string,
  mode: string,
  payload: unknown,
  options: { label: string; exposeGc?: boolean },
): Promise<T> {
  const child = spawn(
    process.execPath,
    [
      ...(options.exposeGc === false ? [] : ["--expose-gc"]),
      "--import",
      "tsx",
      fileURLToPath(moduleUrl),
      mode,
      JSON.stringify(payload),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let output = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`the ${options.label} process exited with ${code}`);
  return JSON.parse(output) as T;
}

/** Results of one subject and the `add` that appends one (target and note only when given). */
export function subjectResults(subject: string): {
  results: BenchResult[];
  add: (metric: string, value: number, unit: BenchResult["unit"], target?: number, note?: string) => void;
} {
  const results: BenchResult[] = [];
  const add = (metric: string, value: number, unit: BenchResult["unit"], target?: number, note?: string) => {
    results.push({
      subject,
      metric,
      value,
      unit,
      ...(target !== undefined ? { target } : {}),
      ...(note ? { note } : {}),
    });
  };
  return { results, add };
}

/** Median of a non-empty sample. */
export function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Median time of one call, in milliseconds: `samples` batches of `batch`
 * calls each (batches make sub-microsecond work measurable), after a warm-up.
 */
export function timeMedianMs(
  fn: () => void,
  options: { samples: number; batch?: number; warmup?: number },
): number {
  const batch = options.batch ?? 1;
  for (let i = 0; i < (options.warmup ?? Math.min(50, options.samples)); i++) fn();
  const results: number[] = [];
  for (let s = 0; s < options.samples; s++) {
    const start = performance.now();
    for (let i = 0; i < batch; i++) fn();
    results.push((performance.now() - start) / batch);
  }
  return median(results);
}

/**
 * Median time of `measured`, where each sample first runs `prepare` untimed
 * (e.g. a fresh environment for a write that may only succeed once).
 */
export function timePreparedMs<T>(
  prepare: () => T,
  measured: (prepared: T) => void,
  samples: number,
  warmup = samples,
): number {
  // Warm up first (as timeMedianMs does): a run makes thousands of such calls, so the steady state is what counts.
  for (let w = 0; w < warmup; w++) measured(prepare());
  const results: number[] = [];
  for (let s = 0; s < samples; s++) {
    const prepared = prepare();
    const start = performance.now();
    measured(prepared);
    results.push(performance.now() - start);
  }
  return median(results);
}

type GcFunction = () => void;

/** Whether heap measurements are exact (`node --expose-gc`). */
export function canCollectGarbage(): boolean {
  return typeof (globalThis as { gc?: GcFunction }).gc === "function";
}

/** Heap in use after a full collection (when available). */
export function heapUsedBytes(): number {
  const gc = (globalThis as { gc?: GcFunction }).gc;
  if (gc) {
    gc();
    gc();
  }
  return process.memoryUsage().heapUsed;
}

function formatValue(value: number, unit: BenchResult["unit"]): string {
  switch (unit) {
    case "ms":
      return Math.abs(value) < 0.1
        ? `${(value * 1000).toFixed(2)} µs`
        : `${value.toFixed(Math.abs(value) < 10 ? 3 : 1)} ms`;
    case "bytes":
      return value < 10_240 ? `${Math.round(value)} B` : `${(value / 1024).toFixed(1)} KB`;
    case "per s":
      return `${value.toFixed(1)} /s`;
    case "count":
      return String(Math.round(value));
    case "ratio":
      return `${value.toFixed(2)}×`;
    default: {
      const never: never = unit;
      return String(never);
    }
  }
}

const higherIsBetter = (unit: BenchResult["unit"]) => unit === "per s" || unit === "ratio";

/** Ratio to target: below 1 is inside the target (for throughput the ratio is target / value). */
export function ratioToTarget(result: BenchResult): number | undefined {
  if (result.target === undefined) return undefined;
  return higherIsBetter(result.unit) ? result.target / result.value : result.value / result.target;
}

/** The report as an aligned text table. */
export function formatTable(results: readonly BenchResult[]): string {
  const header = ["subject", "metric", "median", "target", "ratio", "status", "note"];
  const rows = results.map((result) => {
    const ratio = ratioToTarget(result);
    const target =
      result.target === undefined
        ? "-"
        : `${higherIsBetter(result.unit) ? ">" : "<"} ${formatValue(result.target, result.unit)}`;
    return [
      result.subject,
      result.metric,
      formatValue(result.value, result.unit),
      target,
      ratio === undefined ? "-" : ratio.toFixed(3),
      ratio === undefined ? "" : ratio <= 1 ? "ok" : "MISSED",
      result.note ?? "",
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 2 || i === 3 || i === 4 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}
