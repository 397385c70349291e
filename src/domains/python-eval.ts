/**
 * Python `eval` for the arithmetic strings the `calculate` tool accepts
 * (digits, `+ - * / ( ) .` and spaces), with the semantics and error texts
 * CPython 3.10–3.13 share: arbitrary-precision ints, true and floor division, `**`,
 * complex results of negative bases, the empty tuple `()`, `...`, calls of
 * non-callables, and the tokenizer/parser's syntax-error precedence.
 */
import { pyFloatRepr, pyRound } from "../core/py-json.ts";

/** A Python exception raised while evaluating; `message` is `str(e)`. */
export class PythonError extends Error {
  constructor(
    readonly pythonType: string,
    message: string,
  ) {
    super(message);
    this.name = pythonType;
  }
}

const syntaxError = (message: string, line = 1) =>
  new PythonError("SyntaxError", `${message} (<string>, line ${line})`);
const typeError = (message: string) => new PythonError("TypeError", message);
const zeroDivision = (message: string) => new PythonError("ZeroDivisionError", message);
const overflow = (message: string) => new PythonError("OverflowError", message);

// ---------------------------------------------------------------------------
// Tokens

type TokenKind = "number" | "op" | "end";
interface Token {
  kind: TokenKind;
  text: string;
  /** Parenthesis depth after the token (CPython's `token->level`). */
  level: number;
}

interface Tokenized {
  tokens: Token[];
  /** The tokenizer error raised when the token at `index` is requested. */
  error?: { index: number; error: PythonError; reportedByFullScan: boolean };
}

const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";

function tokenize(source: string): Tokenized {
  const tokens: Token[] = [];
  let level = 0;
  let i = 0;
  const fail = (error: PythonError, reportedByFullScan: boolean): Tokenized => ({
    tokens,
    error: { index: tokens.length, error, reportedByFullScan },
  });
  while (i < source.length) {
    const c = source[i]!;
    if (c === " ") {
      i++;
      continue;
    }
    if (isDigit(c) || (c === "." && isDigit(source[i + 1]))) {
      let j = i;
      while (isDigit(source[j])) j++;
      const intPart = source.slice(i, j);
      if (source[j] === ".") {
        j++;
        while (isDigit(source[j])) j++;
      } else if (intPart.length > 1 && intPart.startsWith("0") && /[1-9]/.test(intPart)) {
        return fail(
          syntaxError(
            "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers",
          ),
          true,
        );
      }
      tokens.push({ kind: "number", text: source.slice(i, j), level });
      i = j;
      continue;
    }
    if (source.startsWith("...", i)) {
      tokens.push({ kind: "op", text: "...", level });
      i += 3;
      continue;
    }
    if (source.startsWith("**", i) || source.startsWith("//", i)) {
      tokens.push({ kind: "op", text: source.slice(i, i + 2), level });
      i += 2;
      continue;
    }
    if (c === "(") level++;
    if (c === ")") {
      if (level === 0) return fail(syntaxError("unmatched ')'"), true);
      level--;
    }
    tokens.push({ kind: "op", text: c, level });
    i++;
  }
  if (level > 0) return fail(syntaxError("'(' was never closed"), false);
  tokens.push({ kind: "end", text: "", level });
  return { tokens };
}

// ---------------------------------------------------------------------------
// Syntax tree

type Node =
  | { kind: "int"; value: bigint }
  | { kind: "float"; value: number }
  | { kind: "ellipsis" }
  | { kind: "tuple" }
  | { kind: "unary"; op: "+" | "-"; operand: Node }
  | { kind: "binary"; op: BinaryOp; left: Node; right: Node }
  | { kind: "call"; callee: Node; argument: CallArgument };

type BinaryOp = "+" | "-" | "*" | "/" | "//" | "**";
type CallArgument = { kind: "none" } | { kind: "plain" | "star" | "double-star"; value: Node };

interface Parsed {
  node: Node;
  next: number;
}

/** Signals "this rule does not match here" (PEG failure, not an error). */
const NO_MATCH = null;

/**
 * A PEG-style recursive-descent parser over the lazily "fetched" tokens. The
 * second pass enables CPython's `invalid_*` rules that produce the specific
 * messages ("Perhaps you forgot a comma?", starred expressions in a group).
 */
class Parser {
  private readonly memo = new Map<string, Parsed | null>();

