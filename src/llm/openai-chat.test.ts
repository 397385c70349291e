/**
 * The lean OpenAI path against its oracle, the AI SDK: for each request the
 * same client config is run once with `sdkOnly` (every byte from the SDK) and
 * once on the lean path, against one raw 127.0.0.1 server, and the requests
 * (body bytes and every header, in order), the results, the events and the
 * errors must be identical. Requests come from the real airline, retail and
 * telecom prompts and tools of the data folder plus synthetic edge cases;
 * replies cover what providers send, including the malformed and the failing.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolCall } from "../core/messages.ts";
import { PyFloat } from "../core/py-json.ts";
import { loadDomain } from "../domains/registry.ts";
import type { ToolSchema } from "../env/toolkit.ts";
import { LlmError } from "./errors.ts";
import type { LlmEvent } from "./events.ts";
import { leanPathCounts, leanProbeCounts, SEED_SENTINEL } from "./openai-chat.ts";
import { BUNDLED_PRICES } from "./prices.ts";
import { ProviderLlmClient } from "./provider-client.ts";
import { DEFAULT_RETRY_POLICY } from "./retry.ts";
import type { LlmMessage, LlmRequest } from "./types.ts";

/** What one reply does: status, headers and body bytes, or a connection cut. */
interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Send the headers and part of the body, then destroy the socket. */
  cut?: boolean;
  /** Never answer (the client's timeout fires). */
  hang?: boolean;
}

interface Seen {
  method: string;
  url: string;
  rawHeaders: string[];
  body: string;
}

let server: Server;
let baseUrl: string;
let nextReply: Reply = {};
const seen: Seen[] = [];

function answer(request: IncomingMessage, response: ServerResponse) {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    seen.push({
      method: request.method ?? "",
      url: request.url ?? "",
      rawHeaders: request.rawHeaders,
      body: Buffer.concat(chunks).toString("utf8"),
    });
    const reply = nextReply;
    if (reply.hang) return;
    const body = reply.body ?? "";
    response.writeHead(reply.status ?? 200, {
      "content-type": "application/json",
      ...(reply.cut ? { "content-length": "1000" } : {}),
      ...reply.headers,
    });
    if (reply.cut) {
      response.write(body);
      setTimeout(() => response.socket?.destroy(), 5);
      return;
    }
    response.end(body);
  });
}

