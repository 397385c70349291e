/**
 * The results file (upstream `Results`, spec §10): zod schemas that read
 * upstream's monolithic `results.json` and its dir layout unchanged, and a
 * writer that produces the bytes upstream's checkpoint writer produces
 * (`json.dump(model_dump(), indent=2)`: ASCII escaping, Python float repr,
 * pydantic field order, float-typed fields printed as floats).
 *
 * No `node:` imports here: the web viewer's browser bundle uses these schemas.
 * Reading and writing files is `results-file.ts`.
 */
import { z } from "zod";
import { PyFloat, type PyValue, pyDumps, pyFloat } from "./py-json.ts";
import { AssistantMessage, PyNumber, SystemMessage, ToolCall, ToolMessage, UserMessage } from "./messages.ts";
import {
  ActionCheck,
  CommunicateCheck,
  DbCheck,
  EnvAssertionCheck,
  NlAssertionCheck,
  RewardInfo,
  SimulationRun,
} from "./simulation.ts";
import {
  Action,
  Description,
  EnvAssertion,
  EnvFunctionCall,
  EvaluationCriteria,
  InitialState,
  InitializationData,
  StructuredUserInstructions,
  Task,
  TaskIssue,
  UserScenario,
} from "./task.ts";

/** Version of the taubench additions (`info.taubench`); the rest of the file is upstream's format. */
export const RESULTS_FORMAT_VERSION = 1;

const PyInt = z.preprocess((v) => (v instanceof PyFloat ? v.value : v), z.number().int());
const FreeDict = z.record(z.string(), z.any());

/** Who played the user (upstream `UserInfo`). */
export const UserInfo = z.object({
  implementation: z.string(),
  llm: z.string().nullable().default(null),
  llm_args: FreeDict.nullable().default(null),
  global_simulation_guidelines: z.string().nullable().default(null),
  voice_settings: z.any().default(null),
  persona_config: z.any().default(null),
});
export type UserInfo = z.infer<typeof UserInfo>;

/** Who played the agent (upstream `AgentInfo`). */
export const AgentInfo = z.object({
  implementation: z.string(),
  llm: z.string().nullable().default(null),
  llm_args: FreeDict.nullable().default(null),
  voice_settings: z.any().default(null),
});
export type AgentInfo = z.infer<typeof AgentInfo>;

/** The domain and the policy the agent saw (upstream `EnvironmentInfo`). */
export const EnvironmentInfo = z.object({
  domain_name: z.string(),
  policy: z.string(),
  tool_defs: z.any().default(null),
});
export type EnvironmentInfo = z.infer<typeof EnvironmentInfo>;

/** taubench's own stamp inside `info` (upstream ignores unknown keys): versions, commit, prompt hashes. */
export const TaubenchInfo = z
  .object({
    format_version: PyInt.refine((v) => v >= 1 && v <= RESULTS_FORMAT_VERSION, {
      error: (issue) =>
        `version ${String(issue.input)} is not supported (this taubench reads 1..${RESULTS_FORMAT_VERSION})`,
    }),
    version: z.string(),
    git_commit: z.string().nullable().default(null),
  })
  .passthrough();
export type TaubenchInfo = z.infer<typeof TaubenchInfo>;

/** Upstream's default `text_streaming_config`, present in every text-mode file. */
export const DEFAULT_TEXT_STREAMING_CONFIG = { chunk_by: "words", chunk_size: 1 } as const;

/** Run metadata (upstream `Info`, spec §10.2). */
export const Info = z.object({
  git_commit: z.string(),
  num_trials: PyInt,
  max_steps: PyInt,
  max_errors: PyInt,
  user_info: UserInfo,
  agent_info: AgentInfo,
  environment_info: EnvironmentInfo,
  seed: PyInt.nullable().default(null),
  text_streaming_config: FreeDict.nullable().default(() => ({ ...DEFAULT_TEXT_STREAMING_CONFIG })),
  speech_complexity: z.any().default(null),
  audio_native_config: z.any().default(null),
  retrieval_config: z.string().nullable().default(null),
  retrieval_config_kwargs: FreeDict.nullable().default(null),
  taubench: TaubenchInfo.optional(),
});
export type Info = z.infer<typeof Info>;

