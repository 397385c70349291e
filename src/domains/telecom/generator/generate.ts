/**
 * Builds the telecom task set from the sub-issue catalog
 * (upstream-architecture.md §8.1–8.5): compose the selection sets of each
 * intent, sort by number of sub-issues, assign personas round-robin, create
 * each task on a fresh environment, and validate it on another fresh one.
 * A task that fails validation is rejected with a reason (upstream would stop
 * with an assertion error); rejected and omitted tasks keep their persona
 * slot, so the other tasks' personas do not move.
 *
 * The shipped `tasks.json` was generated with both data-usage variants in the
 * selection sets — personas were assigned over that larger list — and the
 * tasks containing `data_usage_exceeded_no_refuel` were then left out of the
 * file. `noRefuelTasks: "omit"` (the default) reproduces exactly that;
 * `"include"` keeps them, as upstream's code at HEAD would.
 *
 * Structure (sub-issues, calls, composition, validators, personas, ids,
 * reward basis) is code (`catalog.ts`, here); every piece of prose is read
 * from the data folder by `texts.ts`: purpose, reason for call, task
 * instructions, known-info and ticket templates, location phrases, persona
 * texts and assertion messages all come from `tasks_small.json` (its 20
 * single-sub-issue tasks), with `tasks.json` only as a fallback for items the
 * small file lacks (none with the official data).
 */
import { pyDumps, pyRepr } from "../../../core/py-json.ts";
import type { EnvAssertion, EnvFunctionCall } from "../../../core/task.ts";
import type { Environment } from "../../../env/environment.ts";
import { userRoot } from "../models.ts";
import {
  dataUsageExceededNoRefuel,
  type FixCall,
  type IntentDefinition,
  type IntentName,
  type SubIssue,
  TASK_USER,
  telecomIntents,
} from "./catalog.ts";
import { fillTemplate, PERSONA_KEYS, type PersonaKey, type TelecomTaskTexts } from "./texts.ts";

/** What to do with tasks that contain `data_usage_exceeded_no_refuel`. */
export type NoRefuelTasks = "omit" | "include";

/** Options of {@link generateTelecomTasks}. */
export interface GenerateOptions {
  /** The intents to generate (default: the three official ones). */
  readonly intents?: readonly IntentDefinition[];
  /** Default `omit`, which reproduces the shipped task file. */
  readonly noRefuelTasks?: NoRefuelTasks;
}

/** An expected action in upstream's key order. */
export interface GeneratedAction {
  action_id: string;
  requestor: "assistant" | "user";
  name: string;
  arguments: Record<string, unknown>;
  info: null;
  compare_args: string[] | null;
}

/** A task in upstream's `tasks.json` layout (key order matters: it is the file's). */
export interface GeneratedTask {
  id: string;
  description: { purpose: string; relevant_policies: null; notes: null };
  user_scenario: {
    persona: string | null;
    instructions: {
      domain: string;
      reason_for_call: string;
      known_info: string;
      unknown_info: null;
      task_instructions: string;
    };
  };
  ticket: string;
  initial_state: {
    initialization_data: null;
    initialization_actions: EnvFunctionCall[];
    message_history: null;
  };
  evaluation_criteria: {
    actions: GeneratedAction[];
    env_assertions: EnvAssertion[];
    communicate_info: null;
    nl_assertions: null;
    reward_basis: ("ENV_ASSERTION" | "ACTION")[];
  };
}

/** A composed task that did not make it into the output. */
export interface RejectedTask {
  readonly id: string;
  readonly reason: string;
}

/** Counts of one generation run (what `tau telecom generate` prints). */
export interface GenerationReport {
  /** Combinations composed per intent (before omission and validation). */
  readonly composed: ReadonlyMap<IntentName, number>;
  /** Accepted tasks per intent, per number of sub-issues, per persona. */
  readonly perIntent: ReadonlyMap<IntentName, number>;
  readonly perSubIssueCount: ReadonlyMap<number, number>;
  readonly perPersona: ReadonlyMap<PersonaKey, number>;
  /** Accepted tasks that expect a transfer (some sub-issue cannot be fixed). */
  readonly expectedFailures: number;
  /** Tasks left out because they contain `data_usage_exceeded_no_refuel` (shipped-set rule). */
  readonly omitted: number;
  readonly rejected: readonly RejectedTask[];
  readonly accepted: number;
}

