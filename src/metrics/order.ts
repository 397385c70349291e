/**
 * One canonical order for tasks and simulations, so every number computed
 * from a run (sums, bootstrap resamples, Monte Carlo p-values) is the same
 * whatever order the checkpoint's lines were written in.
 */
import type { SimulationRun } from "../core/simulation.ts";

const DIGITS = /\d+|\D+/g;

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// Digit runs by value (leading zeros ignored), text runs by code unit.
function compareChunks(a: string, b: string): number {
  const aDigits = a.charCodeAt(0) >= 48 && a.charCodeAt(0) <= 57;
  const bDigits = b.charCodeAt(0) >= 48 && b.charCodeAt(0) <= 57;
  if (aDigits && bDigits) {
    const x = a.replace(/^0+(?=\d)/, "");
    const y = b.replace(/^0+(?=\d)/, "");
    if (x.length !== y.length) return x.length - y.length;
    return compareCodeUnits(x, y);
  }
  return compareCodeUnits(a, b);
}

/**
 * Natural order of task ids: `2` before `10`, `task_9` before `task_10`;
 * a total order (ties of value, such as `07` and `7`, fall back to the text).
 */
export function compareTaskIds(a: string, b: string): number {
  if (a === b) return 0;
  const x = a.match(DIGITS) ?? [];
  const y = b.match(DIGITS) ?? [];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const order = compareChunks(x[i]!, y[i]!);
    if (order !== 0) return order;
  }
  return x.length !== y.length ? x.length - y.length : compareCodeUnits(a, b);
}

/** Simulations by task id, trial, seed, then id: the order metrics read them in. */
export function canonicalOrder(simulations: readonly SimulationRun[]): SimulationRun[] {
  return [...simulations].sort(
    (a, b) =>
      compareTaskIds(a.task_id, b.task_id) ||
      (a.trial ?? 0) - (b.trial ?? 0) ||
      (a.seed ?? 0) - (b.seed ?? 0) ||
      compareCodeUnits(a.id, b.id),
  );
}
