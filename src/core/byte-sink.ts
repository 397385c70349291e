/**
 * Bytes appended to one growing buffer: what the checkpoint encodes its lines into and the results
 * export lays a file out in before handing them to the disk, so no text of theirs exists as strings.
 */
import type { ByteOutput } from "./py-json.ts";
import { hasSecrets, knownSecrets, maskSecrets } from "./secrets.ts";

export class ByteSink implements ByteOutput {
  private buffer: Buffer;
  /** Bytes held, at the start of {@link bytes}. */
  length = 0;

  constructor(initialBytes = 1 << 16) {
    this.buffer = Buffer.allocUnsafe(initialBytes);
  }

  /** What was appended since the last {@link clear} (a view: valid until the next append). */
  get bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  clear(): void {
    this.length = 0;
  }

  /** Drops what was appended after the first `length` bytes. */
  truncate(length: number): void {
    this.length = Math.min(this.length, length);
  }

  /** Appends `source[start, end)`. */
  copy(source: Uint8Array, start: number, end: number): void {
    this.reserve(end - start);
    const buffer = this.buffer;
    if (end - start > 64) buffer.set(source.subarray(start, end), this.length);
    else {
      // Most pieces are short (the export copies one per line break): a loop makes no view of them.
      for (let i = start, at = this.length; i < end; i++, at++) buffer[at] = source[i]!;
    }
    this.length += end - start;
  }

  /** Appends one byte. */
  byte(value: number): void {
    this.reserve(1);
    this.buffer[this.length++] = value;
  }

  /** Appends `text`, which must be ASCII (as JSON with ensure_ascii is), a byte per character. */
  ascii(text: string): void {
    const n = text.length;
    this.reserve(n);
    if (n > 32) this.length += this.buffer.write(text, this.length, "latin1");
    else {
      // Short pieces (keys, numbers, separators) are most of a JSON document: no call out for them.
      const buffer = this.buffer;
      for (let i = 0, at = this.length; i < n; i++, at++) buffer[at] = text.charCodeAt(i);
      this.length += n;
    }
  }

  /** Appends `text` as UTF-8. */
  text(text: string): void {
    this.reserve(text.length * 3); // a UTF-16 code unit is at most 3 UTF-8 bytes
    this.length += this.buffer.write(text, this.length, "utf8");
  }

  /** Appends a line break and `level` levels of two-space indentation. */
  newline(level: number): void {
    const end = this.length + 1 + 2 * level;
    this.reserve(end - this.length);
    const buffer = this.buffer;
    buffer[this.length] = 0x0a;
    for (let i = this.length + 1; i < end; i++) buffer[i] = 0x20;
    this.length = end;
  }

  /** Bytes it can hold before it grows. */
  get capacity(): number {
    return this.buffer.length;
  }

  toString(): string {
    return this.buffer.toString("utf8", 0, this.length);
  }

  /**
   * Masks every secret known now in what was appended from `start` on: when its bytes hold one, they
   * are replaced by {@link maskSecrets} of their text (bytes cannot be masked in place).
   */
  maskSecretsFrom(start: number): void {
    if (!hasSecrets()) return;
    const bytes = this.bytes;
    if (!knownSecrets().some((secret) => bytes.indexOf(secret, start, "utf8") >= 0)) return;
    const text = bytes.toString("utf8", start);
    this.truncate(start);
    this.text(maskSecrets(text));
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.length + extra, this.buffer.length * 2));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }
}
