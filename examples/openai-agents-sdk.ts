/**
 * Evaluate an agent built with the OpenAI Agents SDK (`npm install @openai/agents`):
 * its own instructions, model and handoffs, run by the SDK's own runner. The bridge
 * adds the domain tools (and the policy) to every agent of the graph; the harness
 * executes each call on the episode's environment and grades the result.
 *
 *   npx tau run --domain airline --agent ./examples/openai-agents-sdk.ts --user-llm openai/gpt-4.1
 */
import { Agent, setOpenAIAPI } from "@openai/agents";
import { openaiAgentsBridge } from "../src/agents/openai-agents-bridge.ts";

// Chat Completions, as upstream's agents use (the SDK's default is the Responses API).
setOpenAIAPI("chat_completions");

const changes = new Agent({
  name: "Changes desk",
  instructions:
    "You change, cancel and rebook flight reservations. Look the reservation up before changing it, " +
    "and tell the customer what it costs or refunds.",
  model: "gpt-4.1",
});

const frontDesk = new Agent({
  name: "Front desk",
  instructions:
    "You greet airline customers and hand anything about an existing reservation to the changes desk.",
  model: "gpt-4.1",
  handoffs: [changes],
});

export default openaiAgentsBridge(frontDesk);
