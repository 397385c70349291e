/** Public surface of the agents layer: the seam, the registry and the built-in agents. */
export { type AgentDefinitionInput, defineAgent } from "./define.ts";
export { AgentError, AgentOutputError } from "./errors.ts";
export {
  createGoldPlanAgent,
  createLlmAgent,
  createSoloAgent,
  DONE_TOOL,
  hasExpectedActions,
  isSoloTask,
  LlmAgent,
  type LlmAgentState,
  SOLO_STOP_TOKEN,
} from "./llm-agent.ts";
export {
  type AgentContext,
  type AgentDefinition,
  agentNames,
  getAgentDefinition,
  registerAgent,
} from "./registry.ts";
export { REPLAY_CLOSING, USER_ACTION_REQUEST, userActionRequest } from "../core/offline-protocol.ts";
export { ReplayAgent } from "./replay-agent.ts";
export { parseTextAction, TextAgent, type TextAgentStyle } from "./text-agent.ts";
export type { Agent, AgentInput } from "./types.ts";
