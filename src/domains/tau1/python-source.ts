/**
 * Reading the literal structures of Python source files (no Python at run
 * time): a tokenizer for Python 3 source and an evaluator for the expression
 * subset upstream's data modules use — strings (all prefixes, escapes,
 * implicit concatenation, f-strings whose fields are names), numbers, `True` /
 * `False` / `None`, lists, tuples, dicts, sets, calls with keyword arguments
 * and names bound by the caller. Used by `tau data pull --tau1` to turn
 * upstream's `tasks_*.py`, `rules.py` and tool `get_info()` bodies into JSON.
 */
import { PyFloat } from "../../core/py-json.ts";
import { unescapePython } from "../texts/python-source.ts";

/** A syntax or evaluation problem, with the line it was found on. */
export class PythonSourceError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
    this.name = "PythonSourceError";
  }
}

type TokenKind = "name" | "number" | "string" | "op" | "newline" | "end";

interface Token {
  kind: TokenKind;
  text: string;
  line: number;
  /** Column of the token's first character (0 = start of a line). */
  column: number;
  /** Strings: the literal's prefix (lower-cased) and body, quotes removed. */
  prefix?: string;
  body?: string;
}

const OPERATORS = [
  "**=",
  "//=",
  ">>=",
  "<<=",
  "...",
  "->",
  ":=",
  "**",
  "//",
  "==",
  "!=",
  "<=",
  ">=",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "&=",
  "|=",
  "^=",
  "@=",
  ">>",
  "<<",
];

const isNameStart = (c: string) => /[A-Za-z_]/.test(c) || c.charCodeAt(0) > 0x7f;
const isNameChar = (c: string) => /[A-Za-z0-9_]/.test(c) || c.charCodeAt(0) > 0x7f;

