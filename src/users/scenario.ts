/**
 * `str(task.user_scenario)` as upstream renders it (spec §4.1): Python
 * `textwrap.indent` with a TAB on non-blank lines, `Persona:` and
 * `Instructions:` blocks, structured instructions as labelled sections. The
 * labels come from upstream's texts when the data folder has them.
 */
import type { StructuredUserInstructions, UserScenario } from "../core/task.ts";
import type { UpstreamTexts } from "../domains/texts/store.ts";
import { TAU2_TEXT } from "../domains/texts/tau2.ts";

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

/** The labels of a rendered scenario; each section function gets its (already indented) text. */
export interface ScenarioWording {
  readonly persona: string;
  readonly instructions: string;
  domain(domain: string): string;
  reasonForCall(text: string): string;
  knownInfo(text: string): string;
  unknownInfo(text: string): string;
  taskInstructions(text: string): string;
}

/** taubench's own copy of the labels (the same words). */
export const TAUBENCH_SCENARIO_WORDING: ScenarioWording = {
  persona: "Persona:",
  instructions: "Instructions:",
  domain: (domain) => `Domain: ${domain}`,
  reasonForCall: (text) => `Reason for call:\n${text}`,
  knownInfo: (text) => `Known info:\n${text}`,
  unknownInfo: (text) => `Unknown info:\n${text}`,
  taskInstructions: (text) => `Task instructions:\n${text}`,
};

/** The labels as upstream's texts give them. */
export function upstreamScenarioWording(texts: UpstreamTexts): ScenarioWording {
  const section = (key: string, field: string) => (text: string) => texts.format(key, { [field]: text });
  return {
    persona: texts.text(TAU2_TEXT.scenarioPersona),
    instructions: texts.text(TAU2_TEXT.scenarioInstructions),
    domain: section(TAU2_TEXT.scenarioDomain, "domain"),
    reasonForCall: section(TAU2_TEXT.scenarioReasonForCall, "reason_for_call"),
    knownInfo: section(TAU2_TEXT.scenarioKnownInfo, "known_info"),
    unknownInfo: section(TAU2_TEXT.scenarioUnknownInfo, "unknown_info"),
    taskInstructions: section(TAU2_TEXT.scenarioTaskInstructions, "task_instructions"),
  };
}

/** Upstream `StructuredUserInstructions.__str__`. */
export function renderStructuredInstructions(
  instructions: StructuredUserInstructions,
  wording: ScenarioWording = TAUBENCH_SCENARIO_WORDING,
): string {
  const lines = [wording.domain(instructions.domain)];
  lines.push(wording.reasonForCall(pyIndent(instructions.reason_for_call, "\t")));
  if (instructions.known_info !== null)
    lines.push(wording.knownInfo(pyIndent(instructions.known_info, "\t")));
  if (instructions.unknown_info !== null)
    lines.push(wording.unknownInfo(pyIndent(instructions.unknown_info, "\t")));
  lines.push(wording.taskInstructions(pyIndent(instructions.task_instructions, "\t")));
  return lines.join("\n");
}

/** Upstream `UserScenario.__str__`: the text inside `<scenario>`. */
export function renderUserScenario(
  scenario: UserScenario,
  wording: ScenarioWording = TAUBENCH_SCENARIO_WORDING,
): string {
  const lines: string[] = [];
  if (scenario.persona !== null) {
    lines.push(wording.persona);
    lines.push(pyIndent(scenario.persona, "\t"));
  }
  const instructions =
    typeof scenario.instructions === "string"
      ? scenario.instructions
      : renderStructuredInstructions(scenario.instructions, wording);
  lines.push(wording.instructions);
  lines.push(pyIndent(instructions, "\t"));
  return lines.join("\n");
}

/** What the user says first when scripted: the reason for calling, or the plain instructions. */
export function reasonForCall(scenario: UserScenario): string {
  return typeof scenario.instructions === "string"
    ? scenario.instructions
    : scenario.instructions.reason_for_call;
}