beforeAll(async () => {
  server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** The provider of the suite running: `openai` (@ai-sdk/openai) or `local` (@ai-sdk/openai-compatible). */
let provider: "openai" | "local" = "openai";
const PROVIDERS = ["openai", "local"] as const;
/** Sets {@link provider} for the tests of the describe block it is called in. */
function useProvider(name: (typeof PROVIDERS)[number]) {
  beforeAll(() => {
    provider = name;
  });
}

function makeClient(modelId: string, sdkOnly: boolean, events: LlmEvent[], timeoutMs = 5000) {
  return new ProviderLlmClient({
    model: `${provider}/${modelId}`,
    provider,
    modelId,
    apiKey: "sk-test",
    apiKeyVariable: provider === "openai" ? "OPENAI_API_KEY" : undefined,
    baseUrl,
    promptCache: true,
    priceTable: BUNDLED_PRICES,
    retry: { ...DEFAULT_RETRY_POLICY, maxRetries: 1, initialDelayMs: 1, maxDelayMs: 2, maxRetryAfterMs: 3 },
    timeoutMs,
    onEvent: (event) => events.push(event),
    sdkOnly,
  });
}

/** Events without their timings. */
const timeless = (events: LlmEvent[]) =>
  events.map((event) => ("durationMs" in event ? { ...event, durationMs: 0 } : event));

type Outcome =
  | { ok: true; response: unknown }
  | {
      ok: false;
      name: string;
      message: string;
      kind?: string;
      statusCode?: number;
      retryAfterMs?: number;
      isRetryable?: boolean;
    };

async function outcomeOf(promise: Promise<unknown>): Promise<Outcome> {
  try {
    const response = (await promise) as Record<string, unknown>;
    return { ok: true, response: { ...response, generationTimeSeconds: 0 } };
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    return {
      ok: false,
      name: error.constructor.name,
      message: error.message,
      ...(error instanceof LlmError
        ? {
            kind: error.kind,
            statusCode: error.statusCode,
            retryAfterMs: error.retryAfterMs,
            isRetryable: error.isRetryable,
          }
        : {}),
    };
  }
}

/** Runs `request` through the SDK and the lean path with the same reply; returns what each saw. */
async function both(request: LlmRequest, reply: Reply, modelId = "gpt-4.1", timeoutMs?: number) {
  nextReply = reply;
  const run = async (sdkOnly: boolean) => {
    seen.length = 0;
    const events: LlmEvent[] = [];
    const outcome = await outcomeOf(makeClient(modelId, sdkOnly, events, timeoutMs).generate(request));
    return { outcome, events: timeless(events), requests: [...seen] };
  };
  const sdk = await run(true);
  const before = { ...leanPathCounts };
  const lean = await run(false);
  return {
    sdk,
    lean,
    sent: leanPathCounts.sent - before.sent,
    read: leanPathCounts.read - before.read,
  };
}

const toolReply = (args: string, id = "call_1") =>
  JSON.stringify({
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "gpt-4.1-2025-04-14",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: null,
          tool_calls: [{ id, type: "function", function: { name: "get_user_details", arguments: args } }],
          refusal: null,
          annotations: [],
        },
        logprobs: null,
        finish_reason: "tool_calls",
      },
    ],
    usage: {
      prompt_tokens: 5000,
      completion_tokens: 20,
      total_tokens: 5020,
      prompt_tokens_details: { cached_tokens: 4096, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, accepted_prediction_tokens: 0 },
    },
    service_tier: "default",
    system_fingerprint: "fp_1",
  });

const textReply = (content: unknown, extra: Record<string, unknown> = {}, usage: unknown = undefined) =>
  JSON.stringify({
    id: "chatcmpl-2",
    created: 1_700_000_001,
    model: "gpt-4.1",
    choices: [{ index: 0, message: { role: "assistant", content, ...extra }, finish_reason: "stop" }],
    ...(usage === undefined ? { usage: { prompt_tokens: 10, completion_tokens: 2 } } : { usage }),
  });

const STANDARD_REPLY: Reply = { body: toolReply('{"user_id": "mia_li_3668", "amount": 2.0}') };

const call = (id: string, name: string, args: Record<string, unknown>): ToolCall => ({
  id,
  name,
  arguments: args,
  requestor: "assistant",
});

/** A conversation with every message shape the agents produce. */
function conversation(system: string): LlmMessage[] {
  return [
    { role: "system", content: system },
    { role: "assistant", content: "Hi! How can I help you today?" },
    {
      role: "user",
      content: "I want to change my flight — reservation 8JX2WO, user mia_li_3668. ☃ \u{1F600}",
    },
    {
      role: "assistant",
      content: null,
      toolCalls: [call("call_a", "get_user_details", { user_id: "mia_li_3668" })],
    },
    {
      role: "tool",
      content: '{"user_id": "mia_li_3668", "name": {"first_name": "Mia"}}',
      toolCallId: "call_a",
    },
    {
      role: "assistant",
      content: "Let me look at both.",
      toolCalls: [
        call("call_b", "get_reservation_details", { reservation_id: "8JX2WO" }),
        call("call_c", "calculate", {
          expression: "2.0 * 3",
          amount: new PyFloat(2),
          n: 3,
          nested: [1.5, { a: null }],
        }),
      ],
    },
    {
      role: "tool",
      content: "Error: reservation not found",
      toolCallId: "call_b",
      toolName: "get_reservation_details",
    },
    { role: "tool", content: "", toolCallId: "call_c" },
    { role: "assistant", content: "" },
    { role: "user", content: '###STOP### "quoted" \\ back\nslash\t\u0001 \u2028' },
  ];
}

