import { describe, expect, it } from "vitest";
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
