/**
 * The prose of generated telecom tasks, loaded at run time from the data
 * folder (upstream's text is not ours to commit).
 *
 * Where each text comes from (`domains/telecom/` of the data folder):
 *
 * - `tasks_small.json` (the 20 single-sub-issue tasks) is the primary source,
 *   and with the official data it supplies everything:
 *   - per intent (from its first task in the file): `description.purpose`,
 *     `reason_for_call`, `task_instructions` (including upstream's two trailing
 *     constants, `TOOL_CALL_INFO_CHECK` and `TOOL_CALL_GROUNDING`), and the
 *     `known_info` and `ticket` templates — the task's text with the user's
 *     name, phone number (from its `set_user_info` set-up call) and location
 *     phrase turned back into slots;
 *   - the two location phrases, from the first pair of tasks of one intent
 *     whose `known_info` differs only by location (one task sets
 *     `set_user_location(abroad=true)`, the other does not);
 *   - the `Easy` and `Hard` persona texts (from the first task with each
 *     persona);
 *   - the `message` of each env assertion, per intent and per variant
 *     (success = fixable task, failure = task expecting a transfer).
 * - `tasks.json` is read only for an item `tasks_small.json` cannot supply
 *   (file missing, or no task of that intent/persona), first from its
 *   single-sub-issue tasks, then from any task.
 * - An assertion message comes from the intent's first source task of the
 *   same variant; when there is none — the failure variants of the
 *   mobile-data and MMS intents, which no shipped task uses (only the omitted
 *   `data_usage_exceeded_no_refuel` tasks would) — it is null, as upstream's
 *   code has it.
 *
 * The 20 tasks of `tasks_small.json` are identical, once parsed, to the tasks
 * with the same ids in `tasks.json`. Both files name a `get_status_bar` tool
 * in the grounding text although the tool is `check_status_bar`: that is the
 * "staleness" of the small file, and `tasks.json` shares it (upstream's code
 * at HEAD says `check_status_bar`, so regenerating from the code would differ).
 * Every derived template is checked against every source task before use.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { FileFormatError } from "../../../core/errors.ts";
import type { Task } from "../../../core/task.ts";
import { readTasks } from "../../files.ts";
import { INTENT_NAMES, type IntentName } from "./catalog.ts";

/** Persona keys in upstream's round-robin order (`None` means no persona text). */
export const PERSONA_KEYS = ["None", "Easy", "Hard"] as const;
/** A persona key. */
export type PersonaKey = (typeof PERSONA_KEYS)[number];

/** A slot a template is filled with. */
export type TemplateSlot = "name" | "phone_number" | "location";

/** Literal text and slots, in order. */
export type Template = readonly (string | { readonly slot: TemplateSlot })[];

/** Texts of one intent. */
export interface IntentTexts {
  readonly purpose: string;
  readonly reasonForCall: string;
  readonly taskInstructions: string;
  readonly knownInfo: Template;
  readonly ticket: Template;
  /** Assertion messages by function name, for the success and failure variants. */
  readonly messages: {
    readonly success: ReadonlyMap<string, string | null>;
    readonly failure: ReadonlyMap<string, string | null>;
  };
}

/** Everything prose-like a generated task contains. */
export interface TelecomTaskTexts {
  readonly intents: ReadonlyMap<IntentName, IntentTexts>;
  readonly personas: ReadonlyMap<PersonaKey, string | null>;
  readonly locations: { readonly abroad: string; readonly home: string };
  /** For each text item, the file and task it was taken from. */
  readonly sources: ReadonlyMap<string, string>;
}

/** Fills a template's slots. */
export function fillTemplate(template: Template, values: Record<TemplateSlot, string>): string {
  return template.map((part) => (typeof part === "string" ? part : values[part.slot])).join("");
}

interface SourceTask {
  readonly task: Task;
  readonly file: string;
  readonly intent: string;
  readonly persona: string;
  readonly subIssueCount: number;
  readonly name: string;
  readonly phoneNumber: string;
  readonly abroad: boolean;
}

