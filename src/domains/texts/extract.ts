/**
 * Extraction of model-facing texts from an upstream release's Python sources,
 * driven by data: a {@link TextSource} names each source file (with the sha256
 * of the pinned release) and the rules that pull texts out of it. The result
 * is a {@link TextsFile} (see `store.ts`), which the data folder keeps.
 */
import { createHash } from "node:crypto";
import { TauError } from "../../core/errors.ts";
import {
  cleandoc,
  DocstringStyleError,
  parseDocstring,
  pyLstrip,
  pyRstrip,
  pyStrip,
  toolDescription,
} from "./docstring.ts";
import {
  isName,
  isOp,
  matchingClose,
  type PyStringToken,
  type PyToken,
  type StringPiece,
  splitTopLevel,
  topLevelIndex,
} from "../python-tokens.ts";
import { PythonModule, type Scope } from "./python-source.ts";
import {
  entrySha256,
  TEXTS_FORMAT,
  TEXTS_FORMAT_VERSION,
  type TextsEntry,
  type TextsFile,
  type ToolTexts,
} from "./format.ts";

/** Which string expression of a scope a text rule reads. */
export type Selector =
  /** The value assigned to `NAME` (the n-th such assignment), or one keyword argument of the call assigned. */
  | { readonly assign: string; readonly occurrence?: number; readonly keyword?: string }
  /** The n-th string literal of the scope (adjacent literals count as one), docstring included. */
  | { readonly index: number }
  /** The value of the n-th `return` statement. */
  | { readonly return: number };

/** One extraction rule: what to read from a source file and the key it is stored under. */
export type ExtractionRule =
  /** A string without fields. */
  | { readonly kind: "text"; readonly key: string; readonly scope?: string; readonly select: Selector }
  /**
   * A string with fields, stored as a Python `str.format` template. `fields` maps each f-string
   * expression (or `.format` placeholder) to the field name consumers fill in; every one must be mapped.
   */
  | {
      readonly kind: "template";
      readonly key: string;
      readonly scope?: string;
      readonly select: Selector;
      readonly fields: Readonly<Record<string, string>>;
    }
  /** A function's cleaned docstring (`inspect.getdoc`). */
  | { readonly kind: "docstring"; readonly key: string; readonly scope: string }
  /** One function turned into a tool's texts (upstream `as_tool`). */
  | { readonly kind: "tool"; readonly key: string; readonly scope: string }
  /** A toolkit class: its `@is_tool` methods as tools, its `@is_discoverable_tool` methods' docstrings. */
  | { readonly kind: "toolkit"; readonly key: string; readonly domain: string; readonly class: string }
  /** A pydantic model class: its docstring and its fields' `Field(description=...)` texts. */
  | { readonly kind: "model"; readonly key: string; readonly domain: string; readonly class: string };

/** One source file of a release and the rules applied to it. */
export interface TextSourceFile {
  /** Path inside the release (the archive's top folder dropped; the same path in a checkout). */
  readonly path: string;
  readonly sha256: string;
  readonly rules: readonly ExtractionRule[];
}

/** A release whose Python sources hold model-facing texts, and how to extract them. */
export interface TextSource {
  /** Short name, also the texts file's name in the data folder (`taubench/<name>-texts.json`). */
  readonly name: string;
  readonly release: string;
  readonly files: readonly TextSourceFile[];
  /** sha256 of the texts file this source gives (the extraction is deterministic), or null if not pinned. */
  readonly textsSha256: string | null;
}

/** The sources do not give the texts (a file missing or different, a rule that finds nothing). */
export class TextExtractionError extends TauError {}

const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest("hex");

type Fragment = { text: string } | { expr: string };

const STRIPS: Record<string, (text: string) => string> = {
  strip: pyStrip,
  lstrip: pyLstrip,
  rstrip: pyRstrip,
};

