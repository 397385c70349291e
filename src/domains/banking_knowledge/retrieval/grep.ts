/**
 * The grep retriever (spec §8.5): a Python `re` pattern, case-insensitive
 * unless configured otherwise, scored by the number of `findall` matches in
 * each document's content. A pattern Python cannot compile is searched as a
 * literal (`re.escape`).
 *
 * Python patterns are translated to JavaScript's (`u` mode) so that the
 * common syntax means the same: `.` excludes only `\n`, `$` also matches
 * before a final newline, `\w`/`\d`/`\s`/`\b` are Unicode-aware, `(?P<n>…)`,
 * `(?P=n)`, `\A`, `\Z`, comments and leading global flags are understood, and
 * constructs Python rejects (`(?<n>…)`, unknown letter escapes) fall back to a
 * literal search as Python's do. Divergences left: scoped inline flags
 * (`(?i:…)`), atomic groups and possessive quantifiers, and look-behinds that
 * Python rejects for not having a fixed width.
 */

/** A pattern Python's `re.compile` rejects (the retriever then searches it literally). */
class PythonPatternError extends Error {}

const WORD = "\\p{L}\\p{N}_";
const DIGIT = "\\p{Nd}";
const SPACE =
  "\\t\\n\\v\\f\\r \\x1c-\\x1f\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const WORD_BOUNDARY = `(?:(?<=[${WORD}])(?![${WORD}])|(?<![${WORD}])(?=[${WORD}]))`;
const NOT_WORD_BOUNDARY = `(?:(?<=[${WORD}])(?=[${WORD}])|(?<![${WORD}])(?![${WORD}]))`;
const CLASS_ESCAPES: Record<string, string> = { d: DIGIT, w: WORD, s: SPACE };
const CONTROL_ESCAPES: Record<string, string> = {
  a: "\\x07",
  f: "\\f",
  n: "\\n",
  r: "\\r",
  t: "\\t",
  v: "\\v",
};

const codePoint = (ch: string) => `\\u{${ch.codePointAt(0)!.toString(16)}}`;

interface Translation {
  source: string;
  ignoreCase: boolean;
}

