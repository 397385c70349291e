import { describe, expect, it } from "vitest";
import { assistantMessage, type ToolMessage, userMessage } from "../core/messages.ts";
import { PyFloat } from "../core/py-json.ts";
import type { ToolSchema } from "../env/toolkit.ts";
import { ScriptedLlmClient } from "../testing/scripted-model.ts";
import { AgentOutputError } from "./errors.ts";
import { OBSERVATION_PREFIX, parseTextAction, TextAgent, textAgentSystemPrompt } from "./text-agent.ts";

const TOOLS: ToolSchema[] = [
  {
    type: "function",
    function: {
      name: "get_order",
      description: "Look up an order.",
      parameters: { properties: { order_id: { type: "string" } }, title: "parameters", type: "object" },
    },
  },
];
const GREETING = assistantMessage({ content: "Hi! How can I help you today?", cost: 0 });

describe("parseTextAction", () => {
  it("reads a ReAct reply (thought, then the JSON action)", () => {
    const reply =
      'Thought:\nI should look up the order.\nAction:\n{"name": "get_order", "arguments": {"order_id": "#W1"}}';
    expect(parseTextAction("react", reply)).toEqual({ name: "get_order", arguments: { order_id: "#W1" } });
  });

  it("reads an Act reply, code fences, and text after the JSON; keeps floats", () => {
    const act = parseTextAction(
      "act",
      'Action:\n```json\n{"name": "pay", "arguments": {"amount": 2.0, "n": 2}}\n```',
    );
    expect(act.name).toBe("pay");
    expect(act.arguments.amount).toBeInstanceOf(PyFloat);
    expect(act.arguments.n).toBe(2);
    const trailing = parseTextAction(
      "act",
      'Action: {"name": "respond", "arguments": {"content": "Hi"}} I hope that helps.',
    );
    expect(trailing).toEqual({ name: "respond", arguments: { content: "Hi" } });
    // The last Action wins (a thought may mention the word).
    expect(parseTextAction("react", 'Thought: the Action: part\nAction: {"name": "x"}')).toEqual({
      name: "x",
      arguments: {},
    });
  });

  it("reports each kind of malformed reply as an AgentOutputError naming the problem", () => {
    const cases: [string, RegExp][] = [
      ["I will just answer.", /no "Action:" line/],
      ["Thought: hmm\nAction:", /nothing follows "Action:"/],
      ["Action: get_order(order_id=1)", /not a JSON object/],
      ['Action: {"name": "get_order", "arguments": {"order_id": }', /not valid JSON/],
      ['Action: ["get_order"]', /not a JSON object/],
      ['Action: {"arguments": {}}', /no "name" string/],
      ['Action: {"name": "f", "arguments": [1]}', /"arguments" is not a JSON object/],
    ];
    for (const [reply, pattern] of cases) {
      let caught: unknown;
      try {
        parseTextAction("react", reply);
      } catch (error) {
        caught = error;
      }
      expect(caught, reply).toBeInstanceOf(AgentOutputError);
      expect((caught as AgentOutputError).message, reply).toMatch(pattern);
      expect((caught as AgentOutputError).message).toMatch(/^react: /);
      expect((caught as AgentOutputError).reply).toBe(reply);
    }
  });
});

describe("text agents", () => {
  it("differ only in whether the format asks for a thought", () => {
    const react = textAgentSystemPrompt("react", "POLICY", TOOLS);
    const act = textAgentSystemPrompt("act", "POLICY", TOOLS);
    expect(
      react.startsWith('POLICY\n#Available tools\n[{"type": "function", "function": {"name": "get_order"'),
    ).toBe(true);
    expect(react).toContain("Thought:");
    expect(act).not.toContain("Thought:");
    expect(act).toContain('"name": "respond"');
  });

  it("turns actions into tool calls and respond into text, with observations fed back as text", async () => {
    const llm = new ScriptedLlmClient([
      {
        content: 'Thought:\nLook it up.\nAction:\n{"name": "get_order", "arguments": {"order_id": "#W1"}}',
        costUsd: 0.5,
      },
      { content: 'Thought:\nAnswer.\nAction:\n{"name": "respond", "arguments": {"content": "It shipped."}}' },
      { content: "Thought: confused" },
    ]);
    const agent = new TextAgent({
      style: "react",
      llm,
      tools: TOOLS,
      policy: "POLICY",
      llmArgs: { temperature: 0 },
    });
    const state = agent.initState([GREETING]);
    expect(state.transcript[1]).toEqual({
      role: "assistant",
      content: 'Action:\n{"name": "respond", "arguments": {"content": "Hi! How can I help you today?"}}',
    });
    const first = await agent.generate(userMessage({ content: "Where is my order #W1?" }), state);
    expect(llm.requests[0]!.tools).toBeUndefined();
    expect(llm.requests[0]!.messages.at(-1)).toEqual({ role: "user", content: "Where is my order #W1?" });
    expect(first.message.content).toBeNull();
    expect(first.message.tool_calls).toEqual([
      { id: "react_call_1", name: "get_order", arguments: { order_id: "#W1" }, requestor: "assistant" },
    ]);
    expect(first.message.cost).toBe(0.5);
    expect((first.message.raw_data as { text: string }).text).toContain("Look it up.");

    const result: ToolMessage = {
      role: "tool",
      id: "react_call_1",
      content: '{"status": "shipped"}',
      requestor: "assistant",
      error: false,
      turn_idx: null,
      timestamp: null,
    };
    const second = await agent.generate(result, first.state);
    const context = llm.requests[1]!.messages;
    expect(context.at(-2)).toEqual({
      role: "assistant",
      content: 'Thought:\nLook it up.\nAction:\n{"name": "get_order", "arguments": {"order_id": "#W1"}}',
    });
    expect(context.at(-1)).toEqual({ role: "user", content: `${OBSERVATION_PREFIX}{"status": "shipped"}` });
    expect(second.message.content).toBe("It shipped.");
    expect(second.message.tool_calls).toBeNull();
    expect(agent.isStop(second.message)).toBe(false);

    await expect(agent.generate(userMessage({ content: "thanks" }), second.state)).rejects.toThrow(
      AgentOutputError,
    );
  });

  it("rejects a respond action without text", async () => {
    const llm = new ScriptedLlmClient([
      { content: 'Action: {"name": "respond", "arguments": {"content": ""}}' },
    ]);
    const agent = new TextAgent({ style: "act", llm, tools: TOOLS, policy: "P" });
    await expect(agent.generate(userMessage({ content: "hi" }), agent.initState([]))).rejects.toThrow(
      /needs a non-empty "content"/,
    );
  });
});