const dataDir = process.env.TAU_DATA_DIR;

/** The outcome with the tool-call ids the SDK makes up (for calls that came without one) blanked. */
function withoutMadeUpIds(outcome: Outcome): Outcome {
  if (!outcome.ok) return outcome;
  const response = outcome.response as { toolCalls: ToolCall[] | null };
  const toolCalls = response.toolCalls?.map((call) => ({ ...call, id: "(made up)" })) ?? null;
  return { ok: true, response: { ...response, toolCalls } };
}

function expectSame(result: Awaited<ReturnType<typeof both>>, madeUpIds = false) {
  expect(result.lean.requests.map((r) => r.body)).toEqual(result.sdk.requests.map((r) => r.body));
  expect(result.lean.requests).toEqual(result.sdk.requests);
  if (madeUpIds) {
    expect(withoutMadeUpIds(result.lean.outcome)).toStrictEqual(withoutMadeUpIds(result.sdk.outcome));
  } else {
    expect(result.lean.outcome).toStrictEqual(result.sdk.outcome);
    expect(result.lean.events).toStrictEqual(result.sdk.events);
  }
}

describe.skipIf(!dataDir)("lean OpenAI path: real prompts and tools (skipped: TAU_DATA_DIR not set)", () => {
  for (const protocol of PROVIDERS)
    for (const domainName of ["airline", "retail", "telecom"]) {
      it(`sends the SDK's bytes for ${domainName}'s agent and user contexts (${protocol})`, async () => {
        provider = protocol;
        const domain = loadDomain(domainName, dataDir!);
        const environment = domain.makeEnvironment();
        const agentTools = environment.getToolSchemas();
        const userTools = domain.hasUserTools ? environment.getUserToolSchemas() : [];
        const requests: LlmRequest[] = [
          { messages: conversation(domain.policy()), tools: agentTools, args: { temperature: 0.0 } },
          { messages: conversation(domain.policy()).slice(0, 3), tools: agentTools, toolChoice: "required" },
          {
            messages: conversation(`# User\n${domain.policy().slice(0, 500)}`),
            args: { temperature: 0, seed: 300 },
          },
        ];
        if (userTools.length > 0) requests.push({ messages: conversation("user sim"), tools: userTools });
        for (const request of requests) {
          const result = await both(request, STANDARD_REPLY);
          expectSame(result);
          expect(result.sdk.outcome.ok).toBe(true);
          expect(result).toMatchObject({ sent: 1, read: 1 });
        }
      });
    }
});

const WEATHER: ToolSchema = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Weather in a city.",
    parameters: {
      type: "object",
      properties: { city: { type: "string", description: 'City, "quoted"' }, days: { type: "integer" } },
      required: ["city"],
      additionalProperties: false,
    },
  },
};
const NO_DESCRIPTION: ToolSchema = {
  type: "function",
  function: {
    name: "think",
    parameters: { type: "object", properties: {} },
  } as unknown as ToolSchema["function"],
};

