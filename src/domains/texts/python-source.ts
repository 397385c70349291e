/**
 * A reader for the parts of Python source files that hold model-facing texts.
 * On the shared tokenizer (`../python-tokens.ts`: string literals, f-string
 * pieces, logical lines, blocks) it finds classes and functions with their
 * decorators, docstrings and parameters, which is enough to find a docstring,
 * an assignment or the n-th string literal of a scope. It evaluates no Python.
 */
import { TauError } from "../../core/errors.ts";
import {
  isName,
  isOp,
  type LogicalLine,
  logicalLines,
  matchingClose,
  type PyStringToken,
  type PyToken,
  type Statement,
  splitTopLevel,
  statementTree,
  topLevelIndex,
} from "../python-tokens.ts";

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
    const { source, lines, unclosedBracketAt } = logicalLines(
      rawSource,
      (line, detail) => new PythonSourceError(file, line, detail),
    );
    if (unclosedBracketAt !== null)
      throw new PythonSourceError(file, unclosedBracketAt, "unclosed bracket at end of file");
    this.source = source;
    this.statements = statementTree(lines);
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