/** A Python pattern in JavaScript `u`-mode syntax; throws {@link PythonPatternError} where Python would. */
export function translatePattern(pattern: string, ignoreCase: boolean): Translation {
  let i = 0;
  let out = "";
  let dotAll = false;
  const chars = [...pattern];
  const at = (offset = 0) => chars[i + offset];

  // Global flags are only allowed at the very start (Python 3.11).
  for (
    let m = /^\(\?([aiLmsux]+)\)/.exec(pattern);
    m;
    m = /^\(\?([aiLmsux]+)\)/.exec(chars.slice(i).join(""))
  ) {
    for (const flag of m[1]!) {
      if (flag === "i") ignoreCase = true;
      else if (flag === "s") dotAll = true;
      else if (flag !== "u") throw new UnsupportedPattern(`flag ${flag}`);
    }
    i += [...m[0]].length;
  }

  const escapeSequence = (inClass: boolean): string => {
    const next = at(1);
    if (next === undefined) throw new PythonPatternError("bad escape (end of pattern)");
    i += 2;
    if (CONTROL_ESCAPES[next]) return CONTROL_ESCAPES[next]!;
    if (next in CLASS_ESCAPES) return inClass ? CLASS_ESCAPES[next]! : `[${CLASS_ESCAPES[next]}]`;
    if (next === "D" || next === "W" || next === "S") {
      if (inClass) throw new UnsupportedPattern("negated class escape inside a set");
      return `[^${CLASS_ESCAPES[next.toLowerCase()]}]`;
    }
    if (next === "x" || next === "u" || next === "U") {
      const width = next === "x" ? 2 : next === "u" ? 4 : 8;
      const hex = chars.slice(i, i + width).join("");
      if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(hex)) throw new PythonPatternError("bad escape");
      i += width;
      return `\\u{${Number.parseInt(hex, 16).toString(16)}}`;
    }
    if (!inClass && next === "b") return WORD_BOUNDARY;
    if (!inClass && next === "B") return NOT_WORD_BOUNDARY;
    if (inClass && next === "b") return "\\x08";
    if (!inClass && next === "A") return "(?<![\\s\\S])";
    if (!inClass && next === "Z") return "(?![\\s\\S])";
    if (/[0-9]/.test(next)) {
      if (inClass || next === "0") {
        let octal = next;
        while (octal.length < 3 && /[0-7]/.test(at() ?? "")) octal += chars[i++];
        if (!/^[0-7]+$/.test(octal)) throw new PythonPatternError("bad escape");
        return codePoint(String.fromCodePoint(Number.parseInt(octal, 8)));
      }
      let group = next;
      while (/[0-9]/.test(at() ?? "") && group.length < 2) group += chars[i++];
      return `\\${group}`;
    }
    if (/[A-Za-z]/.test(next)) throw new PythonPatternError(`bad escape \\${next}`);
    return codePoint(next);
  };

  const characterClass = (): string => {
    i++;
    let body = "";
    if (at() === "^") {
      body += "^";
      i++;
    }
    // A `]` right after the opening bracket is a literal in Python.
    if (at() === "]") {
      body += "\\]";
      i++;
    }
    for (;;) {
      const ch = at();
      if (ch === undefined) throw new PythonPatternError("unterminated character set");
      if (ch === "]") {
        i++;
        break;
      }
      if (ch === "\\") body += escapeSequence(true);
      else if (
        ch === "[" ||
        ch === "/" ||
        ch === "{" ||
        ch === "}" ||
        ch === "(" ||
        ch === ")" ||
        ch === "|"
      ) {
        body += codePoint(ch);
        i++;
      } else {
        body += ch;
        i++;
      }
    }
    return `[${body}]`;
  };

  const group = (): string => {
    if (at(1) !== "?") {
      i++;
      return "(";
    }
    const rest = chars.slice(i, i + 4).join("");
    if (rest.startsWith("(?:") || rest.startsWith("(?=") || rest.startsWith("(?!")) {
      i += 3;
      return rest.slice(0, 3);
    }
    if (rest.startsWith("(?<=") || rest.startsWith("(?<!")) {
      i += 4;
      return rest;
    }
    const tail = chars.slice(i).join("");
    const named = /^\(\?P<([A-Za-z_]\w*)>/.exec(tail);
    if (named) {
      i += [...named[0]].length;
      return `(?<${named[1]}>`;
    }
    const reference = /^\(\?P=([A-Za-z_]\w*)\)/.exec(tail);
    if (reference) {
      i += [...reference[0]].length;
      return `\\k<${reference[1]}>`;
    }
    const comment = /^\(\?#[^)]*\)/.exec(tail);
    if (comment) {
      i += [...comment[0]].length;
      return "";
    }
    if (/^\(\?[aiLmsux-]+:/.test(tail) || tail.startsWith("(?>"))
      throw new UnsupportedPattern("inline group");
    if (/^\(\?[aiLmsux]+\)/.test(tail)) throw new PythonPatternError("global flags not at the start");
    throw new PythonPatternError("unknown extension");
  };

  while (i < chars.length) {
    const ch = at()!;
    switch (ch) {
      case "\\":
        out += escapeSequence(false);
        break;
      case "[":
        out += characterClass();
        break;
      case "(":
        out += group();
        break;
      case ".":
        out += dotAll ? "[\\s\\S]" : "[^\\n]";
        i++;
        break;
      case "$":
        out += "(?=\\n?(?![\\s\\S]))";
        i++;
        break;
      case "{": {
        const quantifier = /^\{(\d*)(,?)(\d*)\}/.exec(chars.slice(i).join(""));
        if (quantifier && (quantifier[1] !== "" || quantifier[3] !== "")) {
          out += `{${quantifier[1] || "0"}${quantifier[2]}${quantifier[3]}}`;
          i += quantifier[0].length;
        } else {
          out += "\\{";
          i++;
        }
        if (at() === "+") throw new UnsupportedPattern("possessive quantifier");
        break;
      }
      case "}":
      case "]":
      case "/":
        out += codePoint(ch);
        i++;
        break;
      case "*":
      case "+":
      case "?":
        out += ch;
        i++;
        if (at() === "+") throw new UnsupportedPattern("possessive quantifier");
        break;
      default:
        out += ch;
        i++;
    }
  }
  return { source: out, ignoreCase };
}

/** A Python construct this translation does not cover; the pattern is then tried as it is. */
class UnsupportedPattern extends Error {}

/** `re.escape(text)` as a `u`-mode source: every character by its code point. */
function escapeLiteral(text: string): string {
  return [...text].map(codePoint).join("");
}

/** The compiled form of a pattern as upstream's retriever uses it. */
export function compilePattern(pattern: string, caseSensitive: boolean): RegExp {
  const baseFlags = caseSensitive ? "g" : "gi";
  try {
    const { source, ignoreCase } = translatePattern(pattern, !caseSensitive);
    return new RegExp(source, `gu${ignoreCase ? "i" : ""}`);
  } catch (error) {
    if (error instanceof UnsupportedPattern) {
      try {
        return new RegExp(pattern, baseFlags);
      } catch {
        // Not valid JavaScript either: search it literally.
      }
    }
    // Python rejects it (or so does JavaScript): Python's fallback is a literal search.
    return new RegExp(escapeLiteral(pattern), `${baseFlags}u`);
  }
}

/** `len(pattern.findall(text))`: non-overlapping matches, empty ones included. */
export function countMatches(regex: RegExp, text: string): number {
  regex.lastIndex = 0;
  let count = 0;
  for (;;) {
    const match = regex.exec(text);
    if (match === null) return count;
    count++;
    if (match[0] === "") {
      // Step past the empty match (by code point in u mode).
      const code = text.codePointAt(regex.lastIndex);
      regex.lastIndex += code !== undefined && code > 0xffff ? 2 : 1;
      if (regex.lastIndex > text.length) return count;
    }
  }
}

/** upstream `GrepRetriever.retrieve`: documents with at least one match, by count descending (stable), cut to `topK`. */
export function grepDocuments(
  documents: readonly { content: string }[],
  pattern: string,
  options: { topK: number; caseSensitive: boolean },
): { index: number; score: number }[] {
  if (pattern.trim() === "") return [];
  const regex = compilePattern(pattern, options.caseSensitive);
  const results: { index: number; score: number }[] = [];
  documents.forEach((doc, index) => {
    const score = countMatches(regex, doc.content);
    if (score > 0) results.push({ index, score });
  });
  results.sort((a, b) => b.score - a.score || a.index - b.index);
  // Python's `results[:top_k]`: a negative bound drops that many from the end.
  const k = options.topK;
  return results.slice(0, k >= 0 ? k : Math.max(results.length + k, 0));
}