  constructor(
    private readonly tokenized: Tokenized,
    private readonly secondPass: boolean,
  ) {}

  private token(index: number): Token {
    const { error, tokens } = this.tokenized;
    if (error && index >= error.index) throw error.error;
    return tokens[index]!;
  }

  private isOp(index: number, text: string): boolean {
    const token = this.token(index);
    return token.kind === "op" && token.text === text;
  }

  /** `eval: expressions ENDMARKER`. */
  parseEval(): Node | null {
    const parsed = this.expression(0);
    if (!parsed || this.token(parsed.next).kind !== "end") return NO_MATCH;
    return parsed.node;
  }

  private memoized(rule: string, index: number, parse: () => Parsed | null): Parsed | null {
    const key = `${rule}:${index}`;
    if (this.memo.has(key)) return this.memo.get(key)!;
    const result = parse();
    this.memo.set(key, result);
    return result;
  }

  /** `expression`; in the second pass `invalid_expression` is tried first. */
  private expression(index: number): Parsed | null {
    return this.memoized("expression", index, () => {
      if (this.secondPass) this.invalidExpression(index);
      return this.sum(index);
    });
  }

  /** Two expressions side by side inside brackets: "Perhaps you forgot a comma?". */
  private invalidExpression(index: number): void {
    const first = this.sum(index);
    if (!first) return;
    const second = new Parser(this.tokenized, false).expression(first.next);
    if (!second) return;
    if (this.token(second.next - 1).level !== 0) {
      throw syntaxError("invalid syntax. Perhaps you forgot a comma?");
    }
  }

  private sum(index: number): Parsed | null {
    return this.memoized("sum", index, () => {
      let left = this.term(index);
      if (!left) return NO_MATCH;
      for (;;) {
        const op = this.token(left.next);
        if (op.kind !== "op" || (op.text !== "+" && op.text !== "-")) return left;
        const right = this.term(left.next + 1);
        if (!right) return left;
        left = {
          node: { kind: "binary", op: op.text, left: left.node, right: right.node },
          next: right.next,
        };
      }
    });
  }

  private term(index: number): Parsed | null {
    let left = this.factor(index);
    if (!left) return NO_MATCH;
    for (;;) {
      const op = this.token(left.next);
      if (op.kind !== "op" || (op.text !== "*" && op.text !== "/" && op.text !== "//")) return left;
      const right = this.factor(left.next + 1);
      if (!right) return left;
      left = {
        node: { kind: "binary", op: op.text, left: left.node, right: right.node },
        next: right.next,
      };
    }
  }

  private factor(index: number): Parsed | null {
    return this.memoized("factor", index, () => {
      const token = this.token(index);
      if (token.kind === "op" && (token.text === "+" || token.text === "-")) {
        const operand = this.factor(index + 1);
        if (!operand) return NO_MATCH;
        return { node: { kind: "unary", op: token.text, operand: operand.node }, next: operand.next };
      }
      return this.power(index);
    });
  }

  private power(index: number): Parsed | null {
    const base = this.primary(index);
    if (!base) return NO_MATCH;
    if (!this.isOp(base.next, "**")) return base;
    const exponent = this.factor(base.next + 1);
    if (!exponent) return base;
    return {
      node: { kind: "binary", op: "**", left: base.node, right: exponent.node },
      next: exponent.next,
    };
  }

  private primary(index: number): Parsed | null {
    let current = this.atom(index);
    if (!current) return NO_MATCH;
    for (;;) {
      // `primary '.' NAME` can never match (no names), but it fetches the token after the dot.
      if (this.isOp(current.next, ".")) this.token(current.next + 1);
      if (!this.isOp(current.next, "(")) return current;
      const call = this.callArguments(current.next + 1);
      if (!call) return current;
      current = { node: { kind: "call", callee: current.node, argument: call.argument }, next: call.next };
    }
  }

  private callArguments(index: number): { argument: CallArgument; next: number } | null {
    if (this.isOp(index, ")")) return { argument: { kind: "none" }, next: index + 1 };
    let kind: CallArgument["kind"] = "plain";
    let start = index;
    if (this.isOp(index, "*")) {
      kind = "star";
      start++;
    } else if (this.isOp(index, "**")) {
      kind = "double-star";
      start++;
    }
    const value = this.expression(start);
    if (!value || !this.isOp(value.next, ")")) return NO_MATCH;
    return { argument: { kind, value: value.node }, next: value.next + 1 };
  }