/** One line of the dir layout's `simulation_index`. */
export const SimulationIndexEntry = z.object({
  id: z.string(),
  task_id: z.union([z.string(), PyInt]),
  trial: PyInt,
  reward: PyNumber.nullable().default(null),
  termination_reason: z.string().nullable().default(null),
  agent_cost: PyNumber.nullable().default(null),
  duration: PyNumber.nullable().default(null),
});
export type SimulationIndexEntry = z.infer<typeof SimulationIndexEntry>;

/** A whole results file (upstream `Results`). */
export const Results = z.object({
  timestamp: z.string().nullable().default(null),
  info: Info,
  tasks: z.array(Task),
  simulations: z.array(SimulationRun).default([]),
  simulation_index: z.array(SimulationIndexEntry).nullable().default(null),
});
export type Results = z.infer<typeof Results>;

// ---------------------------------------------------------------------------
// Dumping in upstream's field order

type Convert = (value: unknown) => unknown;
/** A model field: name, how to dump its value, value when absent (default null), omit when absent. */
type Field = readonly [name: string, convert?: Convert, fallback?: unknown, omitWhenAbsent?: boolean];

const asIs: Convert = (value) => value;
const float: Convert = (value) => {
  if (value === null || value === undefined || value instanceof PyFloat) return value ?? null;
  return typeof value === "number" ? pyFloat(value) : value;
};
const listOf =
  (convert: Convert): Convert =>
  (value) =>
    Array.isArray(value) ? value.map(convert) : (value ?? null);
const floatDict: Convert = (value) => {
  if (value === null || value === undefined) return null;
  return new Map(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, float(v)]));
};

/** A zod object schema, as far as the dumper reads it (its field names). */
type ObjectSchema = { readonly shape: Readonly<Record<string, unknown>> };

/**
 * Dumps a model: `fields` is upstream's field order (with the voice-mode fields
 * upstream has and we do not), and the zod schemas are the source of truth for
 * what exists: a schema field the list does not name is written after the listed
 * ones (when set), so adding a field to a schema can never drop it from results
 * files. `keepExtras` also keeps keys no schema knows (round-tripping upstream's).
 */
function model(
  fields: readonly Field[],
  schemas: readonly ObjectSchema[],
  { keepExtras = false }: { keepExtras?: boolean } = {},
): Convert {
  const listed = new Set(fields.map(([name]) => name));
  const fromSchemas = schemas.flatMap((schema) => Object.keys(schema.shape));
  const all: readonly Field[] = [
    ...fields,
    ...[...new Set(fromSchemas)]
      .filter((name) => !listed.has(name))
      .map((name): Field => [name, asIs, null, true]),
  ];
  const known = new Set(all.map(([name]) => name));
  return (value) => {
    if (value === null || value === undefined) return null;
    const source = value as Record<string, unknown>;
    const out = new Map<string, unknown>();
    for (const [name, convert = asIs, fallback = null, omitWhenAbsent = false] of all) {
      const item = source[name];
      if (item === undefined) {
        if (!omitWhenAbsent) out.set(name, structuredCloneable(fallback));
        continue;
      }
      out.set(name, convert(item));
    }
    if (keepExtras) {
      for (const [name, item] of Object.entries(source)) if (!known.has(name)) out.set(name, item);
    }
    return out;
  };
}

// Fallback objects are shared constants; give each dump its own copy.
function structuredCloneable(value: unknown): unknown {
  return value !== null && typeof value === "object" ? structuredClone(value) : value;
}

const toolCall = model(
  [["id", asIs, ""], ["name"], ["arguments", asIs, {}], ["requestor", asIs, "assistant"]],
  [ToolCall],
);

// Upstream's usage dict lists completion_tokens first; taubench's extra counters follow.
const usage: Convert = (value) => {
  if (value === null || value === undefined) return null;
  const source = value as Record<string, unknown>;
  const out = new Map<string, unknown>();
  for (const name of ["completion_tokens", "prompt_tokens"]) if (name in source) out.set(name, source[name]);
  for (const [name, item] of Object.entries(source))
    if (!out.has(name) && item !== undefined) out.set(name, item);
  return out;
};

