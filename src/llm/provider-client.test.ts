import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PyFloat } from "../core/py-json.ts";
import type { ToolSchema } from "../env/toolkit.ts";
import { type FakeProvider, startFakeProvider } from "../testing/fake-provider.ts";
import {
  createLlmClient,
  type LlmClientOptions,
  LlmError,
  type LlmEvent,
  MissingApiKeyError,
} from "./index.ts";
import type { LlmMessage } from "./types.ts";

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
const tempCacheDir = () => mkdtempSync(join(tmpdir(), "tau-endpoint-cache-"));
const KEYS = { OPENAI_API_KEY: "sk-test", ANTHROPIC_API_KEY: "ak-test", GEMINI_API_KEY: "gk-test" };
const FAST_RETRY = { initialDelayMs: 1, maxDelayMs: 5, maxRetryAfterMs: 50 };

let fake: FakeProvider;
let events: LlmEvent[];
beforeAll(async () => {
  fake = await startFakeProvider({ minCacheTokens: 50 });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  events = [];
});

/** Headers of taubench's own that reached the provider (none should). */
const ownHeaders = (headers: Record<string, unknown>) =>
  Object.keys(headers).filter((name) => name.startsWith("x-taubench"));

function client(model: string, options: LlmClientOptions = {}) {
  const provider = model.split("/")[0];
  const baseUrl =
    provider === "anthropic"
      ? fake.anthropicBaseUrl
      : provider === "google"
        ? fake.googleBaseUrl
        : fake.openaiBaseUrl;
  return createLlmClient(model, {
    baseUrl,
    env: KEYS,
    retry: FAST_RETRY,
    onEvent: (e) => events.push(e),
    ...options,
  });
}

const conversation: LlmMessage[] = [
  { role: "system", content: "You are a refund agent." },
  { role: "user", content: "Refund 2 dollars." },
  {
    role: "assistant",
    content: null,
    toolCalls: [
      { id: "call_1", name: "refund", arguments: { amount: new PyFloat(2) }, requestor: "assistant" },
    ],
  },
  { role: "tool", content: "ok", toolCallId: "call_1" },
];

describe("openai adapter (Chat Completions)", () => {
  it("sends upstream's message shape and keeps float tool arguments", async () => {
    fake.push({
      toolCalls: [{ id: "call_2", name: "refund", arguments: '{"amount": 3.0, "note": "x"}' }],
      usage: { input: 1000, output: 10, cacheRead: 800 },
    });
    const llm = client("openai/gpt-4.1-2025-04-14");
    const response = await llm.generate({
      messages: conversation,
      tools: [TOOL],
      args: { temperature: 0, seed: 626729, bogus: 1 },
      callName: "agent",
    });
    const body = fake.requests[0]!.body;
    expect(fake.requests[0]!.headers.authorization).toBe("Bearer sk-test");
    expect(ownHeaders(fake.requests[0]!.headers)).toEqual([]);
    expect(body.model).toBe("gpt-4.1-2025-04-14");
    expect(body.temperature).toBe(0);
    expect(body.seed).toBe(626729);
    expect(body.bogus).toBeUndefined();
    expect(body.tool_choice).toBe("auto");
    expect(body.tools[0].function.parameters.title).toBe("parameters");
    expect(body.messages[0]).toEqual({ role: "system", content: "You are a refund agent." });
    // Exactly Python's json.dumps of the arguments, as upstream sends it.
    expect(body.messages[2].tool_calls[0].function.arguments).toBe('{"amount": 2.0}');
    expect(body.messages[3]).toEqual({ role: "tool", tool_call_id: "call_1", content: "ok" });
    expect(response.toolCalls).toHaveLength(1);
    const args = response.toolCalls![0]!.arguments;
    expect(args.amount).toBeInstanceOf(PyFloat);
    expect(args.note).toBe("x");
    expect(response.usage).toEqual({ prompt_tokens: 1000, completion_tokens: 10, cache_read_tokens: 800 });
    // gpt-4.1: 2 $/M input, 0.5 $/M cached, 8 $/M output.
    expect(response.costUsd).toBeCloseTo((200 * 2 + 800 * 0.5 + 10 * 8) / 1e6, 12);
    const call = events.find((e) => e.type === "call");
    expect(call).toMatchObject({ type: "call", callName: "agent", attempts: 1, cached: false });
    const debug = events.find((e) => e.type === "debug");
    expect(debug && debug.type === "debug" ? debug.message : "").toContain("bogus");
  });

  it("maps reasoning_effort and max_tokens for reasoning models", async () => {
    fake.push({ text: "hi" });
    await client("openai/o4-mini").generate({
      messages: [{ role: "user", content: "hi" }],
      args: { reasoning_effort: "low", max_tokens: 100 },
    });
    const body = fake.requests[0]!.body;
    expect(body.reasoning_effort).toBe("low");
    expect(body.max_completion_tokens).toBe(100);
  });

  it("reports an unknown model's cost as null, never 0", async () => {
    fake.push({ text: "hi" });
    const response = await client("openai/gpt-unknown-9").generate({
      messages: [{ role: "user", content: "hi" }],
    });
    expect(response.costUsd).toBeNull();
    expect(response.content).toBe("hi");
  });
});