  private atom(index: number): Parsed | null {
    const token = this.token(index);
    if (token.kind === "number") {
      const node: Node = token.text.includes(".")
        ? { kind: "float", value: Number(token.text) }
        : { kind: "int", value: BigInt(token.text) };
      return { node, next: index + 1 };
    }
    if (token.kind !== "op") return NO_MATCH;
    if (token.text === "...") return { node: { kind: "ellipsis" }, next: index + 1 };
    if (token.text !== "(") return NO_MATCH;
    return this.memoized("parenthesized", index, () => this.parenthesized(index));
  }

  /** `tuple | group` (no commas can occur, so a tuple is `()` or a starred element awaiting a comma). */
  private parenthesized(index: number): Parsed | null {
    const inner = index + 1;
    if (this.isOp(inner, ")")) return { node: { kind: "tuple" }, next: inner + 1 };
    if (this.isOp(inner, "*")) {
      // `'(' star_named_expression ','`: parse the element, then a comma would be required.
      const element = this.sum(inner + 1);
      if (element) this.token(element.next);
    } else {
      const element = this.expression(inner);
      if (element && this.isOp(element.next, ")")) return { node: element.node, next: element.next + 1 };
    }
    if (this.secondPass) this.invalidGroup(inner);
    return NO_MATCH;
  }

  /** `( *x )` and `( **x )`. */
  private invalidGroup(inner: number): void {
    for (const [op, message] of [
      ["*", "cannot use starred expression here"],
      ["**", "cannot use double starred expression here"],
    ] as const) {
      if (!this.isOp(inner, op)) continue;
      const value = this.expression(inner + 1);
      if (value && this.isOp(value.next, ")")) throw syntaxError(message);
    }
  }
}

function parse(source: string): Node {
  const tokenized = tokenize(source);
  const first = new Parser(tokenized, false).parseEval();
  if (first) return first;
  // After a failed first pass, any syntax error the parser reports (specific or
  // generic) is replaced by a tokenizer error found in the rest of the source.
  const scanned = tokenized.error?.reportedByFullScan ? tokenized.error.error : undefined;
  try {
    const second = new Parser(tokenized, true).parseEval();
    if (second) return second;
  } catch (error) {
    throw scanned ?? error;
  }
  throw scanned ?? syntaxError("invalid syntax");
}

// ---------------------------------------------------------------------------
// Values and arithmetic

type Value =
  | { kind: "int"; value: bigint }
  | { kind: "float"; value: number }
  | { kind: "complex"; re: number; im: number }
  | { kind: "tuple" }
  | { kind: "ellipsis" };

const int = (value: bigint): Value => ({ kind: "int", value });
const float = (value: number): Value => ({ kind: "float", value });
const complex = (re: number, im: number): Value => ({ kind: "complex", re, im });

/** Ints beyond this many bits are refused rather than computed (Python would grind on). */
const MAX_INT_BITS = 4_000_000;

function typeName(value: Value): string {
  return value.kind;
}

/** Python `float(int)`. */
function intToFloat(value: bigint): number {
  const result = Number(value);
  if (!Number.isFinite(result)) throw overflow("int too large to convert to float");
  return result;
}

function bitLength(value: bigint): number {
  return (value < 0n ? -value : value).toString(2).length;
}

/** Correctly rounded `a / b` for ints (CPython's `long_true_divide`). */
function intTrueDivide(a: bigint, b: bigint): number {
  if (b === 0n) throw zeroDivision("division by zero");
  const limit = 2n ** 53n;
  const absA = a < 0n ? -a : a;
  const absB = b < 0n ? -b : b;
  if (absA <= limit && absB <= limit) return Number(a) / Number(b);
  const negative = a < 0n !== b < 0n;
  // Scale so the quotient has at least 66 significant bits, then let Number() round once.
  const shift = Math.max(0, 66 - (bitLength(absA) - bitLength(absB)));
  const scaled = absA << BigInt(shift);
  let quotient = scaled / absB;
  if (scaled % absB !== 0n) quotient |= 1n; // sticky bit
  // Scaling by powers of two is exact while the value stays normal.
  let result = Number(quotient);
  for (let left = shift; left > 0; left -= 1000) result *= 2 ** -Math.min(left, 1000);
  if (!Number.isFinite(result)) throw overflow("integer division result too large for a float");
  return negative ? -result : result;
}

