/**
 * A reader for the parts of Python source files that hold model-facing texts.
 * It tokenizes (string literals with Python's escape rules, f-strings split
 * into literal text and replacement fields), groups tokens into logical lines
 * and those into blocks (classes, functions, decorators), which is enough to
 * find a docstring, an assignment or the n-th string literal of a scope. It
 * evaluates no Python.
 */
import { TauError } from "../../core/errors.ts";

/** A Python source file that cannot be read as this reader expects; names the file and line. */
export class PythonSourceError extends TauError {
  constructor(
    readonly file: string,
    readonly line: number,
    detail: string,
  ) {
    super(`${file}:${line}: ${detail}`);
  }
}

/** One replacement field of an f-string: `{expr!conversion:spec}`. */
export interface FStringField {
  /** The expression's source text, trimmed, whitespace runs collapsed. */
  readonly expr: string;
  readonly conversion: string | null;
  /** The format spec's source text (nested fields unexpanded). */
  readonly spec: string | null;
}

/** A piece of a string literal's value: literal text or (f-strings only) a replacement field. */
export type StringPiece = { readonly text: string } | { readonly field: FStringField };

interface TokenBase {
  /** Offsets into the (newline-normalised) source. */
  readonly start: number;
  readonly end: number;
  readonly line: number;
}

/** A token of a logical line (comments and line breaks are not tokens). */
export type PyToken =
  | (TokenBase & { readonly kind: "name" | "number" | "op"; readonly text: string })
  | (TokenBase & {
      readonly kind: "string";
      readonly text: string;
      /** The prefix letters, lower-cased (`""`, `"r"`, `"f"`, `"rf"`, …). */
      readonly prefix: string;
      readonly pieces: readonly StringPiece[];
    });

/** A string token. */
export type PyStringToken = Extract<PyToken, { kind: "string" }>;

/** A logical line: its indentation column and its tokens. */
export interface LogicalLine {
  readonly indent: number;
  readonly line: number;
  readonly tokens: readonly PyToken[];
}

/** A statement; compound statements (ending in `:`) have the indented lines below them as body. */
export interface Statement {
  readonly line: LogicalLine;
  readonly body: readonly Statement[];
}

const STRING_PREFIXES = new Set(["r", "u", "b", "f", "br", "rb", "fr", "rf"]);
const OPERATORS = [
  "**=",
  "//=",
  ">>=",
  "<<=",
  "...",
  "->",
  "**",
  "//",
  "<<",
  ">>",
  "<=",
  ">=",
  "==",
  "!=",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "&=",
  "|=",
  "^=",
  "@=",
  ":=",
];
const NUMBER = /(?:0[xXoObB][\da-fA-F_]+|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?[jJ]?)/y;
const IDENTIFIER = /[\p{ID_Start}_][\p{ID_Continue}]*/uy;
const SIMPLE_ESCAPES: Record<string, string> = {
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};

/**
 * Python's decoding of the escape sequences of a non-raw string literal's body;
 * a malformed or unsupported escape throws what `fail` makes of its reason.
 */
export function unescapePython(body: string, fail: (reason: string) => Error): string {
  let out = "";
  let i = 0;
  while (i < body.length) {
    const ch = body[i]!;
    if (ch !== "\\") {
      out += ch;
      i++;
      continue;
    }
    const next = body[i + 1];
    if (next === undefined) {
      out += "\\";
      i++;
    } else if (next === "\n") {
      i += 2;
    } else if (next in SIMPLE_ESCAPES) {
      out += SIMPLE_ESCAPES[next];
      i += 2;
    } else if (/[0-7]/.test(next)) {
      const digits = /^[0-7]{1,3}/.exec(body.slice(i + 1))![0];
      out += String.fromCodePoint(Number.parseInt(digits, 8));
      i += 1 + digits.length;
    } else if (next === "x" || next === "u" || next === "U") {
      const width = next === "x" ? 2 : next === "u" ? 4 : 8;
      const hex = body.slice(i + 2, i + 2 + width);
      if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(hex)) throw fail(`truncated \\${next} escape`);
      out += String.fromCodePoint(Number.parseInt(hex, 16));
      i += 2 + width;
    } else if (next === "N") {
      // Named escapes need Unicode's name table; no upstream text uses one.
      throw fail("\\N{...} escapes are not supported");
    } else {
      out += `\\${next}`;
      i += 2;
    }
  }
  return out;
}

