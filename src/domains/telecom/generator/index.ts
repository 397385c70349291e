/**
 * The telecom task generator: sub-issue catalog, texts loaded from the data
 * folder, composition, validation and the report.
 */
import { loadDomain } from "../../registry.ts";
import {
  type GenerateOptions,
  type GeneratedTask,
  type GenerationReport,
  generateTelecomTasks,
} from "./generate.ts";
import { loadTelecomTaskTexts, type TelecomTaskTexts } from "./texts.ts";

export {
  type FixCall,
  type IntentDefinition,
  type IntentName,
  INTENT_NAMES,
  type SelectionSet,
  type SetupItem,
  type SubIssue,
  telecomIntents,
} from "./catalog.ts";
export {
  composeSubIssues,
  formatReport,
  type GeneratedTask,
  type GenerateOptions,
  type GenerationReport,
  generateTelecomTasks,
  type NoRefuelTasks,
  type RejectedTask,
  serializeTasks,
} from "./generate.ts";
export { loadTelecomTaskTexts, PERSONA_KEYS, type PersonaKey, type TelecomTaskTexts } from "./texts.ts";

/** Generates the telecom task set from a data folder (fresh `telecom` environments, texts from its task files). */
export function generateFromDataDir(
  dataDir: string,
  options: GenerateOptions = {},
): { tasks: GeneratedTask[]; report: GenerationReport; texts: TelecomTaskTexts } {
  const domain = loadDomain("telecom", dataDir);
  const texts = loadTelecomTaskTexts(dataDir);
  const { tasks, report } = generateTelecomTasks(() => domain.makeEnvironment(), texts, options);
  return { tasks, report, texts };
}