function floorDivideInts(a: bigint, b: bigint): bigint {
  if (b === 0n) throw zeroDivision("integer division or modulo by zero");
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

/** CPython's `float_floor_div` (via `float_divmod`). */
function floorDivideFloats(vx: number, wx: number): number {
  if (wx === 0) throw zeroDivision("float floor division by zero");
  let mod = vx % wx;
  let div = (vx - mod) / wx;
  if (mod) {
    if (wx < 0 !== mod < 0) {
      mod += wx;
      div -= 1;
    }
  }
  if (div) {
    let floorDiv = Math.floor(div);
    if (div - floorDiv > 0.5) floorDiv += 1;
    return floorDiv;
  }
  return vx / wx < 0 || Object.is(vx / wx, -0) ? -0 : 0;
}

/** `x` as `mantissa * 2**exponent` exactly (x finite and positive). */
function decompose(x: number): { mantissa: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  return biased === 0
    ? { mantissa: fraction, exponent: -1074 }
    : { mantissa: fraction | (1n << 52n), exponent: biased - 1075 };
}

/** `value * 2**power` for a BigInt, rounded once to the nearest double. */
function scaledToDouble(value: bigint, power: number): number {
  let shift = Math.max(0, bitLength(value) - 64);
  let top = value >> BigInt(shift);
  if (shift > 0 && top << BigInt(shift) !== value) top |= 1n; // sticky bit
  let result = Number(top);
  shift += power;
  while (shift !== 0 && result !== 0 && Number.isFinite(result)) {
    const step = Math.max(-1000, Math.min(1000, shift));
    result *= 2 ** step;
    shift -= step;
  }
  return result;
}

/**
 * `x ** n` for a positive double and an integer exponent, correctly rounded
 * from the exact value, as C's `pow` (which Python calls) nearly always is;
 * JavaScript's `**` can be an ulp off.
 */
function integerPower(x: number, n: number): number {
  const { mantissa, exponent } = decompose(x);
  const magnitude = mantissa ** BigInt(Math.abs(n));
  const power = exponent * Math.abs(n);
  if (n > 0) return scaledToDouble(magnitude, power);
  // 1 / (magnitude * 2**power): divide a large power of two, keeping a sticky bit.
  const extra = bitLength(magnitude) + 66;
  const numerator = 1n << BigInt(extra);
  let quotient = numerator / magnitude;
  if (numerator % magnitude !== 0n) quotient |= 1n;
  return scaledToDouble(quotient, -extra - power);
}

/** CPython's `float_pow`. */
function powerFloats(iv: number, iw: number): Value {
  if (iw === 0) return float(1);
  if (Number.isNaN(iv)) return float(iv);
  if (Number.isNaN(iw)) return float(iv === 1 ? 1 : iw);
  if (!Number.isFinite(iw)) {
    const abs = Math.abs(iv);
    if (abs === 1) return float(1);
    return float(abs > 1 === iw > 0 ? Number.POSITIVE_INFINITY : 0);
  }
  const oddInteger = Number.isInteger(iw) && Math.abs(iw % 2) === 1;
  if (!Number.isFinite(iv)) {
    if (iw > 0) return float(oddInteger ? iv : Math.abs(iv));
    return float(oddInteger ? (iv < 0 ? -0 : 0) : 0);
  }
  if (iv === 0) {
    if (iw < 0) throw zeroDivision("0.0 cannot be raised to a negative power");
    return float(oddInteger ? iv : 0);
  }
  let base = iv;
  let negate = false;
  if (base < 0) {
    if (!Number.isInteger(iw)) return powerComplex(iv, 0, iw, 0);
    base = -base;
    negate = oddInteger;
  }
  if (base === 1) return float(negate ? -1 : 1);
  const result = Number.isInteger(iw) && Math.abs(iw) <= 2048 ? integerPower(base, iw) : base ** iw;
  if (!Number.isFinite(result)) throw overflow("(34, 'Numerical result out of range')");
  return float(negate ? -result : result);
}

function powerComplex(ar: number, ai: number, br: number, bi: number): Value {
  if (br === 0 && bi === 0) return complex(1, 0);
  if (ar === 0 && ai === 0) {
    if (bi !== 0 || br < 0) throw zeroDivision("0.0 to a negative or complex power");
    return complex(0, 0);
  }
  const modulus = Math.hypot(ar, ai);
  const angle = Math.atan2(ai, ar);
  let length = modulus ** br;
  let phase = angle * br;
  if (bi !== 0) {
    length /= Math.exp(angle * bi);
    phase += bi * Math.log(modulus);
  }
  const re = length * Math.cos(phase);
  const im = length * Math.sin(phase);
  if (!Number.isFinite(re) || !Number.isFinite(im)) throw overflow("complex exponentiation");
  return complex(re, im);
}

/** The operand as a complex number, or null for non-numbers. */
function asComplex(value: Value): [number, number] | null {
  switch (value.kind) {
    case "int":
      return [intToFloat(value.value), 0];
    case "float":
      return [value.value, 0];
    case "complex":
      return [value.re, value.im];
    case "tuple":
    case "ellipsis":
      return null;
    default:
      return assertNever(value);
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected value ${JSON.stringify(value)}`);
}

function unsupported(op: BinaryOp, left: Value, right: Value): PythonError {
  const symbol = op === "**" ? "** or pow()" : op;
  return typeError(`unsupported operand type(s) for ${symbol}: '${typeName(left)}' and '${typeName(right)}'`);
}

function sequenceOperation(op: BinaryOp, left: Value, right: Value): Value {
  if (op === "+" && left.kind === "tuple") {
    if (right.kind === "tuple") return left;
    throw typeError(`can only concatenate tuple (not "${typeName(right)}") to tuple`);
  }
  if (op === "*" && (left.kind === "tuple" || right.kind === "tuple")) {
    const other = left.kind === "tuple" ? right : left;
    if (other.kind === "int") return { kind: "tuple" };
    if (other.kind !== "ellipsis" || left.kind === "tuple") {
      throw typeError(`can't multiply sequence by non-int of type '${typeName(other)}'`);
    }
  }
  throw unsupported(op, left, right);
}

