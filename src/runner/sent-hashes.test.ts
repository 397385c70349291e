import { describe, expect, it } from "vitest";
import { sentDifferences } from "./sent-hashes.ts";

describe("sentDifferences: the agent's URL", () => {
  const stamp = (adapter: string, endpoint: string) => ({ agent: { adapter, endpoint } });
  const differ = (a: object, b: object) => sentDifferences(a, b, new Map(), []);

  it("names a changed URL of an agent service", () => {
    expect(differ(stamp("a2a", "http://127.0.0.1:1"), stamp("a2a", "http://127.0.0.1:2"))).toEqual([
      "the agent's URL changed (http://127.0.0.1:1 → http://127.0.0.1:2)",
    ]);
    expect(
      differ(stamp("chat-completions", "http://a/v1"), stamp("chat-completions", "http://a/v1")),
    ).toEqual([]);
  });

  it("leaves out where tau mcp served (a new port each time, or stdio)", () => {
    expect(
      differ(stamp("mcp", "http://127.0.0.1:40001/mcp"), stamp("mcp", "http://127.0.0.1:40002/mcp")),
    ).toEqual([]);
    expect(differ(stamp("mcp", "stdio"), stamp("mcp", "http://127.0.0.1:40002/mcp"))).toEqual([]);
  });
});
