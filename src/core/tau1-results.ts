/**
 * The original τ-bench's results file (`run.py`'s checkpoint, specs/tau-bench-v1.md
 * §12.2): a JSON list of `EnvRunResult` dumps `{task_id, reward, info, traj,
 * trial}`, written with `json.dump(..., indent=2)`. It does not say which
 * environment it belongs to. Entries are kept as ordered maps so a file
 * written back keeps every key where it was. Pure (no `node:` imports).
 */
import { isPyNumber, PyFloat, type PyValue, pyDumps, toNumber } from "./py-json.ts";

/** A dict of the file, key order kept. */
export type PyDict = Map<string, PyValue>;

/** One result (upstream `EnvRunResult`), with the parsed entry it came from. */
export interface Tau1ResultEntry {
  task_id: number;
  reward: number;
  info: PyDict;
  traj: PyDict[];
  trial: number;
  /** The whole entry as read (for writing it back with changes). */
  raw: PyDict;
}

/** A malformed entry: `where` is like `[3].info`. */
export class Tau1ResultsFormatError extends Error {
  constructor(
    readonly where: string,
    detail: string,
  ) {
    super(`${where}: ${detail}`);
    this.name = "Tau1ResultsFormatError";
  }
}

const isDict = (value: unknown): value is PyDict => value instanceof Map;

function integerOf(entry: PyDict, key: string, where: string): number {
  const value = entry.get(key);
  if (!isPyNumber(value) || value instanceof PyFloat || !Number.isInteger(value))
    throw new Tau1ResultsFormatError(`${where}.${key}`, "expected an integer");
  return value;
}

/** Reads a parsed file (JSON parsed with ordered maps); errors name the entry and the field. */
export function parseTau1Results(value: PyValue): Tau1ResultEntry[] {
  if (!Array.isArray(value)) throw new Tau1ResultsFormatError("(root)", "expected a JSON list of results");
  return value.map((item, index) => {
    const where = `[${index}]`;
    if (!isDict(item)) throw new Tau1ResultsFormatError(where, "expected an object");
    const reward = item.get("reward");
    if (!isPyNumber(reward)) throw new Tau1ResultsFormatError(`${where}.reward`, "expected a number");
    const info = item.get("info");
    if (!isDict(info)) throw new Tau1ResultsFormatError(`${where}.info`, "expected an object");
    const traj = item.get("traj");
    if (!Array.isArray(traj) || !traj.every(isDict))
      throw new Tau1ResultsFormatError(`${where}.traj`, "expected a list of messages");
    return {
      task_id: integerOf(item, "task_id", where),
      reward: toNumber(reward),
      info,
      traj,
      trial: integerOf(item, "trial", where),
      raw: item,
    };
  });
}

/** The file text from entries in upstream's key order and number kinds (`json.dump(indent=2)`, no final newline). */
export function serializeTau1Results(entries: readonly PyValue[]): string {
  return pyDumps(entries, { indent: 2 });
}

/** Whether parsed JSON is shaped like a τ-bench results file (a list), not a τ²-bench one (an object). */
export function isTau1ResultsValue(value: unknown): boolean {
  return Array.isArray(value);
}