function binary(op: BinaryOp, left: Value, right: Value): Value {
  if (
    left.kind === "tuple" ||
    right.kind === "tuple" ||
    left.kind === "ellipsis" ||
    right.kind === "ellipsis"
  ) {
    return sequenceOperation(op, left, right);
  }
  if (left.kind === "int" && right.kind === "int") return intOperation(op, left.value, right.value);
  if (left.kind === "complex" || right.kind === "complex") {
    const [ar, ai] = asComplex(left)!;
    const [br, bi] = asComplex(right)!;
    return complexOperation(op, left, right, ar, ai, br, bi);
  }
  const a = left.kind === "int" ? intToFloat(left.value) : (left as { value: number }).value;
  const b = right.kind === "int" ? intToFloat(right.value) : (right as { value: number }).value;
  return floatOperation(op, a, b);
}

function intOperation(op: BinaryOp, a: bigint, b: bigint): Value {
  switch (op) {
    case "+":
      return int(a + b);
    case "-":
      return int(a - b);
    case "*":
      if (bitLength(a) + bitLength(b) > MAX_INT_BITS) throw overflow("int too large to convert to float");
      return int(a * b);
    case "/":
      return float(intTrueDivide(a, b));
    case "//":
      return int(floorDivideInts(a, b));
    case "**": {
      if (b < 0n) return powerFloats(intToFloat(a), intToFloat(b));
      const magnitude = a < 0n ? -a : a;
      if (magnitude > 1n && (bitLength(a) - 1) * Number(b) > MAX_INT_BITS) {
        throw overflow("int too large to convert to float");
      }
      return int(a ** b);
    }
    default:
      return assertNever(op);
  }
}

function floatOperation(op: BinaryOp, a: number, b: number): Value {
  switch (op) {
    case "+":
      return float(a + b);
    case "-":
      return float(a - b);
    case "*":
      return float(a * b);
    case "/":
      if (b === 0) throw zeroDivision("float division by zero");
      return float(a / b);
    case "//":
      return float(floorDivideFloats(a, b));
    case "**":
      return powerFloats(a, b);
    default:
      return assertNever(op);
  }
}

