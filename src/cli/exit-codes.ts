/**
 * The exit codes of `tau` (README "Exit codes"). A script can tell a run that
 * graded everything from one that left simulations ungraded, a usage mistake,
 * and an interruption, without reading the output.
 */
import type { SimulationRun } from "../core/simulation.ts";

export const EXIT_OK = 0;
/** An error stopped the command (a file that cannot be written, a bug). */
export const EXIT_ERROR = 1;
/** Bad flags, names, files or settings: nothing was run. */
export const EXIT_USAGE = 2;
/** The run ended, but some simulations were not evaluated (infrastructure errors, or a provider error stopped it). */
export const EXIT_SOME_NOT_EVALUATED = 3;
/** The run ended without evaluating any simulation. */
export const EXIT_NONE_EVALUATED = 4;
/** Ctrl-C: finished simulations are kept; the run can be resumed. */
export const EXIT_INTERRUPTED = 130;

/** How a run ended, as far as its exit code is concerned. */
export interface RunEnd {
  interrupted: boolean;
  stoppedBy: Error | null;
  /** Every simulation of the run (resumed ones included). */
  simulations: readonly Pick<SimulationRun, "termination_reason">[];
}

/** The exit code of a run that ended: 0 only when it was not cut short and every simulation was evaluated. */
export function runExitCode(end: RunEnd): number {
  if (end.interrupted) return EXIT_INTERRUPTED;
  const evaluated = end.simulations.filter((s) => s.termination_reason !== "infrastructure_error").length;
  const missing = end.simulations.length - evaluated;
  if (missing === 0 && end.stoppedBy === null) return EXIT_OK;
  return evaluated === 0 ? EXIT_NONE_EVALUATED : EXIT_SOME_NOT_EVALUATED;
}
