import { describe, expect, it } from "vitest";
import { UsageError } from "../core/errors.ts";
import { aiSdkAgent } from "./ai-sdk-agent.ts";

describe("aiSdkAgent", () => {
  it.each([
    [undefined, 'aiSdkAgent takes an options object such as { model: openai("gpt-4.1") }'],
    [
      { model: "openai/gpt-4.1" },
      'aiSdkAgent: pass a model object such as openai("gpt-4.1"), not the string "openai/gpt-4.1"',
    ],
    [{ model: {} }, "aiSdkAgent: not an AI SDK language model (it has no doGenerate)"],
  ])("refuses %j with one line", (options, message) => {
    expect(() => aiSdkAgent(options as never)).toThrow(UsageError);
    expect(() => aiSdkAgent(options as never)).toThrow(message);
  });
});
