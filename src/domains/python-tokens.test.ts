import { describe, expect, it } from "vitest";
import { logicalLines, type PyStringToken, type SourceFailure } from "./python-tokens.ts";
import { PythonModule } from "./texts/python-source.ts";

const fail: SourceFailure = (line, detail) => new Error(`at ${line}: ${detail}`);
const texts = (source: string) =>
  logicalLines(source, fail).lines.map((line) => line.tokens.map((token) => token.text));
const values = (source: string) =>
  logicalLines(source, fail)
    .lines.flatMap((line) => line.tokens)
    .filter((token): token is PyStringToken => token.kind === "string")
    .map((token) =>
      token.pieces.map((piece) => ("text" in piece ? piece.text : `{${piece.field.expr}}`)).join(""),
    );

describe("the shared Python tokenizer", () => {
  it("reports a bracket still open at the end of the file with the cut-short line; the texts reader rejects it", () => {
    const tokenized = logicalLines("a = 1\nb = [1,\n  2\n", fail);
    expect(tokenized.lines.map((line) => line.tokens.map((token) => token.text))).toEqual([
      ["a", "=", "1"],
      ["b", "=", "[", "1", ",", "2"],
    ]);
    expect(tokenized.unclosedBracketAt).toBe(4);
    expect(logicalLines("a = [1]\n", fail).unclosedBracketAt).toBeNull();
    expect(() => new PythonModule("t.py", "a = 1\nb = [1,\n  2\n")).toThrow(
      /^t\.py:4: unclosed bracket at end of file$/,
    );
  });

  it("makes its errors with the caller's factory, naming the line", () => {
    expect(() => logicalLines("a = 1\nb = 2)\n", fail)).toThrow(/^at 2: unbalanced '\)'$/);
    expect(() => logicalLines("a = '''open\n\nb = 1\n", fail)).toThrow(/^at 1: unterminated string literal$/);
    expect(() => logicalLines("a = 'x\\", fail)).toThrow(/^at 1: unterminated string literal$/);
    expect(() => logicalLines("a = 1\nb = 'x\\q' '\\x4'\n", fail)).toThrow(
      /^at 2: unsupported escape sequence/,
    );
  });

  it("ends string bodies at the right quote: escaped quotes and backslashes, quotes inside triple quotes", () => {
    expect(
      values(
        [
          "a = 'it\\'s' \"say \\\"hi\\\"\" 'x\\\\'",
          'b = """one "two" ""three"" four"""',
          "c = '''x''' '''''' 'a\\",
          "b'",
        ].join("\n"),
      ),
    ).toEqual(["it's", 'say "hi"', "x\\", 'one "two" ""three"" four', "x", "", "ab"]);
  });

  it("counts lines across multi-line strings and continuations, and keeps indentation", () => {
    const { lines } = logicalLines("x = '''a\nb'''\nif x:\n\ty = \\\n  2\n# done\n", fail);
    expect(lines.map((line) => [line.line, line.indent])).toEqual([
      [1, 0],
      [3, 0],
      [4, 8],
    ]);
    expect(texts("f(a,\n  b)  # c\ng = 1.5e3 + 0x1F ... x.y\n")).toEqual([
      ["f", "(", "a", ",", "b", ")"],
      ["g", "=", "1.5e3", "+", "0x1F", "...", "x", ".", "y"],
    ]);
  });
});
