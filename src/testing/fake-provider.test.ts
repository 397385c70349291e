import { afterEach, describe, expect, it } from "vitest";
import {
  FAKE_FAULTS,
  type FakeProvider,
  fakeEmbedding,
  faultReply,
  startFakeProvider,
} from "./fake-provider.ts";

let fake: FakeProvider | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const chat = (url: string, content: string) =>
  fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content }] }),
  });

describe("fake provider", () => {
  it("answers hundreds of concurrent calls with a fixed latency, in parallel", async () => {
    fake = await startFakeProvider({
      latencyMs: 300,
      record: false,
      handler: (r) => ({ text: `echo ${r.index}` }),
    });
    const started = performance.now();
    const responses = await Promise.all(Array.from({ length: 400 }, (_, i) => chat(fake!.url, `m${i}`)));
    const elapsed = performance.now() - started;
    const bodies = await Promise.all(responses.map((r) => r.json() as Promise<any>));
    expect(bodies.every((b) => b.choices[0].message.content.startsWith("echo"))).toBe(true);
    expect(fake.callCount).toBe(400);
    expect(fake.maxInFlight).toBeGreaterThan(100);
    expect(fake.requests).toHaveLength(0);
    // Serial would take 120 s; parallel takes about one latency (generous bound: CI machines are busy).
    expect(elapsed).toBeLessThan(15_000);
  });

  it("answers embeddings at OpenAI's and OpenRouter's paths, deterministically or from a handler", async () => {
    fake = await startFakeProvider();
    const embed = (base: string, input: unknown) =>
      fetch(`${base}/embeddings`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "e", input, encoding_format: "float" }),
      }).then((r) => r.json() as Promise<any>);
    const openai = await embed(fake.openaiBaseUrl, ["a", "b"]);
    expect(openai.data.map((d: any) => d.embedding)).toEqual([fakeEmbedding("a"), fakeEmbedding("b")]);
    expect(fakeEmbedding("a")).not.toEqual(fakeEmbedding("b"));
    const openrouter = await embed(fake.openrouterBaseUrl, "q");
    expect(openrouter.data[0].embedding).toEqual(fakeEmbedding("q"));
    expect(fake.embeddingRequests.map((r) => [r.path, r.input])).toEqual([
      ["/v1/embeddings", ["a", "b"]],
      ["/api/v1/embeddings", ["q"]],
    ]);
    await fake.close();
    fake = await startFakeProvider({
      embed: (r) => {
        if (r.input.includes("boom")) throw new Error("scripted");
        return r.input.map(() => [1, 0]);
      },
    });
    expect((await embed(fake.openaiBaseUrl, ["x"])).data[0].embedding).toEqual([1, 0]);
    const failed = await fetch(`${fake.openaiBaseUrl}/embeddings`, {
      method: "POST",
      body: '{"input": ["boom"]}',
    });
    expect(failed.status).toBe(500);
  });

  it("answers unknown routes with 404 and an empty queue with 400", async () => {
    fake = await startFakeProvider();
    expect((await fetch(`${fake.url}/v2/other`, { method: "POST", body: "{}" })).status).toBe(404);
    const response = await chat(fake.url, "x");
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain("no scripted reply");
  });

  it("simulates OpenAI's automatic prefix caching", async () => {
    fake = await startFakeProvider({ handler: () => ({ text: "ok" }), minCacheTokens: 100 });
    const long = "x".repeat(2000);
    const first = (await (await chat(fake.url, long)).json()) as any;
    const second = (await (await chat(fake.url, long)).json()) as any;
    expect(first.usage.prompt_tokens_details.cached_tokens).toBe(0);
    expect(second.usage.prompt_tokens_details.cached_tokens).toBeGreaterThan(0);
    expect(second.usage.prompt_tokens_details.cached_tokens).toBeLessThanOrEqual(second.usage.prompt_tokens);
  });
});

describe("fake provider faults", () => {
  it("cuts a body short after announcing its full length", async () => {
    fake = await startFakeProvider({ replies: [{ kind: "truncate", text: "hello there" }] });
    const response = await chat(fake.url, "x");
    expect(response.status).toBe(200);
    const announced = Number(response.headers.get("content-length"));
    await expect(response.text()).rejects.toThrow();
    expect(announced).toBeGreaterThan(0);
  });

  it("names every fault in each protocol's own error shape", async () => {
    expect(faultReply("overloaded_529", "anthropic")).toMatchObject({ kind: "error", status: 529 });
    expect(faultReply("rate_limit_retry_after", "openai")).toMatchObject({
      status: 429,
      retryAfterSeconds: 1,
    });
    expect(faultReply("rate_limit", "google")).not.toHaveProperty("retryAfterSeconds");
    fake = await startFakeProvider({ replies: [faultReply("context_overflow", "anthropic")] });
    const response = await fetch(`${fake.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [] }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: "prompt is too long: 212345 tokens > 200000 maximum" },
    });
    expect(new Set(FAKE_FAULTS).size).toBe(12);
  });
});
