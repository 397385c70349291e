/**
 * Python-compatible JSON: values that remember int vs float, a parser that keeps
 * that distinction, and a serializer byte-identical to CPython's `json.dumps`
 * (separators, ASCII escaping, float repr, code-point key order).
 */

/**
 * Where {@link pyDumpsInto} and {@link indentCompactPyJsonBytes} append UTF-8 bytes (byte-sink.ts's
 * `ByteSink` in Node; a type only here, so the browser viewer can import this module).
 */
export interface ByteOutput {
  byte(value: number): void;
  /** ASCII text, a byte per character. */
  ascii(text: string): void;
  text(text: string): void;
  copy(source: Uint8Array, start: number, end: number): void;
  /** A line break and `level` levels of two-space indentation. */
  newline(level: number): void;
}

/**
 * One class for every loaded copy of taubench. A `.ts` agent module is loaded through tsx with its
 * own copy of what it imports, this file included; a `2.0` its AI SDK adapter parses must still be
 * `instanceof PyFloat` for the runner's tools and serializer (and the runner's for the module's).
 * Sharing the class through a global keeps `instanceof` a plain prototype check on the hot paths.
 * The key names the shape: a copy with another shape would register under another key.
 */
function sharedClass<T>(key: string, local: T): T {
  const registry = globalThis as { [key: symbol]: unknown };
  const symbol = Symbol.for(key);
  registry[symbol] ??= local;
  return registry[symbol] as T;
}

class PyFloatClass {
  constructor(readonly value: number) {}
  valueOf(): number {
    return this.value;
  }
}

/** A Python float whose value is integral (`2.0`): JavaScript numbers cannot tell it from `2`. */
export const PyFloat: typeof PyFloatClass = sharedClass("taubench.PyFloat.v1", PyFloatClass);
export type PyFloat = PyFloatClass;

/** A JSON value as Python sees it after `json.loads`. Objects may be plain or `Map`s (ordered keys). */
export type PyValue =
  | null
  | boolean
  | number
  | string
  | PyFloat
  | PyValue[]
  | Map<string, PyValue>
  | { [key: string]: PyValue };

/** Boxes a number as a Python float (so `2` prints as `2.0`). */
export function pyFloat(value: number): PyFloat | number {
  return Number.isInteger(value) ? new PyFloat(value) : value;
}

/** The JavaScript number behind a number-like Python value. */
export function toNumber(value: unknown): number {
  if (value instanceof PyFloat) return value.value;
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  return Number.NaN;
}

/** True when the value is a Python float (a boxed integral float or a non-integral number). */
export function isPyFloat(value: unknown): boolean {
  return value instanceof PyFloat || (typeof value === "number" && !Number.isInteger(value));
}

/** True for Python numbers (int, float; not bool). */
export function isPyNumber(value: unknown): value is number | PyFloat {
  return typeof value === "number" || value instanceof PyFloat;
}

/** True for Python dicts as JSON decodes them: `Map`s and plain objects (not lists, not boxed floats). */
export function isPyDict(value: unknown): value is Map<string, PyValue> | { [key: string]: PyValue } {
  return value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof PyFloat);
}

/**
 * Python's `str` order (by code point), used wherever keys are sorted. JavaScript's `<` compares
 * UTF-16 units, which would put astral characters (surrogate pairs) before U+E000–U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Below U+D800 units and code points agree; above, surrogates must rank after U+E000–U+FFFF.
    if (x >= 0xd800 && y >= 0xd800) return codePointRank(x) - codePointRank(y);
    return x - y;
  }
  return a.length - b.length;
}

function codePointRank(unit: number): number {
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

/** Python's type name of a JSON-decoded value (`str`, `int`, `float`, `NoneType`, …), as error texts show it. */
export function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "string") return "str";
  if (typeof value === "boolean") return "bool";
  if (value instanceof PyFloat) return "float";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (Array.isArray(value)) return "list";
  return "dict";
}

