import { episodeFields } from "../testing/contexts.ts";
import { describe, expect, it } from "vitest";
import { assistantMessage, type ToolMessage, userMessage } from "../core/messages.ts";
import { PyFloat } from "../core/py-json.ts";
import { Task } from "../core/task.ts";
import type { ToolSchema } from "../env/toolkit.ts";
import { ScriptedLlmClient } from "../testing/scripted-model.ts";
import { AgentError } from "./errors.ts";
import {
  createGoldPlanAgent,
  createLlmAgent,
  createSoloAgent,
  DONE_TOOL,
  hasExpectedActions,
  isSoloTask,
  SOLO_STOP_TOKEN,
} from "./llm-agent.ts";
import {
  AGENT_GT_INSTRUCTION,
  AGENT_INSTRUCTION,
  AGENT_SOLO_INSTRUCTION,
  actionCallText,
  agentSystemPrompt,
} from "./prompts.ts";
import { agentNames, getAgentDefinition } from "./registry.ts";

const POLICY = "# Policy\nBe nice.\n";
const GREETING = assistantMessage({ content: "Hi! How can I help you today?", cost: 0 });
const tool = (name: string): ToolSchema => ({
  type: "function",
  function: {
    name,
    description: `${name} tool`,
    parameters: { properties: {}, title: "parameters", type: "object" },
  },
});

function makeTask(fields: Record<string, unknown> = {}): Task {
  return Task.parse({ id: "t1", user_scenario: { instructions: "Do things." }, ...fields });
}

describe("agent system prompts", () => {
  it("lays out instructions then policy exactly as upstream, policy verbatim", () => {
    expect(agentSystemPrompt("INSTR", POLICY)).toBe(
      "<instructions>\nINSTR\n</instructions>\n<policy>\n# Policy\nBe nice.\n\n</policy>",
    );
  });

  it("keeps upstream's instruction structure: turn rules, then one blank line, then the closing rule", () => {
    const lines = AGENT_INSTRUCTION.split("\n");
    expect(lines).toHaveLength(7);
    expect(lines.slice(2, 4)).toEqual(["- Send a message to the user.", "- Make a tool call."]);
    expect(lines[5]).toBe("");
    expect(lines[6]).toMatch(/follow the policy.*valid JSON/);
    const gt = AGENT_GT_INSTRUCTION.split("\n");
    expect(gt.filter((line) => line === "")).toHaveLength(2);
    expect(gt.slice(-6, -2)).toEqual(lines.slice(1, 5));
    expect(AGENT_SOLO_INSTRUCTION).toContain("`done`");
  });

  it("keeps upstream's solo instruction paragraphs: 3 lines, blank, 3 lines, blank, the closing rule", () => {
    const solo = AGENT_SOLO_INSTRUCTION.split("\n");
    expect(solo).toHaveLength(9);
    expect(solo.map((line) => line === "")).toEqual([
      false,
      false,
      false,
      true,
      false,
      false,
      false,
      true,
      false,
    ]);
    expect(solo[0]).toBe(AGENT_INSTRUCTION.split("\n")[0]);
    expect(solo[6]).toContain("`done`");
    expect(solo[8]).toMatch(/follow the policy.*valid JSON/i);
  });

  it("renders gold-plan steps with Python str() values", () => {
    expect(
      actionCallText({
        name: "f",
        arguments: { a: 1, b: new PyFloat(2), c: "x y", d: [1, "y"], e: { k: true }, f: null, g: 0.5 },
      }),
    ).toBe("f(a=1, b=2.0, c=x y, d=[1, 'y'], e={'k': True}, f=None, g=0.5)");
    expect(actionCallText({ name: "g", arguments: {} })).toBe("g()");
  });
});