/** Tokenizes a Python source into logical lines. */
export function logicalLines(file: string, rawSource: string): { source: string; lines: LogicalLine[] } {
  // Python reads source in universal-newline mode, so literals never hold \r\n.
  const source = rawSource.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const lines: LogicalLine[] = [];
  let pos = 0;
  let line = 1;
  let depth = 0;
  let current: PyToken[] = [];
  let indent = 0;
  let lineStart = 1;
  let atLineStart = true;
  const fail = (detail: string) => new PythonSourceError(file, line, detail);
  const finishLine = () => {
    if (current.length > 0) lines.push({ indent, line: lineStart, tokens: current });
    current = [];
    atLineStart = true;
  };

  while (pos < source.length) {
    if (atLineStart) {
      let column = 0;
      while (pos < source.length && " \t\f".includes(source[pos]!)) {
        const ch = source[pos]!;
        column = ch === " " ? column + 1 : ch === "\t" ? Math.floor(column / 8) * 8 + 8 : 0;
        pos++;
      }
      if (pos >= source.length) break;
      if (source[pos] === "#") {
        while (pos < source.length && source[pos] !== "\n") pos++;
      }
      if (source[pos] === "\n") {
        pos++;
        line++;
        continue;
      }
      indent = column;
      lineStart = line;
      atLineStart = false;
    }
    const ch = source[pos]!;
    if (ch === " " || ch === "\t" || ch === "\f") {
      pos++;
      continue;
    }
    if (ch === "#") {
      while (pos < source.length && source[pos] !== "\n") pos++;
      continue;
    }
    if (ch === "\\" && source[pos + 1] === "\n") {
      pos += 2;
      line++;
      continue;
    }
    if (ch === "\n") {
      pos++;
      line++;
      if (depth === 0) finishLine();
      continue;
    }
    IDENTIFIER.lastIndex = pos;
    const word = IDENTIFIER.exec(source)?.[0];
    if (word !== undefined) {
      const after = source[pos + word.length];
      if ((after === '"' || after === "'") && STRING_PREFIXES.has(word.toLowerCase())) {
        const token = scanString(file, source, pos, word.length, line);
        line += countNewlines(source, pos, token.end);
        current.push(token);
        pos = token.end;
      } else {
        current.push({ kind: "name", text: word, start: pos, end: pos + word.length, line });
        pos += word.length;
      }
      continue;
    }
    if (ch === '"' || ch === "'") {
      const token = scanString(file, source, pos, 0, line);
      line += countNewlines(source, pos, token.end);
      current.push(token);
      pos = token.end;
      continue;
    }
    NUMBER.lastIndex = pos;
    const number = /[\d.]/.test(ch) ? NUMBER.exec(source)?.[0] : undefined;
    if (number) {
      current.push({ kind: "number", text: number, start: pos, end: pos + number.length, line });
      pos += number.length;
      continue;
    }
    const op = OPERATORS.find((candidate) => source.startsWith(candidate, pos)) ?? ch;
    if ("([{".includes(op)) depth++;
    else if (")]}".includes(op)) {
      if (depth === 0) throw fail(`unbalanced '${op}'`);
      depth--;
    }
    current.push({ kind: "op", text: op, start: pos, end: pos + op.length, line });
    pos += op.length;
  }
  if (depth !== 0) throw fail("unclosed bracket at end of file");
  finishLine();
  return { source, lines };
}

function countNewlines(source: string, from: number, to: number): number {
  let count = 0;
  for (let i = from; i < to; i++) if (source.charCodeAt(i) === 10) count++;
  return count;
}

