import { readFileSync } from "node:fs";
import { join } from "node:path";
import { episodeFields } from "../testing/contexts.ts";
import { describe, expect, it } from "vitest";
import { assistantMessage, type ToolMessage, userMessage } from "../core/messages.ts";
import { PyFloat } from "../core/py-json.ts";
import { Task } from "../core/task.ts";
import type { ToolSchema } from "../env/toolkit.ts";
import { ScriptedLlmClient } from "../testing/scripted-model.ts";
import { DummyUser } from "./dummy-user.ts";
import { UserError } from "./errors.ts";
import { getUserDefinition, userNames } from "./registry.ts";
import { renderUserScenario } from "./scenario.ts";
import { flipRoles, UserSimulator, userSystemPrompt } from "./user-simulator.ts";

const dataDir = process.env.TAU_DATA_DIR;
const GREETING = assistantMessage({ content: "Hi! How can I help you today?", cost: 0 });
const TOOLS: ToolSchema[] = [
  {
    type: "function",
    function: {
      name: "check_status_bar",
      description: "Look at the status bar.",
      parameters: { properties: {}, title: "parameters", type: "object" },
    },
  },
];
const toolResult = (id: string, content: string, requestor: "user" | "assistant" = "user"): ToolMessage => ({
  role: "tool",
  id,
  content,
  requestor,
  error: false,
  turn_idx: null,
  timestamp: null,
});