const participantMessage = model(
  [
    ["role"],
    ["content"],
    ["tool_calls", listOf(toolCall)],
    ["is_audio", asIs, false],
    ["turn_idx"],
    ["timestamp"],
    ["cost", float],
    ["usage", usage],
    ["raw_data"],
    ["generation_time_seconds", float],
    ["audio_format"],
    ["audio_path"],
    ["audio_script_gold"],
    ["speech_effects"],
    ["source_effects"],
    ["channel_effects"],
    ["turn_taking_action"],
    ["utterance_ids"],
    ["chunk_id"],
    ["is_final_chunk", asIs, true],
    ["source"],
    ["contains_speech", asIs, true],
  ],
  [AssistantMessage, UserMessage],
);
const toolMessage = model(
  [
    ["id", asIs, ""],
    ["role"],
    ["content"],
    ["requestor", asIs, "assistant"],
    ["error", asIs, false],
    ["turn_idx"],
    ["timestamp"],
  ],
  [ToolMessage],
);
const systemMessage = model([["role"], ["content"], ["turn_idx"], ["timestamp"]], [SystemMessage]);

/** One trajectory message as upstream dumps it (voice fields with their defaults). */
export function messageToPy(message: { role: "assistant" | "user" | "tool" | "system" }): PyValue {
  const role = message.role;
  switch (role) {
    case "assistant":
    case "user":
      return participantMessage(message) as PyValue;
    case "tool":
      return toolMessage(message) as PyValue;
    case "system":
      return systemMessage(message) as PyValue;
    default: {
      const unreachable: never = role;
      throw new TypeError(`unknown message role ${String(unreachable)}`);
    }
  }
}
const message: Convert = (value) => messageToPy(value as { role: "assistant" });

const action = model(
  [
    ["action_id"],
    ["requestor", asIs, "assistant"],
    ["name"],
    ["arguments", asIs, {}],
    ["info"],
    ["compare_args"],
  ],
  [Action],
);
const envFunctionCall = model([["env_type"], ["func_name"], ["arguments", asIs, {}]], [EnvFunctionCall]);
const envAssertion = model(
  [["env_type"], ["func_name"], ["arguments", asIs, {}], ["assert_value", asIs, true], ["message"]],
  [EnvAssertion],
);

const structuredInstructions = model(
  [["domain"], ["reason_for_call"], ["known_info"], ["unknown_info"], ["task_instructions"]],
  [StructuredUserInstructions],
);

const taskDump = model(
  [
    ["id"],
    ["description", model([["purpose"], ["relevant_policies"], ["notes"]], [Description])],
    [
      "user_scenario",
      model(
        [
          ["persona"],
          ["instructions", (value) => (typeof value === "string" ? value : structuredInstructions(value))],
        ],
        [UserScenario],
      ),
    ],
    ["ticket"],
    [
      "initial_state",
      model(
        [
          ["initialization_data", model([["agent_data"], ["user_data"]], [InitializationData])],
          ["initialization_actions", listOf(envFunctionCall)],
          ["message_history", listOf(message)],
        ],
        [InitialState],
      ),
    ],
    [
      "evaluation_criteria",
      model(
        [
          ["actions", listOf(action)],
          ["env_assertions", listOf(envAssertion)],
          ["communicate_info"],
          ["nl_assertions"],
          ["reward_basis", asIs, ["DB", "COMMUNICATE"]],
        ],
        [EvaluationCriteria],
      ),
    ],
    [
      "issues",
      listOf(
        model(
          [
            ["id"],
            ["title"],
            ["description"],
            ["status", asIs, "open"],
            ["resolution"],
            ["created_at"],
            ["resolved_at"],
            ["author_email"],
            ["pr_link"],
            ["simulation_file"],
          ],
          [TaskIssue],
        ),
      ),
    ],
    ["required_documents"],
    ["user_tools"],
  ],
  [Task],
);

/** A task as upstream dumps a validated `Task` (defaults filled, nulls explicit). */
export function taskToPy(task: Task): PyValue {
  return taskDump(task) as PyValue;
}

