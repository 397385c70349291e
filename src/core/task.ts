/**
 * The task format (upstream `data_model/tasks.py`, spec §6). Unknown keys are
 * dropped on load, as pydantic does.
 */
import { z } from "zod";
import { Message, PyNumber, Requestor } from "./messages.ts";

/** Reward components named in `reward_basis`. */
export const RewardType = z.enum(["DB", "ENV_ASSERTION", "NL_ASSERTION", "ACTION", "COMMUNICATE"]);
export type RewardType = z.infer<typeof RewardType>;

/** A call of a toolkit function by name (set-up actions and assertions). */
export const EnvFunctionCall = z.object({
  env_type: Requestor,
  func_name: z.string(),
  arguments: z.record(z.string(), z.any()).default({}),
});
export type EnvFunctionCall = z.infer<typeof EnvFunctionCall>;

/** An env function call whose boolean result must equal `assert_value`. */
export const EnvAssertion = EnvFunctionCall.extend({
  assert_value: z.boolean().default(true),
  message: z.string().nullable().default(null),
});
export type EnvAssertion = z.infer<typeof EnvAssertion>;

/** An expected tool call. */
export const Action = z.object({
  action_id: z.string(),
  requestor: Requestor.default("assistant"),
  name: z.string(),
  arguments: z.record(z.string(), z.any()).default({}),
  info: z.string().nullable().default(null),
  compare_args: z.array(z.string()).nullable().default(null),
});
export type Action = z.infer<typeof Action>;

/** Structured user instructions. */
export const StructuredUserInstructions = z.object({
  domain: z.string(),
  reason_for_call: z.string(),
  known_info: z.string().nullable().default(null),
  unknown_info: z.string().nullable().default(null),
  task_instructions: z.string(),
});
export type StructuredUserInstructions = z.infer<typeof StructuredUserInstructions>;

/** What the user simulator is told. */
export const UserScenario = z.object({
  persona: z.string().nullable().default(null),
  instructions: z.union([StructuredUserInstructions, z.string()]),
});
export type UserScenario = z.infer<typeof UserScenario>;

/** Reviewer-facing description of a task. */
export const Description = z.object({
  purpose: z.string().nullable().default(null),
  relevant_policies: z.string().nullable().default(null),
  notes: z.string().nullable().default(null),
});

/** How a task is graded. */
export const EvaluationCriteria = z.object({
  actions: z.array(Action).nullable().default(null),
  env_assertions: z.array(EnvAssertion).nullable().default(null),
  communicate_info: z.array(z.string()).nullable().default(null),
  nl_assertions: z.array(z.string()).nullable().default(null),
  reward_basis: z.array(RewardType).default(["DB", "COMMUNICATE"]),
});
export type EvaluationCriteria = z.infer<typeof EvaluationCriteria>;

/** Data merged into the DBs before a run. */
export const InitializationData = z.object({
  agent_data: z.record(z.string(), z.any()).nullable().default(null),
  user_data: z.record(z.string(), z.any()).nullable().default(null),
});
export type InitializationData = z.infer<typeof InitializationData>;

/** The state a task starts from. */
export const InitialState = z.object({
  initialization_data: InitializationData.nullable().default(null),
  initialization_actions: z.array(EnvFunctionCall).nullable().default(null),
  message_history: z.array(Message).nullable().default(null),
});
export type InitialState = z.infer<typeof InitialState>;

/** Bookkeeping issue attached to a task (3 retail tasks). */
export const TaskIssue = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string().nullable().default(null),
  status: z.enum(["open", "resolved", "wont_fix"]).default("open"),
  resolution: z.string().nullable().default(null),
  created_at: z.string().nullable().default(null),
  resolved_at: z.string().nullable().default(null),
  author_email: z.string().nullable().default(null),
  pr_link: z.string().nullable().default(null),
  simulation_file: z.string().nullable().default(null),
});

/** One task. */
export const Task = z.object({
  id: z.string(),
  description: Description.nullable().default(null),
  user_scenario: UserScenario,
  ticket: z.string().nullable().default(null),
  initial_state: InitialState.nullable().default(null),
  evaluation_criteria: EvaluationCriteria.nullable().default(null),
  issues: z.array(TaskIssue).nullable().default(null),
  required_documents: z.array(z.string()).nullable().default(null),
  user_tools: z.array(z.string()).nullable().default(null),
});
export type Task = z.infer<typeof Task>;

/** `split_tasks.json`: split name → task ids. */
export const TaskSplits = z.record(z.string(), z.array(z.string()));
export type TaskSplits = z.infer<typeof TaskSplits>;

export { PyNumber };
