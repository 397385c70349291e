/**
 * Reading the literal structures of Python source files (no Python at run
 * time): an evaluator, on the shared tokenizer's logical lines
 * (`../python-tokens.ts`), for the expression subset upstream's data modules
 * use — strings (all prefixes, escapes, implicit concatenation, f-strings whose
 * fields are names), numbers, `True` / `False` / `None`, lists, tuples, dicts,
 * sets, calls with keyword arguments and names bound by the caller. Used by
 * `tau data pull --tau1` to turn upstream's `tasks_*.py`, `rules.py` and tool
 * `get_info()` bodies into JSON.
 */
import { PyFloat } from "../../core/py-json.ts";
import {
  type FStringField,
  isName,
  isOp,
  type LogicalLine,
  logicalLines,
  type PyStringToken,
  type PyToken,
  type Statement,
  statementTree,
} from "../python-tokens.ts";

/** A syntax or evaluation problem, with the line it was found on (the caller names the file). */
export class PythonSourceError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
    this.name = "PythonSourceError";
  }
}

/**
 * A source's logical lines. A bracket left open at the end of the file cuts
 * the last statement short; it then fails to evaluate like any other
 * non-literal, so the reader needs no error of its own for it.
 */
function readLines(source: string): readonly LogicalLine[] {
  return logicalLines(source, (line, detail) => new PythonSourceError(detail, line)).lines;
}

// ---------------------------------------------------------------------------
// String literals

/** A string literal's value: plain text, or for f-strings the literal parts around `{name}` fields. */
type StringPart = { text: string } | { field: string };

const fieldSource = (field: FStringField) =>
  `${field.expr}${field.conversion === null ? "" : `!${field.conversion}`}${field.spec === null ? "" : `:${field.spec}`}`;

