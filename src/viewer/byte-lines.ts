/**
 * Reading a JSON-lines file with the byte offset of every line, from any
 * offset on, so an index can keep offsets instead of the lines and a
 * follower can read only what was appended.
 */
import { closeSync, openSync, readSync } from "node:fs";

/** One complete line (its newline excluded). */
export interface ByteLine {
  offset: number;
  length: number;
  text: string;
}

/** What {@link readLinesFrom} found besides the lines. */
export interface LinesRead {
  /** Offset just after the last complete line (where the next read starts). */
  end: number;
  /** Bytes after the last newline (a line being written, or a torn one), null when none. */
  tail: ByteLine | null;
}

const CHUNK_BYTES = 1 << 20;

/**
 * Calls `onLine` for every newline-terminated line from `start` up to
 * `limit` (default: the file's size when read). Lines are decoded as UTF-8.
 */
export function readLinesFrom(
  path: string,
  start: number,
  onLine: (line: ByteLine) => void,
  limit = Number.POSITIVE_INFINITY,
): LinesRead {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let pieces: Buffer[] = [];
    let lineStart = start;
    let position = start;
    while (position < limit) {
      const read = readSync(fd, buffer, 0, Math.min(CHUNK_BYTES, limit - position), position);
      if (read === 0) break;
      let from = 0;
      for (;;) {
        const newline = buffer.indexOf(0x0a, from);
        if (newline < 0 || newline >= read) break;
        const piece = buffer.subarray(from, newline);
        const bytes = pieces.length > 0 ? Buffer.concat([...pieces, piece]) : piece;
        pieces = [];
        onLine({ offset: lineStart, length: bytes.length, text: bytes.toString("utf8") });
        lineStart = position + newline + 1;
        from = newline + 1;
      }
      // Copy: the buffer is reused by the next read.
      if (from < read) pieces.push(Buffer.from(buffer.subarray(from, read)));
      position += read;
    }
    const rest = pieces.length > 0 ? Buffer.concat(pieces) : null;
    return {
      end: lineStart,
      tail:
        rest && rest.length > 0
          ? { offset: lineStart, length: rest.length, text: rest.toString("utf8") }
          : null,
    };
  } finally {
    closeSync(fd);
  }
}

/** The bytes `[offset, offset + length)` of a file, as UTF-8 text. */
export function readRange(path: string, offset: number, length: number): string {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const read = readSync(fd, buffer, done, length - done, offset + done);
      if (read === 0) throw new Error(`${path} ended at byte ${offset + done}, expected ${offset + length}`);
      done += read;
    }
    return buffer.toString("utf8");
  } finally {
    closeSync(fd);
  }
}
