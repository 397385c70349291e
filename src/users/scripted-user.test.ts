import { describe, expect, it } from "vitest";
import { assistantMessage, type ToolMessage, userMessage } from "../core/messages.ts";
import { PyFloat } from "../core/py-json.ts";
import { Task } from "../core/task.ts";
import { isUserStop } from "./types.ts";
import { parseUserActionRequest, REPLAY_CLOSING } from "../core/offline-protocol.ts";
import { NEUTRAL_REPLY, ScriptedUser } from "./scripted-user.ts";

const structured = Task.parse({
  id: "t",
  user_scenario: {
    persona: "Calm",
    instructions: {
      domain: "telecom",
      reason_for_call: "My mobile data does not work.",
      task_instructions: "Follow the agent.",
    },
  },
});
const say = (content: string) => assistantMessage({ content });

describe("scripted user", () => {
  it("opens with the reason for call, performs requested actions, reports results, stops on the closing", async () => {
    const user = new ScriptedUser(structured);
    let state = user.initState([say("Hi! How can I help you today?")]);
    const opening = await user.generate(say("Hi! How can I help you today?"), state);
    expect(opening.message.content).toBe("My mobile data does not work.");
    expect(opening.message.tool_calls).toBeNull();
    state = opening.state;

    const request = await user.generate(
      say('Please perform this action on your device: set_level({"level": 2.0})'),
      state,
    );
    expect(request.message.content).toBeNull();
    expect(request.message.tool_calls).toEqual([
      { id: "scripted_user_1", name: "set_level", arguments: { level: new PyFloat(2) }, requestor: "user" },
    ]);
    expect(isUserStop(request.message)).toBe(false);
    state = request.state;

    const result: ToolMessage = {
      role: "tool",
      id: "scripted_user_1",
      content: "Level set.",
      requestor: "user",
      error: false,
      turn_idx: null,
      timestamp: null,
    };
    const reply = await user.generate(result, state);
    expect(reply.message.content).toBe("Done. Here is what I see: Level set.");
    const failed = await user.generate({ ...result, error: true, content: "Error: no" }, state);
    expect(failed.message.content).toBe("I tried, but it did not work: Error: no");

    const neutral = await user.generate(say("Anything else?"), reply.state);
    expect(neutral.message.content).toBe(NEUTRAL_REPLY);
    expect(isUserStop(neutral.message)).toBe(false);

    const stop = await user.generate(say(REPLAY_CLOSING), neutral.state);
    expect(isUserStop(stop.message)).toBe(true);
    expect(stop.message.cost).toBe(0);
  });

  it("uses plain-string instructions as the opening and knows when history already has user turns", async () => {
    const plain = Task.parse({ id: "p", user_scenario: { instructions: "Create a task called X." } });
    const user = new ScriptedUser(plain);
    const fresh = await user.generate(say("Hello"), user.initState([]));
    expect(fresh.message.content).toBe("Create a task called X.");
    const resumed = user.initState([say("Hello"), userMessage({ content: "earlier" })]);
    expect(resumed.opened).toBe(true);
    expect((await user.generate(say("Hello again"), resumed)).message.content).toBe(NEUTRAL_REPLY);
  });

  it("ignores malformed requests", () => {
    expect(parseUserActionRequest("Please perform this action on your device: f(1, 2)")).toBeNull();
    expect(parseUserActionRequest("Please perform this action on your device: f")).toBeNull();
    expect(parseUserActionRequest("Please perform this action on your device: reboot_device()")).toEqual({
      name: "reboot_device",
      arguments: {},
    });
  });
});