function stringParts(token: PyStringToken): StringPart[] {
  if (token.prefix.includes("b")) throw new PythonSourceError("bytes literals are not text", token.line);
  return token.pieces.map((piece) => {
    if ("text" in piece) return piece;
    const { field } = piece;
    if (field.conversion !== null || field.spec !== null || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(field.expr))
      throw new PythonSourceError(`f-string field {${fieldSource(field)}} is not a plain name`, token.line);
    return { field: field.expr };
  });
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

/** Reads one expression from a logical line's tokens. */
class ExpressionParser {
  private pos: number;
  private readonly tokens: readonly PyToken[];

  constructor(
    private readonly line: LogicalLine,
    start: number,
    private readonly scope: PyScope,
    /** Calls of these names are kept as {@link PyCall}s; others are an error. */
    private readonly calls: ReadonlySet<string>,
    /** f-string fields the scope lacks stay in the text as `{name}` (reading a template). */
    private readonly templates = false,
  ) {
    this.tokens = line.tokens;
    this.pos = start;
  }

  private peek(): PyToken | undefined {
    return this.tokens[this.pos];
  }

  private next(): PyToken | undefined {
    return this.tokens[this.pos++];
  }

  private fail(message: string, token = this.peek()): never {
    const last = this.tokens[this.tokens.length - 1];
    throw new PythonSourceError(message, token?.line ?? last?.line ?? this.line.line);
  }

  private expect(op: string): void {
    const token = this.next();
    if (!isOp(token, op))
      this.fail(`expected '${op}', got ${token ? `'${token.text}'` : "the end of the line"}`, token);
  }

  private isOp(op: string): boolean {
    return isOp(this.peek(), op);
  }

  /** The expression that makes up the rest of the line. */
  wholeLine(): PyLiteral {
    const value = this.expression();
    const extra = this.peek();
    if (extra) this.fail(`unexpected '${extra.text}' after the expression`, extra);
    return value;
  }

  /** An expression (`a, b` at this level is a tuple only inside brackets, as the callers use it). */
  private expression(): PyLiteral {
    const token = this.peek();
    if (isOp(token, "-") || isOp(token, "+")) {
      this.next();
      const value = this.expression();
      if (token!.text === "+") return value;
      if (typeof value === "number") return -value;
      if (typeof value === "bigint") return -value;
      if (value instanceof PyFloat) return new PyFloat(-value.value);
      this.fail("unary minus on a non-number", token);
    }
    return this.atom();
  }

  private atom(): PyLiteral {
    const token = this.next();
    switch (token?.kind) {
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
      case undefined:
        return this.fail("unexpected end of expression", token);
      default: {
        const never: never = token;
        return this.fail(`unexpected token ${JSON.stringify(never)}`);
      }
    }
  }

  private strings(first: PyStringToken): string {
    const parts = [...stringParts(first)];
    for (let token = this.peek(); token?.kind === "string"; token = this.peek()) {
      this.next();
      parts.push(...stringParts(token));
    }
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

  private number(token: PyToken): number | bigint | PyFloat {
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

  private name(token: PyToken): PyLiteral {
    if (token.text === "True") return true;
    if (token.text === "False") return false;
    if (token.text === "None") return null;
    let name = token.text;
    while (this.isOp(".") && isName(this.tokens[this.pos + 1])) {
      this.next();
      name += `.${this.next()!.text}`;
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
      if (token?.kind === "name" && isOp(this.tokens[this.pos + 1], "=")) {
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

/** The literal that makes up a logical line from token `start` on. */
function evaluate(line: LogicalLine, start: number, options: ReadOptions): PyLiteral {
  return new ExpressionParser(
    line,
    start,
    new Map(options.scope ?? []),
    new Set(options.calls ?? []),
    options.templates ?? false,
  ).wholeLine();
}

/**
 * The value of every top-level `NAME = <literal>` of a module, in source
 * order; later assignments may use earlier names. Other statements are
 * skipped; an assignment whose value is not a literal is left out.
 */
export function moduleAssignments(source: string, options: ReadOptions = {}): Map<string, PyLiteral> {
  const scope = new Map(options.scope ?? []);
  const calls = new Set(options.calls ?? []);
  const out = new Map<string, PyLiteral>();
  for (const line of readLines(source)) {
    const [target, equals] = line.tokens;
    if (line.indent !== 0 || target?.kind !== "name" || !isOp(equals, "=")) continue;
    try {
      const value = new ExpressionParser(line, 2, scope, calls).wholeLine();
      out.set(target.text, value);
      scope.set(target.text, value);
    } catch (error) {
      if (!(error instanceof PythonSourceError)) throw error;
    }
  }
  return out;
}

/** The first statement of a body, nested blocks included, that `matches`. */
function findStatement(
  body: readonly Statement[],
  matches: (tokens: readonly PyToken[]) => boolean,
): Statement | undefined {
  for (const statement of body) {
    if (matches(statement.line.tokens)) return statement;
    const inner = findStatement(statement.body, matches);
    if (inner) return inner;
  }
  return undefined;
}

/** Whether tokens begin `<keyword> <name>` (`class Name`, `def name`). */
const opens = (tokens: readonly PyToken[], keyword: string, name: string) =>
  isName(tokens[0], keyword) && isName(tokens[1], name);

/** The module-level `class <name>:` / `def <name>(...):` statement. */
const moduleBlock = (source: string, keyword: string, name: string) =>
  statementTree(readLines(source)).find((statement) => opens(statement.line.tokens, keyword, name));

/** The literal returned by `def <method>(...)` inside `class <className>` of a module. */
export function methodReturnValue(
  source: string,
  className: string,
  method: string,
  options: ReadOptions = {},
): PyLiteral {
  const found = moduleBlock(source, "class", className);
  if (!found) throw new PythonSourceError(`class ${className} not found`, 1);
  const def = findStatement(found.body, (tokens) => opens(tokens, "def", method));
  if (!def) throw new PythonSourceError(`${className}.${method} not found`, found.line.line);
  const returned = findStatement(def.body, (tokens) => isName(tokens[0], "return"));
  if (!returned) throw new PythonSourceError(`${className}.${method} has no return statement`, def.line.line);
  return evaluate(returned.line, 1, options);
}

/** The literal first assigned to `variable` inside the module-level `def <functionName>(...)`. */
export function functionAssignment(
  source: string,
  functionName: string,
  variable: string,
  options: ReadOptions = {},
): PyLiteral {
  const def = moduleBlock(source, "def", functionName);
  if (!def) throw new PythonSourceError(`function ${functionName} not found`, 1);
  const assigned = findStatement(def.body, (tokens) => isName(tokens[0], variable) && isOp(tokens[1], "="));
  if (!assigned) throw new PythonSourceError(`${functionName} assigns no ${variable}`, def.line.line);
  return evaluate(assigned.line, 2, options);
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
  const line = readLines(source).find(
    (candidate) =>
      candidate.indent === 0 && isName(candidate.tokens[0], variable) && isOp(candidate.tokens[1], "="),
  );
  if (!line || !isOp(line.tokens[2], "[")) throw new PythonSourceError(`${variable} = [...] not found`, 1);
  const names: string[] = [];
  for (let pos = 3; !isOp(line.tokens[pos], "]"); pos++) {
    const token = line.tokens[pos];
    if (token?.kind === "name") names.push(token.text);
    else if (!isOp(token, ","))
      throw new PythonSourceError(
        `unexpected ${token ? `'${token.text}'` : "end"} in ${variable}`,
        token?.line ?? line.line,
      );
  }
  return names;
}