/** Scans a string literal starting at `start` (its prefix is `prefixLength` characters long). */
function scanString(
  file: string,
  source: string,
  start: number,
  prefixLength: number,
  line: number,
): PyStringToken {
  const prefix = source.slice(start, start + prefixLength).toLowerCase();
  const raw = prefix.includes("r");
  const quoteStart = start + prefixLength;
  const quoteChar = source[quoteStart]!;
  const quote = source.startsWith(quoteChar.repeat(3), quoteStart) ? quoteChar.repeat(3) : quoteChar;
  const fail = (detail: string) =>
    new PythonSourceError(
      file,
      line + countNewlines(source, start, Math.min(source.length, start + 1)),
      detail,
    );
  const decode = (body: string) =>
    raw ? body : unescapePython(body, () => fail(`unsupported escape sequence in ${JSON.stringify(body)}`));
  const bodyStart = quoteStart + quote.length;
  if (!prefix.includes("f")) {
    let i = bodyStart;
    for (;;) {
      if (i >= source.length) throw fail("unterminated string literal");
      const ch = source[i]!;
      if (ch === "\\") i += 2;
      else if (source.startsWith(quote, i)) break;
      else if (ch === "\n" && quote.length === 1) throw fail("unterminated string literal");
      else i++;
    }
    const end = i + quote.length;
    return {
      kind: "string",
      text: source.slice(start, end),
      start,
      end,
      line,
      prefix,
      pieces: [{ text: decode(source.slice(bodyStart, i)) }],
    };
  }
  const pieces: StringPiece[] = [];
  let literal = "";
  const flush = () => {
    if (literal !== "") pieces.push({ text: decode(literal) });
    literal = "";
  };
  let i = bodyStart;
  for (;;) {
    if (i >= source.length) throw fail("unterminated f-string");
    const ch = source[i]!;
    if (source.startsWith(quote, i)) break;
    if (ch === "\n" && quote.length === 1) throw fail("unterminated f-string");
    if (ch === "\\") {
      const next = source[i + 1] ?? "";
      // A backslash before a brace does not escape it: the brace still opens or closes a field.
      if (next === "{" || next === "}") {
        literal += "\\";
        i++;
      } else {
        literal += ch + next;
        i += 2;
      }
      continue;
    }
    if (ch === "{" && source[i + 1] === "{") {
      flush();
      pieces.push({ text: "{" });
      i += 2;
      continue;
    }
    if (ch === "}") {
      if (source[i + 1] !== "}") throw fail("single '}' in f-string");
      flush();
      pieces.push({ text: "}" });
      i += 2;
      continue;
    }
    if (ch === "{") {
      flush();
      const field = scanField(file, source, i + 1, line, fail);
      pieces.push({ field: field.field });
      i = field.end;
      continue;
    }
    literal += ch;
    i++;
  }
  flush();
  const end = i + quote.length;
  return { kind: "string", text: source.slice(start, end), start, end, line, prefix, pieces: merge(pieces) };
}

function merge(pieces: StringPiece[]): StringPiece[] {
  const out: StringPiece[] = [];
  for (const piece of pieces) {
    const last = out[out.length - 1];
    if (last && "text" in last && "text" in piece) out[out.length - 1] = { text: last.text + piece.text };
    else out.push(piece);
  }
  return out;
}

/** Scans one f-string replacement field from just after its `{`; returns the position after its `}`. */
function scanField(
  file: string,
  source: string,
  from: number,
  line: number,
  fail: (detail: string) => PythonSourceError,
): { field: FStringField; end: number } {
  let i = from;
  let depth = 0;
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === "'" || ch === '"') {
      i = scanString(file, source, i, 0, line).end;
      continue;
    }
    IDENTIFIER.lastIndex = i;
    const word = IDENTIFIER.exec(source)?.[0];
    if (word !== undefined) {
      const after = source[i + word.length];
      i =
        (after === '"' || after === "'") && STRING_PREFIXES.has(word.toLowerCase())
          ? scanString(file, source, i, word.length, line).end
          : i + word.length;
      continue;
    }
    if ("([{".includes(ch)) depth++;
    else if (")]}".includes(ch) && depth > 0) depth--;
    else if (depth === 0 && (ch === "}" || ch === ":" || (ch === "!" && source[i + 1] !== "="))) break;
    else if (depth === 0 && ch === "=" && !"=!<>".includes(source[i - 1] ?? "") && source[i + 1] !== "=") {
      const rest = source.slice(i + 1).trimStart();
      if (rest[0] === "}" || rest[0] === "!" || rest[0] === ":")
        throw fail("self-documenting f-string fields ('=') are not supported");
    }
    i++;
  }
  const expr = source.slice(from, i).trim().replace(/\s+/g, " ");
  if (expr === "") throw fail("empty f-string field");
  let conversion: string | null = null;
  let spec: string | null = null;
  if (source[i] === "!") {
    const match = /^!([a-z])/.exec(source.slice(i));
    if (!match) throw fail("bad f-string conversion");
    conversion = match[1]!;
    i += 2;
  }
  if (source[i] === ":") {
    const specStart = i + 1;
    let nested = 0;
    i++;
    while (i < source.length && !(source[i] === "}" && nested === 0)) {
      if (source[i] === "{") nested++;
      else if (source[i] === "}") nested--;
      i++;
    }
    spec = source.slice(specStart, i);
  }
  if (source[i] !== "}") throw fail("unterminated f-string field");
  return { field: { expr, conversion, spec }, end: i + 1 };
}

