/**
 * Percentile-bootstrap intervals over tasks. Tasks are the unit resampled:
 * each task's estimate (its pass^k, its success rate, or a paired difference)
 * is one value, and a resample draws as many tasks as there are, with
 * replacement. The stream of draws is seeded; callers pass values in a
 * canonical task order (see `order.ts`), so an interval depends on the
 * results, never on the order they were read in.
 */
import { seededRandom } from "./random.ts";

/** Default number of bootstrap resamples. */
export const DEFAULT_RESAMPLES = 2000;
/** Default seed of every seeded computation in this folder. */
export const DEFAULT_SEED = 0x7a0b;
/** Default coverage of reported intervals. */
export const DEFAULT_INTERVAL_LEVEL = 0.95;

/** How an interval was computed, for reports to name. */
export interface IntervalMethod {
  method: "percentile bootstrap over tasks";
  /** Coverage, e.g. 0.95. */
  level: number;
  resamples: number;
  seed: number;
  /** Tasks resampled. */
  tasks: number;
}

/** A coverage as a percentage: 0.95 → "95%". */
export function formatLevel(level: number): string {
  return `${Number((level * 100).toFixed(2))}%`;
}

/** One line naming the method, e.g. "95% percentile bootstrap over 50 tasks (2000 resamples, seed 31243)". */
export function describeIntervalMethod(method: IntervalMethod): string {
  return `${formatLevel(method.level)} ${method.method.replace("tasks", `${method.tasks} task${method.tasks === 1 ? "" : "s"}`)} (${method.resamples} resamples, seed ${method.seed})`;
}

/** Linear-interpolation quantile of sorted values (numpy's default). */
export function quantileOfSorted(sorted: ArrayLike<number>, q: number): number {
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const low = sorted[lower]!;
  return low + (sorted[upper]! - low) * (position - lower);
}

/** Options of the bootstrap functions. */
export interface BootstrapOptions {
  resamples?: number;
  seed?: number;
  level?: number;
}

/**
 * Percentile intervals of the means of several columns of per-task values,
 * all from the same resamples of tasks (`columns[c][i]` is task i's value in
 * column c; every column has one value per task). Empty when there are no tasks.
 */
export function bootstrapMeans(
  columns: readonly (readonly number[])[],
  options: BootstrapOptions = {},
): [number, number][] {
  const tasks = columns[0]?.length ?? 0;
  if (tasks === 0) return [];
  if (columns.some((column) => column.length !== tasks))
    throw new RangeError("bootstrapMeans: every column needs one value per task");
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const level = options.level ?? DEFAULT_INTERVAL_LEVEL;
  if (!Number.isInteger(resamples) || resamples < 1)
    throw new RangeError(`resamples must be a positive integer, got ${resamples}`);
  if (!(level > 0 && level < 1)) throw new RangeError(`level must be between 0 and 1, got ${level}`);
  const random = seededRandom(options.seed ?? DEFAULT_SEED);
  const means = columns.map(() => new Float64Array(resamples));
  const sums = new Float64Array(columns.length);
  for (let r = 0; r < resamples; r++) {
    sums.fill(0);
    for (let i = 0; i < tasks; i++) {
      const task = Math.floor(random() * tasks);
      for (let c = 0; c < columns.length; c++) sums[c]! += columns[c]![task]!;
    }
    for (let c = 0; c < columns.length; c++) means[c]![r] = sums[c]! / tasks;
  }
  const tail = (1 - level) / 2;
  return means.map((column) => {
    // A typed array sorts numerically, in place.
    column.sort();
    return [quantileOfSorted(column, tail), quantileOfSorted(column, 1 - tail)];
  });
}

/** Percentile-bootstrap interval of the mean of `values` (one per task; null when empty). */
export function bootstrapMeanInterval(
  values: readonly number[],
  resamples = DEFAULT_RESAMPLES,
  seed = DEFAULT_SEED,
  level = DEFAULT_INTERVAL_LEVEL,
): [number, number] | null {
  return bootstrapMeans([values], { resamples, seed, level })[0] ?? null;
}
