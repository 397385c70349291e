/**
 * Discoverable-tool texts (spec §5.1): upstream keeps a discoverable tool's
 * description and parameter list in its method's docstring and prints them
 * in tool outputs (`unlock_discoverable_agent_tool`, `give_discoverable_user_tool`).
 * This module reads method docstrings out of a Python source file (the
 * user's copy of upstream's `tools.py`), cleans them as `inspect.getdoc`
 * does, and parses them as `parse_discoverable_tool_docstring` does.
 */

/** A discoverable tool's parsed docstring. */
export interface ToolDoc {
  description: string;
  /** By name, in docstring order. */
  parameters: Map<string, { type: string; description: string; required: boolean }>;
}

/** `inspect.cleandoc`: common indentation of the lines after the first removed, blank ends dropped. */
export function cleanDoc(doc: string): string {
  const lines = doc.replaceAll("\t", "        ").split("\n");
  let margin = Number.POSITIVE_INFINITY;
  for (const line of lines.slice(1)) {
    const content = line.trimStart().length;
    if (content > 0) margin = Math.min(margin, line.length - content);
  }
  if (lines.length > 0) lines[0] = lines[0]!.trimStart();
  if (margin < Number.POSITIVE_INFINITY)
    for (let i = 1; i < lines.length; i++) lines[i] = lines[i]!.slice(margin);
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  while (lines.length > 0 && lines[0] === "") lines.shift();
  return lines.join("\n");
}

const SIMPLE_ESCAPES: Record<string, string> = {
  "\\": "\\",
  "'": "'",
  '"': '"',
  n: "\n",
  t: "\t",
  r: "\r",
  a: "\x07",
  b: "\b",
  f: "\f",
  v: "\v",
  "\n": "",
};

function unescapePython(body: string): string {
  return body.replace(
    /\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|[\s\S])/g,
    (all, e: string) => {
      if (e.length > 1 && (e[0] === "x" || e[0] === "u" || e[0] === "U"))
        return String.fromCodePoint(Number.parseInt(e.slice(1), 16));
      if (/^[0-7]+$/.test(e)) return String.fromCodePoint(Number.parseInt(e, 8));
      return SIMPLE_ESCAPES[e] ?? all;
    },
  );
}

/**
 * The docstrings of every `def` in a Python source (by function name; a later definition of the
 * same name wins, as in a class body), cleaned as `inspect.getdoc` returns them.
 */
export function methodDocstrings(source: string): Map<string, string> {
  const out = new Map<string, string>();
  const def = /^[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)[ \t]*\(/gm;
  for (let match = def.exec(source); match !== null; match = def.exec(source)) {
    const bodyStart = endOfSignature(source, match.index + match[0].length);
    if (bodyStart < 0) continue;
    const literal = /^\s*([rRuU]?)("""|''')/.exec(source.slice(bodyStart));
    if (!literal) continue;
    const open = bodyStart + literal[0].length;
    const close = source.indexOf(literal[2]!, open);
    if (close < 0) continue;
    const raw = source.slice(open, close);
    const text = literal[1]!.toLowerCase() === "r" ? raw : unescapePython(raw);
    out.set(match[1]!, cleanDoc(text));
  }
  return out;
}

/** The offset just after the `:` that ends a `def` signature starting inside its parentheses. */
function endOfSignature(source: string, from: number): number {
  let depth = 1;
  let quote: string | null = null;
  for (let i = from; i < source.length; i++) {
    const ch = source[i]!;
    if (quote) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "(" || ch === "[" || ch === "{") depth++;
    else if (ch === ")" || ch === "]" || ch === "}") depth--;
    else if (ch === ":" && depth === 0) return i + 1;
    else if (ch === "#") {
      const eol = source.indexOf("\n", i);
      i = eol < 0 ? source.length : eol;
    }
  }
  return -1;
}

const ARGS_SPLIT = /\n\s*Args:\s*\n/;
const RETURNS_SPLIT = /\n\s*Returns:\s*\n/;
const ARG_LINE = /^\s*(\w+)\s*(?:\(([^)]+)\))?\s*:\s*(.+?)$/gm;

/** `parse_discoverable_tool_docstring` of a cleaned docstring. */
export function parseToolDoc(doc: string): ToolDoc {
  const argsAt = ARGS_SPLIT.exec(doc);
  const description = (argsAt ? doc.slice(0, argsAt.index) : doc).trim();
  const parameters: ToolDoc["parameters"] = new Map();
  if (argsAt) {
    const rest = doc.slice(argsAt.index + argsAt[0].length);
    const returnsAt = RETURNS_SPLIT.exec(rest);
    const section = returnsAt ? rest.slice(0, returnsAt.index) : rest;
    for (const m of section.matchAll(ARG_LINE)) {
      const typeInfo = m[2] ?? "string";
      const type = typeInfo.replace(/,?\s*optional/gi, "").trim() || "string";
      parameters.set(m[1]!, {
        type,
        description: m[3]!.trim(),
        required: !typeInfo.toLowerCase().includes("optional"),
      });
    }
  }
  return { description, parameters };
}

/** `format_discoverable_tool_for_agent`. */
export function formatToolDoc(name: string, doc: ToolDoc): string {
  const lines = [...doc.parameters].map(
    ([param, p]) => `  - ${param}: ${p.type} ${p.required ? "(required)" : "(optional)"} - ${p.description}`,
  );
  return `Tool: ${name}\nDescription: ${doc.description}\nParameters:\n${lines.length > 0 ? lines.join("\n") : "  (no parameters)"}`;
}
