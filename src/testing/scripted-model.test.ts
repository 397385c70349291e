import { describe, expect, it } from "vitest";
import { ScriptExhaustedError, ScriptedLlmClient } from "./scripted-model.ts";

const ask = { messages: [{ role: "user" as const, content: "hi" }] };

describe("ScriptedLlmClient", () => {
  it("answers from its queue, then says it ran out", async () => {
    const client = new ScriptedLlmClient([{ content: "one" }]);
    expect((await client.generate(ask)).content).toBe("one");
    await expect(client.generate(ask)).rejects.toBeInstanceOf(ScriptExhaustedError);
  });

  it.each([
    [null, "ScriptedLlmClient takes an array of scripted steps or a responder function, got null"],
    [
      [{ contnet: "hi" }],
      "ScriptedLlmClient (scripted/model) step 1: unknown field contnet (a step has content, toolCalls,",
    ],
    [
      [{ content: "ok" }, { content: 5 }],
      "ScriptedLlmClient (scripted/model) step 2: content must be a string or null, got number",
    ],
    [["hello"], "step 1: a scripted step is a partial response or an Error, got string"],
  ])("refuses a script %j with one line when it is made", (script, message) => {
    expect(() => new ScriptedLlmClient(script as never)).toThrow(message);
  });

  it("checks what a responder returns, call by call", async () => {
    const client = new ScriptedLlmClient(() => ({ text: "hi" }) as never, { model: "scripted/r" });
    await expect(client.generate(ask)).rejects.toThrow(
      "ScriptedLlmClient (scripted/r) call 1: unknown field text",
    );
  });
});