const ID_PATTERN = /^\[([a-z_]+)\](.*)\[PERSONA:([A-Za-z]+)\]$/;

function toSource(task: Task, file: string): SourceTask | null {
  const match = ID_PATTERN.exec(task.id);
  if (!match) return null;
  const actions = task.initial_state?.initialization_actions ?? [];
  const userInfo = actions.find((a) => a.func_name === "set_user_info");
  if (!userInfo) return null;
  return {
    task,
    file,
    intent: match[1]!,
    persona: match[3]!,
    subIssueCount: match[2]!.split("|").length,
    name: String(userInfo.arguments.name),
    phoneNumber: String(userInfo.arguments.phone_number),
    abroad: actions.some((a) => a.func_name === "set_user_location" && a.arguments.abroad === true),
  };
}

/** Splits `text` on every occurrence of `value`, putting `slot` between the pieces. */
function carve(template: Template, value: string, slot: TemplateSlot): Template {
  if (value === "") return template;
  const out: (string | { slot: TemplateSlot })[] = [];
  for (const part of template) {
    if (typeof part !== "string") {
      out.push(part);
      continue;
    }
    part.split(value).forEach((piece, i) => {
      if (i > 0) out.push({ slot });
      if (piece !== "") out.push(piece);
    });
  }
  return out;
}

/** The two phrases that differ between texts identical up to one phrase, cut at word boundaries. */
function differingPhrases(a: string, b: string): [string, string] | null {
  if (a === b) return null;
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  while (start > 0 && /\w/.test(a[start - 1]!)) start--;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end])
    end++;
  while (end > 0 && /\w/.test(a[a.length - end]!)) end--;
  const phraseA = a.slice(start, a.length - end);
  const phraseB = b.slice(start, b.length - end);
  return phraseA && phraseB ? [phraseA, phraseB] : null;
}

/** Lazily loaded candidate tasks: the small file first, then the full file. */
class Sources {
  private small: SourceTask[] | undefined;
  private full: SourceTask[] | undefined;

  constructor(private readonly dir: string) {}

  private load(file: string): SourceTask[] {
    const path = join(this.dir, file);
    if (!existsSync(path)) return [];
    const tasks = readTasks(path)
      .map((task) => toSource(task, file))
      .filter((s) => s !== null);
    // Single-sub-issue tasks first: they are what the small file holds.
    return [...tasks.filter((s) => s.subIssueCount === 1), ...tasks.filter((s) => s.subIssueCount > 1)];
  }

  /** Candidates matching `pred`: from `tasks_small.json` when it has any, else from `tasks.json`. */
  find(pred: (s: SourceTask) => boolean): SourceTask[] {
    this.small ??= this.load("tasks_small.json");
    const fromSmall = this.small.filter(pred);
    if (fromSmall.length > 0) return fromSmall;
    this.full ??= this.load("tasks.json");
    return this.full.filter(pred);
  }
}

function describe(source: SourceTask): string {
  return `${source.file} (${source.task.id})`;
}

function instructionsOf(source: SourceTask) {
  const instructions = source.task.user_scenario.instructions;
  if (typeof instructions === "string") {
    throw new FileFormatError(source.file, `task ${source.task.id}: expected structured user instructions`);
  }
  return instructions;
}

function textOf(source: SourceTask, field: "known_info" | "ticket"): string {
  const value = field === "ticket" ? source.task.ticket : instructionsOf(source).known_info;
  if (typeof value !== "string")
    throw new FileFormatError(source.file, `task ${source.task.id}: ${field} is missing`);
  return value;
}