/** Splits Python source into tokens; newlines inside brackets and after `\` are joined, as Python does. */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  let depth = 0;
  const push = (kind: TokenKind, text: string, start: number, extra: Partial<Token> = {}) =>
    tokens.push({ kind, text, line, column: start - lineStart, ...extra });
  while (i < source.length) {
    const c = source[i]!;
    if (c === "\n") {
      if (depth === 0 && tokens.length > 0 && tokens[tokens.length - 1]!.kind !== "newline")
        push("newline", "\n", i);
      i++;
      line++;
      lineStart = i;
      continue;
    }
    if (c === " " || c === "\t" || c === "\r" || c === "\f") {
      i++;
      continue;
    }
    if (c === "#") {
      while (i < source.length && source[i] !== "\n") i++;
      continue;
    }
    if (c === "\\" && source[i + 1] === "\n") {
      i += 2;
      line++;
      lineStart = i;
      continue;
    }
    const stringMatch = /^([rRbBuUfF]{0,2})('''|"""|'|")/.exec(source.slice(i, i + 5));
    if (stringMatch && (stringMatch[1] === "" || /^(r|b|u|f|rb|br|fr|rf)$/i.test(stringMatch[1]!))) {
      const start = i;
      const startLine = line;
      const startColumn = start - lineStart;
      const prefix = stringMatch[1]!.toLowerCase();
      const quote = stringMatch[2]!;
      i += stringMatch[0].length;
      const bodyStart = i;
      for (;;) {
        if (i >= source.length) throw new PythonSourceError("unterminated string literal", startLine);
        const ch = source[i]!;
        if (ch === "\\") {
          if (source[i + 1] === "\n") {
            line++;
            lineStart = i + 2;
          }
          i += 2;
          continue;
        }
        if (source.startsWith(quote, i)) break;
        if (ch === "\n") {
          if (quote.length === 1) throw new PythonSourceError("unterminated string literal", startLine);
          line++;
          lineStart = i + 1;
        }
        i++;
      }
      const body = source.slice(bodyStart, i);
      i += quote.length;
      tokens.push({
        kind: "string",
        text: source.slice(start, i),
        line: startLine,
        column: startColumn,
        prefix,
        body,
      });
      continue;
    }
    if (isNameStart(c)) {
      const start = i;
      while (i < source.length && isNameChar(source[i]!)) i++;
      push("name", source.slice(start, i), start);
      continue;
    }
    if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(source[i + 1] ?? ""))) {
      const match =
        /^(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*)?\.?\d[\d_]*(?:[eE][+-]?\d[\d_]*)?|\d[\d_]*\.)[jJ]?/.exec(
          source.slice(i),
        );
      const text = match![0];
      push("number", text, i);
      i += text.length;
      continue;
    }
    const op = OPERATORS.find((candidate) => source.startsWith(candidate, i)) ?? c;
    if (op === "(" || op === "[" || op === "{") depth++;
    if (op === ")" || op === "]" || op === "}") depth = Math.max(0, depth - 1);
    push("op", op, i);
    i += op.length;
  }
  if (tokens.length > 0 && tokens[tokens.length - 1]!.kind !== "newline") push("newline", "\n", i);
  tokens.push({ kind: "end", text: "", line, column: 0 });
  return tokens;
}

// ---------------------------------------------------------------------------
// String literals

/** The value of a (non-raw) string body with Python's escape rules. */
function decodeEscapes(body: string, line: number): string {
  return unescapePython(body, (reason) => new PythonSourceError(reason, line));
}

/** A parsed string literal: plain text, or for f-strings the literal parts around `{name}` fields. */
type StringPart = { text: string } | { field: string };

function stringParts(token: Token): StringPart[] {
  const prefix = token.prefix ?? "";
  const raw = prefix.includes("r");
  const body = token.body ?? "";
  if (prefix.includes("b")) throw new PythonSourceError("bytes literals are not text", token.line);
  if (!prefix.includes("f")) return [{ text: raw ? body : decodeEscapes(body, token.line) }];
  const parts: StringPart[] = [];
  let text = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === "{" && body[i + 1] === "{") {
      text += "{";
      i++;
    } else if (c === "}" && body[i + 1] === "}") {
      text += "}";
      i++;
    } else if (c === "{") {
      const end = body.indexOf("}", i);
      if (end < 0) throw new PythonSourceError("f-string: expecting '}'", token.line);
      const field = body.slice(i + 1, end).trim();
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(field))
        throw new PythonSourceError(`f-string field {${field}} is not a plain name`, token.line);
      parts.push({ text: raw ? text : decodeEscapes(text, token.line) }, { field });
      text = "";
      i = end;
    } else text += c;
  }
  parts.push({ text: raw ? text : decodeEscapes(text, token.line) });
  return parts;
}

// ---------------------------------------------------------------------------
// Expressions

/** A Python value as this reader builds it: JSON-like, tuples as arrays, calls as {@link PyCall}. */
export type PyLiteral =
  | null
  | boolean
  | number
  | bigint
  | string
  | PyFloat
  | PyLiteral[]
  | Map<string, PyLiteral>
  | PyCall;

/** A call `func(*args, **kwargs)` of a name the reader does not evaluate (e.g. `Task(...)`). */
export class PyCall {
  constructor(
    readonly func: string,
    readonly args: readonly PyLiteral[],
    readonly kwargs: ReadonlyMap<string, PyLiteral>,
  ) {}
}

/** Names an expression may use, with their values (module constants, imported names). */
export type PyScope = ReadonlyMap<string, PyLiteral>;

class ExpressionParser {
  constructor(
    private readonly tokens: readonly Token[],
    public pos: number,
    private readonly scope: PyScope,
    /** Calls of these names are kept as {@link PyCall}s; others are an error. */
    private readonly calls: ReadonlySet<string>,
    /** f-string fields the scope lacks stay in the text as `{name}` (reading a template). */
    private readonly templates = false,
  ) {}

  private peek(): Token {
    return this.tokens[this.pos]!;
  }

  private next(): Token {
    return this.tokens[this.pos++]!;
  }

  private fail(message: string, token = this.peek()): never {
    throw new PythonSourceError(message, token.line);
  }

  private expect(op: string): void {
    const token = this.next();
    if (token.kind !== "op" || token.text !== op) this.fail(`expected '${op}', got '${token.text}'`, token);
  }

  private isOp(op: string): boolean {
    const token = this.peek();
    return token.kind === "op" && token.text === op;
  }

  /** An expression (`a, b` at this level is a tuple only inside brackets, as the callers use it). */
  expression(): PyLiteral {
    const token = this.peek();
    if (token.kind === "op" && (token.text === "-" || token.text === "+")) {
      this.next();
      const value = this.expression();
      if (token.text === "+") return value;
      if (typeof value === "number") return -value;
      if (typeof value === "bigint") return -value;
      if (value instanceof PyFloat) return new PyFloat(-value.value);
      this.fail("unary minus on a non-number", token);
    }
    return this.atom();
  }

  private atom(): PyLiteral {
    const token = this.next();
    switch (token.kind) {
      case "string":
        return this.strings(token);
      case "number":
        return this.number(token);
      case "name":
        return this.name(token);
      case "op":
        if (token.text === "[") return this.sequence("]");
        if (token.text === "(") return this.parenthesized();
        if (token.text === "{") return this.braces();
        return this.fail(`unexpected '${token.text}'`, token);
      default:
        return this.fail("unexpected end of expression", token);
    }
  }

  private strings(first: Token): string {
    const parts = [...stringParts(first)];
    while (this.peek().kind === "string") parts.push(...stringParts(this.next()));
    return parts
      .map((part) => {
        if ("text" in part) return part.text;
        const value = this.scope.get(part.field);
        if (value === undefined && this.templates) return `{${part.field}}`;
        if (value === undefined) this.fail(`f-string field {${part.field}} is not defined`, first);
        if (typeof value !== "string" && typeof value !== "number")
          this.fail(`f-string field {${part.field}} is not a string or a number`, first);
        return String(value);
      })
      .join("");
  }

  private number(token: Token): number | bigint | PyFloat {
    const text = token.text.replaceAll("_", "");
    if (/[jJ]$/.test(text)) this.fail("complex literals are not supported", token);
    if (/^0[xXoObB]/.test(text)) return Number(text);
    if (/[.eE]/.test(text)) {
      const value = Number(text);
      return Number.isInteger(value) ? new PyFloat(value) : value;
    }
    const big = BigInt(text);
    return big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
  }

  private name(token: Token): PyLiteral {
    if (token.text === "True") return true;
    if (token.text === "False") return false;
    if (token.text === "None") return null;
    let name = token.text;
    while (this.isOp(".") && this.tokens[this.pos + 1]?.kind === "name") {
      this.next();
      name += `.${this.next().text}`;
    }
    if (this.isOp("(")) {
      if (!this.calls.has(name)) this.fail(`call of '${name}' is not a literal`, token);
      this.next();
      return this.call(name);
    }
    const value = this.scope.get(name);
    if (value === undefined) this.fail(`name '${name}' is not defined`, token);
    return value;
  }

  private call(func: string): PyCall {
    const args: PyLiteral[] = [];
    const kwargs = new Map<string, PyLiteral>();
    while (!this.isOp(")")) {
      const token = this.peek();
      if (token.kind === "name" && this.tokens[this.pos + 1]?.text === "=") {
        this.pos += 2;
        if (kwargs.has(token.text)) this.fail(`keyword argument repeated: ${token.text}`, token);
        kwargs.set(token.text, this.expression());
      } else {
        if (kwargs.size > 0) this.fail("positional argument follows keyword argument", token);
        args.push(this.expression());
      }
      if (!this.isOp(")")) this.expect(",");
    }
    this.next();
    return new PyCall(func, args, kwargs);
  }

  private sequence(closing: string): PyLiteral[] {
    const items: PyLiteral[] = [];
    while (!this.isOp(closing)) {
      items.push(this.expression());
      if (!this.isOp(closing)) this.expect(",");
    }
    this.next();
    return items;
  }

  private parenthesized(): PyLiteral {
    if (this.isOp(")")) {
      this.next();
      return [];
    }
    const first = this.expression();
    if (this.isOp(")")) {
      this.next();
      return first;
    }
    this.expect(",");
    const rest = this.sequence(")");
    return [first, ...rest];
  }

  private braces(): PyLiteral {
    if (this.isOp("}")) {
      this.next();
      return new Map();
    }
    const first = this.expression();
    if (!this.isOp(":")) {
      this.expect(",");
      return [first, ...this.sequence("}")];
    }
    const out = new Map<string, PyLiteral>();
    let key = first;
    for (;;) {
      this.expect(":");
      if (typeof key !== "string") this.fail("dict keys must be strings here");
      // A repeated key keeps its first position and takes the last value, as a Python dict does.
      out.set(key, this.expression());
      if (this.isOp("}")) break;
      this.expect(",");
      if (this.isOp("}")) break;
      key = this.expression();
    }
    this.next();
    return out;
  }
}

/** Options of the readers below. */
export interface ReadOptions {
  /** Names the expressions may use (constants imported from other modules). */
  scope?: PyScope;
  /** Callable names kept as {@link PyCall}s (e.g. `Task`, `Action`). */
  calls?: readonly string[];
  /** f-string fields not in the scope stay in the text as `{name}` placeholders (a template). */
  templates?: boolean;
}

/**
 * The value of every top-level `NAME = <literal>` of a module, in source
 * order; later assignments may use earlier names. Other statements are
 * skipped; an assignment whose value is not a literal is left out.
 */
export function moduleAssignments(source: string, options: ReadOptions = {}): Map<string, PyLiteral> {
  const tokens = tokenize(source);
  const scope = new Map(options.scope ?? []);
  const calls = new Set(options.calls ?? []);
  const out = new Map<string, PyLiteral>();
  let pos = 0;
  while (tokens[pos]!.kind !== "end") {
    const token = tokens[pos]!;
    const atStatement = pos === 0 || tokens[pos - 1]!.kind === "newline";
    if (atStatement && token.column === 0 && token.kind === "name" && tokens[pos + 1]?.text === "=") {
      const parser = new ExpressionParser(tokens, pos + 2, scope, calls);
      try {
        const value = parser.expression();
        if (tokens[parser.pos]!.kind === "newline") {
          out.set(token.text, value);
          scope.set(token.text, value);
        }
        pos = parser.pos;
      } catch (error) {
        if (!(error instanceof PythonSourceError)) throw error;
        pos += 2;
      }
      continue;
    }
    pos++;
  }
  return out;
}

/** The literal returned by `def <method>(...)` inside `class <className>` of a module. */
export function methodReturnValue(
  source: string,
  className: string,
  method: string,
  options: ReadOptions = {},
): PyLiteral {
  const tokens = tokenize(source);
  const classAt = tokens.findIndex(
    (token, i) => token.text === "class" && token.column === 0 && tokens[i + 1]?.text === className,
  );
  if (classAt < 0) throw new PythonSourceError(`class ${className} not found`, 1);
  let pos = classAt + 2;
  while (tokens[pos]!.kind !== "end") {
    const token = tokens[pos]!;
    if (token.kind === "name" && token.text === "class" && token.column === 0) break;
    if (token.text === "def" && tokens[pos + 1]?.text === method) {
      const defColumn = token.column;
      for (pos += 2; tokens[pos]!.kind !== "end"; pos++) {
        const inner = tokens[pos]!;
        if (inner.text === "def" && inner.column <= defColumn) break;
        if (inner.kind === "name" && inner.text === "return") {
          const parser = new ExpressionParser(
            tokens,
            pos + 1,
            new Map(options.scope ?? []),
            new Set(options.calls ?? []),
            options.templates ?? false,
          );
          return parser.expression();
        }
      }
      throw new PythonSourceError(`${className}.${method} has no return statement`, token.line);
    }
    pos++;
  }
  throw new PythonSourceError(`${className}.${method} not found`, tokens[classAt]!.line);
}

/** The literal first assigned to `variable` inside the module-level `def <functionName>(...)`. */
export function functionAssignment(
  source: string,
  functionName: string,
  variable: string,
  options: ReadOptions = {},
): PyLiteral {
  const tokens = tokenize(source);
  const at = tokens.findIndex(
    (token, i) => token.text === "def" && token.column === 0 && tokens[i + 1]?.text === functionName,
  );
  if (at < 0) throw new PythonSourceError(`function ${functionName} not found`, 1);
  for (let pos = at + 2; tokens[pos]!.kind !== "end"; pos++) {
    const token = tokens[pos]!;
    if (token.column === 0 && token.kind !== "newline" && tokens[pos - 1]?.kind === "newline") break;
    if (
      token.kind === "name" &&
      token.text === variable &&
      tokens[pos - 1]?.kind === "newline" &&
      tokens[pos + 1]?.text === "="
    ) {
      const parser = new ExpressionParser(
        tokens,
        pos + 2,
        new Map(options.scope ?? []),
        new Set(options.calls ?? []),
        options.templates ?? false,
      );
      return parser.expression();
    }
  }
  throw new PythonSourceError(`${functionName} assigns no ${variable}`, tokens[at]!.line);
}

/** `from .module import Name` lines of a package `__init__.py`: class name → module name. */
export function relativeImports(source: string): Map<string, string> {
  const out = new Map<string, string>();
  const pattern = /^from \.(\w+) import ([\w, ]+)$/gm;
  for (const match of source.matchAll(pattern)) {
    for (const name of match[2]!.split(",")) out.set(name.trim(), match[1]!);
  }
  return out;
}

/** A list literal of plain names (`ALL_TOOLS = [A, B]`), as the names. */
export function nameList(source: string, variable: string): string[] {
  const tokens = tokenize(source);
  const at = tokens.findIndex(
    (token, i) =>
      token.kind === "name" && token.text === variable && token.column === 0 && tokens[i + 1]?.text === "=",
  );
  if (at < 0 || tokens[at + 2]?.text !== "[") throw new PythonSourceError(`${variable} = [...] not found`, 1);
  const names: string[] = [];
  for (let pos = at + 3; tokens[pos]!.text !== "]"; pos++) {
    const token = tokens[pos]!;
    if (token.kind === "name") names.push(token.text);
    else if (token.text !== ",")
      throw new PythonSourceError(`unexpected '${token.text}' in ${variable}`, token.line);
  }
  return names;
}
