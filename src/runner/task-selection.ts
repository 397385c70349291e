/** Task selection as upstream does it (§1.2): split filter in file order, then ids, then a count limit. Shared by `tau run`, `tau replay` and `tau tasks`. */
import { UsageError } from "../core/errors.ts";
import type { Task } from "../core/task.ts";
import type { Domain } from "../domains/types.ts";

/** What to select. `split: null` means every task in the file. */
export interface TaskSelection {
  split: string | null;
  taskIds?: readonly string[] | undefined;
  numTasks?: number | undefined;
}

/** Selects tasks; unknown split names and task ids are {@link UsageError}s naming them. */
export function selectTasks(domain: Domain, selection: TaskSelection): Task[] {
  let tasks = [...domain.tasks()];
  if (selection.split !== null) {
    const splits = domain.splits();
    const ids = splits?.[selection.split];
    if (!ids) {
      const known = splits ? Object.keys(splits).join(", ") : "none";
      throw new UsageError(
        `Unknown split '${selection.split}' for domain ${domain.name}. Known splits: ${known}`,
      );
    }
    const keep = new Set(ids);
    tasks = tasks.filter((task) => keep.has(task.id));
  }
  if (selection.taskIds && selection.taskIds.length > 0) {
    const byId = new Set(tasks.map((task) => task.id));
    const missing = selection.taskIds.filter((id) => !byId.has(id));
    if (missing.length > 0) {
      throw new UsageError(
        `Unknown task id${missing.length === 1 ? "" : "s"} for domain ${domain.name}${selection.split ? ` (split ${selection.split})` : ""}: ${missing.join(", ")}`,
      );
    }
    const wanted = new Set(selection.taskIds);
    tasks = tasks.filter((task) => wanted.has(task.id));
  }
  if (selection.numTasks !== undefined) tasks = tasks.slice(0, selection.numTasks);
  return tasks;
}

/** Splits a `--task-ids` value given as `a,b` or `a b` (or repeated). */
export function parseTaskIds(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const parts = (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(/[,\s]+/));
  return parts.filter((p) => p !== "");
}
