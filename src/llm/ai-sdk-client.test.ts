import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { UsageError } from "../core/errors.ts";
import { PyFloat } from "../core/py-json.ts";
import type { ToolSchema } from "../env/toolkit.ts";
import { type FakeProvider, startFakeProvider } from "../testing/fake-provider.ts";
import { aiSdkModelName, createAiSdkClient } from "./ai-sdk-client.ts";
import type { LlmEvent } from "./events.ts";
import { LlmError } from "./errors.ts";
import { keepRawResponses } from "./provider-client.ts";

const TOOL: ToolSchema = {
  type: "function",
  function: {
    name: "refund",
    description: "Refund an amount.",
    parameters: {
      properties: { amount: { title: "Amount", type: "number" } },
      required: ["amount"],
      title: "parameters",
      type: "object",
    },
  },
};
const ASK = { messages: [{ role: "user" as const, content: "Refund 2 dollars." }], tools: [TOOL] };

let fake: FakeProvider;
let events: LlmEvent[];
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  events = [];
});

const openaiModel = () => createOpenAI({ baseURL: fake.openaiBaseUrl, apiKey: "sk-user" }).chat("gpt-4.1");

describe("createAiSdkClient", () => {
  it("keeps a float written as 2.0 in OpenAI tool-call arguments and prices the call like our own clients", async () => {
    fake.push({
      toolCalls: [{ name: "refund", arguments: '{"amount": 2.0}' }],
      usage: { input: 1000, output: 10, cacheRead: 800 },
    });
    const llm = createAiSdkClient(openaiModel(), { onEvent: (event) => events.push(event) });
    const response = await llm.generate({ ...ASK, args: { temperature: new PyFloat(0) }, callName: "agent" });
    expect(llm.model).toBe("openai/gpt-4.1");
    expect(response.toolCalls![0]!.arguments.amount).toEqual(new PyFloat(2));
    expect(fake.requests[0]!.headers.authorization).toBe("Bearer sk-user");
    expect(fake.requests[0]!.body.temperature).toBe(0);
    expect(response.usage).toEqual({ prompt_tokens: 1000, completion_tokens: 10, cache_read_tokens: 800 });
    // gpt-4.1: 2 $/M input, 0.5 $/M cached, 8 $/M output.
    expect(response.costUsd).toBeCloseTo((200 * 2 + 800 * 0.5 + 10 * 8) / 1e6, 12);
    expect(events.find((event) => event.type === "call")).toMatchObject({
      model: "openai/gpt-4.1",
      callName: "agent",
      costUsd: response.costUsd,
    });
  });

  it("reads Anthropic's object arguments from the raw body when the provider was given keepRawResponses", async () => {
    const raw = createAnthropic({ baseURL: fake.anthropicBaseUrl, apiKey: "ak", fetch: keepRawResponses() });
    fake.push({ toolCalls: [{ id: "toolu_1", name: "refund", arguments: '{"amount": 2.0}' }] });
    const kept = await createAiSdkClient(raw("claude-sonnet-4-5")).generate(ASK);
    expect(kept.toolCalls![0]!.arguments.amount).toEqual(new PyFloat(2));
    expect(kept.costUsd).not.toBeNull();
    // Without it the SDK re-serializes the object, and an integral float arrives as an int.
    const plain = createAnthropic({ baseURL: fake.anthropicBaseUrl, apiKey: "ak" });
    fake.push({ toolCalls: [{ id: "toolu_2", name: "refund", arguments: '{"amount": 2.0}' }] });
    const lost = await createAiSdkClient(plain("claude-sonnet-4-5")).generate(ASK);
    expect(lost.toolCalls![0]!.arguments.amount).toBe(2);
  });

  it("sends an OpenAI-compatible provider's options under its own name, and names it for results", async () => {
    const model = createOpenAICompatible({ name: "acme", baseURL: fake.openaiBaseUrl }).chatModel("m-1");
    expect(aiSdkModelName(model)).toBe("acme/m-1");
    fake.push({ text: "hello" });
    const response = await createAiSdkClient(model).generate({ ...ASK, args: { min_p: 0.1 } });
    expect(response.content).toBe("hello");
    expect(fake.requests[0]!.body.min_p).toBe(0.1);
    expect(response.costUsd).toBeNull();
    const priced = createAiSdkClient(model, { price: { input: 1, output: 2 } });
    fake.push({ text: "hello", usage: { input: 1_000_000, output: 0 } });
    expect((await priced.generate(ASK)).costUsd).toBe(1);
  });

  it("retries 5xx and classifies a 401 as a run-stopping auth error", async () => {
    fake.push({ kind: "error", status: 500 }, { text: "ok" });
    const llm = createAiSdkClient(openaiModel(), { retry: { initialDelayMs: 1, maxDelayMs: 2 } });
    expect((await llm.generate(ASK)).content).toBe("ok");
    fake.push({ kind: "error", status: 401, message: "bad key" });
    const denied = await llm.generate(ASK).catch((error: unknown) => error);
    expect(denied).toBeInstanceOf(LlmError);
    expect(denied).toMatchObject({ kind: "auth", statusCode: 401, stopsRun: true });
  });

  it("classifies a model that finds no API key when called as a run-stopping auth error, sending nothing", async () => {
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      // The SDK reads its key when called, not when built.
      const llm = createAiSdkClient(createOpenAI({ baseURL: fake.openaiBaseUrl }).chat("gpt-4.1"));
      const missing = await llm.generate(ASK).catch((error: unknown) => error);
      expect(missing).toBeInstanceOf(LlmError);
      expect(missing).toMatchObject({ kind: "auth", stopsRun: true });
      expect((missing as LlmError).message).toMatch(/^openai\/gpt-4\.1: OpenAI API key is missing\./);
      expect(fake.requests).toHaveLength(0);
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
  });

  it("refuses what is not an AI SDK 6 model with one line", () => {
    expect(() => createAiSdkClient("openai/gpt-4.1" as never)).toThrow(UsageError);
    expect(() => createAiSdkClient("gpt-4.1" as never)).toThrow(
      /pass a model object such as openai\("gpt-4.1"\)/,
    );
    const v2 = { specificationVersion: "v2", provider: "x", modelId: "y", doGenerate: () => {} };
    expect(() => createAiSdkClient(v2 as never)).toThrow(/specification v2; taubench needs v3/);
  });
});