/** Evaluates a string expression: literals, implicit and `+` concatenation, names as fields, `.strip()`. */
function evaluateString(module: PythonModule, tokens: readonly PyToken[]): Fragment[] {
  const line = tokens[0]?.line ?? 1;
  const unsupported = () => module.error(line, `unsupported string expression: ${module.sourceOf(tokens)}`);
  if (tokens.length === 0) throw unsupported();
  if (isOp(tokens[0], "(") && matchingClose(tokens, 0) === tokens.length - 1)
    return evaluateString(module, tokens.slice(1, -1));
  const terms = splitTopLevel(tokens, "+");
  if (terms.length > 1) return terms.flatMap((term) => evaluateString(module, term));
  let i = 0;
  let fragments: Fragment[] = [];
  while (tokens[i]?.kind === "string") {
    const token = tokens[i] as PyStringToken;
    if (token.prefix.includes("b")) throw module.error(token.line, "bytes literals hold no text");
    fragments.push(...token.pieces.map(toFragment(module, token)));
    i++;
  }
  if (i === 0) {
    // A bare (dotted) name is a field.
    const dotted = tokens.every((token, j) => (j % 2 === 0 ? isName(token) : isOp(token, ".")));
    if (dotted && tokens.length % 2 === 1) return [{ expr: module.sourceOf(tokens) }];
    throw unsupported();
  }
  while (i < tokens.length) {
    const method = tokens[i + 1];
    if (
      !(
        isOp(tokens[i], ".") &&
        method?.kind === "name" &&
        isOp(tokens[i + 2], "(") &&
        isOp(tokens[i + 3], ")")
      )
    )
      throw unsupported();
    const strip = STRIPS[method.text];
    if (!strip) throw unsupported();
    fragments = applyStrip(module, line, fragments, method.text, strip);
    i += 4;
  }
  return mergeFragments(fragments);
}

function toFragment(module: PythonModule, token: PyStringToken) {
  return (piece: StringPiece): Fragment => {
    if ("text" in piece) return { text: piece.text };
    if (piece.field.conversion !== null || piece.field.spec !== null)
      throw module.error(
        token.line,
        `f-string field with a conversion or format spec: {${piece.field.expr}}`,
      );
    return { expr: piece.field.expr };
  };
}

function applyStrip(
  module: PythonModule,
  line: number,
  fragments: Fragment[],
  method: string,
  strip: (text: string) => string,
): Fragment[] {
  const merged = mergeFragments(fragments);
  if (merged.some((fragment) => "expr" in fragment)) {
    // Stripping is only decidable when literal text sits at both ends.
    const first = merged[0];
    const last = merged[merged.length - 1];
    if (!first || !last || "expr" in first || "expr" in last)
      throw module.error(
        line,
        `.${method}() next to an f-string field cannot be resolved without running it`,
      );
    const out = [...merged];
    if (method !== "rstrip") out[0] = { text: pyLstrip(first.text) };
    if (method !== "lstrip")
      out[out.length - 1] = { text: pyRstrip((out[out.length - 1] as { text: string }).text) };
    return out;
  }
  return [{ text: strip(merged.map((fragment) => (fragment as { text: string }).text).join("")) }];
}

function mergeFragments(fragments: Fragment[]): Fragment[] {
  const out: Fragment[] = [];
  for (const fragment of fragments) {
    const last = out[out.length - 1];
    if (last && "text" in last && "text" in fragment)
      out[out.length - 1] = { text: last.text + fragment.text };
    else if (!("text" in fragment && fragment.text === "")) out.push(fragment);
  }
  return out;
}

/** The `NAME = value` / `NAME: annotation = value` assignment of a statement's tokens, if it is one. */
function assignment(tokens: readonly PyToken[]): { target: string; value: PyToken[] } | null {
  if (!isName(tokens[0])) return null;
  if (isOp(tokens[1], "=")) return { target: tokens[0]!.text, value: tokens.slice(2) as PyToken[] };
  if (isOp(tokens[1], ":")) {
    const equals = topLevelIndex(tokens, "=");
    if (equals > 1) return { target: tokens[0]!.text, value: tokens.slice(equals + 1) as PyToken[] };
  }
  return null;
}

