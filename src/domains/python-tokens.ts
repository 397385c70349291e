/**
 * The one Python tokenizer of the repository, for the readers that take
 * upstream's texts and data out of its Python sources (`texts/python-source.ts`,
 * `tau1/python-source.ts`). It reads string literals with Python's escape rules
 * (f-strings split into literal text and replacement fields), groups tokens
 * into logical lines as Python does (brackets and `\` join lines) and those
 * into indented blocks. It evaluates no Python. Errors are made by the
 * caller's `fail`, so each reader names file and line its own way.
 */

/** Makes the error for a problem found on a (1-based) line of the source. */
export type SourceFailure = (line: number, detail: string) => Error;

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

/** A tokenized source. */
export interface TokenizedSource {
  /** The source as Python reads it (BOM dropped, newlines normalised); token offsets point into it. */
  readonly source: string;
  readonly lines: readonly LogicalLine[];
  /**
   * The last line when a bracket is still open at the end of the file, else null. Python rejects
   * such a file; its open statement is the last logical line, cut short.
   */
  readonly unclosedBracketAt: number | null;
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
/** Characters that never begin a longer operator (most tokens are one of them). */
const SINGLE_OPERATORS = "()[]{},;~";
const IDENTIFIER = /[\p{ID_Start}_][\p{ID_Continue}]*/uy;
/** A cheap first test before {@link IDENTIFIER}: ASCII letters, `_`, or any non-ASCII character. */
const mayStartName = (ch: string) => {
  const code = ch.charCodeAt(0);
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95 || code > 127;
};
/** The body of a non-f string literal up to (not including) its closing quote, by quote. */
const STRING_BODY: Record<string, RegExp> = {
  "'": /(?:[^\\'\n]+|\\[\s\S])*/y,
  '"': /(?:[^\\"\n]+|\\[\s\S])*/y,
  "'''": /(?:[^\\']+|\\[\s\S]|'(?!''))*/y,
  '"""': /(?:[^\\"]+|\\[\s\S]|"(?!""))*/y,
};
const OCTAL = /[0-7]{1,3}/y;
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
  // Text between escapes is copied in slices: most literals hold no backslash at all.
  let out = "";
  let i = 0;
  for (;;) {
    const backslash = body.indexOf("\\", i);
    if (backslash < 0) return out + body.slice(i);
    out += body.slice(i, backslash);
    i = backslash;
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
      OCTAL.lastIndex = i + 1;
      const digits = OCTAL.exec(body)![0];
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
}

/** Tokenizes a Python source into logical lines; a malformed token throws what `fail` makes of it. */
export function logicalLines(rawSource: string, fail: SourceFailure): TokenizedSource {
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
    const word = mayStartName(ch) ? IDENTIFIER.exec(source)?.[0] : undefined;
    if (word !== undefined) {
      const after = source[pos + word.length];
      if ((after === '"' || after === "'") && STRING_PREFIXES.has(word.toLowerCase())) {
        const token = scanString(source, pos, word.length, line, fail);
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
      const token = scanString(source, pos, 0, line, fail);
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
    const op = SINGLE_OPERATORS.includes(ch)
      ? ch
      : (OPERATORS.find((candidate) => source.startsWith(candidate, pos)) ?? ch);
    if ("([{".includes(op)) depth++;
    else if (")]}".includes(op)) {
      if (depth === 0) throw fail(line, `unbalanced '${op}'`);
      depth--;
    }
    current.push({ kind: "op", text: op, start: pos, end: pos + op.length, line });
    pos += op.length;
  }
  finishLine();
  return { source, lines, unclosedBracketAt: depth === 0 ? null : line };
}

function countNewlines(source: string, from: number, to: number): number {
  let count = 0;
  for (let i = from; i < to; i++) if (source.charCodeAt(i) === 10) count++;
  return count;
}

/** Scans a string literal starting at `start` (its prefix is `prefixLength` characters long). */
function scanString(
  source: string,
  start: number,
  prefixLength: number,
  line: number,
  fail: SourceFailure,
): PyStringToken {
  const prefix = source.slice(start, start + prefixLength).toLowerCase();
  const raw = prefix.includes("r");
  const quoteStart = start + prefixLength;
  const quoteChar = source[quoteStart]!;
  const quote = source.startsWith(quoteChar.repeat(3), quoteStart) ? quoteChar.repeat(3) : quoteChar;
  const failHere = (detail: string) => fail(line, detail);
  const decode = (body: string) =>
    raw
      ? body
      : unescapePython(body, () => failHere(`unsupported escape sequence in ${JSON.stringify(body)}`));
  const bodyStart = quoteStart + quote.length;
  if (!prefix.includes("f")) {
    const pattern = STRING_BODY[quote]!;
    pattern.lastIndex = bodyStart;
    const i = bodyStart + pattern.exec(source)![0].length;
    if (!source.startsWith(quote, i)) throw failHere("unterminated string literal");
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
    if (i >= source.length) throw failHere("unterminated f-string");
    const ch = source[i]!;
    if (source.startsWith(quote, i)) break;
    if (ch === "\n" && quote.length === 1) throw failHere("unterminated f-string");
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
      if (source[i + 1] !== "}") throw failHere("single '}' in f-string");
      flush();
      pieces.push({ text: "}" });
      i += 2;
      continue;
    }
    if (ch === "{") {
      flush();
      const field = scanField(source, i + 1, line, fail);
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
  source: string,
  from: number,
  line: number,
  fail: SourceFailure,
): { field: FStringField; end: number } {
  const failHere = (detail: string) => fail(line, detail);
  let i = from;
  let depth = 0;
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === "'" || ch === '"') {
      i = scanString(source, i, 0, line, fail).end;
      continue;
    }
    IDENTIFIER.lastIndex = i;
    const word = IDENTIFIER.exec(source)?.[0];
    if (word !== undefined) {
      const after = source[i + word.length];
      i =
        (after === '"' || after === "'") && STRING_PREFIXES.has(word.toLowerCase())
          ? scanString(source, i, word.length, line, fail).end
          : i + word.length;
      continue;
    }
    if ("([{".includes(ch)) depth++;
    else if (")]}".includes(ch) && depth > 0) depth--;
    else if (depth === 0 && (ch === "}" || ch === ":" || (ch === "!" && source[i + 1] !== "="))) break;
    else if (depth === 0 && ch === "=" && !"=!<>".includes(source[i - 1] ?? "") && source[i + 1] !== "=") {
      const rest = source.slice(i + 1).trimStart();
      if (rest[0] === "}" || rest[0] === "!" || rest[0] === ":")
        throw failHere("self-documenting f-string fields ('=') are not supported");
    }
    i++;
  }
  const expr = source.slice(from, i).trim().replace(/\s+/g, " ");
  if (expr === "") throw failHere("empty f-string field");
  let conversion: string | null = null;
  let spec: string | null = null;
  if (source[i] === "!") {
    const match = /^!([a-z])/.exec(source.slice(i));
    if (!match) throw failHere("bad f-string conversion");
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
  if (source[i] !== "}") throw failHere("unterminated f-string field");
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

/** The module's statements, each compound statement with its indented body. */
export function statementTree(lines: readonly LogicalLine[]): Statement[] {
  return buildBlocks(lines, 0, -1)[0];
}

/** Whether a token is the name `text` (any name when `text` is left out). */
export const isName = (token: PyToken | undefined, text?: string): boolean =>
  token?.kind === "name" && (text === undefined || token.text === text);

/** Whether a token is the operator or bracket `text`. */
export const isOp = (token: PyToken | undefined, text: string): boolean =>
  token?.kind === "op" && token.text === text;

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