describe.each(PROVIDERS)("lean OpenAI path: request shapes (%s)", (protocol) => {
  useProvider(protocol);
  const short: LlmMessage[] = [
    { role: "system", content: "You are an agent." },
    { role: "user", content: "hello" },
  ];
  const cases: Array<[string, LlmRequest, string?]> = [
    ["plain messages, no tools", { messages: short }],
    [
      "every message shape, two tools",
      { messages: conversation("policy"), tools: [WEATHER, NO_DESCRIPTION] },
    ],
    ["tool_choice none", { messages: short, tools: [WEATHER], toolChoice: "none" }],
    ["tool_choice required", { messages: short, tools: [WEATHER], toolChoice: "required" }],
    [
      "sampling llm_args",
      {
        messages: short,
        args: {
          temperature: new PyFloat(0.7),
          top_p: 0.9,
          max_tokens: 256,
          seed: 7,
          stop: ["END", "STOP"],
          presence_penalty: 0.1,
          frequency_penalty: 0.2,
          top_k: 5,
          user: "u-1",
          parallel_tool_calls: false,
          unknown_arg: 1,
        },
      },
    ],
    [
      "single stop string, max_completion_tokens",
      { messages: short, args: { stop: "END", max_completion_tokens: 9 } },
    ],
    [
      "service tier flex on a model without it (a warning)",
      { messages: short, args: { service_tier: "flex" } },
    ],
    ["service tier priority", { messages: short, args: { service_tier: "priority" } }],
    [
      "reasoning model: developer role, max_completion_tokens, no temperature",
      {
        messages: conversation("policy"),
        tools: [WEATHER],
        args: { reasoning_effort: "high", temperature: 0, max_tokens: 100 },
      },
      "o3-mini",
    ],
    [
      "gpt-5 with reasoning effort none",
      { messages: short, args: { reasoning_effort: "none", temperature: 0.5 } },
      "gpt-5.1",
    ],
    [
      "search preview model drops temperature",
      { messages: short, args: { temperature: 0.5 } },
      "gpt-4o-search-preview",
    ],
    [
      "response format with a schema",
      {
        messages: short,
        responseFormat: {
          name: "rating",
          schema: { type: "object", properties: { score: { type: "number" } } },
        },
      },
    ],
    [
      "extra request headers",
      { messages: short, headers: { "X-Simulation-Id": "sim-1", "x-trace": " padded " } },
    ],
    ["no system message", { messages: [{ role: "user", content: "hi" }] }],
    [
      "two system messages, repeated",
      {
        messages: [
          { role: "system", content: "a" },
          { role: "system", content: "a" },
          { role: "user", content: "b" },
        ],
      },
    ],
    [
      "lone surrogates and control characters",
      {
        messages: [
          { role: "system", content: "\ud800 x \udc00" },
          { role: "user", content: "\u0000\u001f\u007f" },
        ],
      },
    ],
    [
      "tool arguments naming __proto__ and constructor (the SDK's guarded parse)",
      {
        messages: [
          ...short,
          {
            role: "assistant",
            content: null,
            toolCalls: [call("c1", "f", { __proto__x: 1, constructor: { prototype: 1 } })],
          },
          { role: "tool", content: "ok", toolCallId: "c1" },
        ],
      },
    ],
    [
      "assistant text with tool calls and a reasoning replay of another provider",
      {
        messages: [
          ...short,
          {
            role: "assistant",
            content: "checking",
            toolCalls: [call("c1", "get_weather", { city: "Paris" })],
            reasoning: { provider: "anthropic", parts: [{ type: "reasoning", text: "hmm" }] },
          },
          { role: "tool", content: "sunny", toolCallId: "c1" },
        ],
        tools: [WEATHER],
      },
    ],
  ];
  cases.push([
    "an assistant turn carrying the reasoning of a local/… reply",
    {
      messages: [
        ...short,
        {
          role: "assistant",
          content: "answer",
          toolCalls: [call("c1", "get_weather", { city: "Oslo" })],
          reasoning: { provider: "local", parts: [{ type: "reasoning", text: "thought" }, { type: "text" }] },
        },
        { role: "tool", content: "rain", toolCallId: "c1" },
      ],
      tools: [WEATHER],
    },
  ]);
  for (const [name, request, modelId] of cases) {
    it(`sends the SDK's bytes and returns its result: ${name}`, async () => {
      const result = await both(request, STANDARD_REPLY, modelId);
      expectSame(result);
      expect(result.sdk.outcome.ok).toBe(true);
      // Arguments the SDK's guarded JSON parse looks at twice are left to the SDK to send.
      expect(result.sent).toBe(name.includes("__proto__") ? 0 : 1);
    });
  }

  it("sends the same bytes for a second call of the same shape (the cached template and tools)", async () => {
    const request = { messages: conversation("policy"), tools: [WEATHER] };
    for (let round = 0; round < 3; round++) expectSame(await both(request, STANDARD_REPLY));
  });
});