/** The value tokens of keyword argument `keyword` in a call `Name(...)`. */
function keywordArgument(module: PythonModule, call: readonly PyToken[], keyword: string): PyToken[] {
  const open = call.findIndex((token) => isOp(token, "("));
  const close = open >= 0 ? matchingClose(call, open) : -1;
  if (open < 0 || close !== call.length - 1)
    throw module.error(call[0]?.line ?? 1, `not a call: ${module.sourceOf(call)}`);
  for (const argument of splitTopLevel(call.slice(open + 1, close), ",")) {
    if (isName(argument[0], keyword) && isOp(argument[1], "=")) return argument.slice(2);
  }
  throw module.error(call[0]!.line, `no keyword argument '${keyword}' in ${module.sourceOf(call)}`);
}

/** The tokens of the string expression a selector picks in a scope. */
function select(module: PythonModule, scope: Scope, selector: Selector): PyToken[] {
  const where = scope.name === "" ? "the module" : `'${scope.name}'`;
  if ("assign" in selector) {
    const found = [...module.statementsOf(scope)]
      .map((statement) => assignment(statement.line.tokens))
      .filter((candidate) => candidate?.target === selector.assign);
    const chosen = found[selector.occurrence ?? 0];
    if (!chosen)
      throw module.error(scope.header?.line ?? 1, `no assignment to '${selector.assign}' in ${where}`);
    return selector.keyword === undefined
      ? chosen.value
      : keywordArgument(module, chosen.value, selector.keyword);
  }
  if ("return" in selector) {
    const returns = [...module.statementsOf(scope)].filter((statement) =>
      isName(statement.line.tokens[0], "return"),
    );
    const chosen = returns[selector.return];
    if (!chosen)
      throw module.error(scope.header?.line ?? 1, `no return statement #${selector.return} in ${where}`);
    return chosen.line.tokens.slice(1) as PyToken[];
  }
  const groups: PyToken[][] = [];
  for (const statement of module.statementsOf(scope)) {
    let previous: PyToken | undefined;
    for (const token of statement.line.tokens) {
      if (token.kind === "string") {
        if (previous?.kind === "string") groups[groups.length - 1]!.push(token);
        else groups.push([token]);
      }
      previous = token;
    }
  }
  const chosen = groups[selector.index];
  if (!chosen)
    throw module.error(scope.header?.line ?? 1, `no string literal #${selector.index} in ${where}`);
  return chosen;
}

/** Python `str.format` placeholders of a plain template string, as fragments. */
function formatFragments(module: PythonModule, line: number, text: string): Fragment[] {
  const out: Fragment[] = [];
  let literal = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if ((ch === "{" || ch === "}") && text[i + 1] === ch) {
      literal += ch;
      i++;
    } else if (ch === "{") {
      const close = text.indexOf("}", i);
      const name = close < 0 ? "" : text.slice(i + 1, close);
      if (!/^[A-Za-z_]\w*$/.test(name))
        throw module.error(line, `unsupported format field in ${JSON.stringify(text)}`);
      out.push({ text: literal }, { expr: name });
      literal = "";
      i = close;
    } else if (ch === "}") {
      throw module.error(line, `single '}' in format string ${JSON.stringify(text)}`);
    } else {
      literal += ch;
    }
  }
  out.push({ text: literal });
  return mergeFragments(out);
}

const escapeBraces = (text: string) => text.replace(/[{}]/g, (brace) => brace + brace);

function templateEntry(
  module: PythonModule,
  line: number,
  fragments: Fragment[],
  fields: Readonly<Record<string, string>>,
): TextsEntry {
  // A literal-only result is a `.format` template already; f-string and `+` results have their fields as fragments.
  const resolved =
    fragments.every((fragment) => "text" in fragment) && fragments.length <= 1
      ? formatFragments(module, line, (fragments[0] as { text: string } | undefined)?.text ?? "")
      : fragments;
  const names: string[] = [];
  let text = "";
  for (const fragment of resolved) {
    if ("text" in fragment) {
      text += escapeBraces(fragment.text);
      continue;
    }
    const name = fields[fragment.expr];
    if (name === undefined) throw module.error(line, `the field {${fragment.expr}} is not mapped to a name`);
    if (!names.includes(name)) names.push(name);
    text += `{${name}}`;
  }
  const unused = Object.entries(fields).filter(([, name]) => !names.includes(name));
  if (unused.length > 0)
    throw module.error(line, `the text has no field ${unused.map(([expr]) => `{${expr}}`).join(", ")}`);
  return { kind: "template", text, fields: names };
}

