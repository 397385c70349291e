/**
 * How upstream turns a tool function's docstring into the texts of its schema
 * (spec upstream-texts.md §2.3–2.4): `docstring_parser.parse` in its default
 * AUTO style, then `Tool._get_description`. AUTO runs four parsers and keeps
 * the one with the most sections; for upstream's docstrings (Google style, or
 * no sections at all) that is the Google parser, or the ReST parser on a tie
 * at zero, whose description split is the same. A docstring that another
 * parser would read differently (ReST `:param`, Epydoc `@param`, Numpydoc
 * underlined titles) is refused rather than guessed.
 */

/** Characters Python's `str.isspace()` accepts (also what `\s` matches in a Python `str` regex). */
const PY_SPACE =
  "\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const SPACE = `[${PY_SPACE}]`;
const NON_SPACE = `[^${PY_SPACE}]`;
const isPySpace = (ch: string) => new RegExp(`^${SPACE}$`, "u").test(ch);

/** Python `str.lstrip()` (no argument). */
export function pyLstrip(text: string): string {
  return text.replace(new RegExp(`^${SPACE}+`, "u"), "");
}

/** Python `str.rstrip()` (no argument). */
export function pyRstrip(text: string): string {
  return text.replace(new RegExp(`${SPACE}+$`, "u"), "");
}

/** Python `str.strip()` (no argument). */
export function pyStrip(text: string): string {
  return pyRstrip(pyLstrip(text));
}

/** Python `str.strip(chars)` for a set of single characters. */
function stripChars(text: string, chars: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && chars.includes(text[start]!)) start++;
  while (end > start && chars.includes(text[end - 1]!)) end--;
  return text.slice(start, end);
}

/** Python `str.expandtabs()` (tab size 8; columns restart after `\n` and `\r`). */
function expandTabs(text: string): string {
  let out = "";
  let column = 0;
  for (const ch of text) {
    if (ch === "\t") {
      const spaces = 8 - (column % 8);
      out += " ".repeat(spaces);
      column += spaces;
    } else {
      out += ch;
      column = ch === "\n" || ch === "\r" ? 0 : column + 1;
    }
  }
  return out;
}

/** Python `inspect.cleandoc` (the PEP 257 trim; also what `inspect.getdoc` returns). */
export function cleandoc(doc: string): string {
  const lines = expandTabs(doc).split("\n");
  let margin = Number.POSITIVE_INFINITY;
  for (const line of lines.slice(1)) {
    const content = pyLstrip(line).length;
    if (content > 0) margin = Math.min(margin, line.length - content);
  }
  lines[0] = pyLstrip(lines[0]!);
  if (margin < Number.POSITIVE_INFINITY)
    for (let i = 1; i < lines.length; i++) lines[i] = lines[i]!.slice(margin);
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  while (lines.length > 0 && lines[0] === "") lines.shift();
  return lines.join("\n");
}

/** A docstring this module does not read the way docstring_parser would (a style it does not reproduce). */
export class DocstringStyleError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = "DocstringStyleError";
  }
}

// docstring_parser's Google parser raises ParseError; AUTO then falls back to another style.
class GoogleParseError extends Error {}

/** What upstream's `Tool` keeps of a parsed docstring. */
export interface ParsedDocstring {
  readonly shortDescription: string | null;
  readonly longDescription: string | null;
  /** Parameter descriptions by name (Args and Attributes entries; a later entry of a name wins). */
  readonly params: ReadonlyMap<string, string>;
}

const GOOGLE_TITLES = [
  "Arguments",
  "Args",
  "Parameters",
  "Params",
  "Raises",
  "Exceptions",
  "Except",
  "Attributes",
  "Example",
  "Examples",
  "Returns",
  "Yields",
] as const;
type GoogleTitle = (typeof GOOGLE_TITLES)[number];
const SECTION_KEY: Record<GoogleTitle, string> = {
  Arguments: "param",
  Args: "param",
  Parameters: "param",
  Params: "param",
  Raises: "raises",
  Exceptions: "raises",
  Except: "raises",
  Attributes: "attribute",
  Example: "examples",
  Examples: "examples",
  Returns: "returns",
  Yields: "yields",
};
type SectionType = "singular" | "multiple" | "singular_or_multiple";
const SECTION_TYPE = (title: GoogleTitle): SectionType =>
  title === "Example" || title === "Examples"
    ? "singular"
    : title === "Returns" || title === "Yields"
      ? "singular_or_multiple"
      : "multiple";

// `^(Title):[ \t\r\f\v]*$` with re.M; Python's `^`/`$` only know `\n` as a line break.
const TITLE_RE = new RegExp(`(?<![^\\n])(${GOOGLE_TITLES.join("|")}):[ \\t\\r\\f\\v]*(?![^\\n])`, "gu");
const TYPED_ARG_RE = new RegExp(
  `^${SPACE}*([^\\n]+?)${SPACE}*\\(${SPACE}*([^\\n]*${NON_SPACE}+)${SPACE}*\\)`,
  "u",
);
const MULTIPLE_RE = new RegExp(`^(?:(${SPACE}*[^:${PY_SPACE}]+:)|([^:]*\\]:[^\\n]*))`, "u");