function complexOperation(
  op: BinaryOp,
  left: Value,
  right: Value,
  ar: number,
  ai: number,
  br: number,
  bi: number,
): Value {
  switch (op) {
    case "+":
      return complex(ar + br, ai + bi);
    case "-":
      return complex(ar - br, ai - bi);
    case "*":
      return complex(ar * br - ai * bi, ar * bi + ai * br);
    case "/": {
      if (br === 0 && bi === 0) throw zeroDivision("complex division by zero");
      const denominator = br * br + bi * bi;
      return complex((ar * br + ai * bi) / denominator, (ai * br - ar * bi) / denominator);
    }
    case "//":
      throw unsupported(op, left, right);
    case "**":
      return powerComplex(ar, ai, br, bi);
    default:
      return assertNever(op);
  }
}

function unary(op: "+" | "-", value: Value): Value {
  switch (value.kind) {
    case "int":
      return op === "-" ? int(-value.value) : value;
    case "float":
      return op === "-" ? float(-value.value) : value;
    case "complex":
      return op === "-" ? complex(-value.re, -value.im) : value;
    case "tuple":
    case "ellipsis":
      throw typeError(`bad operand type for unary ${op}: '${typeName(value)}'`);
    default:
      return assertNever(value);
  }
}

/** Python `str()` of a value (used in call error messages). */
function valueText(value: Value): string {
  switch (value.kind) {
    case "int":
      return value.value.toString();
    case "float":
      return pyFloatRepr(value.value);
    case "complex": {
      const im = `${pyFloatRepr(value.im).replace(/\.0$/, "")}j`;
      if (value.re === 0 && !Object.is(value.re, -0)) return im;
      const re = pyFloatRepr(value.re).replace(/\.0$/, "");
      return `(${re}${value.im < 0 || Object.is(value.im, -0) ? "" : "+"}${im})`;
    }
    case "tuple":
      return "()";
    case "ellipsis":
      return "Ellipsis";
    default:
      return assertNever(value);
  }
}

function evaluate(node: Node): Value {
  switch (node.kind) {
    case "int":
      return int(node.value);
    case "float":
      return float(node.value);
    case "ellipsis":
      return { kind: "ellipsis" };
    case "tuple":
      return { kind: "tuple" };
    case "unary":
      return unary(node.op, evaluate(node.operand));
    case "binary": {
      const left = evaluate(node.left);
      return binary(node.op, left, evaluate(node.right));
    }
    case "call": {
      const callee = evaluate(node.callee);
      const argument = node.argument;
      if (argument.kind !== "none") {
        const value = evaluate(argument.value);
        if (argument.kind === "star" && value.kind !== "tuple") {
          throw typeError(
            `${valueText(callee)} argument after * must be an iterable, not ${typeName(value)}`,
          );
        }
        if (argument.kind === "double-star") {
          throw typeError(`${valueText(callee)} argument after ** must be a mapping, not ${typeName(value)}`);
        }
      }
      throw typeError(`'${typeName(callee)}' object is not callable`);
    }
    default:
      return assertNever(node);
  }
}

/** Python `eval(expression)` followed by `float(...)`. */
export function evaluateToFloat(expression: string): number {
  const source = expression.replace(/^[ \t]+/, "");
  if (source.trim() === "") throw syntaxError("invalid syntax", 0);
  const value = evaluate(parse(source));
  switch (value.kind) {
    case "int":
      return intToFloat(value.value);
    case "float":
      return value.value;
    case "complex":
    case "tuple":
    case "ellipsis":
      throw typeError(`float() argument must be a string or a real number, not '${typeName(value)}'`);
    default:
      return assertNever(value);
  }
}

/** The characters upstream's `calculate` accepts. */
export const CALCULATE_CHARACTERS = "0123456789+-*/(). ";
const ALLOWED = new Set(CALCULATE_CHARACTERS);

/**
 * The `calculate` tool's result: `str(round(float(eval(expression)), 2))`
 * after checking the characters. Throws {@link PythonError} (or a plain
 * `Error` with the same text for the character check).
 */
export function calculateExpression(expression: string): string {
  for (const char of expression) {
    if (!ALLOWED.has(char)) throw new PythonError("ValueError", "Invalid characters in expression");
  }
  const value = evaluateToFloat(expression);
  const rounded = value === 0 || !Number.isFinite(value) ? value : pyRound(value, 2);
  return pyFloatRepr(rounded);
}