/** A combination of sub-issues, sorted by name. */
interface ComposedTask {
  readonly name: string;
  readonly subIssues: readonly SubIssue[];
}

/**
 * All picks of at most one sub-issue per selection set, in `itertools.product`
 * order (last set varies fastest; "none" after each set's variants), filtered
 * by the validator (or, without one, dropping the empty pick).
 */
export function composeSubIssues(intent: IntentDefinition): ComposedTask[] {
  const out: ComposedTask[] = [];
  const picks: (SubIssue | null)[] = [];
  const walk = (depth: number): void => {
    if (depth === intent.selectionSets.length) {
      if (intent.validator && !intent.validator.accepts(picks)) return;
      const chosen = picks
        .filter((p): p is SubIssue => p !== null)
        .sort((a, b) => compareNames(a.name, b.name));
      if (!intent.validator && chosen.length === 0) return;
      out.push({ name: chosen.map((s) => s.name).join("|"), subIssues: chosen });
      return;
    }
    for (const option of [...intent.selectionSets[depth]!, null]) {
      picks[depth] = option;
      walk(depth + 1);
    }
  };
  walk(0);
  return out;
}

/** Python's string order (code points); the names are ASCII. */
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Upstream's task id: `[intent]sub|issues[PERSONA:key]`. */
function taskId(intent: IntentName, composed: ComposedTask, persona: PersonaKey): string {
  return `[${intent}]${composed.name}[PERSONA:${persona}]`;
}

/** Why a composed task is rejected. */
class Rejection extends Error {}

function describeCall(funcName: string, args: Record<string, unknown>): string {
  const shown = Object.entries(args).map(([k, v]) => `${k}=${pyRepr(v)}`);
  return `${funcName}(${shown.join(", ")})`;
}

function failingAssertions(env: Environment, assertions: readonly EnvAssertion[]): string[] {
  return assertions
    .filter((a) => !env.runEnvAssertion(a))
    .map((a) => `${a.env_type} ${describeCall(a.func_name, a.arguments)} is not ${a.assert_value}`);
}

/** Upstream `is_fixed`: every success assertion of the intent holds (stops at the first that does not). */
function isFixed(env: Environment, intent: IntentDefinition): boolean {
  return intent.assertions(true).every((a) => env.runEnvAssertion(a));
}

/** Runs `fn`, turning any error into a rejection that says what was being done. */
function attempt<T>(doing: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof Rejection) throw error;
    throw new Rejection(`${doing} raised: ${error instanceof Error ? error.message : String(error)}`);
  }
}

const TRANSFER: GeneratedAction = {
  action_id: "transfer_to_human_agents",
  requestor: "assistant",
  name: "transfer_to_human_agents",
  arguments: { summary: "I cannot fix the issue." },
  info: null,
  compare_args: [],
};

