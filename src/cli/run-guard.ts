/**
 * What can stop a `tau run` from outside its simulations, turned into a clean stop: an exception
 * thrown where no simulation can catch it (a timer, a callback or a promise nobody awaited, in an
 * agent or user module), and a stall (the process has nothing left to do while simulations still
 * wait on promises that can never settle). Without this, Node prints a stack and exits 1, or
 * exits 13 silently; either way the lock stays behind and no results file is written.
 */
import { TauError } from "../core/errors.ts";
import { type CallInFlight, participantCallsInFlight } from "../orchestrator/index.ts";

/** The reason a guarded run was stopped (the abort reason of its signal). */
export class RunFault extends TauError {}

/** The first stack frame of an error, as "file:line:column" when it has one. */
function whereThrown(error: unknown): string | null {
  if (!(error instanceof Error) || typeof error.stack !== "string") return null;
  for (const line of error.stack.split("\n").slice(1)) {
    const frame = line.trim();
    if (!frame.startsWith("at ")) continue;
    const location = /\(([^()]+:\d+:\d+)\)$/.exec(frame)?.[1] ?? /^at (\S+:\d+:\d+)$/.exec(frame)?.[1];
    if (location !== undefined) return location;
  }
  return null;
}

function escapedMessage(error: unknown, modules: readonly string[]): string {
  const what =
    error instanceof Error ? `${error.name}: ${error.message}` : `a non-error value: ${String(error)}`;
  const where = whereThrown(error);
  const suspects =
    modules.length === 0
      ? ""
      : `; this run's participant module${modules.length > 1 ? "s" : ""}: ${modules.join(", ")}`;
  return `${what.split("\n")[0]}${where === null ? "" : ` (at ${where})`} — thrown where no simulation could catch it: a timer, a callback or a promise nobody awaited${suspects}`;
}

function stallMessage(calls: readonly CallInFlight[], modules: readonly string[]): string {
  const pending = (["agent", "user"] as const).flatMap((role) => {
    const mine = calls.filter((call) => call.role === role);
    if (mine.length === 0) return [];
    const tasks = [...new Set(mine.map((call) => call.taskId))];
    const shown = tasks.slice(0, 5).join(", ") + (tasks.length > 5 ? `, … (${tasks.length} tasks)` : "");
    return [`the ${role} '${mine[0]!.name}' generate() for task${tasks.length > 1 ? "s" : ""} ${shown}`];
  });
  const suspects = modules.length === 0 ? "" : ` (${modules.join(", ")})`;
  return pending.length === 0
    ? "the run stalled: it waits on a promise that nothing left running can settle"
    : `the run stalled: ${pending.join(" and ")} returned a promise that never settles, and nothing left running can settle it${suspects}; --timeout bounds each simulation`;
}

/**
 * Guards a run until the returned function is called: the first escaped exception or a stall aborts
 * `controller` with a {@link RunFault} (later ones are only counted); `modules` are the agent and
 * user module paths, named as the suspects.
 */
export function guardRun(controller: AbortController, modules: readonly string[]): () => void {
  let escaped = 0;
  const stop = (fault: RunFault) => {
    if (!controller.signal.aborted) controller.abort(fault);
  };
  const onEscaped = (error: unknown) => {
    escaped++;
    if (escaped === 1) stop(new RunFault(escapedMessage(error, modules)));
  };
  const onBeforeExit = () => stop(new RunFault(stallMessage(participantCallsInFlight(), modules)));
  process.on("uncaughtException", onEscaped);
  process.on("unhandledRejection", onEscaped);
  process.on("beforeExit", onBeforeExit);
  return () => {
    process.off("uncaughtException", onEscaped);
    process.off("unhandledRejection", onEscaped);
    process.off("beforeExit", onBeforeExit);
  };
}
