import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FileFormatError, UsageError } from "../core/errors.ts";
import { mapLlmArgs } from "./args.ts";
import { parseModelId, providerKey } from "./model-id.ts";
import { BUNDLED_PRICES, costUsd, loadPriceTable, lookupPrice } from "./prices.ts";

const dir = mkdtempSync(join(tmpdir(), "tau-prices-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("model names", () => {
  it("accepts provider/model and upstream's bare LiteLLM names", () => {
    expect(parseModelId("openai/gpt-4.1")).toEqual({ provider: "openai", modelId: "gpt-4.1" });
    expect(parseModelId("gpt-4.1-2025-04-14")).toEqual({ provider: "openai", modelId: "gpt-4.1-2025-04-14" });
    expect(parseModelId("claude-3-7-sonnet-20250219").provider).toBe("anthropic");
    expect(parseModelId("gemini/gemini-2.5-flash")).toEqual({
      provider: "google",
      modelId: "gemini-2.5-flash",
    });
    expect(parseModelId("local/qwen3:8b")).toEqual({ provider: "local", modelId: "qwen3:8b" });
    expect(providerKey("o4-mini")).toBe("openai/o4-mini");
    expect(() => parseModelId("mistral-large")).toThrow(UsageError);
    expect(() => parseModelId("xai/grok-4")).toThrow("unknown model");
  });
});

describe("prices", () => {
  it("has a few dozen models with cache rates", () => {
    expect(Object.keys(BUNDLED_PRICES).length).toBeGreaterThanOrEqual(30);
    expect(lookupPrice("anthropic/claude-sonnet-4-5")).toEqual({
      input: 3,
      output: 15,
      cacheRead: 0.3,
      cacheWrite: 3.75,
    });
  });
  it("finds dated snapshots through their family, but not unknown models", () => {
    expect(lookupPrice("gpt-4.1-2025-04-14")).toBe(BUNDLED_PRICES["openai/gpt-4.1"]);
    expect(lookupPrice("claude-3-7-sonnet-20250219")).toBe(BUNDLED_PRICES["anthropic/claude-3-7-sonnet"]);
    expect(lookupPrice("openai/gpt-4o-2024-05-13")?.input).toBe(5);
    expect(lookupPrice("openai/gpt-9")).toBeNull();
    expect(costUsd("local/qwen3:8b", { prompt_tokens: 10, completion_tokens: 10 })).toBeNull();
  });
  it("prices uncached, cached and written input separately", () => {
    const usage = { prompt_tokens: 1_000_000, completion_tokens: 1_000_000 };
    expect(costUsd("openai/gpt-4.1", usage)).toBeCloseTo(10, 10);
    expect(costUsd("openai/gpt-4.1", { ...usage, cache_read_tokens: 500_000 })).toBeCloseTo(9.25, 10);
    expect(costUsd("openai/gpt-4.1", { prompt_tokens: 0, completion_tokens: 0 })).toBe(0);
  });
  it("merges an override file over the bundled table", () => {
    const path = join(dir, "prices.json");
    writeFileSync(
      path,
      JSON.stringify({
        version: 1,
        models: { "local/qwen3:8b": { input: 0, output: 0 }, "gpt-4.1": { input: 1, output: 4 } },
      }),
    );
    const table = loadPriceTable(path);
    expect(costUsd("local/qwen3:8b", { prompt_tokens: 10, completion_tokens: 10 }, table)).toBe(0);
    expect(table["openai/gpt-4.1"]).toEqual({ input: 1, output: 4 });
    expect(table["openai/gpt-4o"]).toBe(BUNDLED_PRICES["openai/gpt-4o"]);
  });
  it("names the file and the field of a bad override", () => {
    const path = join(dir, "bad.json");
    writeFileSync(
      path,
      JSON.stringify({ version: 1, models: { "openai/gpt-4.1": { input: -1, output: 1 } } }),
    );
    expect(() => loadPriceTable(path)).toThrow(FileFormatError);
    expect(() => loadPriceTable(path)).toThrow(/bad\.json: models\.openai\/gpt-4\.1\.input/);
    writeFileSync(path, "{not json");
    expect(() => loadPriceTable(path)).toThrow("not valid JSON");
    // A misspelt rate would otherwise be dropped, and the cost computed without it.
    writeFileSync(
      path,
      JSON.stringify({ version: 1, models: { "openai/x": { input: 1, output: 2, cache_read: 0.5 } } }),
    );
    expect(() => loadPriceTable(path)).toThrow(/bad\.json: models\.openai\/x: .*cache_read/);
  });
});

describe("llm_args mapping", () => {
  it("maps LiteLLM names and drops what a provider cannot take", () => {
    const openai = mapLlmArgs("openai", "gpt-4.1", {
      temperature: 0,
      top_k: 5,
      seed: 1,
      num_retries: 0,
      timeout: 30,
    });
    expect(openai.sampling).toEqual({ temperature: 0, seed: 1 });
    expect(openai.maxRetries).toBe(0);
    expect(openai.timeoutMs).toBe(30_000);
    expect(openai.dropped).toEqual(["top_k (not supported by openai)"]);
    const anthropic = mapLlmArgs("anthropic", "claude-sonnet-4-5", { reasoning_effort: "low", api_key: "x" });
    expect(anthropic.providerOptions).toEqual({
      anthropic: { thinking: { type: "enabled", budgetTokens: 1024 } },
    });
    expect(anthropic.dropped[0]).toContain("api_key");
    const google = mapLlmArgs("google", "gemini-2.5-pro", {
      thinking: { type: "enabled", budget_tokens: 2048 },
    });
    expect(google.providerOptions).toEqual({
      google: { thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } },
    });
  });
});