/** Loads and checks the generator's texts from `<dataDir>/domains/telecom/`. */
export function loadTelecomTaskTexts(dataDir: string): TelecomTaskTexts {
  const dir = join(dataDir, "domains", "telecom");
  const sources = new Sources(dir);
  const origin = new Map<string, string>();
  const missing = (what: string) =>
    new FileFormatError(
      join(dir, "tasks_small.json"),
      `no task to take ${what} from (tasks.json has none either)`,
    );

  // Location phrases: two tasks of one intent that differ only by where the user is.
  let locations: { abroad: string; home: string } | undefined;
  for (const intent of INTENT_NAMES) {
    const abroad = sources.find((s) => s.intent === intent && s.abroad)[0];
    const home = sources.find((s) => s.intent === intent && !s.abroad)[0];
    if (!abroad || !home || abroad.name !== home.name || abroad.phoneNumber !== home.phoneNumber) continue;
    const phrases = differingPhrases(textOf(abroad, "known_info"), textOf(home, "known_info"));
    if (!phrases) continue;
    locations = { abroad: phrases[0], home: phrases[1] };
    origin.set("locations", `${describe(abroad)} and ${describe(home)}`);
    break;
  }
  if (!locations) throw missing("the location phrases");

  const intents = new Map<IntentName, IntentTexts>();
  for (const intent of INTENT_NAMES) {
    const candidates = sources.find((s) => s.intent === intent);
    const first = candidates[0];
    if (!first) throw missing(`the ${intent} texts`);
    const instructions = instructionsOf(first);
    const template = (field: "known_info" | "ticket"): Template => {
      let parts: Template = [textOf(first, field)];
      parts = carve(parts, first.name, "name");
      parts = carve(parts, first.phoneNumber, "phone_number");
      return carve(parts, first.abroad ? locations.abroad : locations.home, "location");
    };
    const texts: IntentTexts = {
      purpose: first.task.description?.purpose ?? "",
      reasonForCall: instructions.reason_for_call,
      taskInstructions: instructions.task_instructions,
      knownInfo: template("known_info"),
      ticket: template("ticket"),
      messages: {
        success: assertionMessages(candidates, true),
        failure: assertionMessages(candidates, false),
      },
    };
    // Every candidate must agree with what we derived, or the templates are wrong.
    for (const source of candidates) {
      const values = {
        name: source.name,
        phone_number: source.phoneNumber,
        location: source.abroad ? locations.abroad : locations.home,
      };
      const own = instructionsOf(source);
      const mismatch =
        (source.task.description?.purpose ?? "") !== texts.purpose
          ? "description.purpose"
          : own.reason_for_call !== texts.reasonForCall
            ? "reason_for_call"
            : own.task_instructions !== texts.taskInstructions
              ? "task_instructions"
              : fillTemplate(texts.knownInfo, values) !== textOf(source, "known_info")
                ? "known_info"
                : fillTemplate(texts.ticket, values) !== textOf(source, "ticket")
                  ? "ticket"
                  : null;
      if (mismatch) {
        throw new FileFormatError(
          join(dir, source.file),
          `task ${source.task.id}: ${mismatch} differs from the other ${intent} tasks (taken from ${first.task.id})`,
        );
      }
    }
    intents.set(intent, texts);
    origin.set(intent, describe(first));
  }

  const personas = new Map<PersonaKey, string | null>([["None", null]]);
  for (const key of PERSONA_KEYS) {
    if (key === "None") continue;
    const source = sources.find(
      (s) => s.persona === key && typeof s.task.user_scenario.persona === "string",
    )[0];
    if (!source) throw missing(`the ${key} persona`);
    personas.set(key, source.task.user_scenario.persona ?? null);
    origin.set(`persona ${key}`, describe(source));
  }
  return { intents, personas, locations, sources: origin };
}

/** Messages of the env assertions of the first task of the wanted variant (fixable or expecting a transfer). */
function assertionMessages(candidates: readonly SourceTask[], success: boolean): Map<string, string | null> {
  const messages = new Map<string, string | null>();
  const source = candidates.find((s) => {
    const basis = s.task.evaluation_criteria?.reward_basis ?? [];
    return basis.includes("ACTION") !== success;
  });
  for (const assertion of source?.task.evaluation_criteria?.env_assertions ?? []) {
    if (!messages.has(assertion.func_name)) messages.set(assertion.func_name, assertion.message ?? null);
  }
  return messages;
}
