import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Task, UserScenario } from "../core/task.ts";
import { pyIndent, reasonForCall, renderUserScenario } from "./scenario.ts";

const dataDir = process.env.TAU_DATA_DIR;

describe("pyIndent (Python textwrap.indent)", () => {
  it("prefixes non-blank lines only and keeps line endings", () => {
    expect(pyIndent("a\nb", "\t")).toBe("\ta\n\tb");
    expect(pyIndent("a\n\n  \nb\n", "\t")).toBe("\ta\n\n  \n\tb\n");
    expect(pyIndent("\nx", "\t")).toBe("\n\tx");
    expect(pyIndent("a\r\nb\rc", ">")).toBe(">a\r\n>b\r>c");
    expect(pyIndent("", "\t")).toBe("");
    // Python counts \x1c and U+2028 as line breaks and \x1f as blank.
    expect(pyIndent("a\x1cb\u2028\x1f\n", "-")).toBe("-a\x1c-b\u2028\x1f\n");
  });
});

describe("renderUserScenario (str(UserScenario))", () => {
  it("renders structured instructions with sections, skipping null ones", () => {
    const scenario = UserScenario.parse({
      persona: "Calm.\n\nPatient.",
      instructions: {
        domain: "retail",
        reason_for_call: "Line one.\nLine two.",
        known_info: "Name: Ann",
        unknown_info: null,
        task_instructions: "Be brief.",
      },
    });
    expect(renderUserScenario(scenario)).toBe(
      "Persona:\n\tCalm.\n\n\tPatient.\nInstructions:\n\tDomain: retail\n\tReason for call:\n\t\tLine one.\n\t\tLine two.\n" +
        "\tKnown info:\n\t\tName: Ann\n\tTask instructions:\n\t\tBe brief.",
    );
    expect(reasonForCall(scenario)).toBe("Line one.\nLine two.");
  });

  it("inserts plain-string instructions as they are and omits a null persona", () => {
    const scenario = UserScenario.parse({ instructions: "Create a task.\nThen stop." });
    expect(renderUserScenario(scenario)).toBe("Instructions:\n\tCreate a task.\n\tThen stop.");
    expect(reasonForCall(scenario)).toBe("Create a task.\nThen stop.");
  });
});

function findTask(domain: string, id: string): Task {
  const raw = JSON.parse(readFileSync(join(dataDir!, "domains", domain, "tasks.json"), "utf8")) as {
    id: string;
  }[];
  return Task.parse(raw.find((task) => task.id === id));
}

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

describe.skipIf(!dataDir)("scenario rendering of real tasks (skipped: TAU_DATA_DIR not set)", () => {
  // The hashes were computed with CPython's own textwrap.indent over upstream's __str__ layout.
  it("renders retail task 59 (multi-line reason with an indented paragraph)", () => {
    const task = findTask("retail", "59");
    const text = renderUserScenario(task.user_scenario);
    const instructions = task.user_scenario.instructions;
    if (typeof instructions === "string") throw new Error("retail tasks have structured instructions");
    const lines = text.split("\n");
    expect(lines.slice(0, 3)).toEqual(["Instructions:", "\tDomain: retail", "\tReason for call:"]);
    const reasonLines = instructions.reason_for_call.split("\n");
    expect(lines.slice(3, 3 + reasonLines.length)).toEqual(
      reasonLines.map((line) => (line.trim() === "" ? line : `\t\t${line}`)),
    );
    expect(lines[3 + reasonLines.length]).toBe("\tKnown info:");
    expect(text).toContain(`\tUnknown info:\n\t\t${instructions.unknown_info}\n\tTask instructions:\n\t\t`);
    expect(sha256(text)).toBe("e5f67dbd25023a445b4cfb09fdc0874ce491641d0869b32b7770e5fb092ba99e");
    expect(sha256(renderUserScenario(findTask("retail", "78").user_scenario))).toBe(
      "1956fd4f44d25e28fa1e2ac77c9ef16b8fb3f59fe51af5f60674897ca21916e6",
    );
  });

  it("renders a telecom task with a persona that starts and ends with a newline", () => {
    const task = findTask("telecom", "[mobile_data_issue]user_abroad_roaming_disabled_on[PERSONA:Easy]");
    const text = renderUserScenario(task.user_scenario);
    const persona = task.user_scenario.persona!;
    expect(persona.startsWith("\n")).toBe(true);
    expect(text.startsWith(`Persona:\n\n\t${persona.split("\n")[1]}\n`)).toBe(true);
    // The persona's trailing newline leaves a blank line before "Instructions:".
    expect(text).toContain("\n\nInstructions:\n\tDomain: telecom\n\tReason for call:\n\t\t");
    expect(text).not.toContain("Unknown info:");
    expect(sha256(text)).toBe("520fea4efca456961b75c90bbcbbc7102bfc306a2c20ab736006f4e3493fb819");
  });
});
