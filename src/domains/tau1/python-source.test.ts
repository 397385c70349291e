import { describe, expect, it } from "vitest";
import { PyFloat, pyDumps } from "../../core/py-json.ts";
import { ConversionError, convertTasks, convertToolsInfo } from "./convert.ts";
import {
  functionAssignment,
  methodReturnValue,
  moduleAssignments,
  nameList,
  PyCall,
  PythonSourceError,
} from "./python-source.ts";

describe("reading Python literals", () => {
  it("evaluates strings with prefixes, escapes, implicit concatenation and f-string names", () => {
    const values = moduleAssignments(
      [
        "# a comment",
        "NAME = 'respond'",
        'A = "x\\ty\\n\\u00e9\\x41\\101\\q"  # trailing comment',
        "B = r'raw\\n' 'next'",
        'C = ("one "',
        '     "two")',
        "D = '''multi",
        "line''' + 'not a literal'",
        'E = f"""{{"name": {NAME}}}"""',
        "F = 'it\\'s'",
        "G = \\",
        "  'continued'",
      ].join("\n"),
    );
    expect(values.get("A")).toBe("x\ty\né" + "AA\\q");
    expect(values.get("B")).toBe("raw\\nnext");
    expect(values.get("C")).toBe("one two");
    expect(values.has("D")).toBe(false);
    expect(values.get("E")).toBe('{"name": respond}');
    expect(values.get("F")).toBe("it's");
    expect(values.get("G")).toBe("continued");
  });

  it("keeps int vs float, containers, calls with keywords and dict order", () => {
    const values = moduleAssignments(
      "X = [1, 2.0, -3, 1e3, 0.5, True, None, (1,), (), {'b': 1, 'a': 2, 'b': 3}, {1, 2}, Task(user_id='u', actions=[Action(name='n', kwargs={})],),]\n",
      { calls: ["Task", "Action"] },
    );
    const x = values.get("X") as unknown[];
    expect(pyDumps(x.slice(0, 9))).toBe("[1, 2.0, -3, 1000.0, 0.5, true, null, [1], []]");
    expect(x[1]).toBeInstanceOf(PyFloat);
    expect([...(x[9] as Map<string, unknown>).entries()]).toEqual([
      ["b", 3],
      ["a", 2],
    ]);
    const task = x[11] as PyCall;
    expect(task).toBeInstanceOf(PyCall);
    expect(task.func).toBe("Task");
    expect(((task.kwargs.get("actions") as PyCall[])[0] as PyCall).kwargs.get("name")).toBe("n");
  });

  it("reads a method's returned literal and a list of names", () => {
    const source = [
      "from .a import Alpha",
      "class Alpha(Tool):",
      "    @staticmethod",
      "    def invoke(data, x):",
      "        return 'not this'",
      "    @staticmethod",
      "    def get_info():",
      "        return {",
      '            "description": (',
      '                "first "',
      '                "second"',
      "            ),",
      "        }",
      "ALL = [",
      "    Alpha,",
      "]",
    ].join("\n");
    expect(methodReturnValue(source, "Alpha", "get_info")).toEqual(
      new Map([["description", "first second"]]),
    );
    expect(nameList(source, "ALL")).toEqual(["Alpha"]);
    expect(() => methodReturnValue(source, "Beta", "get_info")).toThrow(PythonSourceError);
  });

  it("reads sources as Python does: a BOM dropped, CRLF line ends normalised inside literals too", () => {
    const values = moduleAssignments("\uFEFFA = '''one\r\ntwo'''\r\nB = (1,\r\n  2)\r\n");
    expect(values.get("A")).toBe("one\ntwo");
    expect(values.get("B")).toEqual([1, 2]);
  });

  it("takes f-string fields only as plain names, whatever else a field holds", () => {
    const method = (body: string) => `class C:\n    def m(self):\n        return ${body}\n`;
    expect(methodReturnValue(method('f"{ who }!"'), "C", "m", { scope: new Map([["who", "you"]]) })).toBe(
      "you!",
    );
    expect(() => methodReturnValue(method(`f"{d['}']}"`), "C", "m")).toThrow(
      new PythonSourceError("f-string field {d['}']} is not a plain name", 3),
    );
    expect(() => methodReturnValue(method('f"{x!r:>{w}}"'), "C", "m")).toThrow(
      /line 3: f-string field \{x!r:>\{w\}\} is not a plain name/,
    );
  });

  it("names the line of a stray bracket and of tokens after the literal", () => {
    expect(() => moduleAssignments("A = 1\nB = 2)\n")).toThrow(new PythonSourceError("unbalanced ')'", 2));
    expect(() => functionAssignment("def f():\n    x = 1\n    prompt = 'a' + 'b'\n", "f", "prompt")).toThrow(
      new PythonSourceError("unexpected '+' after the expression", 3),
    );
    expect(
      functionAssignment("def f(a):\n    if a:\n        prompt = ('a'\n            'b')\n", "f", "prompt"),
    ).toBe("ab");
  });

  it("says which file, task and field is wrong", () => {
    expect(() =>
      convertTasks("tasks.py", "TASKS = [Task(user_id=1, actions=[], instruction='i', outputs=[])]", "TASKS"),
    ).toThrow(new ConversionError("tasks.py", "TASKS[0].user_id must be a string"));
    expect(() => convertTasks("tasks.py", "TASKS = [dict()]", "TASKS")).toThrow(
      /tasks\.py: TASKS must be a list/,
    );
    expect(() => convertTasks("tasks.py", "TASKS = [\n  Task(user_id='u'\n", "TASKS")).toThrow(
      /TASKS must be a list/,
    );
    expect(() => convertToolsInfo("tools", () => "ALL_TOOLS = [Missing]\n")).toThrow(
      /Missing is not imported/,
    );
  });

  it("writes a task list as the reference JSON does (ensure_ascii off, indent 2, pydantic's fields only)", () => {
    const text = convertTasks(
      "t.py",
      "T = [Task(annotator='0', user_id='ü', instruction='go', actions=[Action(name='a', kwargs={'n': 1, 'f': 2.0})], outputs=['1'])]",
      "T",
    );
    expect(text).toBe(
      '[\n  {\n    "user_id": "ü",\n    "instruction": "go",\n    "actions": [\n      {\n        "name": "a",\n        "kwargs": {\n          "n": 1,\n          "f": 2.0\n        }\n      }\n    ],\n    "outputs": [\n      "1"\n    ]\n  }\n]\n',
    );
  });
});