function textEntry(module: PythonModule, line: number, fragments: Fragment[]): TextsEntry {
  const field = fragments.find((fragment) => "expr" in fragment);
  if (field && "expr" in field)
    throw module.error(line, `the text has a field {${field.expr}}; use a template rule`);
  return { kind: "text", text: fragments.map((fragment) => (fragment as { text: string }).text).join("") };
}

/** A function as upstream's `Tool` sees it: name, parameters, texts from the docstring. */
function toolTexts(module: PythonModule, scope: Scope): ToolTexts {
  const docstring = module.docstring(scope) ?? "";
  let parsed: ReturnType<typeof parseDocstring>;
  try {
    parsed = parseDocstring(docstring);
  } catch (error) {
    if (error instanceof DocstringStyleError)
      throw module.error(scope.header!.line, `${scope.name}: ${error.message}`);
    throw error;
  }
  const params = module.parameters(scope).filter((param, index) => !(index === 0 && param.name === "self"));
  return {
    name: scope.name,
    description: toolDescription(scope.name, parsed),
    params: params.map((param) => ({
      name: param.name,
      annotation: param.annotation,
      default: param.default,
      description: parsed.params.get(param.name) ?? null,
    })),
  };
}

const decoratorName = (line: { tokens: readonly PyToken[] }) =>
  isOp(line.tokens[0], "@") ? dottedName(line.tokens.slice(1)) : "";

function dottedName(tokens: readonly PyToken[]): string {
  let out = "";
  for (const token of tokens) {
    if (token.kind === "name" || isOp(token, ".")) out += token.text;
    else break;
  }
  return out;
}

function toolkitEntry(module: PythonModule, rule: Extract<ExtractionRule, { kind: "toolkit" }>): TextsEntry {
  const scope = module.scope(rule.class);
  if (scope.kind !== "class") throw module.error(scope.header?.line ?? 1, `'${rule.class}' is not a class`);
  const tools: ToolTexts[] = [];
  const discoverable: { name: string; doc: string }[] = [];
  for (const method of module.scopesIn(scope.body)) {
    if (method.kind !== "def") continue;
    const decorators = method.decorators.map(decoratorName);
    if (decorators.includes("is_tool")) tools.push(toolTexts(module, method));
    else if (decorators.includes("is_discoverable_tool"))
      discoverable.push({ name: method.name, doc: cleandoc(module.docstring(method) ?? "") });
  }
  if (tools.length === 0 && discoverable.length === 0)
    throw module.error(scope.header!.line, `class '${rule.class}' has no @is_tool methods`);
  return { kind: "toolkit", domain: rule.domain, class: rule.class, tools, discoverable };
}

function modelEntry(module: PythonModule, rule: Extract<ExtractionRule, { kind: "model" }>): TextsEntry {
  const scope = module.scope(rule.class);
  if (scope.kind !== "class") throw module.error(scope.header?.line ?? 1, `'${rule.class}' is not a class`);
  const docstring = module.docstring(scope);
  const fields: { name: string; description: string | null }[] = [];
  for (const statement of scope.body) {
    const tokens = statement.line.tokens;
    if (statement.body.length > 0 || !isName(tokens[0]) || !isOp(tokens[1], ":")) continue;
    const name = tokens[0]!.text;
    if (name.startsWith("_")) continue;
    let description: string | null = null;
    // `Field(...)` in the default or inside `Annotated[...]`: its `description=` keyword.
    for (let i = 2; i < tokens.length; i++) {
      if (!(isName(tokens[i], "Field") && isOp(tokens[i + 1], "("))) continue;
      const close = matchingClose(tokens, i + 1);
      const call = tokens.slice(i, close + 1);
      const hasDescription = splitTopLevel(call.slice(2, -1), ",").some(
        (argument) => isName(argument[0], "description") && isOp(argument[1], "="),
      );
      if (hasDescription)
        description = textOf(module, evaluateString(module, keywordArgument(module, call, "description")));
      break;
    }
    fields.push({ name, description });
  }
  return {
    kind: "model",
    domain: rule.domain,
    class: rule.class,
    description: docstring === null ? null : cleandoc(docstring),
    fields,
  };
}

