import { describe, expect, it } from "vitest";
import { UsageError } from "../core/errors.ts";
import { createLlmClient } from "./index.ts";
import { localBaseUrl } from "./local-base-url.ts";

describe("--llm-base-url", () => {
  it("applies to local/… models only, so hosted keys never reach the local server", () => {
    expect(localBaseUrl("local/qwen3:8b", "http://127.0.0.1:8000/v1")).toEqual({
      baseUrl: "http://127.0.0.1:8000/v1",
    });
    expect(localBaseUrl("openai/gpt-4.1", "http://127.0.0.1:8000/v1")).toEqual({});
    expect(localBaseUrl("anthropic/claude-sonnet-4-5", "http://127.0.0.1:8000/v1")).toEqual({});
    expect(localBaseUrl("local/qwen3:8b", undefined)).toEqual({});
  });
});

describe("base URLs", () => {
  it("a base URL that is not http(s) is a usage error naming the model and where it came from", () => {
    const make = (model: string, options: Parameters<typeof createLlmClient>[1]) => () =>
      createLlmClient(model, options);
    expect(make("local/qwen", { baseUrl: "127.0.0.1:8000/v1" })).toThrow(UsageError);
    expect(make("local/qwen", { baseUrl: "ftp://127.0.0.1/v1" })).toThrow(
      'local/qwen: base URL "ftp://127.0.0.1/v1" is not an http:// or https:// URL',
    );
    expect(make("openai/gpt-4.1", { env: { OPENAI_API_KEY: "k", OPENAI_BASE_URL: "nope" } })).toThrow(
      'openai/gpt-4.1: OPENAI_BASE_URL "nope" is not an http:// or https:// URL',
    );
    expect(make("local/qwen", { env: { TAU_LLM_BASE_URL: "https://127.0.0.1:8443/v1" } })).not.toThrow();
  });
});
