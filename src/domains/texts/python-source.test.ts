import { describe, expect, it } from "vitest";
import type { PyStringToken } from "../python-tokens.ts";
import { PythonModule, PythonSourceError } from "./python-source.ts";

const strings = (source: string) =>
  new PythonModule("t.py", source).statements.flatMap((statement) =>
    statement.line.tokens.filter((token): token is PyStringToken => token.kind === "string"),
  );

describe("Python string literals", () => {
  it("decodes escapes like Python, keeps raw strings raw and unknown escapes as written", () => {
    const [plain, raw, octal, unknown, continued] = strings(
      [
        "a = 'x\\ty\\n\\x41\\u00e9\\\\'",
        "b = r'x\\ty'",
        "c = '\\101\\0'",
        "d = '\\d'",
        "e = 'one\\\ntwo'",
      ].join("\n"),
    );
    expect(plain!.pieces).toEqual([{ text: "x\ty\nAé\\" }]);
    expect(raw!.pieces).toEqual([{ text: "x\\ty" }]);
    expect(octal!.pieces).toEqual([{ text: "A\0" }]);
    expect(unknown!.pieces).toEqual([{ text: "\\d" }]);
    expect(continued!.pieces).toEqual([{ text: "onetwo" }]);
  });

  it("reads triple-quoted strings across lines, with CRLF sources normalised", () => {
    const [token] = strings('X = """\r\n  first "quoted"\r\n  second\r\n"""\r\n');
    expect(token!.pieces).toEqual([{ text: '\n  first "quoted"\n  second\n' }]);
  });

  it("splits f-strings into text and fields, with doubled braces, nested quotes and specs", () => {
    const [token] = strings(`s = f"[{i + 1}] {x.f(a='}', b={'k': 1})} {{lit}} {v!r:>{w}}"`);
    expect(token!.pieces).toEqual([
      { text: "[" },
      { field: { expr: "i + 1", conversion: null, spec: null } },
      { text: "] " },
      { field: { expr: "x.f(a='}', b={'k': 1})", conversion: null, spec: null } },
      { text: " {lit} " },
      { field: { expr: "v", conversion: "r", spec: ">{w}" } },
    ]);
  });

  it("names the file and line of a malformed literal", () => {
    expect(() => strings("a = 1\nb = 'open\n")).toThrow(PythonSourceError);
    expect(() => strings("a = 1\nb = 'open\n")).toThrow(/^t\.py:2: unterminated string literal/);
  });
});

describe("Python structure", () => {
  const module = new PythonModule(
    "m.py",
    [
      "import x",
      "",
      "class A(Base):  # a comment",
      '    """Doc of A."""',
      "",
      "    @decorator(Kind.READ)",
      "    def method(self, a: int, b: List[str] = [], *args, c: str = 'x,y', **kw) -> str:",
      "        '''Method",
      "        doc.'''",
      "        if a:",
      "            value = 'first'",
      "        value = (",
      "            'second'",
      "        )",
      "        def inner():",
      '            "Inner doc"',
      "        return value",
      "",
      "if TYPE_CHECKING:",
      "    def hidden():",
      "        pass",
    ].join("\n"),
  );

  it("finds classes, methods, nested functions and functions inside if-blocks, with decorators and docstrings", () => {
    const method = module.scope("A.method");
    expect(method.kind).toBe("def");
    expect(method.decorators.map((line) => line.tokens.map((token) => token.text).join(""))).toEqual([
      "@decorator(Kind.READ)",
    ]);
    expect(module.docstring(module.scope("A"))).toBe("Doc of A.");
    expect(module.docstring(method)).toBe("Method\n        doc.");
    expect(module.docstring(module.scope("A.method.inner"))).toBe("Inner doc");
    expect(module.scope("hidden").kind).toBe("def");
    expect(() => module.scope("A.missing")).toThrow(/no class or function 'A.missing'/);
  });

  it("reads a signature's names, annotations and defaults", () => {
    expect(module.parameters(module.scope("A.method"))).toEqual([
      { name: "self", annotation: null, default: null },
      { name: "a", annotation: "int", default: null },
      { name: "b", annotation: "List[str]", default: "[]" },
      { name: "c", annotation: "str", default: "'x,y'" },
    ]);
  });

  it("walks a scope's statements through nested blocks but not into nested functions", () => {
    const texts = [...module.statementsOf(module.scope("A.method"))].map((statement) =>
      statement.line.tokens.map((token) => token.text).join(" "),
    );
    expect(texts).toContain("value = 'first'");
    expect(texts).toContain("value = ( 'second' )");
    expect(texts.some((text) => text.includes("Inner doc"))).toBe(false);
  });
});
