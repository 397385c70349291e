import { describe, expect, it } from "vitest";
import { UsageError } from "../core/errors.ts";
import { PyFloat, pyDumps } from "../core/py-json.ts";
import {
  defaultLlmArgs,
  parseIntegerOption,
  parseJsonObjectOption,
  parseModelOption,
  parseNumberOption,
  parsePortOption,
  requireTau2Domain,
  resumeCommandFor,
} from "./options.ts";
import { defaultRunName, resolveResultsPath } from "../runner/run-paths.ts";

describe("option parsing", () => {
  it("parses integers strictly and names the flag", () => {
    expect(parseIntegerOption("--num-trials", "4", 1)).toBe(4);
    expect(() => parseIntegerOption("--num-trials", "4.5", 1)).toThrow(
      "--num-trials must be an integer ≥ 1, got '4.5'",
    );
    expect(() => parseIntegerOption("--max-retries", "-1", 0)).toThrow(UsageError);
  });
  it("parses ports from 0 to 65535", () => {
    expect(parsePortOption("--port", "0")).toBe(0);
    expect(parsePortOption("--port", "65535")).toBe(65535);
    expect(() => parsePortOption("--port", "65536")).toThrow(
      "--port must be a port number from 0 to 65535, got '65536'",
    );
    expect(() => parsePortOption("--port", "-1")).toThrow(UsageError);
  });
  it("parses non-negative numbers", () => {
    expect(parseNumberOption("--retry-delay", "1.5")).toBe(1.5);
    expect(() => parseNumberOption("--timeout", "soon")).toThrow(
      "--timeout must be a non-negative number, got 'soon'",
    );
    expect(parseNumberOption("--retry-delay", "0")).toBe(0);
    expect(() => parseNumberOption("--timeout", "0", { positive: true })).toThrow(
      "--timeout must be a positive number, got '0'",
    );
  });
  it("keeps floats in JSON args and the default, as upstream writes them", () => {
    expect(pyDumps(parseJsonObjectOption("--agent-llm-args", '{"temperature": 0.0, "seed": 1}'))).toBe(
      '{"temperature": 0.0, "seed": 1}',
    );
    expect(defaultLlmArgs().temperature).toBeInstanceOf(PyFloat);
    expect(() => parseJsonObjectOption("--user-llm-args", "{temperature: 0}")).toThrow(
      /must be a JSON object/,
    );
  });
  it("refuses original τ-bench domains where only τ² environments exist", () => {
    expect(() => requireTau2Domain("tau tool", "airline")).not.toThrow();
    expect(() => requireTau2Domain("tau tool", "tau1-retail")).toThrow(
      "tau tool supports the τ²-bench domains only; tau1-retail is an original τ-bench domain",
    );
    expect(() => requireTau2Domain("tau mcp", "tau1-airline")).toThrow(UsageError);
  });
  it("wants provider/model", () => {
    expect(parseModelOption("--agent-llm", "anthropic/claude-sonnet-4-5")).toBe(
      "anthropic/claude-sonnet-4-5",
    );
    expect(() => parseModelOption("--agent-llm", "gpt-4.1")).toThrow(/takes provider\/model/);
  });
  it("builds a copy-pasteable resume command with --save-to pinned", () => {
    expect(
      resumeCommandFor(
        ["run", "--domain", "mock", "--save-to", "x", "--agent-llm-args", '{"a": 1}'],
        "/r/x/results.json",
      ),
    ).toBe(`tau run --domain mock --agent-llm-args '{"a": 1}' --save-to /r/x/results.json`);
  });
});

describe("run paths", () => {
  it("puts a bare name under ./runs/NAME/ and keeps .json paths", () => {
    expect(resolveResultsPath("exp1", { cwd: "/w" })).toBe("/w/runs/exp1/results.json");
    expect(resolveResultsPath("out/r.json", { cwd: "/w" })).toBe("/w/out/r.json");
    expect(resolveResultsPath("out/r.jsonl", { cwd: "/w" })).toBe("/w/out/r.json");
  });
  it("refuses the data folder and path-like names", () => {
    expect(() => resolveResultsPath("/data/domains/x.json", { dataDir: "/data" })).toThrow(
      /inside the data folder/,
    );
    expect(() => resolveResultsPath("a/b", {})).toThrow(/run name/);
  });
  it("names runs the upstream way", () => {
    const name = defaultRunName(
      {
        domain: "airline",
        agent: "llm_agent",
        agentLlm: "openai/gpt-4.1",
        user: "user_simulator",
        userLlm: "openai/gpt-4.1-mini",
      },
      new Date(2026, 0, 2, 3, 4, 5),
    );
    expect(name).toBe("20260102_030405_airline_llm_agent_gpt-4.1_user_simulator_gpt-4.1-mini");
  });
  it("leaves out the model part of a participant that uses no model", () => {
    const at = new Date(2026, 0, 2, 3, 4, 5);
    const offline = { domain: "mock", agent: "replay", agentLlm: null, user: "scripted", userLlm: null };
    expect(defaultRunName(offline, at)).toBe("20260102_030405_mock_replay_scripted");
    expect(defaultRunName({ ...offline, agent: "llm_agent", agentLlm: "anthropic/claude-x" }, at)).toBe(
      "20260102_030405_mock_llm_agent_claude-x_scripted",
    );
  });
});
