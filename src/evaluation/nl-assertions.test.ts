import { describe, expect, it } from "vitest";
import { assistantMessage, type Message, userMessage } from "../core/messages.ts";
import type { LlmClient, LlmRequest, LlmResponse } from "../llm/types.ts";
import {
  createLlmJudge,
  judgeSystemPrompt,
  judgeUserPrompt,
  NlJudgeReplyError,
  parseJudgeReply,
} from "./nl-assertions.ts";

/** A minimal scripted model: answers from a list and records every request. */
class ListModel implements LlmClient {
  readonly model = "scripted/judge";
  readonly requests: LlmRequest[] = [];
  constructor(private readonly replies: (string | null)[]) {}
  async generate(request: LlmRequest): Promise<LlmResponse> {
    this.requests.push(request);
    const content = this.replies.shift();
    if (content === undefined) throw new Error("no scripted reply left");
    return { content, toolCalls: null, usage: { prompt_tokens: 1, completion_tokens: 1 }, costUsd: 0 };
  }
}

const trajectory: Message[] = [
  assistantMessage({ content: "Hi! How can I help you today?", cost: 0 }),
  userMessage({ content: "Create 'Important Meeting'\nplease" }),
  assistantMessage({
    tool_calls: [{ id: "c1", name: "create_task", arguments: {}, requestor: "assistant" }],
  }),
  {
    role: "tool",
    id: "c1",
    content: '{"task_id": "task_2"}',
    requestor: "assistant",
    error: false,
    turn_idx: null,
    timestamp: null,
  },
  assistantMessage({ content: "Done." }),
];

describe("NL assertion judge prompts (P14)", () => {
  it("renders every message as role: content, None for tool calls, and the assertions as a Python list", () => {
    const prompt = judgeUserPrompt(trajectory, [
      "The task is created",
      "The agent said 'done'",
      'He said "hi"',
    ]);
    expect(prompt).toBe(
      "\n        conversation:\n" +
        "        assistant: Hi! How can I help you today?\n" +
        "user: Create 'Important Meeting'\nplease\n" +
        "assistant: None\n" +
        'tool: {"task_id": "task_2"}\n' +
        "assistant: Done.\n" +
        "        \n" +
        "        expectedOutcomes:\n" +
        `        ['The task is created', "The agent said 'done'", 'He said "hi"']\n` +
        "        ",
    );
  });

  it("keeps upstream's TASK / FORMAT layout and reply shape in the system prompt", () => {
    const system = judgeSystemPrompt();
    expect(system.startsWith("\n        TASK\n")).toBe(true);
    expect(system.indexOf("TASK")).toBeLessThan(system.indexOf("FORMAT"));
    for (const key of ['"results"', '"expectedOutcome"', '"reasoning"', '"metExpectation"']) {
      expect(system).toContain(key);
    }
  });
});

describe("parsing the judge's reply", () => {
  it("maps results to checks and accepts pydantic's lax booleans", () => {
    const reply = JSON.stringify({
      results: [
        { expectedOutcome: "A", reasoning: "yes", metExpectation: true },
        { expectedOutcome: "B", reasoning: "no", metExpectation: "false" },
        { expectedOutcome: "C", reasoning: "one", metExpectation: 1 },
      ],
    });
    expect(parseJudgeReply(reply)).toEqual([
      { nl_assertion: "A", met: true, justification: "yes" },
      { nl_assertion: "B", met: false, justification: "no" },
      { nl_assertion: "C", met: true, justification: "one" },
    ]);
  });

  it("treats a missing or empty results list as no checks", () => {
    expect(parseJudgeReply('{"results": []}')).toEqual([]);
    expect(parseJudgeReply("  {}  ")).toEqual([]);
  });

  it("rejects fences, prose, non-objects and malformed entries", () => {
    const bad = [
      '```json\n{"results": []}\n```',
      'Here you go: {"results": []}',
      "[]",
      null,
      '{"results": {"a": 1}}',
      '{"results": [{"expectedOutcome": "A", "metExpectation": true}]}',
      '{"results": [{"expectedOutcome": "A", "reasoning": "r", "metExpectation": "maybe"}]}',
    ];
    for (const reply of bad) expect(() => parseJudgeReply(reply), String(reply)).toThrow(NlJudgeReplyError);
  });
});

describe("createLlmJudge", () => {
  it("makes one call with system + user prompt at temperature 0 and returns the checks", async () => {
    const model = new ListModel([
      '{"results": [{"expectedOutcome": "X", "reasoning": "r1", "metExpectation": true}, {"expectedOutcome": "Y", "reasoning": "r2", "metExpectation": false}]}',
    ]);
    const judge = createLlmJudge(model);
    const checks = await judge.evaluate(trajectory, ["X", "Y"]);
    expect(checks.map((c) => c.met)).toEqual([true, false]);
    expect(model.requests).toHaveLength(1);
    const request = model.requests[0]!;
    expect(request.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(request.messages[1]).toEqual({ role: "user", content: judgeUserPrompt(trajectory, ["X", "Y"]) });
    expect(request.args).toEqual({ temperature: 0 });
    expect(request.callName).toBe("nl_assertions_eval");
    expect(request.tools).toBeUndefined();
  });

  it("uses the given arguments instead of the defaults, and surfaces a bad reply as an infrastructure error", async () => {
    const model = new ListModel(["not json"]);
    const judge = createLlmJudge(model, { temperature: 0.5, seed: 7 });
    await expect(judge.evaluate(trajectory, ["X"])).rejects.toBeInstanceOf(NlJudgeReplyError);
    expect(model.requests[0]?.args).toEqual({ temperature: 0.5, seed: 7 });
  });
});