describe("anthropic adapter", () => {
  it("puts cache breakpoints on tools, system and the last message; keeps floats from the raw body", async () => {
    fake.push({ toolCalls: [{ id: "toolu_1", name: "refund", arguments: '{"amount": 5.0}' }] });
    const response = await client("anthropic/claude-sonnet-4-5").generate({
      messages: conversation,
      tools: [TOOL],
    });
    const body = fake.requests[0]!.body;
    expect(fake.requests[0]!.headers["x-api-key"]).toBe("ak-test");
    // The header that names the call's raw-reply capture stays in this process.
    expect(ownHeaders(fake.requests[0]!.headers)).toEqual([]);
    expect(body.tools.at(-1).cache_control).toEqual({ type: "ephemeral" });
    expect(body.system[0].cache_control).toEqual({ type: "ephemeral" });
    const lastMessage = body.messages.at(-1);
    expect(lastMessage.content.at(-1).type).toBe("tool_result");
    expect(lastMessage.content.at(-1).cache_control).toEqual({ type: "ephemeral" });
    expect(body.messages[1].content[0]).toMatchObject({
      type: "tool_use",
      id: "call_1",
      input: { amount: 2 },
    });
    expect(response.toolCalls![0]!.arguments.amount).toBeInstanceOf(PyFloat);
  });

  it("opens with a placeholder user turn when the context starts with the assistant greeting", async () => {
    fake.push({ text: "ok" });
    await client("anthropic/claude-sonnet-4-5").generate({
      messages: [
        { role: "system", content: "policy" },
        { role: "assistant", content: "Hi! How can I help you today?" },
        { role: "user", content: "I need a refund." },
      ],
    });
    const messages = fake.requests[0]!.body.messages;
    expect(messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(messages[0].content[0].text).toBe(".");
  });

  it("sends no breakpoints with promptCache off", async () => {
    fake.push({ text: "ok" });
    await client("anthropic/claude-sonnet-4-5", { promptCache: false }).generate({
      messages: conversation,
      tools: [TOOL],
    });
    expect(JSON.stringify(fake.requests[0]!.body)).not.toContain("cache_control");
  });

  it("reports cache usage and prices cache reads and writes", async () => {
    fake.push({ text: "ok", usage: { input: 100, output: 20, cacheRead: 1000, cacheWrite: 400 } });
    const response = await client("anthropic/claude-sonnet-4-5").generate({ messages: conversation });
    expect(response.usage).toEqual({
      prompt_tokens: 1500,
      completion_tokens: 20,
      cache_read_tokens: 1000,
      cache_write_tokens: 400,
    });
    // Sonnet: 3 $/M input, 0.3 read, 3.75 write, 15 output.
    expect(response.costUsd).toBeCloseTo((100 * 3 + 1000 * 0.3 + 400 * 3.75 + 20 * 15) / 1e6, 12);
  });

  it("carries thinking blocks (with signature) into the next turn", async () => {
    fake.push({
      reasoning: "Let me think.",
      toolCalls: [{ id: "toolu_9", name: "refund", arguments: { amount: 1 } }],
    });
    const llm = client("anthropic/claude-sonnet-4-5");
    const first = await llm.generate({ messages: [{ role: "user", content: "refund 1" }], tools: [TOOL] });
    expect(first.reasoning).toBeDefined();
    fake.push({ text: "done" });
    await llm.generate({
      messages: [
        { role: "user", content: "refund 1" },
        { role: "assistant", content: first.content, toolCalls: first.toolCalls, reasoning: first.reasoning },
        { role: "tool", content: "ok", toolCallId: "toolu_9" },
      ],
      tools: [TOOL],
    });
    const assistant = fake.requests[1]!.body.messages[1];
    expect(assistant.content[0]).toMatchObject({ type: "thinking", thinking: "Let me think." });
    expect(assistant.content[0].signature).toMatch(/^sig-/);
    expect(assistant.content[1]).toMatchObject({ type: "tool_use", id: "toolu_9" });
  });

  it("drops seed (unsupported) and says so", async () => {
    fake.push({ text: "ok" });
    await client("anthropic/claude-sonnet-4-5").generate({
      messages: [{ role: "user", content: "x" }],
      args: { seed: 3, temperature: 0 },
    });
    expect(fake.requests[0]!.body.seed).toBeUndefined();
    expect(fake.requests[0]!.body.temperature).toBe(0);
    expect(events.some((e) => e.type === "debug" && e.message.includes("seed"))).toBe(true);
  });
});

describe("local (OpenAI-compatible) adapter", () => {
  it("needs no key, passes server-specific args through and returns reasoning_content", async () => {
    fake.push({ text: "hello", reasoning: "thinking..." });
    const llm = createLlmClient("local/qwen3:8b", {
      env: { TAU_LLM_BASE_URL: fake.openaiBaseUrl },
      retry: FAST_RETRY,
    });
    const response = await llm.generate({
      messages: [{ role: "user", content: "hi" }],
      args: { temperature: 0.5, seed: 1, min_p: 0.1 },
    });
    const request = fake.requests[0]!;
    expect(request.body.model).toBe("qwen3:8b");
    expect(request.body.min_p).toBe(0.1);
    expect(request.body.seed).toBe(1);
    expect(request.headers.authorization).toBeUndefined();
    expect(response.content).toBe("hello");
    expect(response.reasoning).toMatchObject({ provider: "local" });
    expect(response.costUsd).toBeNull();
  });
});

describe("google adapter", () => {
  it("calls generateContent with GEMINI_API_KEY and keeps floats from the raw body", async () => {
    fake.push({
      toolCalls: [{ name: "refund", arguments: '{"amount": 7.0}' }],
      usage: { input: 100, output: 10 },
    });
    const response = await client("google/gemini-2.5-flash").generate({
      messages: conversation,
      tools: [TOOL],
    });
    const request = fake.requests[0]!;
    expect(request.path).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
    expect(request.headers["x-goog-api-key"]).toBe("gk-test");
    expect(ownHeaders(request.headers)).toEqual([]);
    expect(request.body.systemInstruction.parts[0].text).toBe("You are a refund agent.");
    expect(response.toolCalls![0]!.name).toBe("refund");
    expect(response.toolCalls![0]!.arguments.amount).toBeInstanceOf(PyFloat);
    expect(response.costUsd).toBeCloseTo((100 * 0.3 + 10 * 2.5) / 1e6, 12);
  });
});

describe("faults", () => {
  const ask = (model = "openai/gpt-4.1", options: LlmClientOptions = {}) =>
    client(model, options).generate({ messages: [{ role: "user", content: "hi" }] });

  it("retries a 429, honouring retry-after (capped), and reports it", async () => {
    fake.push(
      { kind: "error", status: 429, retryAfterSeconds: 7 },
      { kind: "error", status: 429, retryAfterMs: 20 },
    );
    fake.push({ text: "ok" });
    const response = await ask();
    expect(response.content).toBe("ok");
    expect(fake.requests).toHaveLength(3);
    const retries = events.filter((e) => e.type === "retry");
    expect(retries.map((e) => (e.type === "retry" ? e.delayMs : -1))).toEqual([50, 20]);
    const limited = events.filter((e) => e.type === "rate_limited");
    expect(limited.map((e) => (e.type === "rate_limited" ? e.retryAfterMs : -1))).toEqual([7000, 20]);
    expect(events.find((e) => e.type === "call")).toMatchObject({ attempts: 3 });
  });

  it("retries 5xx (Anthropic 529 too) and gives up after maxRetries", async () => {
    fake.push({ kind: "error", status: 529 }, { text: "ok" });
    expect((await ask("anthropic/claude-haiku-4-5")).content).toBe("ok");
    fake.requests.length = 0;
    fake.push(...Array.from({ length: 3 }, () => ({ kind: "error" as const, status: 500 })));
    const error = await ask("openai/gpt-4.1", { retry: { ...FAST_RETRY, maxRetries: 2 } }).catch((e) => e);
    expect(error).toBeInstanceOf(LlmError);
    expect(error.kind).toBe("server");
    expect(error.statusCode).toBe(500);
    expect(fake.requests).toHaveLength(3);
  });

  it.each([
    [400, "bad_request"],
    [401, "auth"],
    [403, "auth"],
    [404, "not_found"],
  ])("does not retry HTTP %i", async (status, kind) => {
    fake.push({ kind: "error", status });
    const error = await ask().catch((e) => e);
    expect(error).toBeInstanceOf(LlmError);
    expect(error.kind).toBe(kind);
    expect(error.isRetryable).toBe(false);
    expect(fake.requests).toHaveLength(1);
    expect(error.message).not.toContain("\n");
  });

  it.each([
    [
      '{"object": "chat.completion"}',
      /HTTP 200, but the body is not a reply of this API \(choices: .+\): \{"object": "chat\.completion"\}$/,
    ],
    ["<html>proxy login</html>", /HTTP 200, but the body is not JSON: <html>proxy login<\/html>$/],
  ])("names what is wrong with a 200 whose body it cannot read: %s", async (body, message) => {
    fake.push({ kind: "raw", body });
    const error = await ask().catch((e) => e);
    expect(error).toBeInstanceOf(LlmError);
    expect(error.kind).toBe("invalid_response");
    expect(error.statusCode).toBe(200);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain("bad request");
  });

  it("classifies context overflow and does not retry it", async () => {
    fake.push({
      kind: "error",
      status: 400,
      message: "This model's maximum context length is 128000 tokens.",
    });
    const error = await ask().catch((e) => e);
    expect(error.kind).toBe("context_overflow");
    fake.push({ kind: "error", status: 400, message: "prompt is too long: 250000 tokens > 200000 maximum" });
    expect((await ask("anthropic/claude-sonnet-4-5").catch((e) => e)).kind).toBe("context_overflow");
    expect(fake.requests).toHaveLength(2);
  });

  it("retries a dropped connection as a network error", async () => {
    fake.push({ kind: "drop" }, { text: "ok" });
    expect((await ask()).content).toBe("ok");
    expect(events.find((e) => e.type === "retry")).toMatchObject({ kind: "network" });
  });

  it("times out a hanging call per attempt and retries it", async () => {
    fake.push({ kind: "hang" }, { text: "late but fine" });
    const response = await ask("openai/gpt-4.1", { timeoutMs: 100 });
    expect(response.content).toBe("late but fine");
    expect(events.find((e) => e.type === "retry")).toMatchObject({ kind: "timeout" });
  });

  it("stops at once when the caller aborts", async () => {
    fake.push({ kind: "hang" });
    const controller = new AbortController();
    const started = Date.now();
    const pending = client("openai/gpt-4.1").generate({
      messages: [{ role: "user", content: "hi" }],
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error("stop now")), 50);
    await expect(pending).rejects.toThrow("stop now");
    expect(Date.now() - started).toBeLessThan(2000);
    expect(fake.requests).toHaveLength(1);
  });

  it("fails malformed tool-call JSON without retrying (simulation-level infrastructure error)", async () => {
    fake.push({ toolCalls: [{ name: "refund", arguments: '{"amount": 2.0' }] });
    const error = await ask().catch((e) => e);
    expect(error).toBeInstanceOf(LlmError);
    expect(error.kind).toBe("invalid_tool_arguments");
    expect(error.message).toContain("refund");
    expect(fake.requests).toHaveLength(1);
  });

  it("fails non-object tool arguments", async () => {
    fake.push({ toolCalls: [{ name: "refund", arguments: "[1]" }] });
    expect((await ask().catch((e) => e)).kind).toBe("invalid_tool_arguments");
  });

  it("fails an empty reply (no text, no tool calls), also whitespace-only", async () => {
    fake.push({ text: null }, { text: "  \n" });
    expect((await ask().catch((e) => e)).kind).toBe("empty_response");
    expect((await ask("anthropic/claude-sonnet-4-5").catch((e) => e)).kind).toBe("empty_response");
    // The call was still paid for and is reported.
    expect(events.filter((e) => e.type === "call")).toHaveLength(2);
  });
});

describe("keys", () => {
  it("names the missing variable in one line", () => {
    expect(() => createLlmClient("openai/gpt-4.1", { env: {} })).toThrow(MissingApiKeyError);
    expect(() => createLlmClient("anthropic/claude-sonnet-4-5", { env: {} })).toThrow(
      "ANTHROPIC_API_KEY is not set (needed for model anthropic/claude-sonnet-4-5)",
    );
    expect(() => createLlmClient("google/gemini-2.5-pro", { env: {} })).toThrow(
      "GOOGLE_GENERATIVE_AI_API_KEY or GEMINI_API_KEY is not set",
    );
    expect(() => createLlmClient("gpt-4.1-2025-04-14", { env: {} })).toThrow("OPENAI_API_KEY");
    expect(createLlmClient("local/llama3", { env: {} }).model).toBe("local/llama3");
  });

  it("honours OPENAI_BASE_URL", async () => {
    fake.push({ text: "via env" });
    const llm = createLlmClient("openai/gpt-4.1", {
      env: { OPENAI_API_KEY: "k", OPENAI_BASE_URL: fake.openaiBaseUrl },
    });
    expect((await llm.generate({ messages: [{ role: "user", content: "hi" }] })).content).toBe("via env");
  });

  it("reports the endpoint it calls, without credentials; llm_args' api_base wins", async () => {
    const authed = fake.openaiBaseUrl.replace("http://", "http://alice:s3cret@");
    const llm = createLlmClient("openai/gpt-4.1", { env: { OPENAI_API_KEY: "k", OPENAI_BASE_URL: authed } });
    expect(llm.endpoint?.()).toBe(fake.openaiBaseUrl);
    expect(llm.endpoint?.({ api_base: "https://bob:pw@proxy.example.invalid/v1/?token=t#x" })).toBe(
      "https://proxy.example.invalid/v1",
    );
    expect(createLlmClient("anthropic/claude-sonnet-4-5", { env: KEYS }).endpoint?.()).toBe(
      "https://api.anthropic.com/v1",
    );
    expect(createLlmClient("local/qwen3:8b", { env: {} }).endpoint?.()).toBe("http://127.0.0.1:11434/v1");
    const cached = createLlmClient("openai/gpt-4.1", {
      env: { OPENAI_API_KEY: "k" },
      cacheDir: tempCacheDir(),
    });
    expect(cached.endpoint?.()).toBe("https://api.openai.com/v1");
  });
});

describe("prompt caching through the fake Anthropic endpoint", () => {
  async function runConversation(promptCache: boolean, turns: number) {
    const own = await startFakeProvider({
      handler: () => ({ text: "Sure, here is the next step of the process." }),
    });
    try {
      const llm = createLlmClient("anthropic/claude-sonnet-4-5", {
        baseUrl: own.anthropicBaseUrl,
        env: KEYS,
        promptCache,
      });
      const policy = "Policy paragraph about refunds, exchanges and identity checks. ".repeat(120);
      const messages: LlmMessage[] = [{ role: "system", content: policy }];
      let prompt = 0;
      let read = 0;
      let cost = 0;
      for (let turn = 0; turn < turns; turn++) {
        messages.push({
          role: "user",
          content: `Customer message number ${turn}: please help with my order.`,
        });
        const response = await llm.generate({ messages, tools: [TOOL] });
        messages.push({ role: "assistant", content: response.content });
        prompt += response.usage.prompt_tokens;
        read += response.usage.cache_read_tokens ?? 0;
        cost += response.costUsd ?? 0;
      }
      return { share: read / prompt, cost };
    } finally {
      await own.close();
    }
  }

  it("serves most agent input tokens from cache over 30 turns, none with caching off", async () => {
    const cached = await runConversation(true, 30);
    const uncached = await runConversation(false, 30);
    console.log(
      `prompt cache, 30 turns: ${(cached.share * 100).toFixed(1)}% of input tokens from cache; ` +
        `cost $${cached.cost.toFixed(4)} vs $${uncached.cost.toFixed(4)} without (${(cached.cost / uncached.cost).toFixed(2)}×)`,
    );
    expect(cached.share).toBeGreaterThan(0.85);
    expect(uncached.share).toBe(0);
    expect(cached.cost).toBeLessThan(uncached.cost * 0.4);
  });
});
