/**
 * The AI SDK adapter: any AI SDK language model becomes a function-calling
 * agent with the domain policy and tools, built exactly like `llm_agent`
 * (same system prompt unless `instructions` replaces its first part, same
 * context, same tool-call handling); the harness executes the tools.
 */
import type { LanguageModelV3 } from "@ai-sdk/provider";
import {
  type AiSdkClientOptions,
  aiSdkModelName,
  assertLanguageModel,
  createAiSdkClient,
} from "../llm/ai-sdk-client.ts";
import { UsageError } from "../core/errors.ts";
import { LlmAgent } from "./llm-agent.ts";
import { AGENT_INSTRUCTION, agentSystemPrompt } from "./prompts.ts";
import type { AgentDefinition } from "./registry.ts";

/** Options of {@link aiSdkAgent}. */
export interface AiSdkAgentOptions extends Omit<AiSdkClientOptions, "onEvent"> {
  /** The model, e.g. `openai("gpt-4.1")` (AI SDK 6 providers). */
  model: LanguageModelV3;
  /** Recorded as `agent_info.implementation`; default `ai_sdk_agent`. */
  name?: string;
  description?: string;
  /** Replaces taubench's agent instructions (the policy is always appended); default `llm_agent`'s. */
  instructions?: string;
  /** Provider arguments (`temperature`, `seed`…, upstream names); default the run's `--agent-llm-args`. */
  llmArgs?: Record<string, unknown>;
}

/** An agent definition for an AI SDK model (use it as an agent module's default export or in `runEvaluation`). */
export function aiSdkAgent(options: AiSdkAgentOptions): AgentDefinition {
  if (options === null || typeof options !== "object")
    throw new UsageError('aiSdkAgent takes an options object such as { model: openai("gpt-4.1") }');
  assertLanguageModel(options.model, "aiSdkAgent");
  const { model, name = "ai_sdk_agent", instructions = AGENT_INSTRUCTION } = options;
  return {
    name,
    description:
      options.description ?? `AI SDK model ${aiSdkModelName(model)} with the domain policy and tools`,
    soloMode: false,
    needsLlm: false,
    instructions,
    origin: { adapter: "ai-sdk", llm: aiSdkModelName(model) },
    create: (ctx) =>
      new LlmAgent({
        name,
        llm: createAiSdkClient(model, { ...options, ...(ctx.onLlmEvent ? { onEvent: ctx.onLlmEvent } : {}) }),
        tools: ctx.tools,
        systemPrompt: agentSystemPrompt(instructions, ctx.policy),
        llmArgs: options.llmArgs ?? ctx.llmArgs,
        toolChoice: "auto",
      }),
  };
}
