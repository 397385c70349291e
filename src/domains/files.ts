/** Reading domain data files with errors that name the file and the field. */
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { FileFormatError, formatIssuePath } from "../core/errors.ts";
import { parseOrThrow, parsePyJsonFile, readPyJson, readText } from "../core/read-files.ts";
import { Task, TaskSplits } from "../core/task.ts";
import { DbState } from "../env/db-state.ts";
import { type ModelTy, ModelValidationError, type Ty, validate } from "../env/model.ts";

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
  if (path.endsWith(".toml")) {
    let raw: unknown;
    try {
      raw = parseToml(readText(path));
    } catch (error) {
      if (error instanceof FileFormatError) throw error;
      throw new FileFormatError(path, `invalid TOML: ${(error as Error).message}`, { cause: error });
    }
    return DbState.fromValidated<R>(ty, validateDb(path, ty, raw));
  }
  const text = readText(path);
  const quick = quickValidatedJson(ty, text);
  if (quick) return DbState.fromValidated<R>(ty, quick);
  return DbState.fromValidated<R>(ty, validateDb(path, ty, parsePyJsonFile(path, text, { maps: true })));
}

// A key JavaScript objects would move to the front (an array index): `"429815": ` after `{`, `,` or
// white space is always a key (inside a string a quote is escaped). Such keys get MARK in front, so
// the parsed object keeps file order; the validated dicts are given their keys back. MARK (DEL) is
// a one-byte character, so the text stays a one-byte string.
const INDEX_KEY = /"(?:0|[1-9][0-9]*)"\s*:/g;
const MARK = "\x7f";
// An escaped digit in a key, or the mark itself in the file: the shortcut is not taken.
const NOT_QUICK = /\\u003[0-9]|\x7f|\\u007f/i;

/** The text with {@link MARK} after the opening quote of every integer-like key. */
function markIndexKeys(text: string): string {
  const parts: string[] = [];
  let copied = 0;
  INDEX_KEY.lastIndex = 0;
  for (let match = INDEX_KEY.exec(text); match; match = INDEX_KEY.exec(text)) {
    const before = text.charCodeAt(match.index - 1);
    if (
      before !== 0x7b &&
      before !== 0x2c &&
      before !== 0x20 &&
      before !== 0x0a &&
      before !== 0x09 &&
      before !== 0x0d
    )
      continue;
    parts.push(text.slice(copied, match.index + 1), MARK);
    copied = match.index + 1;
  }
  if (copied === 0) return text;
  parts.push(text.slice(copied));
  return parts.join("");
}

/**
 * A DB file's content validated from the built-in `JSON.parse` (several times faster than the
 * Python-compatible parser on a large DB), when that gives exactly what the full path gives: the
 * model has no `any` field (typed fields take ints and floats alike, so `2.0` vs `2` cannot
 * matter), integer-like keys keep their order (see {@link INDEX_KEY}), and the content parses and
 * validates. Otherwise undefined, and the full path decides — with its own messages.
 */
function quickValidatedJson(ty: ModelTy, text: string): Record<string, unknown> | undefined {
  if (keepsRawValues(ty) || NOT_QUICK.test(text)) return undefined;
  const marked = markIndexKeys(text);
  try {
    const value = validate<Record<string, unknown>>(ty, JSON.parse(marked));
    return marked === text ? value : (unmark(ty, value) as Record<string, unknown>);
  } catch {
    return undefined;
  }
}

/** The validated value with {@link MARK} taken off the dict keys that carry it (dicts are fresh Maps, changed in place). */
function unmark(ty: Ty, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  switch (ty.kind) {
    case "optional":
      return unmark(ty.inner, value);
    case "list":
      for (const [i, item] of (value as unknown[]).entries()) (value as unknown[])[i] = unmark(ty.item, item);
      return value;
    case "dict": {
      const map = value as Map<string, unknown>;
      let marked = false;
      for (const [key, item] of map) {
        marked ||= key.startsWith(MARK);
        map.set(key, unmark(ty.value, item)); // an existing key keeps its place
      }
      if (!marked) return map;
      const entries = [...map];
      map.clear();
      for (const [key, item] of entries) map.set(key.startsWith(MARK) ? key.slice(MARK.length) : key, item);
      return map;
    }
    case "model":
      for (const field of ty.fields) {
        const record = value as Record<string, unknown>;
        if (field.name in record) record[field.name] = unmark(field.ty, record[field.name]);
      }
      return value;
    case "union": {
      // The variant by the tag its validated value kept; none kept it: the full path is taken.
      const tag = (value as Record<string, unknown>)[ty.discriminator];
      const variant = typeof tag === "string" ? ty.variants[tag] : undefined;
      if (!variant) throw new Error("no tag to unmark by");
      return unmark(variant, value);
    }
    default:
      return value;
  }
}

const rawValueTypes = new WeakMap<Ty, boolean>();

/** Whether a type has an `any` somewhere (a value kept as read, int or float as spelled). */
function keepsRawValues(ty: Ty): boolean {
  let known = rawValueTypes.get(ty);
  if (known === undefined) {
    rawValueTypes.set(ty, false); // a recursive type is decided by its other parts
    known = innerTypes(ty).some(keepsRawValues) || ty.kind === "any";
    rawValueTypes.set(ty, known);
  }
  return known;
}

function innerTypes(ty: Ty): readonly Ty[] {
  switch (ty.kind) {
    case "optional":
      return [ty.inner];
    case "list":
      return [ty.item];
    case "dict":
      return [ty.value];
    case "model":
      return ty.fields.map((field) => field.ty);
    case "union":
      return Object.values(ty.variants);
    default:
      return [];
  }
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
