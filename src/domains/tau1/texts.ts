/**
 * The one access point for the texts of upstream's τ-bench prompts (the
 * ReAct/Act instructions, the user simulators' templates). Upstream's exact
 * text is used when the τ-bench data folder holds it (`texts/<name>.txt`);
 * otherwise the caller's own wording in upstream's structure, and the result
 * says which one it was, so results can record it.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The prompt texts of the original τ-bench. */
export type Tau1TextName =
  | "react_instruction"
  | "act_instruction"
  | "user_llm_system"
  | "user_react_system"
  | "user_verify_prompt"
  | "user_reflection_prompt";

/** A prompt text and where it came from. */
export interface Tau1Text {
  text: string;
  source: "upstream" | "paraphrased";
}

/** Upstream's text of `name` from the data folder when present, else `fallback` (our wording). */
export function tau1Text(dataDir: string | null, name: Tau1TextName, fallback: string): Tau1Text {
  const path = dataDir === null ? null : join(dataDir, "texts", `${name}.txt`);
  if (path && existsSync(path)) return { text: readFileSync(path, "utf8"), source: "upstream" };
  return { text: fallback, source: "paraphrased" };
}

/** Fills `{field}` placeholders of a template (upstream's f-string fields). */
export function fillTemplate(template: string, fields: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => fields[name] ?? whole);
}
