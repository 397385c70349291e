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
    if (missing.length > 0) {
      const inFile = new Set(all.map((task) => task.id));
      const outsideSplit = missing.filter((id) => inFile.has(id));
      const where = selection.split === null ? "" : ` (split '${selection.split}')`;
      const hint = outsideSplit.length > 0 ? `; not in this split: ${outsideSplit.join(", ")}` : "";
      throw new UsageError(
        `Unknown task id${missing.length > 1 ? "s" : ""} for domain '${source.name}'${where}: ${missing.join(", ")}${hint}`,
      );
    }
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
