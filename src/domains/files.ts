/** Reading domain data files with errors that name the file and the field. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import type { z } from "zod";
import { FileFormatError, formatIssuePath } from "../core/errors.ts";
import { type PyValue, parsePyJson, PyJsonSyntaxError } from "../core/py-json.ts";
import { Task, TaskSplits } from "../core/task.ts";
import { DbState } from "../env/db-state.ts";
import { type ModelTy, ModelValidationError, validate } from "../env/model.ts";

/** Reads a UTF-8 text file; a missing file is a {@link FileFormatError}. */
export function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new FileFormatError(path, code === "ENOENT" ? "file not found" : `cannot read (${code})`, {
      cause: error,
    });
  }
}

/** Parses a JSON file the Python way (int/float kept; `maps` keeps key order of integer-like keys). */
export function readPyJson(path: string, options: { maps?: boolean } = {}): PyValue {
  const text = readText(path);
  try {
    return parsePyJson(text, options);
  } catch (error) {
    if (error instanceof PyJsonSyntaxError)
      throw new FileFormatError(path, `invalid JSON: ${error.message}`, { cause: error });
    throw error;
  }
}

/** Parses and validates a file with a zod schema; the error names the failing field. */
export function parseWith<S extends z.ZodType>(path: string, schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new FileFormatError(path, `${formatIssuePath(issue.path)}: ${issue.message}`);
}

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
  return parseWith(path, TaskSplits, readPyJson(path));
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
