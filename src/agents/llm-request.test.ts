/**
 * What the LLM participants put on the wire (spec §3.6, §4.2, common.md §5):
 * agent, solo agent and user simulator talking to a fake OpenAI-style server
 * on 127.0.0.1 through the real provider adapter.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { assistantMessage, type ToolMessage, userMessage } from "../core/messages.ts";
import { PyFloat, pyDumps } from "../core/py-json.ts";
import { Task } from "../core/task.ts";
import { param, type ToolSchema, toolSchema } from "../env/toolkit.ts";
import { createLlmClient } from "../llm/index.ts";
import { type FakeProvider, startFakeProvider } from "../testing/fake-provider.ts";
import { UserSimulator } from "../users/user-simulator.ts";
import { createLlmAgent, createSoloAgent } from "./llm-agent.ts";

const GREETING_TEXT = "Hi! How can I help you today?";
// Upstream's CLI default: {"temperature": 0.0}.
const DEFAULT_ARGS = { temperature: new PyFloat(0) };

// Schemas with the layouts that matter: $defs/$ref, enum, default, no parameters.
const SCHEMAS: ToolSchema[] = [
  toolSchema({
    name: "create_task",
    description: "Make a task.\n\nLonger text.",
    params: [
      param("user_id", { type: "string" }, "Owner"),
      param("status", { type: "string", enum: ["pending", "completed"] }, "Status"),
      param("address", { $ref: "#/$defs/Address" }, "Where"),
      param("amount", { type: "number" }, "How much", { default: null }),
    ],
    defs: {
      Address: {
        properties: { city: { title: "City", type: "string" } },
        required: ["city"],
        title: "Address",
        type: "object",
      },
    },
  }),
  toolSchema({ name: "get_users", description: "List users.", params: [] }),
];

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
});

const llm = () =>
  createLlmClient("openai/gpt-4.1-2025-04-14", {
    baseUrl: fake.openaiBaseUrl,
    env: { OPENAI_API_KEY: "sk-test" },
    retry: { maxRetries: 0 },
  });

const toolResult = (id: string, content: string, requestor: "assistant" | "user"): ToolMessage => ({
  role: "tool",
  id,
  content,
  requestor,
  error: false,
  turn_idx: null,
  timestamp: null,
});

describe("llm_agent on the wire", () => {
  it("sends toolSchema output verbatim, auto tool choice, temperature 0, the seed, and upstream's message shapes", async () => {
    fake.push(
      { toolCalls: [{ id: "call_1", name: "create_task", arguments: '{"user_id": "u", "amount": 2.0}' }] },
      { text: "Done." },
    );
    const agent = createLlmAgent({ llm: llm(), tools: SCHEMAS, policy: "P\n", llmArgs: DEFAULT_ARGS });
    agent.setSeed(626729);
    const greeting = assistantMessage({ content: GREETING_TEXT, cost: 0 });
    const first = await agent.generate(userMessage({ content: "Make one." }), agent.initState([greeting]));
    await agent.generate(toolResult("call_1", '{"id": "t1"}', "assistant"), first.state);

    const body = fake.requests[1]!.body;
    expect(body.temperature).toBe(0);
    expect(body.seed).toBe(626729);
    expect(body.tool_choice).toBe("auto");
    // Exactly the pydantic-layout schemas, key order included.
    expect(JSON.stringify(body.tools)).toBe(JSON.stringify(SCHEMAS));
    expect(body.messages).toEqual([
      { role: "system", content: expect.stringMatching(/^<instructions>\n/) },
      { role: "assistant", content: GREETING_TEXT },
      { role: "user", content: "Make one." },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            // Re-sent as Python's json.dumps text: the float keeps its ".0".
            function: { name: "create_task", arguments: '{"user_id": "u", "amount": 2.0}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: '{"id": "t1"}' },
    ]);
    expect(body.messages[0].content).toBe(first.state.systemPrompt);
    expect(pyDumps(first.message.tool_calls![0]!.arguments)).toBe('{"user_id": "u", "amount": 2.0}');
  });
});

describe("llm_agent_solo on the wire", () => {
  it("requires a tool call and offers the added done tool last", async () => {
    fake.push({ toolCalls: [{ id: "c", name: "done", arguments: "{}" }] });
    const task = Task.parse({
      id: "t",
      user_scenario: { instructions: "x" },
      ticket: "Fix it.",
      evaluation_criteria: { actions: [{ action_id: "a", name: "get_users", arguments: {} }] },
    });
    const agent = createSoloAgent({ llm: llm(), tools: SCHEMAS, policy: "P\n", task, llmArgs: DEFAULT_ARGS });
    const { message } = await agent.generate(null, agent.initState([]));
    const body = fake.requests[0]!.body;
    expect(body.tool_choice).toBe("required");
    expect(body.tools.map((tool: ToolSchema) => tool.function.name)).toEqual([
      "create_task",
      "get_users",
      "done",
    ]);
    expect(body.tools[2].function.parameters).toEqual({
      properties: {},
      title: "parameters",
      type: "object",
    });
    expect(body.messages).toHaveLength(1);
    expect(body.messages[0].content).toMatch(/\n<ticket>\nFix it\.\n<\/ticket>$/);
    expect(message).toMatchObject({ content: "###STOP###", tool_calls: null });
  });
});

describe("user_simulator on the wire", () => {
  it("speaks as assistant, sees the agent as user, and gets its tools with auto tool choice", async () => {
    fake.push(
      { toolCalls: [{ id: "u_1", name: "get_users", arguments: "{}" }] },
      { text: "All good. ###STOP###" },
    );
    const user = new UserSimulator({
      llm: llm(),
      guidelines: "G\n",
      instructions: "\tS",
      tools: SCHEMAS,
      llmArgs: DEFAULT_ARGS,
    });
    user.setSeed(7);
    const greeting = assistantMessage({ content: GREETING_TEXT, cost: 0 });
    const first = await user.generate(greeting, user.initState([]));
    expect(first.message.tool_calls).toEqual([
      { id: "u_1", name: "get_users", arguments: {}, requestor: "user" },
    ]);
    await user.generate(toolResult("u_1", "[]", "user"), first.state);

    const body = fake.requests[1]!.body;
    expect(body.seed).toBe(7);
    expect(body.temperature).toBe(0);
    expect(body.tool_choice).toBe("auto");
    expect(JSON.stringify(body.tools)).toBe(JSON.stringify(SCHEMAS));
    expect(body.messages).toEqual([
      { role: "system", content: "G\n\n\n<scenario>\n\tS\n</scenario>" },
      { role: "user", content: GREETING_TEXT },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "u_1", type: "function", function: { name: "get_users", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "u_1", content: "[]" },
    ]);
  });

  it("sends neither tools nor tool_choice when the user has no tools", async () => {
    fake.push({ text: "Hello." });
    const user = new UserSimulator({ llm: llm(), guidelines: "G\n", instructions: "S", tools: null });
    await user.generate(assistantMessage({ content: GREETING_TEXT, cost: 0 }), user.initState([]));
    const body = fake.requests[0]!.body;
    expect(body.tools).toBeUndefined();
    expect(body.tool_choice).toBeUndefined();
  });
});
