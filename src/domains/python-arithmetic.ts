/**
 * Python arithmetic for the `calculate` tool (retail.md §calculate): upstream
 * runs `eval` on expressions made of digits, `+ - * / ( ) .` and spaces, so
 * integers are arbitrary precision, `/` is true division, `//` floors and `**`
 * is power, and Python's own error texts surface to the agent.
 */
import { pyFloatRepr, pyRound } from "../core/py-json.ts";

/** A Python exception raised while evaluating (its message is what the agent sees after `Error: `). */
export class PythonArithmeticError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PythonArithmeticError";
  }
}

/** A Python value an arithmetic expression can produce: int, float, or the empty tuple `()`. */
type Value = { kind: "int"; value: bigint } | { kind: "float"; value: number } | { kind: "tuple" };

type Token =
  | { kind: "int"; text: string }
  | { kind: "float"; text: string }
  | { kind: "op"; text: string }
  | { kind: "end" };

/** Past this many bits an integer result is far beyond any float; Python would grind on, we give its eventual error. */
const MAX_INT_BITS = 1_000_000n;

function syntaxError(message = "invalid syntax"): PythonArithmeticError {
  return new PythonArithmeticError(`${message} (<string>, line 1)`);
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const depth: number[] = [];
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === " ") {
      i++;
      continue;
    }
    if ((ch >= "0" && ch <= "9") || (ch === "." && /[0-9]/.test(source[i + 1] ?? ""))) {
      const match = /^(\d*\.\d*|\d+)/.exec(source.slice(i))!;
      const text = match[0];
      if (!text.includes(".") && text.length > 1 && text.startsWith("0") && /[1-9]/.test(text)) {
        throw syntaxError(
          "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers",
        );
      }
      tokens.push({ kind: text.includes(".") ? "float" : "int", text });
      i += text.length;
      continue;
    }
    const two = source.slice(i, i + 2);
    if (two === "**" || two === "//") {
      tokens.push({ kind: "op", text: two });
      i += 2;
      continue;
    }
    if (ch === "(") depth.push(i);
    if (ch === ")" && depth.pop() === undefined) throw syntaxError("unmatched ')'");
    tokens.push({ kind: "op", text: ch });
    i++;
  }
  if (depth.length > 0) throw syntaxError("'(' was never closed");
  tokens.push({ kind: "end" });
  return tokens;
}

function typeName(value: Value): string {
  return value.kind;
}

