/**
 * Python built-ins the banking tools apply to unvalidated arguments: truthiness,
 * `float()`/`int()`, comparisons, `format()` specs, `str.title()`, `isdigit()`,
 * with CPython's exception texts. TypeErrors are {@link PyTypeError} on purpose:
 * the discoverable-tool dispatchers catch exactly those (spec §5.1 step 4).
 */
import {
  compareCodePoints,
  isPyDict,
  isPyFloat,
  PyFloat,
  pyEquals,
  pyFixed,
  pyRepr,
  pyStr,
  pyTypeName,
} from "../../core/py-json.ts";
import { AttributeError } from "../../env/db-state.ts";
import { PyTypeError, ToolError } from "../../env/toolkit.ts";

/** A Python `ValueError` (not caught by the discoverable dispatchers). */
export class PyValueError extends ToolError {
  constructor(message: string) {
    super(message);
    this.name = "ValueError";
  }
}

/** The number behind an int, float or bool; undefined for anything else. */
export function numberOf(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  if (value instanceof PyFloat) return value.value;
  if (typeof value === "boolean") return value ? 1 : 0;
  return undefined;
}

/** Python truthiness (`if x`, `not x`, `all([...])`). */
export function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false) return false;
  if (value === true) return true;
  const n = numberOf(value);
  if (n !== undefined) return n !== 0;
  if (typeof value === "string") return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (value instanceof Map) return value.size > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}