function endsBlock(line: LogicalLine): boolean {
  const last = line.tokens[line.tokens.length - 1];
  return last?.kind === "op" && last.text === ":";
}

function buildBlocks(lines: readonly LogicalLine[], from: number, parentIndent: number) {
  const out: Statement[] = [];
  let i = from;
  while (i < lines.length && lines[i]!.indent > parentIndent) {
    const line = lines[i]!;
    i++;
    if (endsBlock(line)) {
      const [body, next] = buildBlocks(lines, i, line.indent);
      out.push({ line, body });
      i = next;
    } else {
      out.push({ line, body: [] });
    }
  }
  return [out, i] as const;
}

/** A class or function found by its dotted path. */
export interface Scope {
  readonly kind: "module" | "class" | "def";
  readonly name: string;
  /** The `class …:` / `def …:` line (null for the module). */
  readonly header: LogicalLine | null;
  /** Decorator lines directly above the header, in source order. */
  readonly decorators: readonly LogicalLine[];
  readonly body: readonly Statement[];
}

/** One parameter of a `def`. */
export interface PyParameter {
  readonly name: string;
  /** Source text of the annotation, or null. */
  readonly annotation: string | null;
  /** Source text of the default, or null when the parameter is required. */
  readonly default: string | null;
}

const isName = (token: PyToken | undefined, text: string) => token?.kind === "name" && token.text === text;
const isOp = (token: PyToken | undefined, text: string) => token?.kind === "op" && token.text === text;

/** What kind of scope a statement opens, and its name. */
function scopeOf(statement: Statement): { kind: "class" | "def"; name: string } | null {
  if (statement.body.length === 0) return null;
  const tokens = statement.line.tokens;
  const offset = isName(tokens[0], "async") ? 1 : 0;
  const keyword = tokens[offset];
  const name = tokens[offset + 1];
  if (name?.kind !== "name") return null;
  if (isName(keyword, "class")) return { kind: "class", name: name.text };
  if (isName(keyword, "def")) return { kind: "def", name: name.text };
  return null;
}

/** A parsed Python module. */
export class PythonModule {
  readonly source: string;
  readonly statements: readonly Statement[];
  readonly root: Scope;

  constructor(
    readonly file: string,
    rawSource: string,
  ) {
    const { source, lines } = logicalLines(file, rawSource);
    this.source = source;
    this.statements = buildBlocks(lines, 0, -1)[0];
    this.root = { kind: "module", name: "", header: null, decorators: [], body: this.statements };
  }

  /** An error naming this file and a line. */
  error(line: number, detail: string): PythonSourceError {
    return new PythonSourceError(this.file, line, detail);
  }

  /** The source text of a token run, whitespace runs collapsed outside its string literals. */
  sourceOf(tokens: readonly PyToken[]): string {
    let out = "";
    let previousEnd = -1;
    for (const token of tokens) {
      if (previousEnd >= 0 && token.start > previousEnd) {
        const gap = this.source.slice(previousEnd, token.start);
        if (/\S/.test(gap.replace(/\\\n/g, ""))) out += gap;
        else if (!/^[)\]},:.]/.test(token.text) && !/[([{.]$/.test(out)) out += " ";
      }
      out += token.text;
      previousEnd = token.end;
    }
    return out;
  }

