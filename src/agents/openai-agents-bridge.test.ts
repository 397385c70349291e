import { Agent, OpenAIChatCompletionsModel } from "@openai/agents";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { userMessage } from "../core/messages.ts";
import { PyFloat } from "../core/py-json.ts";
import { episodeFields } from "../testing/contexts.ts";
import { Task } from "../core/task.ts";
import type { ToolSchema } from "../env/toolkit.ts";
import { LlmError } from "../llm/errors.ts";
import type { LlmEvent } from "../llm/events.ts";
import { type FakeProvider, startFakeProvider } from "../testing/fake-provider.ts";
import { openaiAgentsBridge } from "./openai-agents-bridge.ts";
import type { AgentContext } from "./registry.ts";

const REFUND: ToolSchema = {
  type: "function",
  function: {
    name: "refund",
    description: "Refund an amount.",
    parameters: {
      properties: { amount: { title: "Amount", type: "number" } },
      required: ["amount"],
      title: "parameters",
      type: "object",
    },
  },
};

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
});

function context(events: LlmEvent[]): AgentContext {
  return {
    domainName: "mock",
    task: Task.parse({ id: "t1", user_scenario: { instructions: "x" } }),
    tools: [REFUND],
    policy: "Refund what is asked.",
    soloMode: false,
    llm: null,
    llmArgs: {},
    onLlmEvent: (event) => events.push(event),
    ...episodeFields(),
  };
}

const model = () =>
  new OpenAIChatCompletionsModel(
    new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: "sk-x", maxRetries: 0 }),
    "gpt-4.1",
  );

describe("openaiAgentsBridge", () => {
  it("refuses a policy or maxTurns it does not know, with one line", () => {
    const agent = new Agent({ name: "support", instructions: "help" });
    expect(() => openaiAgentsBridge(agent, { policy: "appnd" as never })).toThrow(
      'openai_agents_sdk: openaiAgentsBridge: policy must be "append" or "none", got "appnd"',
    );
    expect(() => openaiAgentsBridge(agent, { maxTurns: -1 })).toThrow(
      "maxTurns must be an integer ≥ 1, got -1",
    );
    expect(openaiAgentsBridge(agent, { policy: "none", maxTurns: 3 }).name).toBe("openai_agents_sdk");
  });

  it("stops the SDK at a domain tool call, keeps 2.0 a float, and resumes with the harness's result", async () => {
    fake.requests.length = 0;
    fake.push(
      {
        toolCalls: [{ id: "call_1", name: "refund", arguments: '{"amount": 2.0}' }],
        usage: { input: 100, output: 5 },
      },
      { text: "Refunded.", usage: { input: 120, output: 3 } },
    );
    const events: LlmEvent[] = [];
    const sdkAgent = new Agent({ name: "Refunder", instructions: "You refund.", model: model() });
    const definition = openaiAgentsBridge(sdkAgent, { llm: "openai/gpt-4.1" });
    expect(definition.origin).toEqual({ adapter: "openai-agents", llm: "openai/gpt-4.1" });
    const agent = definition.create(context(events));
    let state = agent.initState([]);
    const first = await agent.generate(userMessage({ content: "Refund 2 dollars." }), state);
    expect(first.message.tool_calls).toEqual([
      { id: "call_1", name: "refund", arguments: { amount: new PyFloat(2) }, requestor: "assistant" },
    ]);
    expect(first.message.usage).toEqual({ prompt_tokens: 100, completion_tokens: 5 });
    expect(first.message.cost).toBeCloseTo((100 * 2 + 5 * 8) / 1e6, 12);
    state = first.state;
    const tool = {
      role: "tool" as const,
      id: "call_1",
      content: "refunded 2.0",
      requestor: "assistant" as const,
    };
    const second = await agent.generate(tool as never, state);
    expect(second.message.content).toBe("Refunded.");
    expect(second.message.tool_calls).toBeNull();
    // The model saw its own instructions, the policy, and the environment's answer.
    const last = fake.requests.at(-1)!.body;
    expect(last.messages[0].content).toBe("You refund.\n<policy>\nRefund what is asked.\n</policy>");
    expect(last.messages.find((m: any) => m.role === "tool")).toMatchObject({ content: "refunded 2.0" });
    expect(events.filter((event) => event.type === "call")).toHaveLength(2);
  });

  it("turns a 401 of the agent's model into a run-stopping auth error", async () => {
    fake.push({ kind: "error", status: 401, message: "bad key" });
    const agent = openaiAgentsBridge(new Agent({ name: "A", instructions: "x", model: model() })).create(
      context([]),
    );
    const error = await agent.generate(userMessage({ content: "hi" }), agent.initState([])).catch((e) => e);
    expect(error).toBeInstanceOf(LlmError);
    expect(error).toMatchObject({ kind: "auth", stopsRun: true, statusCode: 401 });
  });
});
