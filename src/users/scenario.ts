/**
 * `str(task.user_scenario)` as upstream renders it (spec §4.1): Python
 * `textwrap.indent` with a TAB on non-blank lines, `Persona:` and
 * `Instructions:` blocks, structured instructions as labelled sections.
 */
import type { StructuredUserInstructions, UserScenario } from "../core/task.ts";

// Python's str.splitlines() boundaries; \r\n counts as one.
const LINE =
  /[^\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]*(?:\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029])?/gu;
// Characters Python's str.strip() removes (str.isspace).
const PY_BLANK = /^[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/u;

/** Python `textwrap.indent(text, prefix)`: the prefix goes on every line that is not blank. */
export function pyIndent(text: string, prefix: string): string {
  let out = "";
  for (const match of text.matchAll(LINE)) {
    const line = match[0];
    if (line === "") continue;
    out += PY_BLANK.test(line) ? line : prefix + line;
  }
  return out;
}

/** Upstream `StructuredUserInstructions.__str__`. */
export function renderStructuredInstructions(instructions: StructuredUserInstructions): string {
  const lines = [`Domain: ${instructions.domain}`];
  lines.push(`Reason for call:\n${pyIndent(instructions.reason_for_call, "\t")}`);
  if (instructions.known_info !== null) lines.push(`Known info:\n${pyIndent(instructions.known_info, "\t")}`);
  if (instructions.unknown_info !== null)
    lines.push(`Unknown info:\n${pyIndent(instructions.unknown_info, "\t")}`);
  lines.push(`Task instructions:\n${pyIndent(instructions.task_instructions, "\t")}`);
  return lines.join("\n");
}

/** Upstream `UserScenario.__str__`: the text inside `<scenario>`. */
export function renderUserScenario(scenario: UserScenario): string {
  const lines: string[] = [];
  if (scenario.persona !== null) {
    lines.push("Persona:");
    lines.push(pyIndent(scenario.persona, "\t"));
  }
  const instructions =
    typeof scenario.instructions === "string"
      ? scenario.instructions
      : renderStructuredInstructions(scenario.instructions);
  lines.push("Instructions:");
  lines.push(pyIndent(instructions, "\t"));
  return lines.join("\n");
}

/** What the user says first when scripted: the reason for calling, or the plain instructions. */
export function reasonForCall(scenario: UserScenario): string {
  return typeof scenario.instructions === "string"
    ? scenario.instructions
    : scenario.instructions.reason_for_call;
}
