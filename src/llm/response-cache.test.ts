import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FileFormatError } from "../core/errors.ts";
import { TIMESTAMP_PATTERN } from "../core/messages.ts";
import { PyFloat } from "../core/py-json.ts";
import { type FakeProvider, startFakeProvider } from "../testing/fake-provider.ts";
import { createLlmClient, type LlmEvent, requestKey } from "./index.ts";
import { ResponseCache } from "./response-cache.ts";
import type { LlmRequest } from "./types.ts";

let fake: FakeProvider;
let dir: string;
beforeAll(async () => {
  fake = await startFakeProvider();
  dir = mkdtempSync(join(tmpdir(), "tau-llm-cache-"));
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

const request = (seed: number): LlmRequest => ({
  messages: [
    { role: "system", content: "sys" },
    { role: "user", content: "refund please" },
  ],
  args: { temperature: 0, seed },
});

describe("response cache", () => {
  it("replays identical requests (content, float args, usage, cost) without calling the provider", async () => {
    const events: LlmEvent[] = [];
    const options = {
      baseUrl: fake.openaiBaseUrl,
      env: { OPENAI_API_KEY: "k" },
      cacheDir: join(dir, "a"),
      onEvent: (e: LlmEvent) => events.push(e),
    };
    fake.push({ text: "sure", toolCalls: [{ id: "c1", name: "refund", arguments: '{"amount": 2.0}' }] });
    const first = await createLlmClient("openai/gpt-4.1", options).generate(request(1));
    const second = await createLlmClient("openai/gpt-4.1", options).generate(request(1));
    expect(fake.callCount).toBe(1);
    expect(second.content).toBe("sure");
    expect(second.toolCalls![0]!.arguments.amount).toBeInstanceOf(PyFloat);
    expect(second.toolCalls![0]!.id).toBe("c1");
    expect(second.usage).toEqual(first.usage);
    expect(second.costUsd).toBe(first.costUsd);
    expect(second.costUsd).not.toBeNull();
    expect(events.map((e) => (e.type === "call" ? e.cached : null)).filter((x) => x !== null)).toEqual([
      false,
      true,
    ]);

    // A different seed is a different request.
    fake.push({ text: "other" });
    const third = await createLlmClient("openai/gpt-4.1", options).generate(request(2));
    expect(third.content).toBe("other");
    expect(fake.callCount).toBe(2);

    // Records are stamped in the one timestamp format of every taubench file.
    const db = new Database(join(dir, "a", "llm-cache.sqlite"), { readonly: true });
    const stamps = db.prepare("SELECT created_at FROM responses").all() as { created_at: string }[];
    db.close();
    expect(stamps).toHaveLength(2);
    for (const { created_at } of stamps) expect(created_at).toMatch(TIMESTAMP_PATTERN);
  });

  it("replays offline without an API key; a miss then names the key", async () => {
    const cacheDir = join(dir, "b");
    fake.push({ text: "recorded" });
    await createLlmClient("openai/gpt-4.1", {
      baseUrl: fake.openaiBaseUrl,
      env: { OPENAI_API_KEY: "k" },
      cacheDir,
    }).generate(request(5));
    const offline = createLlmClient("openai/gpt-4.1", { env: {}, cacheDir, baseUrl: "http://127.0.0.1:9" });
    expect((await offline.generate(request(5))).content).toBe("recorded");
    await expect(offline.generate(request(6))).rejects.toThrow("OPENAI_API_KEY is not set");
  });

  it("keys on model, messages, tools, tool choice and args, not on the call label", () => {
    const base = request(1);
    const key = requestKey("openai/gpt-4.1", base);
    expect(requestKey("gpt-4.1", base)).toBe(key);
    expect(
      requestKey("openai/gpt-4.1", { ...base, callName: "user", signal: new AbortController().signal }),
    ).toBe(key);
    expect(requestKey("openai/gpt-4.1-mini", base)).not.toBe(key);
    expect(requestKey("openai/gpt-4.1", { ...base, args: { temperature: 0, seed: 1.0 } })).toBe(key);
    expect(
      requestKey("openai/gpt-4.1", { ...base, args: { temperature: 0, seed: new PyFloat(1) } }),
    ).not.toBe(key);
    expect(requestKey("openai/gpt-4.1", { ...base, toolChoice: "required" })).toBe(key); // no tools: ignored
    const tool = {
      type: "function" as const,
      function: { name: "t", description: "d", parameters: { type: "object", properties: {} } },
    };
    const withTools = requestKey("openai/gpt-4.1", { ...base, tools: [tool] });
    expect(withTools).not.toBe(key);
    expect(requestKey("openai/gpt-4.1", { ...base, tools: [tool], toolChoice: "required" })).not.toBe(
      withTools,
    );
  });

  it("reports a corrupt record with the file name", () => {
    const cacheDir = join(dir, "c");
    const cache = new ResponseCache(cacheDir);
    cache.put("k1", "openai/gpt-4.1", {
      content: "x",
      toolCalls: null,
      usage: { prompt_tokens: 1, completion_tokens: 1 },
      costUsd: null,
    });
    expect(cache.get("k1")?.content).toBe("x");
    expect(cache.size()).toBe(1);
    const raw = new Database(cache.path);
    raw.prepare("UPDATE responses SET record = ? WHERE key = ?").run('{"version": 99}', "k1");
    raw.close();
    expect(() => cache.get("k1")).toThrow(FileFormatError);
    expect(() => cache.get("k1")).toThrow("llm-cache.sqlite");
    cache.close();
  });
});
