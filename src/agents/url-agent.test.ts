import { describe, expect, it } from "vitest";
import { agentApiKeyFrom, type UrlAgentSpec, urlAgentDefinition } from "./url-agent.ts";

describe("an agent behind a URL as data", () => {
  it("builds the adapter the spec names, at its URL, and survives JSON (a queue job carries it)", () => {
    const specs: UrlAgentSpec[] = [
      { protocol: "chat-completions", url: "http://127.0.0.1:1/v1", timeoutMs: 5000 },
      { protocol: "a2a", url: "http://127.0.0.1:2" },
    ];
    const built = specs.map((spec) => urlAgentDefinition(JSON.parse(JSON.stringify(spec)), "key"));
    expect(built.map((definition) => [definition.name, definition.origin])).toEqual([
      [
        "chat_completions_agent",
        { adapter: "chat-completions", llm: null, endpoint: "http://127.0.0.1:1/v1" },
      ],
      ["a2a_agent", { adapter: "a2a", llm: null, endpoint: "http://127.0.0.1:2" }],
    ]);
    // The key is the builder's argument, never part of what travels.
    expect(JSON.stringify(specs)).not.toContain("key");
  });

  it("takes the key from TAU_AGENT_API_KEY, blank meaning none", () => {
    expect(agentApiKeyFrom({ TAU_AGENT_API_KEY: " k " })).toBe("k");
    expect(agentApiKeyFrom({ TAU_AGENT_API_KEY: "  " })).toBeUndefined();
    expect(agentApiKeyFrom({})).toBeUndefined();
  });
});
