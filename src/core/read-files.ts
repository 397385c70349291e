/** Reading text, JSON and schema-checked files with errors that name the file (and the field). */
import { isAscii } from "node:buffer";
import { readFileSync } from "node:fs";
import type { z } from "zod";
import { FileFormatError, formatIssuePath } from "./errors.ts";
import { type PyValue, parsePyJson, PyJsonSyntaxError } from "./py-json.ts";

/** Reads a UTF-8 text file; a missing file is a {@link FileFormatError}. */
export function readText(path: string): string {
  try {
    // An ASCII file (every data file upstream ships) reads the same as latin1, which skips UTF-8
    // decoding: a 7 MB DB reads tens of ms sooner.
    const bytes = readFileSync(path);
    return isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new FileFormatError(path, code === "ENOENT" ? "file not found" : `cannot read (${code})`, {
      cause: error,
    });
  }
}

/** Parses a JSON file the Python way (int/float kept; `maps` keeps key order of integer-like keys). */
export function readPyJson(path: string, options: { maps?: boolean } = {}): PyValue {
  return parsePyJsonFile(path, readText(path), options);
}

/** {@link readPyJson} of a file's text already read. */
export function parsePyJsonFile(path: string, text: string, options: { maps?: boolean } = {}): PyValue {
  try {
    return parsePyJson(text, options);
  } catch (error) {
    if (error instanceof PyJsonSyntaxError)
      throw new FileFormatError(path, `invalid JSON: ${error.message}`, { cause: error });
    throw error;
  }
}

/** Validates with a schema; the error is one line naming the file and the field path. */
export function parseOrThrow<S extends z.ZodType>(
  path: string,
  schema: S,
  value: unknown,
  prefix = "",
): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const where = formatIssuePath([...(prefix ? [prefix] : []), ...issue.path]);
  const detail = /received undefined$/.test(issue.message)
    ? "missing required field"
    : issue.message.replace(/\s+/g, " ");
  throw new FileFormatError(path, `${where}: ${detail}`);
}
