/**
 * The original τ-bench's metrics (`tau_bench/run.py::display_metrics`,
 * specs/tau-bench-v1.md §12.3): the average of every result's reward, and
 * pass^k = mean over tasks of C(c, k) / C(n, k) for k = 1..n, where n is the
 * number of distinct trials in the file and c a task's successes. Every
 * result counts, errors included (as reward 0), and nothing guards tasks with
 * fewer than n results — as upstream reports it, so numbers compare with
 * published τ-bench runs.
 */
import { isSuccessful, passKSeriesForTask } from "./index.ts";

/** What the formula reads of a result. */
export interface Tau1ResultScore {
  taskId: string;
  trial: number;
  /** 0 for results that failed with an error. */
  reward: number;
}

/** τ-bench's numbers for a set of results. */
export interface Tau1Metrics {
  /** Mean reward over every result (null when there are none). */
  averageReward: number | null;
  /** n: the number of distinct trial values. */
  numTrials: number;
  numTasks: number;
  /** pass^k for k = 1..n (index 0 is k = 1). */
  passHatK: number[];
}

/** Computes τ-bench's average reward and pass^k. */
export function tau1Metrics(results: readonly Tau1ResultScore[]): Tau1Metrics {
  const numTrials = new Set(results.map((result) => result.trial)).size;
  const successes = new Map<string, number>();
  let total = 0;
  for (const result of results) {
    total += result.reward;
    successes.set(result.taskId, (successes.get(result.taskId) ?? 0) + (isSuccessful(result.reward) ? 1 : 0));
  }
  const series = [...successes.values()].map((c) => passKSeriesForTask(numTrials, c, numTrials).passHatK);
  const passHatK: number[] = [];
  for (let k = 1; k <= numTrials; k++) {
    let sum = 0;
    for (const task of series) sum += task[k - 1]!;
    passHatK.push(sum / successes.size);
  }
  return {
    averageReward: results.length === 0 ? null : total / results.length,
    numTrials,
    numTasks: successes.size,
    passHatK,
  };
}