// ---------------------------------------------------------------------------
// Number formatting

/** Python's `repr(float)`: shortest round-trip digits, `.0` on integral values, exponent outside [-4, 16). */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (x === Number.POSITIVE_INFINITY) return "inf";
  if (x === Number.NEGATIVE_INFINITY) return "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  // In [1e-4, 1e16) both languages print the shortest round-trip digits in fixed notation.
  const abs = Math.abs(x);
  if (abs >= 1e-4 && abs < 1e16) return Number.isInteger(x) ? `${x}.0` : String(x);
  const exp = x.toExponential(); // shortest digits, e.g. "1.2345e+2"
  const eIndex = exp.indexOf("e");
  let mantissa = exp.slice(0, eIndex);
  const exponent = Number(exp.slice(eIndex + 1));
  let sign = "";
  if (mantissa.startsWith("-")) {
    sign = "-";
    mantissa = mantissa.slice(1);
  }
  const digits = mantissa.replace(".", "");
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
    const intLen = exponent + 1;
    if (digits.length <= intLen) return `${sign}${digits}${"0".repeat(intLen - digits.length)}.0`;
    return `${sign}${digits.slice(0, intLen)}.${digits.slice(intLen)}`;
  }
  const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const expAbs = Math.abs(exponent);
  return `${sign}${mant}e${exponent < 0 ? "-" : "+"}${expAbs < 10 ? `0${expAbs}` : expAbs}`;
}

/** Python's `format(x, ".Nf")`: correctly rounded from the exact binary value, ties to even. */
export function pyFixed(x: number, digits: number): string {
  if (!Number.isFinite(x)) return pyFloatRepr(x);
  const abs = Math.abs(x);
  // toFixed is exact except on ties (it rounds them away from zero), past 1e21
  // (exponent notation) and on -0 (sign dropped). A tie at `digits` decimals
  // needs x·2^(digits+1) to be an odd integer, so only those take the slow path.
  const scaled = abs * 2 ** (digits + 1);
  if (abs < 1e21 && !Object.is(x, -0) && !(Number.isInteger(scaled) && scaled % 2 === 1)) {
    return x.toFixed(digits);
  }
  return exactFixed(x, digits);
}

/** Decimal rounding of the exact binary value of a finite double, ties to even (CPython's dtoa mode 3). */
function exactFixed(x: number, digits: number): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const high = view.getUint32(0);
  const negative = high >>> 31 === 1;
  const biasedExponent = (high >>> 20) & 0x7ff;
  let mantissa = (BigInt(high & 0xfffff) << 32n) | BigInt(view.getUint32(4));
  let exponent = -1074;
  if (biasedExponent !== 0) {
    mantissa |= 1n << 52n;
    exponent = biasedExponent - 1075;
  }
  // |x| = mantissa · 2^exponent; round |x|·10^digits to an integer.
  let numerator = mantissa * 10n ** BigInt(digits);
  let denominator = 1n;
  if (exponent >= 0) numerator <<= BigInt(exponent);
  else denominator <<= BigInt(-exponent);
  let quotient = numerator / denominator;
  const twiceRemainder = 2n * (numerator - quotient * denominator);
  if (twiceRemainder > denominator || (twiceRemainder === denominator && (quotient & 1n) === 1n)) quotient++;
  let text = quotient.toString();
  if (digits > 0) {
    text = text.padStart(digits + 1, "0");
    text = `${text.slice(0, -digits)}.${text.slice(-digits)}`;
  }
  return (negative ? "-" : "") + text;
}

/** Python's `round(x, n)` for floats: the exactly rounded decimal, read back as the nearest double. */
export function pyRound(x: number, digits: number): number {
  if (!Number.isFinite(x)) return x;
  return Number(exactFixed(x, digits));
}

// ---------------------------------------------------------------------------
// Python str() / repr()

/** Python `str(value)` for the values tools format into messages. */
export function pyStr(value: unknown): string {
  if (typeof value === "string") return value;
  return pyRepr(value);
}

