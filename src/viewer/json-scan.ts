/**
 * Finds, without parsing it, where each top-level member of a JSON object
 * file lies, and where each item of one of its array members lies: a
 * monolithic results file of any size is then read one simulation at a time
 * (`simulations` holds every transcript; the rest is small).
 */
import { closeSync, openSync, readSync } from "node:fs";
import { FileFormatError } from "../core/errors.ts";

/** A byte range `[start, end)`. */
export interface ByteRange {
  start: number;
  end: number;
}

/** The layout of a JSON object file. */
export interface ObjectLayout {
  /** Each top-level member's value, by key. */
  members: Map<string, ByteRange>;
  /** The items of the array member that was asked for (empty when it is absent or not an array). */
  items: ByteRange[];
}

const CHUNK_BYTES = 1 << 20;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/**
 * Scans `path` (a JSON object) and returns its members' ranges and the item
 * ranges of `arrayKey`. Only structure is checked (balanced brackets, strings
 * closed); a broken file is a {@link FileFormatError} naming the byte.
 */
export function scanObjectFile(path: string, arrayKey: string): ObjectLayout {
  const members = new Map<string, ByteRange>();
  const items: ByteRange[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  /** Offset of the last byte that is neither whitespace nor inside a string's closing. */
  let lastSignificant = -1;
  // Root-level member being read.
  let keyBytes: number[] | null = null;
  let key: string | null = null;
  let expectKey = false;
  let valueStart = -1;
  let expectValue = false;
  // Items of the wanted array.
  let inArray = false;
  let itemStart = -1;
  let expectItem = false;
  let sawRoot = false;

  const fail = (offset: number, what: string): never => {
    throw new FileFormatError(path, `byte ${offset}: ${what} (not a JSON object file)`);
  };
  const endMember = () => {
    if (key !== null && valueStart >= 0) members.set(key, { start: valueStart, end: lastSignificant + 1 });
    key = null;
    valueStart = -1;
  };

  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let position = 0;
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK_BYTES, position);
      if (read === 0) break;
      for (let i = 0; i < read; i++) {
        const byte = buffer[i]!;
        const offset = position + i;
        if (inString) {
          if (keyBytes !== null && !(byte === QUOTE && !escaped)) keyBytes.push(byte);
          if (escaped) escaped = false;
          else if (byte === BACKSLASH) escaped = true;
          else if (byte === QUOTE) {
            inString = false;
            lastSignificant = offset;
            if (keyBytes !== null) {
              key = JSON.parse(`"${Buffer.from(keyBytes).toString("utf8")}"`) as string;
              keyBytes = null;
            }
          }
          continue;
        }
        if (isSpace(byte)) continue;
        if (depth === 0 && sawRoot) fail(offset, "content after the root object");
        if (expectValue) {
          valueStart = offset;
          expectValue = false;
          if (key === arrayKey && byte === OPEN_BRACKET) {
            inArray = true;
            expectItem = true;
          }
        } else if (expectItem && depth === 2 && byte !== CLOSE_BRACKET) {
          itemStart = offset;
          expectItem = false;
        }
        switch (byte) {
          case QUOTE:
            inString = true;
            if (depth === 1 && expectKey) {
              keyBytes = [];
              expectKey = false;
            }
            break;
          case OPEN_BRACE:
          case OPEN_BRACKET:
            if (depth === 0) {
              if (byte !== OPEN_BRACE) fail(offset, "the root is not an object");
              sawRoot = true;
              expectKey = true;
            }
            depth++;
            // The array's own bracket opened depth 2; items start after it.
            if (inArray && depth === 2 && valueStart === offset) expectItem = true;
            break;
          case CLOSE_BRACE:
          case CLOSE_BRACKET:
            if (depth === 0) fail(offset, "unbalanced closing bracket");
            if (inArray && depth === 2 && byte === CLOSE_BRACKET) {
              if (itemStart >= 0) items.push({ start: itemStart, end: lastSignificant + 1 });
              itemStart = -1;
              inArray = false;
              expectItem = false;
            }
            if (depth === 1) endMember();
            depth--;
            break;
          case COLON:
            if (depth === 1) {
              if (key === null) fail(offset, "a colon without a key");
              expectValue = true;
            }
            break;
          case COMMA:
            if (depth === 1) {
              endMember();
              expectKey = true;
            } else if (inArray && depth === 2) {
              if (itemStart >= 0) items.push({ start: itemStart, end: lastSignificant + 1 });
              itemStart = -1;
              expectItem = true;
            }
            break;
          default:
            break;
        }
        lastSignificant = offset;
      }
      position += read;
    }
    if (!sawRoot) fail(position, "no JSON object");
    if (depth !== 0 || inString) fail(position, "the file ends inside a value (truncated?)");
  } finally {
    closeSync(fd);
  }
  return { members, items };
}
