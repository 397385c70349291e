/**
 * System prompts of the LLM agents. The layout (tags, block order, line
 * joins) is upstream's (spec §3.2–3.4); the instruction texts are our own
 * wording of the same instructions.
 */
import { pyStr } from "../core/py-json.ts";
import type { Action, Task } from "../core/task.ts";

const TURN_RULES = [
  "On each turn you may do exactly one of the following:",
  "- Send a message to the user.",
  "- Make a tool call.",
  "You may not do both in the same turn.",
].join("\n");

/** Instructions of the plain LLM agent (`llm_agent`). */
export const AGENT_INSTRUCTION = [
  "You are a customer service agent who assists the user as the <policy> below prescribes.",
  TURN_RULES,
  "",
  "Be helpful and follow the policy at all times. Everything you generate must be valid JSON.",
].join("\n");

/** Instructions of the gold-plan agent (`llm_agent_gt`). */
export const AGENT_GT_INSTRUCTION = [
  "You are helping us check that our user simulator behaves correctly.",
  "The simulated user will come to you with a problem to solve.",
  "Act as the <policy> below prescribes.",
  "To make the policy easier to follow, you are given the resolution steps you are expected to carry out.",
  "Each step is either an action you take yourself or an action you ask the user to take.",
  "",
  TURN_RULES,
  "",
  "Be helpful and follow the policy at all times. Everything you generate must be valid JSON.",
].join("\n");

/** Name of the tool the solo agent calls to finish. */
export const DONE_TOOL_NAME = "done";

/** Instructions of the solo agent (`llm_agent_solo`); three paragraphs, as upstream's. */
export const AGENT_SOLO_INSTRUCTION = [
  "You are a customer service agent who assists the user as the <policy> below prescribes.",
  "You are given a ticket describing what the user needs.",
  "Plan the work and call the tools needed to resolve the ticket.",
  "",
  "You cannot talk to the user; you can only make tool calls.",
  "When you believe the ticket is resolved, stop.",
  `To stop, send a message with exactly one tool call, to the \`${DONE_TOOL_NAME}\` tool, and no other tool call in that message.`,
  "",
  "Follow the policy at all times. Everything you generate must be valid JSON.",
].join("\n");

/** Upstream `SYSTEM_PROMPT`: instructions then policy. */
export function agentSystemPrompt(instruction: string, policy: string): string {
  return `<instructions>\n${instruction}\n</instructions>\n<policy>\n${policy}\n</policy>`;
}

/** Upstream `Action.get_func_format()`: `name(k=v, …)` with Python `str()` values. */
export function actionCallText(action: Pick<Action, "name" | "arguments">): string {
  const args = Object.entries(action.arguments)
    .map(([key, value]) => `${key}=${pyStr(value)}`)
    .join(", ");
  return `${action.name}(${args})`;
}

/** One `[Step n]` line of the gold plan. */
export function resolutionStep(action: Action, index: number): string {
  const call = actionCallText(action);
  switch (action.requestor) {
    case "user":
      return `[Step ${index + 1}] Ask the user to perform this action: ${call}.`;
    case "assistant":
      return `[Step ${index + 1}] Perform this action: ${call}.`;
    default: {
      const never: never = action.requestor;
      throw new Error(`unknown requestor ${String(never)}`);
    }
  }
}

/** The gold-plan system prompt: instructions, policy, then the resolution steps. */
export function goldPlanSystemPrompt(policy: string, task: Task): string {
  const steps = (task.evaluation_criteria?.actions ?? []).map(resolutionStep).join("\n");
  return `${agentSystemPrompt(AGENT_GT_INSTRUCTION, policy)}\n<resolution_steps>\n${steps}\n</resolution_steps>`;
}

/** The solo system prompt: instructions, policy, then the ticket. */
export function soloSystemPrompt(policy: string, ticket: string | null): string {
  return `${agentSystemPrompt(AGENT_SOLO_INSTRUCTION, policy)}\n<ticket>\n${pyStr(ticket)}\n</ticket>`;
}