function textOf(module: PythonModule, fragments: Fragment[]): string {
  const entry = textEntry(module, 1, fragments);
  return entry.kind === "text" ? entry.text : "";
}

/** Applies one rule to a parsed module. */
export function applyRule(module: PythonModule, rule: ExtractionRule): TextsEntry {
  switch (rule.kind) {
    case "text":
    case "template": {
      const scope = module.scope(rule.scope ?? "");
      const tokens = select(module, scope, rule.select);
      const fragments = evaluateString(module, tokens);
      const line = tokens[0]?.line ?? 1;
      return rule.kind === "text"
        ? textEntry(module, line, fragments)
        : templateEntry(module, line, fragments, rule.fields);
    }
    case "docstring": {
      const scope = module.scope(rule.scope);
      const docstring = module.docstring(scope);
      if (docstring === null) throw module.error(scope.header?.line ?? 1, `'${rule.scope}' has no docstring`);
      return { kind: "text", text: cleandoc(docstring) };
    }
    case "tool":
      return { kind: "tool", tool: toolTexts(module, module.scope(rule.scope)) };
    case "toolkit":
      return toolkitEntry(module, rule);
    case "model":
      return modelEntry(module, rule);
    default: {
      const never: never = rule;
      throw new Error(`unknown rule ${JSON.stringify(never)}`);
    }
  }
}

/** Reads a file of the release: its bytes, or undefined when it is not there. */
export type SourceReader = (path: string) => Buffer | undefined;

/**
 * Extracts every text of a source. Each file must be present with the pinned
 * sha256 (the texts are only upstream's if the sources are); every rule must
 * find its text. Problems are collected and reported together.
 */
export function extractTexts(source: TextSource, read: SourceReader, origin: string): TextsFile {
  const problems: string[] = [];
  const entries: Record<string, TextsEntry> = {};
  const files: Record<string, string> = {};
  for (const file of source.files) {
    const data = read(file.path);
    if (data === undefined) {
      problems.push(`${file.path}: missing`);
      continue;
    }
    const digest = sha256(data);
    if (digest !== file.sha256) {
      problems.push(
        `${file.path}: not ${source.name} ${source.release}'s file (sha256 ${digest.slice(0, 12)}…, expected ${file.sha256.slice(0, 12)}…)`,
      );
      continue;
    }
    files[file.path] = digest;
    let module: PythonModule;
    try {
      module = new PythonModule(file.path, data.toString("utf8"));
    } catch (error) {
      problems.push((error as Error).message);
      continue;
    }
    for (const rule of file.rules) {
      try {
        if (rule.key in entries) throw new Error(`${file.path}: key '${rule.key}' is extracted twice`);
        entries[rule.key] = applyRule(module, rule);
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
  }
  if (problems.length > 0) {
    throw new TextExtractionError(
      `Cannot extract ${source.name} ${source.release}'s texts from ${origin} (${problems.length} problem${problems.length === 1 ? "" : "s"}): ${problems.slice(0, 5).join("; ")}${problems.length > 5 ? "; …" : ""}`,
    );
  }
  const sorted = Object.fromEntries(
    Object.keys(entries)
      .sort()
      .map((key) => [key, entries[key]!]),
  );
  return {
    format: TEXTS_FORMAT,
    version: TEXTS_FORMAT_VERSION,
    source: { name: source.name, release: source.release, files },
    entries: sorted,
    sha256: Object.fromEntries(Object.entries(sorted).map(([key, entry]) => [key, entrySha256(entry)])),
  };
}
