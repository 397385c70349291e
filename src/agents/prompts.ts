/**
 * System prompts of the LLM agents. With upstream's texts in the data folder
 * they are upstream's, byte for byte (spec upstream-texts.md §3); without them
 * taubench's own wording of the same instructions, in upstream's layout (tags,
 * block order, line joins).
 */
import { pyStr } from "../core/py-json.ts";
import type { Action, Task } from "../core/task.ts";
import type { UpstreamTexts } from "../domains/texts/store.ts";
import { TAU2_TEXT } from "../domains/texts/tau2.ts";
import { type ToolSchema, toolSchema } from "../env/toolkit.ts";

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

/** The `done` tool added to the solo agent's tools (never executed: the call is rewritten). */
export const DONE_TOOL: ToolSchema = {
  type: "function",
  function: {
    name: DONE_TOOL_NAME,
    description: "Call this when you have finished the task.",
    parameters: { properties: {}, title: "parameters", type: "object" },
  },
};

/** The texts the LLM agents are built from: upstream's, or taubench's own. */
export interface AgentWording {
  /** `upstream` when every text is upstream's exact text. */
  readonly source: "upstream" | "taubench";
  /** The fixed instruction texts (hashed into results). */
  readonly instruction: string;
  readonly goldPlanInstruction: string;
  readonly soloInstruction: string;
  systemPrompt(policy: string): string;
  goldPlanSystemPrompt(policy: string, task: Task): string;
  soloSystemPrompt(policy: string, ticket: string | null): string;
  readonly doneTool: ToolSchema;
}

/** taubench's own wording. */
export const TAUBENCH_AGENT_WORDING: AgentWording = {
  source: "taubench",
  instruction: AGENT_INSTRUCTION,
  goldPlanInstruction: AGENT_GT_INSTRUCTION,
  soloInstruction: AGENT_SOLO_INSTRUCTION,
  systemPrompt: (policy) => agentSystemPrompt(AGENT_INSTRUCTION, policy),
  goldPlanSystemPrompt,
  soloSystemPrompt,
  doneTool: DONE_TOOL,
};

function upstreamWording(texts: UpstreamTexts): AgentWording {
  const instruction = texts.text(TAU2_TEXT.agentInstruction);
  const goldPlanInstruction = texts.text(TAU2_TEXT.goldPlanInstruction);
  const soloInstruction = texts.format(TAU2_TEXT.soloInstruction, { stop_function_name: DONE_TOOL_NAME });
  const step = (action: Action, index: number) => {
    const key = action.requestor === "user" ? TAU2_TEXT.goldPlanUserAction : TAU2_TEXT.goldPlanAgentAction;
    return texts.format(TAU2_TEXT.goldPlanStep, {
      number: String(index + 1),
      instruction: texts.format(key, { call: actionCallText(action) }),
    });
  };
  const done = texts.toolEntry(TAU2_TEXT.soloDoneTool);
  return {
    source: "upstream",
    instruction,
    goldPlanInstruction,
    soloInstruction,
    systemPrompt: (policy) =>
      texts.format(TAU2_TEXT.agentSystemPrompt, { agent_instruction: instruction, domain_policy: policy }),
    goldPlanSystemPrompt: (policy, task) =>
      texts.format(TAU2_TEXT.goldPlanSystemPrompt, {
        agent_instruction: goldPlanInstruction,
        domain_policy: policy,
        resolution_steps: (task.evaluation_criteria?.actions ?? []).map(step).join("\n"),
      }),
    soloSystemPrompt: (policy, ticket) =>
      texts.format(TAU2_TEXT.soloSystemPrompt, {
        agent_instruction: soloInstruction,
        domain_policy: policy,
        ticket: pyStr(ticket),
      }),
    doneTool: toolSchema({ name: done.name, description: done.description, params: [] }),
  };
}

const upstreamWordings = new WeakMap<UpstreamTexts, AgentWording>();

/** The agents' wording for a data folder's texts (upstream's when present, else taubench's). */
export function agentWording(texts: UpstreamTexts | null | undefined): AgentWording {
  if (!texts) return TAUBENCH_AGENT_WORDING;
  let wording = upstreamWordings.get(texts);
  if (!wording) {
    wording = upstreamWording(texts);
    upstreamWordings.set(texts, wording);
  }
  return wording;
}