/** Upstream `create_task`: set-up on a fresh environment, fixes, assertions, texts. */
function createTask(
  intent: IntentDefinition,
  composed: ComposedTask,
  persona: PersonaKey,
  texts: TelecomTaskTexts,
  makeEnvironment: () => Environment,
): { task: GeneratedTask; fixable: boolean } {
  const env = makeEnvironment();
  const userInfo: EnvFunctionCall = {
    env_type: "user",
    func_name: "set_user_info",
    arguments: { name: TASK_USER.name, phone_number: TASK_USER.phoneNumber },
  };
  attempt("set_user_info", () => env.runEnvFunctionCall(userInfo));
  const initActions: EnvFunctionCall[] = [userInfo];
  for (const subIssue of composed.subIssues) {
    for (const step of subIssue.setup) {
      const items = attempt(`set-up of ${subIssue.name}`, () => step(env));
      for (const item of items) {
        if (item.type === "call") {
          attempt(`set-up call ${describeCall(item.call.func_name, item.call.arguments)}`, () =>
            env.runEnvFunctionCall(item.call),
          );
          initActions.push(item.call);
        } else {
          const { assertion } = item;
          const what = describeCall(assertion.func_name, assertion.arguments);
          if (!attempt(`set-up check ${what}`, () => env.runEnvAssertion(assertion))) {
            throw new Rejection(
              `set-up of ${subIssue.name} did not break the phone as intended: ${what} is false`,
            );
          }
        }
      }
    }
  }

  const fixCalls: FixCall[] = [];
  let expectedFailure = false;
  for (const subIssue of composed.subIssues) {
    if (subIssue.fix === null) {
      expectedFailure = true;
      break;
    }
    for (const step of subIssue.fix) fixCalls.push(...attempt(`fix of ${subIssue.name}`, () => step(env)));
  }

  const envAssertions = intent.assertions(!expectedFailure);
  if (!expectedFailure) {
    for (const subIssue of composed.subIssues) {
      for (const step of subIssue.extraAssertions ?? []) {
        envAssertions.push(...attempt(`extra assertions of ${subIssue.name}`, () => step(env)));
      }
    }
  }
  const intentTexts = texts.intents.get(intent.name);
  if (!intentTexts) throw new Rejection(`no texts for intent ${intent.name}`);
  const variant = expectedFailure ? intentTexts.messages.failure : intentTexts.messages.success;
  for (const a of envAssertions) a.message = variant.get(a.func_name) ?? null;

  const surroundings = userRoot(env.userTools!.db).surroundings;
  const values = {
    name: String(surroundings.name),
    phone_number: String(surroundings.phone_number),
    location: surroundings.is_abroad ? texts.locations.abroad : texts.locations.home,
  };
  const actions: GeneratedAction[] = expectedFailure
    ? [{ ...TRANSFER, arguments: { ...TRANSFER.arguments }, compare_args: [] }]
    : fixCalls.map((c, i) => ({
        action_id: `${c.name}_${i}`,
        requestor: c.requestor,
        name: c.name,
        arguments: c.arguments,
        info: null,
        compare_args: null,
      }));
  const task: GeneratedTask = {
    id: taskId(intent.name, composed, persona),
    description: { purpose: intentTexts.purpose, relevant_policies: null, notes: null },
    user_scenario: {
      persona: texts.personas.get(persona) ?? null,
      instructions: {
        domain: "telecom",
        reason_for_call: intentTexts.reasonForCall,
        known_info: fillTemplate(intentTexts.knownInfo, values),
        unknown_info: null,
        task_instructions: intentTexts.taskInstructions,
      },
    },
    ticket: fillTemplate(intentTexts.ticket, values),
    initial_state: { initialization_data: null, initialization_actions: initActions, message_history: null },
    evaluation_criteria: {
      actions,
      env_assertions: envAssertions,
      communicate_info: null,
      nl_assertions: null,
      reward_basis: expectedFailure ? ["ENV_ASSERTION", "ACTION"] : ["ENV_ASSERTION"],
    },
  };
  return { task, fixable: !expectedFailure };
}

/**
 * Upstream `verify_task`, on a fresh environment: it starts fixed; after the
 * set-up, it is broken before each expected action; at the end it is fixed
 * exactly when the task is fixable; every env assertion holds.
 */
export function verifyTask(
  intent: IntentDefinition,
  task: GeneratedTask,
  fixable: boolean,
  makeEnvironment: () => Environment,
): void {
  const env = makeEnvironment();
  if (!attempt("checking the fresh environment", () => isFixed(env, intent))) {
    throw new Rejection(
      `a fresh environment already fails the success assertions: ${failingAssertions(env, intent.assertions(true)).join("; ")}`,
    );
  }
  attempt("replaying the set-up", () => env.setState(null, task.initial_state.initialization_actions, []));
  const actions = task.evaluation_criteria.actions;
  actions.forEach((action, i) => {
    const label = `action ${i + 1}/${actions.length} (${action.requestor} ${describeCall(action.name, action.arguments)})`;
    if (attempt(`checking before ${label}`, () => isFixed(env, intent))) {
      throw new Rejection(
        i === 0
          ? "the set-up alone already satisfies the success assertions (nothing is broken)"
          : `already fixed before ${label}: the earlier actions suffice`,
      );
    }
    attempt(label, () => env.makeToolCall(action.name, action.requestor, action.arguments));
    env.syncTools();
  });
  const fixed = attempt("checking the final state", () => isFixed(env, intent));
  if (fixable && !fixed) {
    throw new Rejection(
      `not fixed after all ${actions.length} expected action(s): ${failingAssertions(env, intent.assertions(true)).join("; ")}`,
    );
  }
  if (!fixable && fixed)
    throw new Rejection("fixed although a sub-issue is unfixable (the task expects a transfer)");
  const failing = attempt("running the env assertions", () =>
    failingAssertions(env, task.evaluation_criteria.env_assertions),
  );
  if (failing.length > 0) throw new Rejection(`env assertions fail at the end: ${failing.join("; ")}`);
}