describe("llm_agent", () => {
  it("sends system + history + input with the tools and auto tool choice, and records the reply", async () => {
    const llm = new ScriptedLlmClient([
      {
        content: null,
        toolCalls: [
          { id: "c1", name: "get_user", arguments: { id: 7, x: new PyFloat(3) }, requestor: "assistant" },
        ],
        usage: { prompt_tokens: 11, completion_tokens: 5 },
        costUsd: 0.25,
        raw: { id: "resp-1" },
        reasoning: { encrypted: "abc" },
        generationTimeSeconds: 1.5,
      },
      { content: "Your user is 7." },
    ]);
    const agent = createLlmAgent({
      llm,
      tools: [tool("get_user")],
      policy: POLICY,
      llmArgs: { temperature: 0 },
    });
    agent.setSeed(626729);
    const state = agent.initState([GREETING]);
    const first = await agent.generate(userMessage({ content: "Find me." }), state);
    const request = llm.requests[0]!;
    expect(request.messages).toEqual([
      { role: "system", content: agentSystemPrompt(AGENT_INSTRUCTION, POLICY) },
      { role: "assistant", content: "Hi! How can I help you today?", toolCalls: null },
      { role: "user", content: "Find me." },
    ]);
    expect(request.tools).toEqual([tool("get_user")]);
    expect(request.toolChoice).toBe("auto");
    expect(request.args).toEqual({ temperature: 0, seed: 626729 });
    expect(request.callName).toBe("agent");

    const message = first.message;
    expect(message.role).toBe("assistant");
    expect(message.content).toBeNull();
    expect(message.tool_calls).toHaveLength(1);
    expect(message.tool_calls![0]!.requestor).toBe("assistant");
    expect(message.tool_calls![0]!.arguments.x).toBeInstanceOf(PyFloat);
    expect(message.cost).toBe(0.25);
    expect(message.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 5 });
    expect(message.raw_data).toEqual({ id: "resp-1" });
    expect(message.generation_time_seconds).toBe(1.5);
    expect(message.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
    expect(agent.isStop(message)).toBe(false);
    // The original state is untouched.
    expect(state.messages).toHaveLength(1);

    const results: ToolMessage[] = [
      {
        role: "tool",
        id: "c1",
        content: '{"id": 7}',
        requestor: "assistant",
        error: false,
        turn_idx: null,
        timestamp: null,
      },
    ];
    const second = await agent.generate(
      { role: "multi_tool", tool_messages: [...results, { ...results[0]!, id: "c1b", content: "x" }] },
      first.state,
    );
    const context = llm.requests[1]!.messages;
    expect(context).toHaveLength(6);
    expect(context[3]).toMatchObject({ role: "assistant", content: null, reasoning: { encrypted: "abc" } });
    expect(context[4]).toEqual({
      role: "tool",
      content: '{"id": 7}',
      toolCallId: "c1",
      toolName: "get_user",
    });
    expect(context[5]).toEqual({ role: "tool", content: "x", toolCallId: "c1b" });
    expect(second.message.content).toBe("Your user is 7.");
    expect(second.message.tool_calls).toBeNull();
    expect(second.state.messages).toHaveLength(6);
  });

  it("refuses a context message without content or tool calls (upstream validation)", async () => {
    const llm = new ScriptedLlmClient([{ content: "x" }]);
    const agent = createLlmAgent({ llm, tools: [], policy: POLICY });
    const state = agent.initState([GREETING]);
    await expect(agent.generate(userMessage({ content: "  " }), state)).rejects.toThrow(AgentError);
    expect(llm.requests).toHaveLength(0);
  });

  it("never ends the conversation itself, even on a stop token (P2)", () => {
    const agent = createLlmAgent({ llm: new ScriptedLlmClient([]), tools: [], policy: POLICY });
    expect(agent.isStop(assistantMessage({ content: "###STOP###" }))).toBe(false);
    const gold = createGoldPlanAgent({
      llm: new ScriptedLlmClient([]),
      tools: [],
      policy: POLICY,
      task: makeTask({ evaluation_criteria: { actions: [{ action_id: "a", name: "f", arguments: {} }] } }),
    });
    expect(gold.isStop(assistantMessage({ content: "###STOP###" }))).toBe(false);
  });

  it("omits tools and tool choice when there are no tools", async () => {
    const llm = new ScriptedLlmClient([{ content: "hello" }]);
    const agent = createLlmAgent({ llm, tools: [], policy: POLICY });
    await agent.generate(userMessage({ content: "hi" }), agent.initState([GREETING]));
    expect(llm.requests[0]!.tools).toBeUndefined();
    expect(llm.requests[0]!.toolChoice).toBeUndefined();
  });
});

describe("llm_agent_gt", () => {
  it("adds the resolution steps block after the policy", () => {
    const task = makeTask({
      evaluation_criteria: {
        actions: [
          { action_id: "a", name: "get_user", arguments: { user_id: "u1" } },
          { action_id: "b", requestor: "user", name: "toggle_airplane_mode", arguments: {} },
        ],
      },
    });
    const llm = new ScriptedLlmClient([]);
    const agent = createGoldPlanAgent({ llm, tools: [], policy: POLICY, task });
    const prompt = agent.initState([]).systemPrompt;
    expect(prompt).toBe(
      `${agentSystemPrompt(AGENT_GT_INSTRUCTION, POLICY)}\n<resolution_steps>\n` +
        "[Step 1] Perform this action: get_user(user_id=u1).\n" +
        "[Step 2] Ask the user to perform this action: toggle_airplane_mode().\n" +
        "</resolution_steps>",
    );
    expect(hasExpectedActions(task)).toBe(true);
    expect(hasExpectedActions(makeTask({ evaluation_criteria: { actions: [] } }))).toBe(false);
    expect(hasExpectedActions(makeTask())).toBe(false);
  });
});