describe.each(PROVIDERS)("lean OpenAI path: seeds (%s)", (protocol) => {
  useProvider(protocol);
  const short: LlmMessage[] = [
    { role: "system", content: "You are an agent." },
    { role: "user", content: "hello" },
  ];
  const max = Number.MAX_SAFE_INTEGER;
  /** Integer seeds: zero, negatives, the largest safe ones, the sentinel, and prefixes/suffixes of each other. */
  const SEEDS = [
    300,
    0,
    -0,
    1,
    -1,
    3,
    30,
    3000,
    13,
    130,
    -300,
    -3,
    7,
    77,
    777,
    17,
    71,
    max,
    -max,
    max - 1,
    2 ** 53 - 10,
    SEED_SENTINEL,
    SEED_SENTINEL + 1,
    SEED_SENTINEL - 1,
    -SEED_SENTINEL,
    Math.floor(SEED_SENTINEL / 10),
    SEED_SENTINEL % 1_000_000,
    2 ** 31,
    -(2 ** 31),
    2 ** 32 + 1,
  ];

  /**
   * Sends each request through one SDK-only client and one lean client (so the lean one keeps its
   * plans across calls); expects the same bytes and results; returns the lean path's probes.
   */
  async function seeded(requests: LlmRequest[], modelId = "gpt-4.1") {
    nextReply = STANDARD_REPLY;
    const sdkEvents: LlmEvent[] = [];
    const leanEvents: LlmEvent[] = [];
    const sdk = makeClient(modelId, true, sdkEvents);
    const lean = makeClient(modelId, false, leanEvents);
    const probesBefore = leanProbeCounts.probes;
    const sentBefore = leanPathCounts.sent;
    for (const request of requests) {
      seen.length = 0;
      const sdkOutcome = await outcomeOf(sdk.generate(request));
      const sdkRequests = [...seen];
      seen.length = 0;
      const leanOutcome = await outcomeOf(lean.generate(request));
      expect(seen.map((r) => r.body)).toEqual(sdkRequests.map((r) => r.body));
      expect(seen).toEqual(sdkRequests);
      expect(leanOutcome).toStrictEqual(sdkOutcome);
      expect(sdkOutcome.ok).toBe(true);
    }
    expect(timeless(leanEvents)).toStrictEqual(timeless(sdkEvents));
    expect(leanPathCounts.sent - sentBefore).toBe(requests.length);
    return leanProbeCounts.probes - probesBefore;
  }

  it("sends the SDK's bytes for many integer seeds of one shape, probing it once", async () => {
    const requests = SEEDS.map((seed) => ({ messages: short, args: { temperature: 0, seed } }));
    expect(requests[1]!.messages).toBe(short);
    expect(await seeded(requests)).toBe(1);
  });

  it("keeps one plan per shape: seeded and unseeded, with and without tools, other options", async () => {
    const requests: LlmRequest[] = [];
    for (const seed of SEEDS.slice(0, 12)) {
      requests.push({ messages: conversation("policy"), tools: [WEATHER], args: { seed } });
      requests.push({ messages: short, args: { temperature: 0.5, max_tokens: 64, seed } });
      requests.push({ messages: short });
    }
    expect(await seeded(requests)).toBe(3);
  });

  it("splices the seed after reasoning-model options (developer role, max_completion_tokens)", async () => {
    const requests = SEEDS.map((seed) => ({
      messages: conversation("policy"),
      tools: [WEATHER],
      args: { reasoning_effort: "high", temperature: 0, max_tokens: 100, seed },
    }));
    expect(await seeded(requests, "o3-mini")).toBe(1);
  });

  it("probes per value for seeds that are not safe integers", async () => {
    const seeds = [1.5, -0.25, 2 ** 53, 1e21, 1.5];
    const requests = seeds.map((seed) => ({ messages: short, args: { seed } }));
    expect(await seeded(requests)).toBe(4);
  });

  it("probes per value when another option holds the sentinel's digits", async () => {
    const seeds = [5, 6, SEED_SENTINEL, 5];
    const requests = seeds.map((seed) => ({
      messages: short,
      args: { seed, stop: [`x${SEED_SENTINEL}`] },
    }));
    // The shape itself holds the sentinel, so no shared plan is tried: one probe per seed value.
    expect(await seeded(requests)).toBe(3);
  });

  it("sends the SDK's bytes when a header carries the sentinel's digits", async () => {
    const requests = [5, 6, SEED_SENTINEL].map((seed) => ({
      messages: short,
      args: { seed },
      headers: { "x-seed": String(SEED_SENTINEL) },
    }));
    expect(await seeded(requests)).toBe(3);
  });
});

