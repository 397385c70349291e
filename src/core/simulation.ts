/**
 * Simulation records and their grading (upstream `data_model/simulation.py`,
 * spec §10.3): `RewardInfo`, `SimulationRun`, termination reasons.
 * The results-file container (`Results`, `Info`) lives in core/results.ts.
 */
import { z } from "zod";
import { Message, PyNumber } from "./messages.ts";
import { Action, EnvAssertion, RewardType } from "./task.ts";

/** Why a simulation ended (string values as upstream). */
export const TerminationReason = z.enum([
  "user_stop",
  "agent_stop",
  "max_steps",
  "timeout",
  "too_many_errors",
  "agent_error",
  "user_error",
  "infrastructure_error",
  "context_window_exceeded",
  "unexpected_error",
]);
export type TerminationReason = z.infer<typeof TerminationReason>;

/** Outcome of the DB comparison. */
export const DbCheck = z.object({ db_match: z.boolean(), db_reward: PyNumber });
export type DbCheck = z.infer<typeof DbCheck>;

/** Outcome of one env assertion. */
export const EnvAssertionCheck = z.object({
  env_assertion: EnvAssertion,
  met: z.boolean(),
  reward: PyNumber,
});
export type EnvAssertionCheck = z.infer<typeof EnvAssertionCheck>;

/** Outcome of one expected action. */
export const ActionCheck = z.object({
  action: Action,
  action_match: z.boolean(),
  action_reward: PyNumber,
  tool_type: z.enum(["read", "write", "think", "generic"]).nullable().default(null),
});
export type ActionCheck = z.infer<typeof ActionCheck>;

/** Outcome of one NL assertion (judged by an LLM). */
export const NlAssertionCheck = z.object({
  nl_assertion: z.string(),
  met: z.boolean(),
  justification: z.string().nullable().default(null),
});
export type NlAssertionCheck = z.infer<typeof NlAssertionCheck>;

/** Outcome of one communicate_info string. */
export const CommunicateCheck = z.object({
  info: z.string(),
  met: z.boolean(),
  justification: z.string().nullable().default(null),
});
export type CommunicateCheck = z.infer<typeof CommunicateCheck>;

/** The grading of one simulation. */
export const RewardInfo = z.object({
  reward: PyNumber,
  db_check: DbCheck.nullable().default(null),
  env_assertions: z.array(EnvAssertionCheck).nullable().default(null),
  action_checks: z.array(ActionCheck).nullable().default(null),
  nl_assertions: z.array(NlAssertionCheck).nullable().default(null),
  communicate_checks: z.array(CommunicateCheck).nullable().default(null),
  reward_basis: z.array(RewardType).nullable().default(null),
  reward_breakdown: z.record(z.string(), PyNumber).nullable().default(null),
  info: z.record(z.string(), z.any()).nullable().default(null),
});
export type RewardInfo = z.infer<typeof RewardInfo>;

/** One simulated episode. Unknown (voice, review) fields are kept on read so files round-trip. */
export const SimulationRun = z
  .object({
    id: z.string(),
    task_id: z.string(),
    timestamp: z.string().nullable().optional(),
    start_time: z.string(),
    end_time: z.string(),
    duration: PyNumber,
    termination_reason: TerminationReason,
    agent_cost: PyNumber.nullable().default(null),
    user_cost: PyNumber.nullable().default(null),
    reward_info: RewardInfo.nullable().default(null),
    messages: z.array(Message).default([]),
    trial: PyNumber.nullable().default(null),
    seed: PyNumber.nullable().default(null),
    mode: z.string().nullable().default("half_duplex"),
    info: z.record(z.string(), z.any()).nullable().default(null),
    policy: z.string().nullable().optional(),
  })
  .passthrough();
export type SimulationRun = z.infer<typeof SimulationRun>;