const rewardInfo = model(
  [
    ["reward", float],
    ["db_check", model([["db_match"], ["db_reward", float]], [DbCheck])],
    [
      "env_assertions",
      listOf(model([["env_assertion", envAssertion], ["met"], ["reward", float]], [EnvAssertionCheck])),
    ],
    [
      "action_checks",
      listOf(
        model([["action", action], ["action_match"], ["action_reward", float], ["tool_type"]], [ActionCheck]),
      ),
    ],
    ["nl_assertions", listOf(model([["nl_assertion"], ["met"], ["justification"]], [NlAssertionCheck]))],
    ["communicate_checks", listOf(model([["info"], ["met"], ["justification"]], [CommunicateCheck]))],
    ["reward_basis"],
    ["reward_breakdown", floatDict],
    ["info"],
  ],
  [RewardInfo],
);

const simulationDump = model(
  [
    ["id"],
    ["task_id"],
    ["timestamp"],
    ["start_time"],
    ["end_time"],
    ["duration", float],
    ["termination_reason"],
    ["agent_cost", float],
    ["user_cost", float],
    ["agent_usage"],
    ["reward_info", rewardInfo],
    ["messages", listOf(message)],
    ["ticks"],
    ["trial"],
    ["seed"],
    ["mode", asIs, "half_duplex"],
    ["speech_environment"],
    ["review"],
    ["user_only_review"],
    ["info"],
    ["auth_classification"],
    ["hallucination_retries_used", asIs, 0],
    ["hallucination_check"],
    ["provider_session_id"],
    ["policy"],
    ["effect_timeline"],
  ],
  [SimulationRun],
  { keepExtras: true },
);

/** A simulation as upstream's `model_dump()` lays it out (for results files and JSONL records). */
export function simulationToPy(simulation: SimulationRun): PyValue {
  return simulationDump(simulation) as PyValue;
}

const infoDump = model(
  [
    ["git_commit"],
    ["num_trials"],
    ["max_steps"],
    ["max_errors"],
    [
      "user_info",
      model(
        [
          ["implementation"],
          ["llm"],
          ["llm_args"],
          ["global_simulation_guidelines"],
          ["voice_settings"],
          ["persona_config"],
        ],
        [UserInfo],
      ),
    ],
    ["agent_info", model([["implementation"], ["llm"], ["llm_args"], ["voice_settings"]], [AgentInfo])],
    ["environment_info", model([["domain_name"], ["policy"], ["tool_defs"]], [EnvironmentInfo])],
    ["seed"],
    ["text_streaming_config", asIs, DEFAULT_TEXT_STREAMING_CONFIG],
    ["speech_complexity"],
    ["audio_native_config"],
    ["retrieval_config"],
    ["retrieval_config_kwargs"],
    ["taubench", asIs, undefined, true],
  ],
  [Info],
);

/** Run metadata in upstream's field order, taubench's stamp last. */
export function infoToPy(info: Info): PyValue {
  return infoDump(info) as PyValue;
}

const indexEntry = model(
  [
    ["id"],
    ["task_id"],
    ["trial"],
    ["reward", float],
    ["termination_reason"],
    ["agent_cost", float],
    ["duration", float],
  ],
  [SimulationIndexEntry],
);

const resultsDump = model(
  [
    ["timestamp"],
    ["info", (value) => infoToPy(value as Info)],
    ["tasks", listOf((value) => taskToPy(value as Task))],
    ["simulations", listOf((value) => simulationToPy(value as SimulationRun))],
    ["simulation_index", listOf(indexEntry)],
  ],
  [Results],
);

/** The whole file as a Python-JSON value (upstream key order, floats boxed). */
export function resultsToPy(results: Results): PyValue {
  return resultsDump(results) as PyValue;
}

/** The monolithic file text, byte-identical to upstream's `json.dump(..., indent=2)` (no trailing newline). */
export function serializeResults(results: Results): string {
  return pyDumps(resultsToPy(results), { indent: 2 });
}

/** Builds the dir layout's index from the simulations (upstream `_build_simulation_index`). */
export function buildSimulationIndex(simulations: readonly SimulationRun[]): SimulationIndexEntry[] {
  return simulations.map((simulation) => ({
    id: simulation.id,
    task_id: simulation.task_id,
    trial: simulation.trial ?? 0,
    reward: simulation.reward_info?.reward ?? null,
    termination_reason: simulation.termination_reason,
    agent_cost: simulation.agent_cost,
    duration: simulation.duration,
  }));
}
