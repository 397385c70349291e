/** Reading domain data files with errors that name the file and the field. */
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { FileFormatError, formatIssuePath } from "../core/errors.ts";
import { parseOrThrow, readPyJson, readText } from "../core/read-files.ts";
import { Task, TaskSplits } from "../core/task.ts";
import { DbState } from "../env/db-state.ts";
import { type ModelTy, ModelValidationError, validate } from "../env/model.ts";

/** The generic file readers, for domain code and the user simulator's guideline files. */
export { readPyJson, readText };

/** Loads a task file (a JSON list of tasks). */
export function readTasks(path: string): Task[] {
  const raw = readPyJson(path);
  if (!Array.isArray(raw)) throw new FileFormatError(path, "expected a JSON list of tasks");
  return raw.map((item, i) => {
    const result = Task.safeParse(item);
    if (result.success) return result.data;
    const issue = result.error.issues[0]!;
    const id =
      item && typeof item === "object" && "id" in item ? ` (id ${String((item as { id: unknown }).id)})` : "";
    throw new FileFormatError(path, `task [${i}]${id}: ${formatIssuePath(issue.path)}: ${issue.message}`);
  });
}

/** Loads a split file. */
export function readSplits(path: string): TaskSplits {
  return parseOrThrow(path, TaskSplits, readPyJson(path));
}

/** Loads a DB file (JSON or TOML) into a frozen base {@link DbState}. */
export function readDb<R extends object>(path: string, ty: ModelTy): DbState<R> {
  let raw: unknown;
  if (path.endsWith(".toml")) {
    try {
      raw = parseToml(readText(path));
    } catch (error) {
      if (error instanceof FileFormatError) throw error;
      throw new FileFormatError(path, `invalid TOML: ${(error as Error).message}`, { cause: error });
    }
  } else {
    raw = readPyJson(path, { maps: true });
  }
  return DbState.fromValidated<R>(ty, validateDb(path, ty, raw));
}

/** Validates a DB file's content; a failure is a {@link FileFormatError} with the first issue. */
export function validateDb(path: string, ty: ModelTy, raw: unknown): Record<string, unknown> {
  try {
    return validate<Record<string, unknown>>(ty, raw);
  } catch (error) {
    if (error instanceof ModelValidationError) {
      throw new FileFormatError(path, error.message.split("\n").slice(0, 3).join(" "), { cause: error });
    }
    throw error;
  }
}

/** A domain folder's tasks, splits and text files, each read on first use and then kept. */
export interface DomainFiles {
  tasks(): Task[];
  splits(): TaskSplits;
  /** A text file of the folder (policies, manuals), by file name. */
  text(file: string): string;
}

/** Lazy, cached readers for the standard files of a domain folder. */
export function domainFiles(dir: string): DomainFiles {
  let tasks: Task[] | undefined;
  let splits: TaskSplits | undefined;
  const texts = new Map<string, string>();
  return {
    tasks: () => (tasks ??= readTasks(join(dir, "tasks.json"))),
    splits: () => (splits ??= readSplits(join(dir, "split_tasks.json"))),
    text: (file) => {
      let value = texts.get(file);
      if (value === undefined) {
        value = readText(join(dir, file));
        texts.set(file, value);
      }
      return value;
    },
  };
}