  /** The scopes (classes and functions) directly inside a body, looking through `if`/`try`/`with` blocks. */
  *scopesIn(body: readonly Statement[]): Generator<Scope> {
    let decorators: LogicalLine[] = [];
    for (const statement of body) {
      if (isOp(statement.line.tokens[0], "@")) {
        decorators.push(statement.line);
        continue;
      }
      const scope = scopeOf(statement);
      if (scope) yield { ...scope, header: statement.line, decorators, body: statement.body };
      else if (statement.body.length > 0) yield* this.scopesIn(statement.body);
      decorators = [];
    }
  }

  /** A scope by dotted path (`""` is the module, `Class.method.inner` a nested function). */
  scope(path: string): Scope {
    let scope = this.root;
    if (path === "") return scope;
    for (const part of path.split(".")) {
      const found = [...this.scopesIn(scope.body)].find((candidate) => candidate.name === part);
      if (!found) throw this.error(scope.header?.line ?? 1, `no class or function '${path}'`);
      scope = found;
    }
    return scope;
  }

  /** Every statement of a scope's body, nested blocks included but not nested classes or functions. */
  *statementsOf(scope: Scope): Generator<Statement> {
    const walk = function* (body: readonly Statement[]): Generator<Statement> {
      for (const statement of body) {
        yield statement;
        if (statement.body.length > 0 && !scopeOf(statement)) yield* walk(statement.body);
      }
    };
    yield* walk(scope.body);
  }

  /** The scope's docstring as Python's `__doc__` holds it (before any cleaning), or null. */
  docstring(scope: Scope): string | null {
    const first = scope.body[0];
    if (!first || first.body.length > 0) return null;
    const tokens = first.line.tokens;
    if (!tokens.every((token) => token.kind === "string" && !token.prefix.includes("f"))) return null;
    return (tokens as PyStringToken[]).map((token) => pieceText(token)).join("");
  }

  /** The parameters of a `def`, in signature order. */
  parameters(scope: Scope): PyParameter[] {
    const tokens = scope.header?.tokens ?? [];
    const open = tokens.findIndex((token) => isOp(token, "("));
    if (scope.kind !== "def" || open < 0) throw this.error(scope.header?.line ?? 1, "not a function");
    const close = matchingClose(tokens, open);
    const out: PyParameter[] = [];
    for (const part of splitTopLevel(tokens.slice(open + 1, close), ",")) {
      if (part.length === 0) continue;
      const first = part[0]!;
      if (first.kind === "op") continue; // `*`, `/`, `*args`, `**kwargs`
      const equals = topLevelIndex(part, "=");
      const colon = topLevelIndex(part, ":");
      const annotationEnd = equals >= 0 ? equals : part.length;
      out.push({
        name: first.text,
        annotation:
          colon >= 0 && colon < annotationEnd ? this.sourceOf(part.slice(colon + 1, annotationEnd)) : null,
        default: equals >= 0 ? this.sourceOf(part.slice(equals + 1)) : null,
      });
    }
    return out;
  }
}

/** The value of a string token without replacement fields (throws on an f-string with fields). */
export function pieceText(token: PyStringToken): string {
  return token.pieces.map((piece) => ("text" in piece ? piece.text : `{${piece.field.expr}}`)).join("");
}

/** Index of the bracket that closes the one at `open`. */
export function matchingClose(tokens: readonly PyToken[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind !== "op") continue;
    if ("([{".includes(token.text)) depth++;
    else if (")]}".includes(token.text)) {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** Index of the first `op` token at bracket depth 0, or -1. */
export function topLevelIndex(tokens: readonly PyToken[], op: string): number {
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind !== "op") continue;
    if ("([{".includes(token.text)) depth++;
    else if (")]}".includes(token.text)) depth--;
    else if (depth === 0 && token.text === op) return i;
  }
  return -1;
}

/** Splits a token run at an operator that sits at bracket depth 0. */
export function splitTopLevel(tokens: readonly PyToken[], op: string): PyToken[][] {
  const parts: PyToken[][] = [[]];
  let depth = 0;
  for (const token of tokens) {
    if (token.kind === "op") {
      if ("([{".includes(token.text)) depth++;
      else if (")]}".includes(token.text)) depth--;
      else if (depth === 0 && token.text === op) {
        parts.push([]);
        continue;
      }
    }
    parts[parts.length - 1]!.push(token);
  }
  return parts;
}