/** `value is None`. */
export function isNone(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

/** `value in [a, b, …]` (Python equality). */
export function inList(value: unknown, members: readonly unknown[]): boolean {
  return members.some((member) => pyEquals(value, member));
}

/** Python `a == b`. */
export const eq = pyEquals;

const ORDER_SYMBOLS = { lt: "<", le: "<=", gt: ">", ge: ">=" } as const;
type Order = keyof typeof ORDER_SYMBOLS;

/** Python `a < b` etc. for numbers and strings; mixed types raise CPython's TypeError. */
export function compare(a: unknown, op: Order, b: unknown): boolean {
  const x = numberOf(a);
  const y = numberOf(b);
  let sign: number;
  if (x !== undefined && y !== undefined) {
    if (Number.isNaN(x) || Number.isNaN(y)) return false;
    sign = x < y ? -1 : x > y ? 1 : 0;
  } else if (typeof a === "string" && typeof b === "string") {
    sign = Math.sign(compareCodePoints(a, b));
  } else {
    throw new PyTypeError(
      `'${ORDER_SYMBOLS[op]}' not supported between instances of '${pyTypeName(a)}' and '${pyTypeName(b)}'`,
    );
  }
  switch (op) {
    case "lt":
      return sign < 0;
    case "le":
      return sign <= 0;
    case "gt":
      return sign > 0;
    case "ge":
      return sign >= 0;
  }
}

/** Python `float(value)`: strings are parsed as CPython does; other types raise its TypeError. */
export function toFloat(value: unknown): number {
  const n = numberOf(value);
  if (n !== undefined) return n;
  if (typeof value === "string") {
    const parsed = parseFloatText(value);
    if (parsed === undefined) throw new PyValueError(`could not convert string to float: ${pyRepr(value)}`);
    return parsed;
  }
  throw new PyTypeError(`float() argument must be a string or a real number, not '${pyTypeName(value)}'`);
}

const FLOAT_TEXT = /^[+-]?(?:(?:\d(?:_?\d)*)?\.?\d(?:_?\d)*(?:[eE][+-]?\d(?:_?\d)*)?|\d(?:_?\d)*\.)$/;
const SPECIAL_FLOATS: Record<string, number> = {
  inf: Number.POSITIVE_INFINITY,
  infinity: Number.POSITIVE_INFINITY,
  nan: Number.NaN,
};

function parseFloatText(text: string): number | undefined {
  const trimmed = text.trim();
  const special = SPECIAL_FLOATS[trimmed.replace(/^[+-]/, "").toLowerCase()];
  if (special !== undefined) return trimmed.startsWith("-") ? -special : special;
  if (!FLOAT_TEXT.test(trimmed)) return undefined;
  return Number(trimmed.replaceAll("_", ""));
}

/** Python `int(value)`: truncates floats, parses decimal strings, raises CPython's errors otherwise. */
export function toInt(value: unknown): number {
  if (typeof value === "boolean") return value ? 1 : 0;
  const n = numberOf(value);
  if (n !== undefined) {
    if (Number.isNaN(n)) throw new PyValueError("cannot convert float NaN to integer");
    if (!Number.isFinite(n)) throw new ToolError("cannot convert float infinity to integer");
    return Math.trunc(n);
  }
  if (typeof value === "string") {
    const trimmed = value.trim();
    if (/^[+-]?\d(?:_?\d)*$/.test(trimmed)) return Number(trimmed.replaceAll("_", ""));
    throw new PyValueError(`invalid literal for int() with base 10: ${pyRepr(value)}`);
  }
  throw new PyTypeError(
    `int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(value)}'`,
  );
}

/** `x.is_integer()` of a Python float. */
export function isIntegral(x: number): boolean {
  return Number.isFinite(x) && Number.isInteger(x);
}

/** A float result as a Python value (integral floats boxed so they print as `25.0`). */
export function asFloat(x: number): number | PyFloat {
  return Number.isInteger(x) ? new PyFloat(x) : x;
}

function formatTypeError(value: unknown): never {
  throw new PyTypeError(`unsupported format string passed to ${pyTypeName(value)}.__format__`);
}

/** `f"{value:.{digits}f}"`. */
export function fixed(value: unknown, digits: number): string {
  const n = numberOf(value);
  if (n !== undefined) return pyFixed(n, digits);
  if (typeof value === "string") throw new PyValueError("Unknown format code 'f' for object of type 'str'");
  return formatTypeError(value);
}

/** `f"{value:,}"` for an int. */
export function thousands(value: number): string {
  const sign = value < 0 ? "-" : "";
  return sign + String(Math.abs(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** `f"{value}"`: Python `str()`. */
export const str = pyStr;

function requireString(value: unknown, method: string): string {
  if (typeof value !== "string") throw new AttributeError(pyTypeName(value), method);
  return value;
}

/** `value.lower()`. */
export function lower(value: unknown): string {
  return requireString(value, "lower").toLowerCase();
}

/** `value.upper()`. */
export function upper(value: unknown): string {
  return requireString(value, "upper").toUpperCase();
}

/** `value.strip()` (only strings have it). */
export function strip(value: unknown): string {
  return requireString(value, "strip").trim();
}

const CASED = /[\p{Lu}\p{Ll}\p{Lt}]/u;

/** `value.replace('_', ' ').title()`: labels of reason codes in tool messages. */
export function titleLabel(value: unknown): string {
  const text = requireString(value, "replace").replaceAll("_", " ");
  let out = "";
  let previousCased = false;
  for (const ch of text) {
    const cased = CASED.test(ch);
    out += cased ? (previousCased ? ch.toLowerCase() : ch.toUpperCase()) : ch;
    previousCased = cased;
  }
  return out;
}

// Characters Python's str.isdigit() accepts besides decimal digits: superscripts, subscripts, circled digits.
const OTHER_DIGITS =
  /[\u00B2\u00B3\u00B9\u2070\u2074-\u2079\u2080-\u2089\u2460-\u2468\u2474-\u247C\u2488-\u2490\u24F5-\u24FD\u24FF\u2776-\u277E\u2780-\u2788\u278A-\u2792]/u;
const DIGIT = /\p{Nd}/u;

/** `value.isdigit()`. */
export function isDigitString(value: unknown): boolean {
  const text = requireString(value, "isdigit");
  if (text === "") return false;
  for (const ch of text) if (!DIGIT.test(ch) && !OTHER_DIGITS.test(ch)) return false;
  return true;
}

/** `len(text)` in code points. */
export function length(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Python `a * b` for the numbers the tools multiply; other operands raise CPython's TypeError. */
export function multiply(a: unknown, b: number): number {
  const x = numberOf(a);
  if (x !== undefined) return x * b;
  if (typeof a === "string" || Array.isArray(a))
    throw new PyTypeError("can't multiply sequence by non-int of type 'float'");
  throw new PyTypeError(`unsupported operand type(s) for *: '${pyTypeName(a)}' and 'float'`);
}

/** Python `a + b` / `a - b` for numbers. */
export function arithmetic(a: unknown, op: "+" | "-", b: unknown): number {
  const x = numberOf(a);
  const y = numberOf(b);
  if (x === undefined || y === undefined) {
    throw new PyTypeError(`unsupported operand type(s) for ${op}: '${pyTypeName(a)}' and '${pyTypeName(b)}'`);
  }
  return op === "+" ? x + y : x - y;
}

/** Whether a value is a Python float (for int/float-dependent formatting). */
export const isFloat = isPyFloat;

/** Whether a value is a Python dict. */
export const isDict = isPyDict;

/**
 * Python `a - b` on ints and floats, keeping the result's type (an int minus a float is a float,
 * so `500 - 500.0` prints as `0.0`).
 */
export function subtract(a: unknown, b: unknown): number | PyFloat {
  const value = arithmetic(a, "-", b);
  return isPyFloat(a) || isPyFloat(b) ? asFloat(value) : value;
}

/** Python `str(x)` of a float (`25.0`, `2.775`). */
export function floatText(x: number): string {
  return pyStr(asFloat(x));
}