/** The ReST / Numpydoc / Epydoc markers that would give those parsers sections of their own. */
function otherStyleMarker(text: string): string | null {
  if (/(?<![^\n]):/.test(text)) return "a line starting with ':' (ReST field)";
  if (/(?<![^\n])@/.test(text)) return "a line starting with '@' (Epydoc field)";
  const numpyTitles =
    "Parameters|Params|Arguments|Args|Other Parameters|Other Params|Other Arguments|Other Args|Receives|Receive|Raises|Raise|Warns|Warn|Attributes|Attribute|Returns|Return|Yields|Yield|Examples|Example|Warnings|Warning|See Also|Related|Notes|Note|References|Reference";
  for (const title of numpyTitles.split("|")) {
    const underline = new RegExp(
      `(?<![^\\n])${title}${SPACE}*?\\n-{${title.length}}${SPACE}*(?![^\\n])`,
      "u",
    );
    if (underline.test(text)) return `a Numpydoc section title '${title}'`;
  }
  if (new RegExp(`(?<![^\\n])\\.\\.${SPACE}*deprecated${SPACE}*::`, "u").test(text))
    return "a Numpydoc deprecation directive";
  return null;
}

function splitDescription(chunk: string): { short: string | null; long: string | null } {
  const newline = chunk.indexOf("\n");
  if (newline < 0) return { short: chunk || null, long: null };
  return { short: chunk.slice(0, newline) || null, long: pyStrip(chunk.slice(newline + 1)) || null };
}

/** One entry of a Google section (`_build_meta`); returns a parameter's name and description, if it is one. */
function buildMeta(text: string, title: GoogleTitle): { name: string; description: string } | null {
  const type = SECTION_TYPE(title);
  if ((type === "singular_or_multiple" && !MULTIPLE_RE.test(text)) || type === "singular") return null;
  const colon = text.indexOf(":");
  if (colon < 0) throw new GoogleParseError(`Expected a colon in ${JSON.stringify(text)}.`);
  let before = text.slice(0, colon);
  let description = text.slice(colon + 1);
  if (before.includes("\n")) {
    const newline = before.indexOf("\n");
    before = before.slice(0, newline) + cleandoc(before.slice(newline + 1));
  }
  if (description) {
    if (description[0] === " ") description = description.slice(1);
    const newline = description.indexOf("\n");
    if (newline >= 0)
      description = `${description.slice(0, newline)}\n${cleandoc(description.slice(newline + 1))}`;
    description = stripChars(description, "\n");
  }
  const key = SECTION_KEY[title];
  if (key !== "param" && key !== "attribute") return null;
  const typed = TYPED_ARG_RE.exec(before);
  return { name: typed ? typed[1]! : before, description };
}

/** docstring_parser's Google parser, as far as a tool schema uses its result. */
function parseGoogle(text: string): ParsedDocstring & { sections: number } {
  const first = new RegExp(TITLE_RE.source, "u").exec(text);
  const descriptionChunk = first ? text.slice(0, first.index) : text;
  const metaChunk = first ? text.slice(first.index) : "";
  const { short, long } = splitDescription(descriptionChunk);
  const params = new Map<string, string>();
  const matches = [...metaChunk.matchAll(TITLE_RE)];
  // One chunk per title; a repeated title keeps its first position and its last text (an OrderedDict).
  const chunks = new Map<GoogleTitle, string>();
  matches.forEach((match, j) => {
    const start = match.index + match[0].length;
    const end = j + 1 < matches.length ? matches[j + 1]!.index : metaChunk.length;
    let details = metaChunk.slice(start, end);
    const unknown = new RegExp(`\\n${NON_SPACE}`, "u").exec(details);
    if (unknown) details = details.slice(0, unknown.index);
    chunks.set(match[1] as GoogleTitle, stripChars(details, "\n"));
  });
  let sections = 0;
  for (const [title, chunk] of chunks) {
    const indent = new RegExp(`^${SPACE}*`, "u").exec(chunk)![0];
    if (SECTION_TYPE(title) !== "multiple") {
      sections++;
      buildMeta(cleandoc(chunk), title);
      continue;
    }
    const starts: { start: number; end: number }[] = [];
    for (let p = 0; p <= chunk.length; p++) {
      if (p > 0 && chunk[p - 1] !== "\n") continue;
      if (!chunk.startsWith(indent, p)) continue;
      const next = chunk[p + indent.length];
      if (next !== undefined && !isPySpace(next)) starts.push({ start: p, end: p + indent.length });
    }
    if (starts.length === 0) throw new GoogleParseError(`No specification for "${title}": "${chunk}"`);
    starts.forEach(({ end }, j) => {
      const stop = j + 1 < starts.length ? starts[j + 1]!.start : chunk.length;
      const meta = buildMeta(stripChars(chunk.slice(end, stop), "\n"), title);
      sections++;
      if (meta) params.set(meta.name, meta.description);
    });
  }
  return { shortDescription: short, longDescription: long, params, sections };
}

/** `docstring_parser.parse(text)` (AUTO style), reduced to what upstream's `Tool` reads. */
export function parseDocstring(docstring: string): ParsedDocstring {
  if (!docstring) return { shortDescription: null, longDescription: null, params: new Map() };
  const text = cleandoc(docstring);
  const marker = otherStyleMarker(text);
  if (marker)
    throw new DocstringStyleError(`the docstring has ${marker}; only Google-style docstrings are read`);
  try {
    const google = parseGoogle(text);
    // On a tie (no sections) AUTO keeps the ReST parse; without ReST fields its description split is the same.
    if (google.sections > 0) return google;
  } catch (error) {
    if (!(error instanceof GoogleParseError)) throw error;
  }
  const { short, long } = splitDescription(text);
  return { shortDescription: short, longDescription: long, params: new Map() };
}

/** `Tool._get_description`: the short description, plus the long one after a blank line; the name when empty. */
export function toolDescription(name: string, parsed: ParsedDocstring): string {
  if (!parsed.shortDescription) return name;
  if (!parsed.longDescription) return parsed.shortDescription;
  return `${parsed.shortDescription}\n\n${parsed.longDescription}`;
}
