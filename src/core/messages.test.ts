import { describe, expect, it } from "vitest";
import { AssistantMessage, assistantMessage, type ToolCall, UserMessage, userMessage } from "./messages.ts";
import { PyFloat } from "./py-json.ts";

/** Fields as participants pass them, including shapes the schema coerces or rejects. */
const cases: Record<string, unknown>[] = [
  {},
  { content: "hi" },
  { content: null, tool_calls: null, timestamp: null, cost: null, usage: null, raw_data: null },
  {
    content: "Done.",
    timestamp: "2026-01-01T00:00:00.000000",
    cost: 0.0012,
    usage: { prompt_tokens: 5, completion_tokens: new PyFloat(2), reasoning_tokens: 1, extra: "kept" },
    raw_data: { id: "x", choices: [{ index: 0 }] },
    generation_time_seconds: 0.25,
  },
  {
    tool_calls: [
      { id: "c1", name: "get_user", arguments: { user_id: "u", n: new PyFloat(1) } },
      { name: "t" },
    ],
    cost: new PyFloat(0),
    turn_idx: 3,
    generation_time_seconds: null,
  },
  { tool_calls: [], generation_time_seconds: undefined },
  { generation_time_seconds: new PyFloat(2) },
  // Shapes only the schema decides about: it coerces, strips or throws, and so must the builder.
  { content: 5 },
  { cost: Number.NaN },
  { cost: "1" },
  { generation_time_seconds: Number.POSITIVE_INFINITY },
  { tool_calls: [{ id: 1, name: "x" }] },
  { tool_calls: "x" },
  { usage: { prompt_tokens: "many" } },
  { timestamp: 0 },
  { is_audio: true, content: "stripped key" },
  { role: "user", content: "role in the fields" },
  // Tool calls and usage of other shapes.
  { tool_calls: [{ name: "n", arguments: { a: [1, { b: null }] }, requestor: "user", extra: 1 }] },
  { tool_calls: [{ name: "n", requestor: "someone" }] },
  { tool_calls: [{ name: "n", arguments: [1] }] },
  { tool_calls: [{ name: "n", arguments: JSON.parse('{"__proto__": {"x": 1}, "y": 2}') }] },
  { tool_calls: [{ id: undefined, name: "n", arguments: undefined, requestor: undefined }] },
  { tool_calls: [null] },
  {
    usage: {
      extra: "first",
      prompt_tokens: 2,
      cache_read_tokens: undefined,
      reasoning_tokens: new PyFloat(3),
    },
  },
  { usage: { completion_tokens: undefined, prompt_tokens: null } },
  { usage: { cache_write_tokens: Number.NaN } },
  { usage: { cache_write_tokens: 4, nested: { a: 1 } } },
  { usage: [1] },
  { usage: "x" },
];

function outcome(build: () => unknown): { value?: unknown; order?: string; error?: string } {
  try {
    const value = build();
    // JSON.stringify keeps insertion order, nested objects' too (toStrictEqual does not look at it).
    return { value, order: JSON.stringify(value) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

describe("participant message builders", () => {
  it("make what the message schemas parse, key order and defaults included", () => {
    for (const fields of cases) {
      const label = JSON.stringify(fields);
      expect(
        outcome(() => assistantMessage(fields)),
        label,
      ).toStrictEqual(outcome(() => AssistantMessage.parse({ role: "assistant", ...fields })));
      expect(
        outcome(() => userMessage(fields)),
        label,
      ).toStrictEqual(outcome(() => UserMessage.parse({ role: "user", ...fields })));
    }
  });

  it("copies the tool calls and their arguments", () => {
    const call = { id: "c", name: "n", arguments: { a: 1 } };
    const message = assistantMessage({ tool_calls: [call as unknown as ToolCall] });
    expect(message.tool_calls![0]).not.toBe(call);
    expect(message.tool_calls![0]!.arguments).not.toBe(call.arguments);
    expect(message.tool_calls![0]).toStrictEqual({ ...call, requestor: "assistant" });
  });
});