function toFloat(value: Value): number {
  switch (value.kind) {
    case "float":
      return value.value;
    case "int": {
      const n = Number(value.value);
      if (!Number.isFinite(n)) throw new PythonArithmeticError("int too large to convert to float");
      return n;
    }
    case "tuple":
      throw new PythonArithmeticError("float() argument must be a string or a real number, not 'tuple'");
    default:
      return assertNever(value);
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected value ${String(value)}`);
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

function checkedInt(value: bigint): Value {
  const bits = BigInt((value < 0n ? -value : value).toString(2).length);
  if (bits > MAX_INT_BITS) throw new PythonArithmeticError("int too large to convert to float");
  return { kind: "int", value };
}

function float(value: number, op: string): Value {
  if (!Number.isFinite(value) && op === "**") {
    throw new PythonArithmeticError("(34, 'Numerical result out of range')");
  }
  return { kind: "float", value };
}

function binary(op: string, left: Value, right: Value): Value {
  if (left.kind === "tuple" || right.kind === "tuple") {
    const pyOp = op === "**" ? "** or pow()" : op;
    throw new PythonArithmeticError(
      `unsupported operand type(s) for ${pyOp}: '${typeName(left)}' and '${typeName(right)}'`,
    );
  }
  if (left.kind === "int" && right.kind === "int") {
    const a = left.value;
    const b = right.value;
    switch (op) {
      case "+":
        return { kind: "int", value: a + b };
      case "-":
        return { kind: "int", value: a - b };
      case "*":
        return checkedInt(a * b);
      case "/":
        if (b === 0n) throw new PythonArithmeticError("division by zero");
        return { kind: "float", value: Number(a) / Number(b) };
      case "//":
        if (b === 0n) throw new PythonArithmeticError("integer division or modulo by zero");
        return { kind: "int", value: floorDiv(a, b) };
      case "**": {
        if (b < 0n) {
          if (a === 0n) throw new PythonArithmeticError("0.0 cannot be raised to a negative power");
          return float(Number(a) ** Number(b), op);
        }
        const magnitude = a < 0n ? -a : a;
        if (magnitude > 1n && BigInt(magnitude.toString(2).length) * b > MAX_INT_BITS) {
          throw new PythonArithmeticError("int too large to convert to float");
        }
        return { kind: "int", value: a ** b };
      }
      default:
        throw syntaxError();
    }
  }
  const a = toFloat(left);
  const b = toFloat(right);
  switch (op) {
    case "+":
      return { kind: "float", value: a + b };
    case "-":
      return { kind: "float", value: a - b };
    case "*":
      return { kind: "float", value: a * b };
    case "/":
      if (b === 0) throw new PythonArithmeticError("float division by zero");
      return { kind: "float", value: a / b };
    case "//":
      if (b === 0) throw new PythonArithmeticError("float floor division by zero");
      return { kind: "float", value: Math.floor(a / b) };
    case "**":
      if (a === 0 && b < 0) throw new PythonArithmeticError("0.0 cannot be raised to a negative power");
      if (a < 0 && !Number.isInteger(b)) {
        // Python returns a complex number here, which float() then refuses.
        throw new PythonArithmeticError("float() argument must be a string or a real number, not 'complex'");
      }
      return float(a ** b, op);
    default:
      throw syntaxError();
  }
}

function unary(op: string, operand: Value): Value {
  switch (operand.kind) {
    case "int":
      return { kind: "int", value: op === "-" ? -operand.value : operand.value };
    case "float":
      return { kind: "float", value: op === "-" ? -operand.value : operand.value };
    case "tuple":
      throw new PythonArithmeticError(`bad operand type for unary ${op}: 'tuple'`);
    default:
      return assertNever(operand);
  }
}

class Parser {
  private position = 0;

  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.position]!;
  }

  private isOp(...ops: string[]): boolean {
    const token = this.peek();
    return token.kind === "op" && ops.includes(token.text);
  }

  private next(): Token {
    return this.tokens[this.position++]!;
  }

  parseAll(): Value {
    const value = this.expression();
    const rest = this.peek();
    if (rest.kind === "int" || rest.kind === "float" || (rest.kind === "op" && rest.text === "(")) {
      throw syntaxError("invalid syntax. Perhaps you forgot a comma?");
    }
    if (rest.kind !== "end") throw syntaxError();
    return value;
  }

  private expression(): Value {
    let value = this.term();
    while (this.isOp("+", "-")) {
      const op = this.next() as { text: string };
      value = binary(op.text, value, this.term());
    }
    return value;
  }

  private term(): Value {
    let value = this.factor();
    while (this.isOp("*", "/", "//")) {
      const op = this.next() as { text: string };
      value = binary(op.text, value, this.factor());
    }
    return value;
  }

  private factor(): Value {
    if (this.isOp("+", "-")) {
      const op = this.next() as { text: string };
      return unary(op.text, this.factor());
    }
    return this.power();
  }

  private power(): Value {
    const base = this.atom();
    if (this.isOp("**")) {
      this.next();
      return binary("**", base, this.factor());
    }
    return base;
  }

  private atom(): Value {
    const token = this.next();
    switch (token.kind) {
      case "int":
        return { kind: "int", value: BigInt(token.text) };
      case "float":
        return { kind: "float", value: Number(token.text) };
      case "op":
        if (token.text === "(") {
          if (this.isOp(")")) {
            this.next();
            return { kind: "tuple" };
          }
          const inner = this.expression();
          if (!this.isOp(")")) throw syntaxError();
          this.next();
          return inner;
        }
        throw syntaxError();
      case "end":
        throw syntaxError();
      default:
        return assertNever(token);
    }
  }
}

/** The characters upstream's `calculate` accepts. */
export const CALCULATE_CHARACTERS = "0123456789+-*/(). ";

/**
 * Upstream's `calculate`: `str(round(float(eval(expression)), 2))`, with the
 * same character check and Python's error texts.
 */
export function pythonCalculate(expression: string): string {
  for (const ch of expression) {
    if (!CALCULATE_CHARACTERS.includes(ch))
      throw new PythonArithmeticError("Invalid characters in expression");
  }
  const value = new Parser(tokenize(expression)).parseAll();
  const result = toFloat(value);
  if (!Number.isFinite(result)) return pyFloatRepr(result);
  return pyFloatRepr(pyRound(result, 2));
}