function increment<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** Generates, validates and reports the telecom task set. */
export function generateTelecomTasks(
  makeEnvironment: () => Environment,
  texts: TelecomTaskTexts,
  options: GenerateOptions = {},
): { tasks: GeneratedTask[]; report: GenerationReport } {
  const intents = options.intents ?? telecomIntents();
  const omitNoRefuel = (options.noRefuelTasks ?? "omit") === "omit";
  const tasks: GeneratedTask[] = [];
  const rejected: RejectedTask[] = [];
  const composedCounts = new Map<IntentName, number>();
  const perIntent = new Map<IntentName, number>();
  const perSubIssueCount = new Map<number, number>();
  const perPersona = new Map<PersonaKey, number>();
  let omitted = 0;
  let expectedFailures = 0;
  for (const intent of intents) {
    // A stable sort by sub-issue count keeps product order within each count.
    const composed = composeSubIssues(intent).sort((a, b) => a.subIssues.length - b.subIssues.length);
    composedCounts.set(intent.name, composed.length);
    composed.forEach((item, i) => {
      const persona = PERSONA_KEYS[i % PERSONA_KEYS.length]!;
      if (omitNoRefuel && item.subIssues.includes(dataUsageExceededNoRefuel)) {
        omitted++;
        return;
      }
      let created: { task: GeneratedTask; fixable: boolean };
      try {
        created = createTask(intent, item, persona, texts, makeEnvironment);
        verifyTask(intent, created.task, created.fixable, makeEnvironment);
      } catch (error) {
        if (!(error instanceof Rejection)) throw error;
        rejected.push({ id: taskId(intent.name, item, persona), reason: error.message });
        return;
      }
      tasks.push(created.task);
      increment(perIntent, intent.name);
      increment(perSubIssueCount, item.subIssues.length);
      increment(perPersona, persona);
      if (!created.fixable) expectedFailures++;
    });
  }
  return {
    tasks,
    report: {
      composed: composedCounts,
      perIntent,
      perSubIssueCount: new Map([...perSubIssueCount].sort((a, b) => a[0] - b[0])),
      perPersona,
      expectedFailures,
      omitted,
      rejected,
      accepted: tasks.length,
    },
  };
}

/** The task file's bytes: `json.dump(tasks, indent=2)` as upstream writes it (no trailing newline). */
export function serializeTasks(tasks: readonly GeneratedTask[]): string {
  return pyDumps(tasks, { indent: 2 });
}

/** Human-readable validation report (one fact per line). */
export function formatReport(report: GenerationReport, textSources?: ReadonlyMap<string, string>): string {
  const lines: string[] = [];
  const join = <K>(map: ReadonlyMap<K, number>) => [...map].map(([k, v]) => `${String(k)} ${v}`).join(", ");
  lines.push(
    `accepted: ${report.accepted} tasks (${report.expectedFailures} expect a transfer to a human agent)`,
  );
  lines.push(`combinations composed per intent (before omission and validation): ${join(report.composed)}`);
  lines.push(`tasks accepted per intent: ${join(report.perIntent)}`);
  lines.push(`tasks accepted per number of sub-issues: ${join(report.perSubIssueCount)}`);
  lines.push(`tasks accepted per persona: ${join(report.perPersona)}`);
  lines.push(
    `omitted (contain data_usage_exceeded_no_refuel, absent from the shipped set): ${report.omitted}`,
  );
  lines.push(`rejected: ${report.rejected.length}`);
  for (const r of report.rejected) lines.push(`  ${r.id}: ${r.reason}`);
  if (textSources) {
    lines.push("texts taken from:");
    for (const [item, source] of textSources) lines.push(`  ${item}: ${source}`);
  }
  return lines.join("\n");
}