describe("flipRoles", () => {
  it("swaps the two speakers and keeps the user's own tool traffic", () => {
    const call = { id: "u1", name: "check_status_bar", arguments: {}, requestor: "user" as const };
    const flipped = flipRoles([
      GREETING,
      userMessage({ content: "My phone has no signal." }),
      assistantMessage({ content: "Please check your status bar." }),
      userMessage({ tool_calls: [call] }),
      toolResult("u1", "No signal"),
    ]);
    expect(flipped).toEqual([
      { role: "user", content: "Hi! How can I help you today?" },
      { role: "assistant", content: "My phone has no signal.", toolCalls: null },
      { role: "user", content: "Please check your status bar." },
      { role: "assistant", content: null, toolCalls: [call] },
      { role: "tool", content: "No signal", toolCallId: "u1", toolName: "check_status_bar" },
    ]);
  });

  it("rejects agent tool calls and agent-side tool results", () => {
    const agentCall = assistantMessage({
      tool_calls: [{ id: "a", name: "f", arguments: {}, requestor: "assistant" }],
    });
    expect(() => flipRoles([agentCall])).toThrow(UserError);
    expect(() => flipRoles([toolResult("a", "x", "assistant")])).toThrow(/agent's tool result/);
  });
});

describe("UserSimulator", () => {
  it("builds its prompt from guidelines and scenario and rewrites its tool calls to requestor user", async () => {
    const llm = new ScriptedLlmClient([
      {
        content: "No signal on my phone.",
        costUsd: 0.01,
        usage: { prompt_tokens: 3, completion_tokens: 4 },
        raw: { r: 1 },
      },
      {
        toolCalls: [
          { id: "t1", name: "check_status_bar", arguments: { x: new PyFloat(1) }, requestor: "assistant" },
        ],
        generationTimeSeconds: 2,
      },
      { content: "It says no service. ###STOP###" },
    ]);
    const user = new UserSimulator({
      llm,
      guidelines: "GUIDE\n",
      instructions: "\tSCENARIO",
      tools: TOOLS,
      llmArgs: { temperature: 0 },
    });
    expect(user.systemPrompt).toBe("GUIDE\n\n\n<scenario>\n\tSCENARIO\n</scenario>");
    user.setSeed(5);
    const state = user.initState([]);
    const first = await user.generate(GREETING, state);
    expect(llm.requests[0]!.messages).toEqual([
      { role: "system", content: "GUIDE\n\n\n<scenario>\n\tSCENARIO\n</scenario>" },
      { role: "user", content: "Hi! How can I help you today?" },
    ]);
    expect(llm.requests[0]!.tools).toEqual(TOOLS);
    expect(llm.requests[0]!.args).toEqual({ temperature: 0, seed: 5 });
    expect(llm.requests[0]!.callName).toBe("user");
    expect(first.message).toMatchObject({
      role: "user",
      content: "No signal on my phone.",
      tool_calls: null,
      cost: 0.01,
      raw_data: { r: 1 },
    });

    const second = await user.generate(assistantMessage({ content: "Check your status bar." }), first.state);
    expect(second.message.tool_calls).toEqual([
      { id: "t1", name: "check_status_bar", arguments: { x: new PyFloat(1) }, requestor: "user" },
    ]);
    // Upstream does not copy the generation time onto user messages.
    expect(second.message.generation_time_seconds ?? null).toBeNull();

    const third = await user.generate(
      { role: "multi_tool", tool_messages: [toolResult("t1", "No Service")] },
      second.state,
    );
    expect(llm.requests[2]!.messages.slice(-2)).toEqual([
      { role: "assistant", content: null, toolCalls: second.message.tool_calls },
      { role: "tool", content: "No Service", toolCallId: "t1", toolName: "check_status_bar" },
    ]);
    expect(third.message.content).toContain("###STOP###");
  });

  it("does not append an empty agent message and sends no tools when it has none", async () => {
    const llm = new ScriptedLlmClient([{ content: "hello" }]);
    const user = new UserSimulator({ llm, guidelines: "G\n", instructions: "S", tools: null });
    const result = await user.generate(assistantMessage({ content: " " }), user.initState([GREETING]));
    expect(llm.requests[0]!.messages).toHaveLength(2);
    expect(llm.requests[0]!.tools).toBeUndefined();
    expect(result.state.messages).toHaveLength(2);
  });
});

describe("DummyUser and the user registry", () => {
  it("exposes the agreed names; the dummy user cannot speak", async () => {
    expect(userNames()).toEqual(["user_simulator", "scripted", "dummy_user"]);
    expect(getUserDefinition("dummy_user").requiresSoloAgent).toBe(true);
    expect(getUserDefinition("user_simulator").needsLlm).toBe(true);
    expect(() => getUserDefinition("bob")).toThrow(
      /Unknown user 'bob'. Known users: user_simulator, scripted, dummy_user/,
    );
    const dummy = new DummyUser();
    await expect(dummy.generate(GREETING, dummy.initState([]))).rejects.toThrow(UserError);
  });
});

describe.skipIf(!dataDir)("user_simulator from the registry (skipped: TAU_DATA_DIR not set)", () => {
  const task = () =>
    Task.parse(
      (
        JSON.parse(readFileSync(join(dataDir!, "domains", "mock", "tasks.json"), "utf8")) as { id: string }[]
      ).find((t) => t.id === "create_task_1"),
    );
  const guidelinesDir = join(dataDir ?? "", "user_simulator");

  it("reads the tools guideline file when the user has tools, the plain one otherwise", () => {
    const llm = new ScriptedLlmClient([]);
    const base = { domainName: "mock", task: task(), guidelinesDir, llm, llmArgs: {}, ...episodeFields() };
    const withTools = getUserDefinition("user_simulator").create({ ...base, tools: TOOLS }) as UserSimulator;
    const withoutTools = getUserDefinition("user_simulator").create({ ...base, tools: [] }) as UserSimulator;
    const toolsText = readFileSync(join(guidelinesDir, "simulation_guidelines_tools.md"), "utf8");
    const plainText = readFileSync(join(guidelinesDir, "simulation_guidelines.md"), "utf8");
    const scenario = renderUserScenario(task().user_scenario);
    expect(withTools.systemPrompt).toBe(userSystemPrompt(toolsText, scenario));
    expect(withoutTools.systemPrompt).toBe(`${plainText}\n\n<scenario>\n${scenario}\n</scenario>`);
    // The file ends with a newline, so two empty lines separate it from <scenario>.
    expect(withTools.systemPrompt).toContain(`${toolsText.trimEnd()}\n\n\n<scenario>\nPersona:\n\t`);
    expect(withoutTools.tools).toBeNull();
    expect(() => getUserDefinition("user_simulator").create({ ...base, llm: null, tools: null })).toThrow(
      /needs a model/,
    );
  });

  it("names the missing guideline file", () => {
    const llm = new ScriptedLlmClient([]);
    expect(() =>
      getUserDefinition("user_simulator").create({
        domainName: "mock",
        task: task(),
        guidelinesDir: "/nonexistent",
        llm,
        llmArgs: {},
        tools: null,
        ...episodeFields(),
      }),
    ).toThrow(/simulation_guidelines\.md/);
  });
});
