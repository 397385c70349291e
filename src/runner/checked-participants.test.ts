import { describe, expect, it } from "vitest";
import type { Agent } from "../agents/types.ts";
import { checkedAgent } from "./checked-participants.ts";

/** An agent whose generate resolves to `out`, whatever it is. */
const returning = (out: unknown): Agent =>
  ({
    name: "odd",
    initState: () => 0,
    isStop: () => false,
    generate: async () => out,
  }) as unknown as Agent;

describe("checkedAgent", () => {
  it.each([
    ["a string", "hello", "odd: generate returned a string; it must return { message, state }"],
    ["undefined", undefined, "odd: generate returned undefined; it must return { message, state }"],
    ["null", null, "odd: generate returned null; it must return { message, state }"],
    [
      "the message itself",
      { role: "assistant", content: "hi" },
      "odd: generate returned a message; it must return { message, state }",
    ],
    [
      "a message of the wrong shape",
      { message: { role: "assistant", content: 3 }, state: 0 },
      "odd: returned an invalid message (content:",
    ],
  ])("names what generate returned when it is %s", async (_what, out, message) => {
    await expect(checkedAgent(returning(out), "odd").generate(null, 0)).rejects.toThrow(message);
  });

  it("completes a minimal message and passes the state through", async () => {
    const result = await checkedAgent(
      returning({ message: { role: "assistant", content: "hi" }, state: 7 }),
      "odd",
    ).generate(null, 0);
    expect(result.state).toBe(7);
    expect(result.message).toMatchObject({ role: "assistant", content: "hi", tool_calls: null });
  });
});
