import { describe, expect, it } from "vitest";
import { type AssistantMessage, userMessage } from "../core/messages.ts";
import { PyFloat } from "../core/py-json.ts";
import { Task } from "../core/task.ts";
import { SOLO_STOP_TOKEN } from "./llm-agent.ts";
import { parseUserActionRequest, REPLAY_CLOSING, userActionRequest } from "../core/offline-protocol.ts";
import { ReplayAgent, replayPlan } from "./replay-agent.ts";

const task = Task.parse({
  id: "t",
  user_scenario: { instructions: "x" },
  evaluation_criteria: {
    actions: [
      { action_id: "1", name: "get_customer", arguments: { phone: "555" } },
      { action_id: "2", requestor: "user", name: "toggle_airplane_mode", arguments: {} },
      {
        action_id: "3",
        requestor: "user",
        name: "set_level",
        arguments: { level: new PyFloat(2), name: "é" },
      },
      { action_id: "4", name: "refuel_data", arguments: { gb: 2.5 } },
    ],
    communicate_info: ["42", "Your plan is active"],
  },
});

async function run(agent: ReplayAgent, turns: number): Promise<AssistantMessage[]> {
  let state = agent.initState([]);
  const out: AssistantMessage[] = [];
  for (let i = 0; i < turns; i++) {
    const result = await agent.generate(
      i === 0 && agent.name === "replay_solo" ? null : userMessage({ content: "ok" }),
      state,
    );
    out.push(result.message);
    state = result.state;
  }
  return out;
}

describe("user action requests", () => {
  it("round-trip names and JSON arguments, floats included", () => {
    expect(userActionRequest({ name: "toggle_airplane_mode", arguments: {} })).toBe(
      "Please perform this action on your device: toggle_airplane_mode()",
    );
    const text = userActionRequest({ name: "set_level", arguments: { level: new PyFloat(2), name: "é" } });
    expect(text).toBe(
      'Please perform this action on your device: set_level({"level": 2.0, "name": "\\u00e9"})',
    );
    const parsed = parseUserActionRequest(text)!;
    expect(parsed.name).toBe("set_level");
    expect(parsed.arguments.level).toBeInstanceOf(PyFloat);
    expect(parsed.arguments.name).toBe("é");
    expect(parseUserActionRequest("Please toggle airplane mode")).toBeNull();
    expect(parseUserActionRequest("Please perform this action on your device: f(not json)")).toBeNull();
    expect(parseUserActionRequest("Please perform this action on your device: f(2.0)")).toBeNull();
    expect(parseUserActionRequest("Please perform this action on your device: f([1])")).toBeNull();
  });
});

describe("replay agent", () => {
  it("calls assistant actions, asks for user actions, states the info, then closes (repeating)", async () => {
    const agent = new ReplayAgent(task, { solo: false });
    const messages = await run(agent, 8);
    expect(messages[0]!.tool_calls).toEqual([
      { id: "replay_0", name: "get_customer", arguments: { phone: "555" }, requestor: "assistant" },
    ]);
    expect(messages[0]!.content).toBeNull();
    expect(messages[1]!.content).toBe("Please perform this action on your device: toggle_airplane_mode()");
    expect(messages[1]!.tool_calls).toBeNull();
    expect(messages[2]!.content).toBe(
      'Please perform this action on your device: set_level({"level": 2.0, "name": "\\u00e9"})',
    );
    expect(messages[3]!.tool_calls![0]).toMatchObject({ name: "refuel_data", arguments: { gb: 2.5 } });
    expect(messages.slice(4).map((m) => m.content)).toEqual([
      "42",
      "Your plan is active",
      REPLAY_CLOSING,
      REPLAY_CLOSING,
    ]);
    expect(messages.every((m) => m.cost === 0 && !agent.isStop(m))).toBe(true);
    // The calls carry copies: changing one does not change the task.
    (messages[0]!.tool_calls![0]!.arguments as { phone: string }).phone = "changed";
    expect(task.evaluation_criteria!.actions![0]!.arguments.phone).toBe("555");
  });

  it("in solo mode calls every action itself, then stops", async () => {
    const agent = new ReplayAgent(task, { solo: true });
    expect(replayPlan(task, true).map((step) => step.kind)).toEqual(["call", "call", "call", "call", "done"]);
    const messages = await run(agent, 5);
    expect(messages.slice(0, 4).map((m) => m.tool_calls![0]!.name)).toEqual([
      "get_customer",
      "toggle_airplane_mode",
      "set_level",
      "refuel_data",
    ]);
    expect(messages.slice(0, 4).every((m) => m.tool_calls![0]!.requestor === "assistant")).toBe(true);
    expect(messages[4]!.content).toBe(SOLO_STOP_TOKEN);
    expect(messages[4]!.tool_calls).toBeNull();
    expect(agent.isStop(messages[4]!)).toBe(true);
    expect(agent.isStop(messages[0]!)).toBe(false);
  });

  it("with no expected actions just closes", async () => {
    const empty = Task.parse({ id: "e", user_scenario: { instructions: "x" } });
    const messages = await run(new ReplayAgent(empty, { solo: false }), 1);
    expect(messages[0]!.content).toBe(REPLAY_CLOSING);
  });
});