describe("llm_agent_solo", () => {
  const task = makeTask({
    ticket: "My phone is broken.",
    evaluation_criteria: { actions: [{ action_id: "a", name: "reboot_device", arguments: {} }] },
  });

  it("adds done, requires tool calls, and includes the ticket", async () => {
    const llm = new ScriptedLlmClient([
      { toolCalls: [{ id: "1", name: "reboot_device", arguments: {}, requestor: "assistant" }] },
      {
        content: "finished",
        toolCalls: [
          { id: "2", name: "reboot_device", arguments: {}, requestor: "assistant" },
          { id: "3", name: "done", arguments: {}, requestor: "assistant" },
        ],
      },
    ]);
    const agent = createSoloAgent({
      llm,
      tools: [tool("get_user"), tool("reboot_device")],
      policy: POLICY,
      task,
    });
    const state = agent.initState([]);
    expect(state.systemPrompt).toBe(
      `${agentSystemPrompt(AGENT_SOLO_INSTRUCTION, POLICY)}\n<ticket>\nMy phone is broken.\n</ticket>`,
    );
    const first = await agent.generate(null, state);
    expect(llm.requests[0]!.toolChoice).toBe("required");
    expect(llm.requests[0]!.tools!.map((t) => t.function.name)).toEqual([
      "get_user",
      "reboot_device",
      "done",
    ]);
    expect(llm.requests[0]!.tools![2]).toEqual(DONE_TOOL);
    expect(llm.requests[0]!.messages).toHaveLength(1);
    expect(first.message.tool_calls).toHaveLength(1);
    expect(agent.isStop(first.message)).toBe(false);

    const tool1: ToolMessage = {
      role: "tool",
      id: "1",
      content: "ok",
      requestor: "assistant",
      error: false,
      turn_idx: null,
      timestamp: null,
    };
    const second = await agent.generate(tool1, first.state);
    expect(second.message.content).toBe(SOLO_STOP_TOKEN);
    expect(second.message.tool_calls).toBeNull();
    expect(agent.isStop(second.message)).toBe(true);
  });

  it("treats a reply without tool calls as an error", async () => {
    const llm = new ScriptedLlmClient([{ content: "I think I am done." }]);
    const agent = createSoloAgent({ llm, tools: [], policy: POLICY, task });
    await expect(agent.generate(null, agent.initState([]))).rejects.toThrow(/without a tool call/);
  });

  it("filters tasks as upstream does (the ticket is not checked when there is an initial state)", () => {
    expect(isSoloTask(task)).toBe(true);
    expect(isSoloTask(makeTask({ evaluation_criteria: task.evaluation_criteria }))).toBe(false);
    expect(isSoloTask(makeTask({ ticket: "x", evaluation_criteria: { actions: [] } }))).toBe(false);
    expect(isSoloTask(makeTask({ initial_state: { initialization_actions: [] } }))).toBe(true);
    const toolCallOnly = { role: "assistant", tool_calls: [{ id: "1", name: "f", arguments: {} }] };
    expect(isSoloTask(makeTask({ initial_state: { message_history: [toolCallOnly] } }))).toBe(true);
    expect(
      isSoloTask(makeTask({ initial_state: { message_history: [{ role: "assistant", content: "hi" }] } })),
    ).toBe(false);
    expect(
      isSoloTask(makeTask({ initial_state: { message_history: [{ role: "user", content: "hi" }] } })),
    ).toBe(false);
  });
});

describe("agent registry", () => {
  it("lists the agreed names with their metadata", () => {
    expect(agentNames()).toEqual([
      "llm_agent",
      "llm_agent_gt",
      "llm_agent_solo",
      "react",
      "act",
      "replay",
      "replay_solo",
    ]);
    expect(getAgentDefinition("llm_agent_solo").soloMode).toBe(true);
    expect(getAgentDefinition("replay_solo").soloMode).toBe(true);
    expect(getAgentDefinition("replay").needsLlm).toBe(false);
    expect(getAgentDefinition("llm_agent_gt").taskFilter).toBe(hasExpectedActions);
    expect(() => getAgentDefinition("nope")).toThrow(/Unknown agent 'nope'. Known agents: llm_agent, /);
  });

  it("requires a model for LLM agents and builds each agent under its name", () => {
    const base = {
      domainName: "mock",
      task: makeTask(),
      tools: [],
      policy: POLICY,
      soloMode: false,
      llmArgs: {},
      ...episodeFields(),
    };
    expect(() => getAgentDefinition("react").create({ ...base, llm: null })).toThrow(/needs a model/);
    const llm = new ScriptedLlmClient([]);
    for (const name of agentNames()) {
      expect(getAgentDefinition(name).create({ ...base, llm }).name).toBe(name);
    }
  });
});