/** Python `repr(value)` (lists and dicts render as Python literals). */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (value instanceof PyFloat) return pyFloatRepr(value.value);
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : pyFloatRepr(value);
  if (typeof value === "string") return pyStringRepr(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  if (value instanceof Map) {
    return `{${[...value.entries()].map(([k, v]) => `${pyStringRepr(k)}: ${pyRepr(v)}`).join(", ")}}`;
  }
  if (typeof value === "object") {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${pyStringRepr(k)}: ${pyRepr(v)}`)
      .join(", ")}}`;
  }
  return String(value);
}

// Python's str.isprintable() is false for these categories (space excepted).
const NOT_PRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;

/** Python `repr(str)`: single quotes unless the text has a single quote and no double quote. */
export function pyStringRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === quote || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (cp < 0x7f && cp >= 0x20) out += ch;
    else if (!NOT_PRINTABLE.test(ch)) out += ch;
    else if (cp < 0x100) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, "0")}`;
    else out += `\\U${cp.toString(16).padStart(8, "0")}`;
  }
  return out + quote;
}

// ---------------------------------------------------------------------------
// Serializer

/** Options of {@link pyDumps}, mirroring `json.dumps`. */
export interface PyDumpsOptions {
  sortKeys?: boolean;
  /** Indentation width; undefined = single line with `", "` / `": "` separators. */
  indent?: number;
  ensureAscii?: boolean;
}

const SAFE_ASCII = /^[ !#-[\]-~]*$/;

/** A code unit that `ensure_ascii` escapes and JSON.stringify leaves as it is (DEL and everything past it). */
const PAST_ASCII = /[\u007f-\uffff]/;
const PAST_ASCII_ALL = /[\u007f-\uffff]/g;
const escapeCodeUnit = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** Texts at least this long are escaped once and kept ({@link LONG_TEXTS_KEPT} at most). */
const LONG_TEXT = 2048;
const LONG_TEXTS_KEPT = 8;
const longTexts = new Map<string, string>();

/**
 * {@link pyJsonString} with `ensure_ascii`. JSON.stringify escapes quotes, backslashes and control
 * characters as Python does (named escapes for \b \f \n \r \t, lowercase `\u00xx` for the others,
 * lone surrogates as `\udxxx`); what it keeps and Python escapes is the code units from DEL on,
 * escaped here one by one (a surrogate pair as two, as Python writes it).
 */
function asciiJsonString(s: string): string {
  const json = JSON.stringify(s);
  return PAST_ASCII.test(json) ? json.replace(PAST_ASCII_ALL, escapeCodeUnit) : json;
}

/** JSON string literal as Python writes it (`ensure_ascii` escapes everything outside space..~). */
export function pyJsonString(s: string, ensureAscii = true): string {
  if (SAFE_ASCII.test(s)) return `"${s}"`;
  if (ensureAscii && typeof s === "string") {
    if (s.length < LONG_TEXT) return asciiJsonString(s);
    // Long texts repeat (every simulation line carries the same policy): escape each once.
    let json = longTexts.get(s);
    if (json === undefined) {
      if (longTexts.size >= LONG_TEXTS_KEPT) longTexts.clear();
      json = asciiJsonString(s);
      longTexts.set(s, json);
    }
    return json;
  }
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += "\\\\";
    else if (c === 0x0a) out += "\\n";
    else if (c === 0x0d) out += "\\r";
    else if (c === 0x09) out += "\\t";
    else if (c === 0x08) out += "\\b";
    else if (c === 0x0c) out += "\\f";
    else if (c < 0x20 || (ensureAscii && c > 0x7e)) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += s[i];
  }
  return out + '"';
}

/** Number as Python's json module prints it: ints as digits, floats via repr (`Infinity`/`NaN` spelled as json does). */
export function pyJsonNumber(value: number, forceFloat: boolean): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "Infinity";
  if (value === Number.NEGATIVE_INFINITY) return "-Infinity";
  if (!forceFloat && Number.isInteger(value)) return Object.is(value, -0) ? "0" : String(value);
  return pyFloatRepr(value);
}

/** Python `json.dumps(value, sort_keys=…, indent=…, default=str)`. */
export function pyDumps(value: unknown, options: PyDumpsOptions = {}): string {
  if (options.indent === undefined && !options.sortKeys)
    return compactDump(value, options.ensureAscii ?? true);
  const parts: string[] = [];
  writeValue(value, options, parts, 0);
  return parts.join("");
}

/** Index of the quote closing the JSON string whose opening quote is at `start` (not escaped by an odd run of backslashes). */
function jsonStringEnd(text: string, start: number): number {
  let end = start;
  for (;;) {
    end = text.indexOf('"', end + 1);
    if (end < 0) throw new PyJsonSyntaxError("Unterminated string starting at", start);
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return end;
  }
}

/**
 * The span `[start, end)` of the value of `key` in the JSON object whose `{` is at `objectStart`
 * (a key of that object itself, not of a nested one), found without parsing: only strings and
 * brackets are followed. Null when the object has no such key. Expects `": "` after keys (pyDumps' layout).
 */
export function jsonMemberSpan(text: string, objectStart: number, key: string): [number, number] | null {
  const quoted = `${pyJsonString(key)}: `;
  let depth = 0;
  let valueStart = -1;
  for (let i = objectStart; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      if (depth === 1 && valueStart < 0 && text.startsWith(quoted, i)) {
        valueStart = i + quoted.length;
        const first = text.charCodeAt(valueStart);
        if (first !== 0x7b && first !== 0x5b) return null; // only container values are looked for
        i = valueStart - 1;
        continue;
      }
      i = jsonStringEnd(text, i);
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (valueStart >= 0 && depth === 1) return [valueStart, i + 1];
      if (depth === 0) return null;
    }
  }
  return null;
}

/**
 * Appends to `out` the UTF-8 of the text {@link pyDumps} writes with `indent: 2`, from the UTF-8
 * of the compact text it wrote for the same value (`", "` and `": "` separators) in
 * `compact[start, end)`, without parsing it: only the layout changes (the structural characters
 * are ASCII, and no byte of a multi-byte character is one of them). `depth` is the nesting of the
 * value in a larger indented document (its first line is not indented, as pyDumps' own output
 * inside a list item). Lets a stored compact record be re-laid out cheaply.
 */
export function indentCompactPyJsonBytes(
  compact: Uint8Array,
  start: number,
  end: number,
  depth: number,
  out: ByteOutput,
): void {
  const at = (i: number) => (i < end ? compact[i]! : -1);
  let level = depth;
  let run = start; // start of the bytes not yet copied
  for (let i = start; i < end; i++) {
    const c = compact[i]!;
    if (c === 0x22) i = jsonStringEndByte(compact, i, end);
    else if (c === 0x7b || c === 0x5b) {
      const next = at(i + 1);
      if (next === 0x7d || next === 0x5d)
        i++; // an empty container stays `{}` / `[]`
      else {
        out.copy(compact, run, i + 1);
        out.newline(++level);
        run = i + 1;
      }
    } else if (c === 0x7d || c === 0x5d) {
      out.copy(compact, run, i);
      out.newline(--level);
      run = i;
    } else if (c === 0x2c && at(i + 1) === 0x20) {
      out.copy(compact, run, i + 1);
      out.newline(level);
      run = i + 2;
      i++;
    }
  }
  out.copy(compact, run, end);
}

/** The index of the `"` closing the JSON string whose opening `"` is at `start`, within `[start, end)`. */
function jsonStringEndByte(bytes: Uint8Array, start: number, end: number): number {
  let close = start;
  for (;;) {
    close = bytes.indexOf(0x22, close + 1);
    if (close < 0 || close >= end) throw new PyJsonSyntaxError("Unterminated string starting at", start);
    let backslashes = 0;
    while (bytes[close - 1 - backslashes] === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return close;
  }
}

function entriesOf(value: object, sortKeys: boolean): [string, unknown][] {
  const entries: [string, unknown][] =
    value instanceof Map ? [...value.entries()] : Object.entries(value as Record<string, unknown>);
  if (sortKeys) entries.sort((a, b) => compareCodePoints(a[0], b[0]));
  return entries;
}

/**
 * {@link writeValue}'s text for the single-line layout in insertion order, the common case
 * (checkpoint lines, tool outputs, cache keys), built by concatenation without the entry lists.
 */
function compactDump(value: unknown, ensureAscii: boolean): string {
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "string":
      return pyJsonString(value, ensureAscii);
    case "number":
      return pyJsonNumber(value, false);
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return value.toString();
    case "object":
      break;
    default:
      return pyJsonString(String(value), ensureAscii);
  }
  if (value instanceof PyFloat) return pyJsonNumber(value.value, true);
  if (value instanceof RawJson) return value.json;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    let out = `[${compactDump(value[0], ensureAscii)}`;
    for (let i = 1; i < value.length; i++) out += `, ${compactDump(value[i], ensureAscii)}`;
    return `${out}]`;
  }
  if (value instanceof Date) return pyJsonString(value.toISOString(), ensureAscii);
  let out = "{";
  if (value instanceof Map) {
    for (const [key, item] of value) {
      if (item === undefined) continue;
      out += `${out.length > 1 ? ", " : ""}${pyJsonString(key, ensureAscii)}: ${compactDump(item, ensureAscii)}`;
    }
  } else {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const item = record[key];
      if (item === undefined) continue;
      out += `${out.length > 1 ? ", " : ""}${pyJsonString(key, ensureAscii)}: ${compactDump(item, ensureAscii)}`;
    }
  }
  return `${out}}`;
}

/**
 * {@link pyDumps}' compact layout in insertion order (no indent, no sorted keys), appended to `out`
 * as UTF-8 without the text being built: the checkpoint writes every simulation this way.
 */
export function pyDumpsInto(value: unknown, out: ByteOutput, ensureAscii = true): void {
  if (typeof value === "string") writeJsonString(value, ensureAscii, out);
  else if (Array.isArray(value)) {
    out.byte(0x5b);
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.ascii(", ");
      pyDumpsInto(value[i], out, ensureAscii);
    }
    out.byte(0x5d);
  } else if (value instanceof Map) {
    out.byte(0x7b);
    let first = true;
    for (const [key, item] of value) first = writeMember(key, item, first, ensureAscii, out);
    out.byte(0x7d);
  } else if (
    value !== null &&
    typeof value === "object" &&
    !(value instanceof PyFloat) &&
    !(value instanceof RawJson) &&
    !(value instanceof Date)
  ) {
    out.byte(0x7b);
    let first = true;
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) first = writeMember(key, record[key], first, ensureAscii, out);
    out.byte(0x7d);
  } else if (value instanceof RawJson) out.text(value.json);
  else {
    // The rest is short and the same as in the text: numbers, booleans and null (ASCII), dates, other scalars.
    const text = compactDump(value, ensureAscii);
    if (typeof value === "number" || typeof value === "boolean" || value == null || value instanceof PyFloat)
      out.ascii(text);
    else out.text(text);
  }
}

/** One `"key": value` of an object (none when `item` is undefined); whether the next is still the first. */
function writeMember(
  key: string,
  item: unknown,
  first: boolean,
  ensureAscii: boolean,
  out: ByteOutput,
): boolean {
  if (item === undefined) return first;
  if (!first) out.ascii(", ");
  writeJsonString(key, ensureAscii, out);
  out.ascii(": ");
  pyDumpsInto(item, out, ensureAscii);
  return false;
}

/** {@link pyJsonString} appended to `out`. */
function writeJsonString(s: string, ensureAscii: boolean, out: ByteOutput): void {
  if (typeof s === "string" && SAFE_ASCII.test(s)) {
    out.byte(0x22);
    out.ascii(s);
    out.byte(0x22);
  } else if (ensureAscii) out.ascii(pyJsonString(s, true));
  else out.text(pyJsonString(s, false));
}

function writeValue(value: unknown, options: PyDumpsOptions, out: string[], depth: number): void {
  const ensureAscii = options.ensureAscii ?? true;
  if (value === null || value === undefined) {
    out.push("null");
    return;
  }
  switch (typeof value) {
    case "string":
      out.push(pyJsonString(value, ensureAscii));
      return;
    case "number":
      out.push(pyJsonNumber(value, false));
      return;
    case "boolean":
      out.push(value ? "true" : "false");
      return;
    case "bigint":
      out.push(value.toString());
      return;
    default:
      break;
  }
  if (value instanceof PyFloat) {
    out.push(pyJsonNumber(value.value, true));
    return;
  }
  if (value instanceof RawJson) {
    out.push(value.json);
    return;
  }
  const indent = options.indent;
  const newline = indent === undefined ? "" : `\n${" ".repeat(indent * (depth + 1))}`;
  const closing = indent === undefined ? "" : `\n${" ".repeat(indent * depth)}`;
  const itemSep = indent === undefined ? ", " : ",";
  if (Array.isArray(value)) {
    if (value.length === 0) {
      out.push("[]");
      return;
    }
    out.push("[");
    value.forEach((item, i) => {
      if (i > 0) out.push(itemSep);
      out.push(newline);
      writeValue(item, options, out, depth + 1);
    });
    out.push(closing, "]");
    return;
  }
  if (value instanceof Date) {
    out.push(pyJsonString(value.toISOString(), ensureAscii));
    return;
  }
  if (typeof value === "object") {
    const entries = entriesOf(value, options.sortKeys ?? false).filter(([, v]) => v !== undefined);
    if (entries.length === 0) {
      out.push("{}");
      return;
    }
    out.push("{");
    entries.forEach(([k, v], i) => {
      if (i > 0) out.push(itemSep);
      out.push(newline, pyJsonString(k, ensureAscii), ": ");
      writeValue(v, options, out, depth + 1);
    });
    out.push(closing, "}");
    return;
  }
  out.push(pyJsonString(String(value), ensureAscii));
}

class RawJsonClass {
  constructor(readonly json: string) {}
}

/** Pre-serialized JSON text spliced verbatim into {@link pyDumps} output (used for cached subtrees). */
export const RawJson: typeof RawJsonClass = sharedClass("taubench.RawJson.v1", RawJsonClass);
export type RawJson = RawJsonClass;

// ---------------------------------------------------------------------------
// Parser

/** Thrown by {@link parsePyJson} on malformed text; `position` is the character offset. */
export class PyJsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
    this.name = "PyJsonSyntaxError";
  }
}

/** Options of {@link parsePyJson}. */
export interface ParseOptions {
  /** Return objects as `Map`s, keeping key order even for integer-like keys. */
  maps?: boolean;
}

/**
 * Parses JSON like Python's `json.loads`: a number written with a fraction or
 * exponent is a float, so integral floats come back as {@link PyFloat}.
 */
export function parsePyJson(text: string, options: ParseOptions = {}): PyValue {
  const parser = new Parser(text, options.maps ?? false);
  parser.skipWs();
  const value = parser.parseValue();
  parser.skipWs();
  if (parser.pos < text.length) parser.fail("Extra data");
  return value;
}

class Parser {
  pos = 0;
  constructor(
    readonly text: string,
    readonly maps: boolean,
  ) {}

  fail(message: string): never {
    const before = this.text.slice(0, this.pos);
    const line = before.split("\n").length;
    const column = this.pos - before.lastIndexOf("\n");
    throw new PyJsonSyntaxError(`${message}: line ${line} column ${column} (char ${this.pos})`, this.pos);
  }

  /** Steps over a comma; CPython 3.13 reports a comma followed by the closing bracket at the comma. */
  rejectTrailingComma(closing: number, kind: "array" | "object"): void {
    const comma = this.pos;
    this.pos++;
    this.skipWs();
    if (this.text.charCodeAt(this.pos) === closing) {
      this.pos = comma;
      this.fail(`Illegal trailing comma before end of ${kind}`);
    }
  }

  skipWs(): void {
    const t = this.text;
    let p = this.pos;
    while (p < t.length) {
      const c = t.charCodeAt(p);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) p++;
      else break;
    }
    this.pos = p;
  }

  parseValue(): PyValue {
    const c = this.text.charCodeAt(this.pos);
    if (c === 0x7b) return this.parseObject();
    if (c === 0x5b) return this.parseArray();
    if (c === 0x22) return this.parseString();
    if (c === 0x74 && this.text.startsWith("true", this.pos)) {
      this.pos += 4;
      return true;
    }
    if (c === 0x66 && this.text.startsWith("false", this.pos)) {
      this.pos += 5;
      return false;
    }
    if (c === 0x6e && this.text.startsWith("null", this.pos)) {
      this.pos += 4;
      return null;
    }
    if (c === 0x4e && this.text.startsWith("NaN", this.pos)) {
      this.pos += 3;
      return Number.NaN;
    }
    if (c === 0x49 && this.text.startsWith("Infinity", this.pos)) {
      this.pos += 8;
      return Number.POSITIVE_INFINITY;
    }
    if (c === 0x2d && this.text.startsWith("-Infinity", this.pos)) {
      this.pos += 9;
      return Number.NEGATIVE_INFINITY;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.parseNumber();
    return this.fail("Expecting value");
  }

  parseNumber(): number | PyFloat {
    const t = this.text;
    const start = this.pos;
    let p = start;
    let isFloat = false;
    if (t.charCodeAt(p) === 0x2d) p++;
    const intStart = p;
    // Like Python's number pattern, a leading 0 ends the integer part ("01" is 0 then extra data).
    if (t.charCodeAt(p) === 0x30) p++;
    else while (p < t.length && t.charCodeAt(p) >= 0x30 && t.charCodeAt(p) <= 0x39) p++;
    if (p === intStart) {
      this.pos = start;
      this.fail("Expecting value");
    }
    if (t.charCodeAt(p) === 0x2e) {
      const fracStart = ++p;
      while (p < t.length && t.charCodeAt(p) >= 0x30 && t.charCodeAt(p) <= 0x39) p++;
      if (p > fracStart) isFloat = true;
      else p = fracStart - 1;
    }
    const e = t.charCodeAt(p);
    if (e === 0x65 || e === 0x45) {
      let q = p + 1;
      if (t.charCodeAt(q) === 0x2b || t.charCodeAt(q) === 0x2d) q++;
      const expStart = q;
      while (q < t.length && t.charCodeAt(q) >= 0x30 && t.charCodeAt(q) <= 0x39) q++;
      if (q > expStart) {
        isFloat = true;
        p = q;
      }
    }
    this.pos = p;
    const value = Number(t.slice(start, p));
    return isFloat && Number.isInteger(value) ? new PyFloat(value) : value;
  }

  parseString(): string {
    const t = this.text;
    let p = this.pos + 1;
    const start = p;
    // Fast path: no escapes.
    while (p < t.length) {
      const c = t.charCodeAt(p);
      if (c === 0x22) {
        this.pos = p + 1;
        return t.slice(start, p);
      }
      if (c === 0x5c || c < 0x20) break;
      p++;
    }
    let out = t.slice(start, p);
    while (p < t.length) {
      const c = t.charCodeAt(p);
      if (c === 0x22) {
        this.pos = p + 1;
        return out;
      }
      if (c < 0x20) {
        this.pos = p;
        this.fail("Invalid control character at");
      }
      if (c === 0x5c) {
        const n = t[p + 1];
        p += 2;
        switch (n) {
          case '"':
            out += '"';
            break;
          case "\\":
            out += "\\";
            break;
          case "/":
            out += "/";
            break;
          case "b":
            out += "\b";
            break;
          case "f":
            out += "\f";
            break;
          case "n":
            out += "\n";
            break;
          case "r":
            out += "\r";
            break;
          case "t":
            out += "\t";
            break;
          case "u": {
            const hex = t.slice(p, p + 4);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
              this.pos = p - 1;
              this.fail("Invalid \\uXXXX escape");
            }
            out += String.fromCharCode(Number.parseInt(hex, 16));
            p += 4;
            break;
          }
          default:
            this.pos = p - 2;
            this.fail("Invalid \\escape");
        }
        continue;
      }
      out += t[p];
      p++;
    }
    this.pos = start - 1;
    return this.fail("Unterminated string starting at");
  }

  parseArray(): PyValue[] {
    this.pos++;
    const out: PyValue[] = [];
    this.skipWs();
    if (this.text.charCodeAt(this.pos) === 0x5d) {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipWs();
      out.push(this.parseValue());
      this.skipWs();
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x2c) {
        this.rejectTrailingComma(0x5d, "array");
        continue;
      }
      if (c === 0x5d) {
        this.pos++;
        return out;
      }
      this.fail("Expecting ',' delimiter");
    }
  }

  parseObject(): PyValue {
    this.pos++;
    const map = this.maps ? new Map<string, PyValue>() : undefined;
    const obj: Record<string, PyValue> = {};
    this.skipWs();
    if (this.text.charCodeAt(this.pos) === 0x7d) {
      this.pos++;
      return map ?? obj;
    }
    for (;;) {
      this.skipWs();
      if (this.text.charCodeAt(this.pos) !== 0x22)
        this.fail("Expecting property name enclosed in double quotes");
      const key = this.parseString();
      this.skipWs();
      if (this.text.charCodeAt(this.pos) !== 0x3a) this.fail("Expecting ':' delimiter");
      this.pos++;
      this.skipWs();
      const value = this.parseValue();
      if (map) map.set(key, value);
      else if (key === "__proto__")
        Object.defineProperty(obj, key, { value, enumerable: true, writable: true });
      else obj[key] = value;
      this.skipWs();
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x2c) {
        this.rejectTrailingComma(0x7d, "object");
        continue;
      }
      if (c === 0x7d) {
        this.pos++;
        return map ?? obj;
      }
      this.fail("Expecting ',' delimiter");
    }
  }
}

// ---------------------------------------------------------------------------
// Equality

/** Python `==` on JSON values: `2 == 2.0`, dicts compare by keys regardless of order. */
export function pyEquals(a: unknown, b: unknown): boolean {
  if (isPyNumber(a) || typeof a === "boolean") {
    if (isPyNumber(b) || typeof b === "boolean") return toNumber(a) === toNumber(b);
    return false;
  }
  if (a === null || a === undefined) return b === null || b === undefined;
  if (typeof a === "string") return a === b;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => pyEquals(item, b[i]));
  }
  if (typeof a === "object" && b !== null && typeof b === "object" && !Array.isArray(b)) {
    const ea = entriesOf(a, false);
    const eb = new Map(entriesOf(b, false));
    if (ea.length !== eb.size) return false;
    return ea.every(([k, v]) => eb.has(k) && pyEquals(v, eb.get(k)));
  }
  return false;
}

/** Converts a Python JSON value to plain JavaScript (floats unboxed, Maps to objects) for display. */
export function toPlain(value: unknown): unknown {
  if (value instanceof PyFloat) return value.value;
  if (Array.isArray(value)) return value.map(toPlain);
  if (value instanceof Map) return Object.fromEntries([...value.entries()].map(([k, v]) => [k, toPlain(v)]));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toPlain(v)]));
  }
  return value;
}
