/**
 * Evaluate an AI SDK model as a τ-bench agent. The adapter gives it the domain
 * policy and tools (the same prompt and tool schemas as taubench's `llm_agent`)
 * and the harness executes its tool calls on the episode's environment.
 *
 *   npx tau run --domain airline --agent ./examples/ai-sdk-agent.ts --user-llm openai/gpt-4.1
 *
 * Any AI SDK 6 model works: `anthropic("claude-sonnet-4-5")`, `google("gemini-2.5-pro")`,
 * `createOpenAICompatible({ name, baseURL })("model")`. (For Anthropic and Gemini, build the
 * provider with `fetch: keepRawResponses()` so a `2.0` in tool arguments stays a float.)
 */
import { openai } from "@ai-sdk/openai";
import { aiSdkAgent } from "../src/agents/ai-sdk-agent.ts";

// Chat Completions, as upstream's and taubench's OpenAI agents use (`openai("…")` would use the Responses API).
export default aiSdkAgent({ model: openai.chat("gpt-4.1") });
