/**
 * Which tasks a run covers (shared by `tau run`, `tau replay` and `tau tasks`) (spec §1.2): tasks.json order filtered by the split,
 * then the `--task-ids` filter (every id must exist), then the first
 * `--num-tasks`, then the agent's own task filter.
 */
import { UsageError } from "../core/errors.ts";
import type { Task, TaskSplits } from "../core/task.ts";

/** The part of a domain that task selection reads. */
export interface TaskSource {
  readonly name: string;
  tasks(): readonly Task[];
  splits(): TaskSplits | null;
  /** Split-addressed task lists (see `Domain.tasksOf`); when present it replaces `tasks()` + `splits()`. */
  tasksOf?(split: string | null): readonly Task[];
  /** Every split name selects all tasks (the domain's loader ignores it). */
  readonly ignoresSplitName?: boolean;
}

/** The user's choice of tasks. */
export interface TaskSelection {
  /** Split name (`base` by default); null selects every task in the file. */
  split: string | null;
  taskIds?: readonly string[] | null;
  numTasks?: number | null;
  /** The agent's registered filter (for example the gold-plan agent drops tasks without actions). */
  agentFilter?: ((task: Task) => boolean) | null;
  /** Hears of problems that do not stop the selection (a split naming a task the file lacks). */
  onWarning?: ((line: string) => void) | undefined;
}

/** Splits `--task-ids` values (`a,b`, `a b`, or repeated) on commas and whitespace, dropping empties and repeats. */
export function parseTaskIds(value: string | readonly string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const values = typeof value === "string" ? [value] : value;
  const ids: string[] = [];
  for (const text of values)
    for (const id of text.split(/[\s,]+/)) if (id !== "" && !ids.includes(id)) ids.push(id);
  return ids;
}

/** The split named by `--split` or `--task-split-name` (every command accepts both; they must agree). */
export function splitOption(options: { split?: string; taskSplitName?: string }): string | undefined {
  const { split, taskSplitName } = options;
  if (split !== undefined && taskSplitName !== undefined && split !== taskSplitName)
    throw new UsageError(`--split '${split}' and --task-split-name '${taskSplitName}' name different splits`);
  return split ?? taskSplitName;
}

/** Applies the selection to a domain's tasks; unknown splits or ids are a {@link UsageError}. */
export function selectTasks(source: TaskSource, selection: TaskSelection): Task[] {
  const all = source.tasksOf ? source.tasksOf(selection.split) : source.tasks();
  let tasks: Task[] = [...all];
  if (selection.split !== null && !source.ignoresSplitName && !source.tasksOf) {
    const splits = source.splits();
    // A domain without a split file has only its full task list; accept the default name for it.
    if (splits !== null) {
      const members = splits[selection.split];
      if (members === undefined) {
        throw new UsageError(
          `Unknown task split '${selection.split}' for domain '${source.name}'. Known splits: ${Object.keys(splits).join(", ")}`,
        );
      }
      const wanted = new Set(members);
      tasks = tasks.filter((task) => wanted.has(task.id));
      if (tasks.length < wanted.size) {
        const known = new Set(all.map((task) => task.id));
        const absent = [...wanted].filter((id) => !known.has(id));
        selection.onWarning?.(
          `warning: split '${selection.split}' of domain '${source.name}' names ${absent.length} task${absent.length === 1 ? "" : "s"} that tasks.json does not have, left out: ${absent.join(", ")}`,
        );
      }
    } else if (selection.split !== "base") {
      throw new UsageError(
        `Domain '${source.name}' has no split file, so split '${selection.split}' does not exist`,
      );
    }
  }
  if (selection.taskIds && selection.taskIds.length > 0) {
    const byId = new Map(tasks.map((task) => [task.id, task]));
    const missing = selection.taskIds.filter((id) => !byId.has(id));
    if (missing.length > 0) throw new UsageError(missingIdsMessage(source, selection.split, all, missing));
    const wanted = new Set(selection.taskIds);
    tasks = tasks.filter((task) => wanted.has(task.id));
  }
  if (selection.numTasks !== undefined && selection.numTasks !== null) {
    if (!Number.isInteger(selection.numTasks) || selection.numTasks < 1)
      throw new UsageError(`--num-tasks must be a positive integer, got ${selection.numTasks}`);
    tasks = tasks.slice(0, selection.numTasks);
  }
  if (selection.agentFilter) tasks = tasks.filter(selection.agentFilter);
  return tasks;
}

/** One line for `--task-ids` values the selection lacks: ids the file does not have, then ids only other splits hold (naming those splits). */
function missingIdsMessage(
  source: TaskSource,
  split: string | null,
  all: readonly Task[],
  missing: readonly string[],
): string {
  const inFile = new Set(all.map((task) => task.id));
  const unknown = missing.filter((id) => !inFile.has(id));
  const outside = missing.filter((id) => inFile.has(id));
  const plural = (ids: readonly string[]) => (ids.length > 1 ? "s" : "");
  const parts: string[] = [];
  if (unknown.length > 0)
    parts.push(
      `Unknown task id${plural(unknown)} for domain '${source.name}'${split === null ? "" : ` (split '${split}')`}: ${unknown.join(", ")}`,
    );
  if (outside.length > 0) {
    const splits = source.splits() ?? {};
    const holders = Object.keys(splits).filter((name) => outside.every((id) => splits[name]?.includes(id)));
    const them = outside.length > 1 ? "they are" : "it is";
    const hint =
      holders.length > 0
        ? ` (${them} in ${holders.map((name) => `'${name}'`).join(", ")}; choose with --split)`
        : "";
    parts.push(
      `${parts.length > 0 ? "t" : "T"}ask${plural(outside)} ${outside.join(", ")} of domain '${source.name}' ${outside.length > 1 ? "are" : "is"} not in split '${split}'${hint}`,
    );
  }
  return parts.join("; ");
}
