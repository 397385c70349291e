/** The registry of agents: names, metadata (solo mode, needs a model, task filter) and factories. */
import { UsageError } from "../core/errors.ts";
import type { Task } from "../core/task.ts";
import type { UpstreamTexts } from "../domains/texts/store.ts";
import type { ToolSchema } from "../env/toolkit.ts";
import type { LlmEventListener } from "../llm/events.ts";
import type { LlmClient } from "../llm/types.ts";
import {
  createGoldPlanAgent,
  createLlmAgent,
  createSoloAgent,
  hasExpectedActions,
  isSoloTask,
} from "./llm-agent.ts";
import {
  AGENT_GT_INSTRUCTION,
  AGENT_INSTRUCTION,
  AGENT_SOLO_INSTRUCTION,
  type AgentWording,
  agentWording,
} from "./prompts.ts";
import { ReplayAgent } from "./replay-agent.ts";
import { TextAgent, textAgentSystemPrompt } from "./text-agent.ts";
import type { Agent } from "./types.ts";

/** What a factory gets to build an agent for one episode (one attempt of one simulation). */
export interface AgentContext<Options = Record<string, unknown>> {
  domainName: string;
  task: Task;
  /** Agent tools (plus user tools in solo mode). */
  tools: ToolSchema[];
  policy: string;
  soloMode: boolean;
  /** The run's agent model (`--agent-llm`), or null when the definition does not need one. */
  llm: LlmClient | null;
  /** The agent model's arguments (`--agent-llm-args`); a fresh copy per episode. */
  llmArgs: Record<string, unknown>;
  /** Aborted when the run stops (Ctrl-C, the caller's signal) or this attempt is abandoned. */
  signal: AbortSignal;
  /** The id the simulation is recorded under (a stateful agent service can key its memory on it). */
  simulationId: string;
  /** 0-based trial index. */
  trial: number;
  /** The trial seed (upstream's per-trial seed; also given to `setSeed`). */
  seed: number;
  /** `--agent-options` (or `agentOptions` of the library), after the definition's `parseOptions`. */
  options: Options;
  /** Upstream's texts from the data folder, when it has them (then the built-in LLM agents speak them). */
  texts?: UpstreamTexts | null;
  /** The run's accounting of model calls (usage, cost, retries); agents that build their own client report here. */
  onLlmEvent?: LlmEventListener;
}

/** What the results record about an agent that brings its own model or lives behind a URL. */
export interface AgentOrigin {
  /** How taubench talks to it: `ai-sdk`, `openai-agents`, `chat-completions`, `a2a`. */
  adapter: string;
  /** The model, as `provider/model`, when the agent says which (recorded as `agent_info.llm`). */
  llm?: string | null;
  /** The agent's URL, without credentials. */
  endpoint?: string;
}

/** An agent implementation: its metadata and the factory the runner calls once per episode. */
export interface AgentDefinition<Options = Record<string, unknown>> {
  name: string;
  /** Recorded in results and part of the resume fingerprint. */
  version?: string;
  description: string;
  /** Build the environment in solo mode and pair with `dummy_user`. */
  soloMode: boolean;
  /** Whether the runner builds the `--agent-llm` client for it. */
  needsLlm: boolean;
  /** The fixed instruction text of its system prompt (hashed into results so prompt changes are visible). */
  instructions?: string;
  /**
   * For an agent that speaks upstream's texts when the data folder has them: its instruction text in a
   * wording (this replaces `instructions` then). Agents without it always use their own wording.
   */
  wordedInstructions?: (wording: AgentWording) => string;
  /** Tasks the agent can run; others are skipped (upstream registry task filter). */
  taskFilter?: (task: Task) => boolean;
  /** Set by adapters (AI SDK, URL agents): recorded in results instead of `--agent-llm`. */
  origin?: AgentOrigin;
  /** Checks (and may convert) the options once, before any simulation; a throw stops the run with its message. */
  parseOptions?(options: Record<string, unknown>): Options;
  /**
   * A cheap check of the service behind the agent (URL and A2A agents), before the first simulation
   * and without starting a conversation: throws an `LlmError` when it cannot be reached or refuses the
   * credentials. The run's pre-flight calls it (`--no-preflight` skips it).
   */
  preflight?(options: { timeoutMs: number; signal?: AbortSignal }): Promise<void>;
  create(ctx: AgentContext<Options>): Agent;
}