describe.each(PROVIDERS)("lean OpenAI path: replies (%s)", (protocol) => {
  useProvider(protocol);
  const request: LlmRequest = { messages: [{ role: "user", content: "hi" }], tools: [WEATHER] };
  /** `read`: replies the lean path reads itself (else the SDK does); `localRead` when it differs for local/…. */
  const replies: Array<[string, Reply, { read: number; localRead?: number }?]> = [
    ["tool call with float arguments", STANDARD_REPLY, { read: 1 }],
    ["plain text", { body: textReply("Hello.") }, { read: 1 }],
    [
      "text and usage with cache writes and reasoning",
      {
        body: textReply(
          "Hi",
          {},
          {
            prompt_tokens: 100,
            completion_tokens: 50,
            prompt_tokens_details: { cached_tokens: 20, cache_write_tokens: 30 },
            completion_tokens_details: { reasoning_tokens: 40, rejected_prediction_tokens: 1 },
          },
        ),
      },
      { read: 1 },
    ],
    ["no usage", { body: textReply("Hi", {}, null) }, { read: 1 }],
    ["a refusal", { body: textReply(null, { refusal: "I can't help with that." }) }, { read: 1 }],
    ["an empty reply", { body: textReply("") }, { read: 1 }],
    ["whitespace only", { body: textReply("  \n") }, { read: 1 }],
    [
      "gzip body",
      { body: gzipSync(textReply("zipped")), headers: { "content-encoding": "gzip" } },
      { read: 1 },
    ],
    // The SDK decodes with TextDecoder, which drops a leading BOM; so does the lean path.
    ["byte order mark", { body: `\ufeff${textReply("bom")}` }, { read: 1 }],
    ["tool call without id", { body: toolReply('{"a": 1}').replace('"id":"call_1",', "") }],
    ["malformed tool arguments", { body: toolReply('{"a": ') }, { read: 1 }],
    ["non-object tool arguments", { body: toolReply("[1, 2]") }, { read: 1 }],
    ["empty tool arguments", { body: toolReply("") }, { read: 1 }],
    ["no choices", { body: JSON.stringify({ id: "x", choices: [] }) }],
    [
      "two choices",
      {
        body: JSON.stringify({
          choices: [JSON.parse(textReply("a")).choices[0], JSON.parse(textReply("b")).choices[0]],
        }),
      },
    ],
    ["choice without index", { body: textReply("a").replace('"index":0,', "") }, { read: 0, localRead: 1 }],
    ["content as an array", { body: textReply([{ type: "text", text: "a" }]) }],
    [
      "logprobs",
      { body: textReply("a", {}).replace('"finish_reason"', '"logprobs":{"content":[]},"finish_reason"') },
      { read: 0, localRead: 1 },
    ],
    [
      "annotations",
      {
        body: textReply("a", {
          annotations: [
            {
              type: "url_citation",
              url_citation: { start_index: 0, end_index: 1, url: "https://example.invalid", title: "t" },
            },
          ],
        }),
      },
      { read: 0, localRead: 1 },
    ],
    [
      "audio transcript",
      { body: textReply(null, { audio: { transcript: "spoken" } }) },
      { read: 0, localRead: 1 },
    ],
    ["reasoning_content", { body: textReply("a", { reasoning_content: "thinking" }) }, { read: 1 }],
    [
      "reasoning and empty reasoning_content",
      { body: textReply("a", { reasoning_content: "", reasoning: "r" }) },
      { read: 1 },
    ],
    ["a non-string refusal", { body: textReply("a", { refusal: false }) }, { read: 0, localRead: 1 }],
    [
      "a Gemini thought signature on a tool call",
      {
        body: toolReply("{}").replace(
          '"type":"function",',
          '"type":"function","extra_content":{"google":{"thought_signature":"sig"}},',
        ),
      },
      { read: 1, localRead: 0 },
    ],
    [
      "a prototype key in the body",
      {
        body: textReply("a", { __proto__: { polluted: true } }).replace(
          '"content"',
          '"__proto__":{"x":1},"content"',
        ),
      },
    ],
    [
      "a number too large",
      { body: textReply("a", {}, { prompt_tokens: "HUGE" }).replace(`"HUGE"`, "1e999") },
    ],
    ["invalid JSON", { body: "{not json" }],
    ["HTML with status 200", { body: "<html>hi</html>", headers: { "content-type": "text/html" } }],
    ["empty body", { body: "" }],
    ["status 201", { status: 201, body: textReply("created") }],
    [
      "429 with retry-after",
      {
        status: 429,
        headers: { "retry-after": "0.002" },
        body: JSON.stringify({
          error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" },
        }),
      },
    ],
    [
      "429 insufficient quota",
      {
        status: 429,
        body: JSON.stringify({
          error: {
            message: "You exceeded your current quota",
            type: "insufficient_quota",
            code: "insufficient_quota",
          },
        }),
      },
    ],
    [
      "400 context length",
      {
        status: 400,
        body: JSON.stringify({
          error: {
            message: "This model's maximum context length is 128000 tokens",
            code: "context_length_exceeded",
          },
        }),
      },
    ],
    ["401", { status: 401, body: JSON.stringify({ error: { message: "Incorrect API key provided" } }) }],
    ["500 without a body", { status: 500, body: "" }],
    ["502 with HTML", { status: 502, body: "<html>bad gateway</html>" }],
    ["a connection cut mid-body", { body: '{"choices": [', cut: true }],
  ];
  for (const [name, reply, expected] of replies) {
    it(`returns or throws what the SDK does: ${name}`, async () => {
      const result = await both(request, reply);
      expectSame(result, name === "tool call without id");
      // Retried failures are sent again, each time by the lean path.
      expect(result.lean.requests.length).toBeGreaterThan(0);
      expect(result.sent).toBe(result.lean.requests.length);
      const read = protocol === "local" ? (expected?.localRead ?? expected?.read) : expected?.read;
      expect(result.read).toBe(read ?? 0);
    });
  }

  it("times out like the SDK path", async () => {
    const result = await both(request, { hang: true }, "gpt-4.1", 30);
    expectSame(result);
    expect(result.sdk.outcome).toMatchObject({ ok: false, kind: "timeout" });
  });

  it("reports a refused connection like the SDK path", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const saved = baseUrl;
    baseUrl = `http://127.0.0.1:${port}/v1`;
    try {
      const result = await both(request, {});
      expectSame(result);
      expect(result.sdk.outcome).toMatchObject({ ok: false, kind: "network" });
    } finally {
      baseUrl = saved;
    }
  });

  it("stops when the caller aborts, as the SDK path does", async () => {
    const outcomes = [];
    for (const sdkOnly of [true, false]) {
      nextReply = { hang: true };
      const controller = new AbortController();
      const pending = makeClient("gpt-4.1", sdkOnly, []).generate({ ...request, signal: controller.signal });
      setTimeout(() => controller.abort(new Error("stopped by the caller")), 20);
      outcomes.push(await outcomeOf(pending));
    }
    expect(outcomes[1]).toStrictEqual(outcomes[0]);
    expect(outcomes[0]).toMatchObject({ ok: false, message: "stopped by the caller" });
  });
});