function requireLlm(name: string, ctx: AgentContext): LlmClient {
  if (!ctx.llm) throw new UsageError(`Agent '${name}' needs a model: pass --agent-llm provider/model`);
  return ctx.llm;
}

const definitions: AgentDefinition[] = [
  {
    name: "llm_agent",
    description: "Function-calling LLM agent with the domain policy (the benchmark's agent)",
    soloMode: false,
    needsLlm: true,
    instructions: AGENT_INSTRUCTION,
    wordedInstructions: (wording) => wording.instruction,
    create: (ctx) =>
      createLlmAgent({
        llm: requireLlm("llm_agent", ctx),
        tools: ctx.tools,
        policy: ctx.policy,
        llmArgs: ctx.llmArgs,
        wording: agentWording(ctx.texts),
      }),
  },
  {
    name: "llm_agent_gt",
    description: "LLM agent that is also given the task's expected actions (oracle-plan ablation)",
    soloMode: false,
    needsLlm: true,
    instructions: AGENT_GT_INSTRUCTION,
    wordedInstructions: (wording) => wording.goldPlanInstruction,
    taskFilter: hasExpectedActions,
    create: (ctx) =>
      createGoldPlanAgent({
        llm: requireLlm("llm_agent_gt", ctx),
        tools: ctx.tools,
        policy: ctx.policy,
        task: ctx.task,
        llmArgs: ctx.llmArgs,
        wording: agentWording(ctx.texts),
      }),
  },
  {
    name: "llm_agent_solo",
    description: "LLM agent that solves the task's ticket alone with agent and user tools (no-user ablation)",
    soloMode: true,
    needsLlm: true,
    instructions: AGENT_SOLO_INSTRUCTION,
    wordedInstructions: (wording) => wording.soloInstruction,
    taskFilter: isSoloTask,
    create: (ctx) =>
      createSoloAgent({
        llm: requireLlm("llm_agent_solo", ctx),
        tools: ctx.tools,
        policy: ctx.policy,
        task: ctx.task,
        llmArgs: ctx.llmArgs,
        wording: agentWording(ctx.texts),
      }),
  },
  {
    name: "react",
    description:
      "Text-format ReAct agent (Thought + JSON Action, no function calling), as in the τ-bench paper",
    soloMode: false,
    needsLlm: true,
    instructions: textAgentSystemPrompt("react", "", []),
    create: (ctx) =>
      new TextAgent({
        style: "react",
        llm: requireLlm("react", ctx),
        tools: ctx.tools,
        policy: ctx.policy,
        llmArgs: ctx.llmArgs,
      }),
  },
  {
    name: "act",
    description: "Text-format Act agent (JSON Action only, no function calling), as in the τ-bench paper",
    soloMode: false,
    needsLlm: true,
    instructions: textAgentSystemPrompt("act", "", []),
    create: (ctx) =>
      new TextAgent({
        style: "act",
        llm: requireLlm("act", ctx),
        tools: ctx.tools,
        policy: ctx.policy,
        llmArgs: ctx.llmArgs,
      }),
  },
  {
    name: "replay",
    description: "Offline: performs the task's expected actions and states its communicate info (no model)",
    soloMode: false,
    needsLlm: false,
    create: (ctx) => new ReplayAgent(ctx.task, { solo: false }),
  },
  {
    name: "replay_solo",
    description: "Offline, solo mode: performs all of the task's expected actions, then stops (no model)",
    soloMode: true,
    needsLlm: false,
    taskFilter: isSoloTask,
    create: (ctx) => new ReplayAgent(ctx.task, { solo: true }),
  },
];

const byName = new Map(definitions.map((definition) => [definition.name, definition]));

/** Names of the registered agents, in registration order. */
export function agentNames(): string[] {
  return [...byName.keys()];
}

/** The registry entry for a name; unknown names are a {@link UsageError} listing the known ones. */
export function getAgentDefinition(name: string): AgentDefinition {
  const definition = byName.get(name);
  if (!definition) throw new UsageError(`Unknown agent '${name}'. Known agents: ${agentNames().join(", ")}`);
  return definition;
}

/** Adds an agent (custom agents register themselves the same way as built-in ones). */
export function registerAgent(definition: AgentDefinition): void {
  byName.set(definition.name, definition);
}
