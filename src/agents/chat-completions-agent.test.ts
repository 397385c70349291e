import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { executeRun } from "../runner/run.ts";
import {
  AIRLINE_SCRIPT_TASK,
  airlineScriptHandler,
  isUserSimulatorRequest,
} from "../testing/airline-script.ts";
import { type FakeProvider, startFakeProvider } from "../testing/fake-provider.ts";
import { fakeProviderDependencies } from "../testing/fake-run-dependencies.ts";
import { offlineRunConfig } from "../testing/run-config.ts";
import { AGENT_HEADERS, chatCompletionsAgent, parseAgentUrl } from "./chat-completions-agent.ts";
import { registerAgent } from "./registry.ts";

describe("parseAgentUrl", () => {
  it("keeps credentials out of the recorded URL and turns them into a Basic header", () => {
    expect(parseAgentUrl("http://127.0.0.1:8000/v1/")).toEqual({ url: "http://127.0.0.1:8000/v1" });
    const parsed = parseAgentUrl("https://bot:s%40cret@agents.internal/v1");
    expect(parsed.url).toBe("https://agents.internal/v1");
    expect(parsed.authorization).toBe(`Basic ${Buffer.from("bot:s@cret").toString("base64")}`);
  });

  it("refuses what is not a base URL with one line naming the flag", () => {
    expect(() => parseAgentUrl("localhost:8000")).toThrow(/--agent-url must be an http\(s\) URL/);
    expect(() => parseAgentUrl("ftp://host/v1")).toThrow(/--agent-url must be an http\(s\) URL/);
    expect(() => parseAgentUrl("http://host/v1?key=1")).toThrow(/without query/);
  });
});

const dataDir = process.env.TAU_DATA_DIR;

describe.skipIf(!dataDir)(
  "a Chat Completions agent service on airline (skipped: TAU_DATA_DIR not set)",
  () => {
    let fake: FakeProvider;
    beforeAll(async () => {
      fake = await startFakeProvider();
    });
    afterAll(async () => {
      await fake?.close();
    });

    const deps = () => fakeProviderDependencies(fake.openaiBaseUrl);

    async function run(
      name: string,
      baseUrl: string,
      options: { apiKey?: string; maxRetries?: number } = {},
    ) {
      registerAgent(
        chatCompletionsAgent({
          baseUrl,
          name,
          ...(options.apiKey ? { apiKey: options.apiKey } : {}),
          retry: { maxRetries: options.maxRetries ?? 0, initialDelayMs: 1 },
        }),
      );
      const config = offlineRunConfig(dataDir!, {
        domain: "airline",
        taskIds: [AIRLINE_SCRIPT_TASK],
        agent: name,
        user: "user_simulator",
        userLlm: "openai/gpt-4.1",
        maxConcurrency: 1,
      });
      return { config, outcome: await executeRun(config, deps()) };
    }

    it("sends the policy, conversation and tools with the simulation's headers, and grades the reply 1.0", async () => {
      fake.requests.length = 0;
      fake.setHandler(airlineScriptHandler("right"));
      const { config, outcome } = await run("url_agent_right", `${fake.openaiBaseUrl}/`, {
        apiKey: "agent-key",
      });
      const [simulation] = outcome.simulations;
      expect(simulation?.reward_info?.reward).toBe(1);

      const agentCalls = fake.requests.filter((request) => !isUserSimulatorRequest(request));
      expect(agentCalls).toHaveLength(3);
      for (const call of agentCalls) {
        expect(call.path).toBe("/v1/chat/completions");
        expect(call.headers[AGENT_HEADERS.simulationId]).toBe(simulation?.id);
        expect(call.headers[AGENT_HEADERS.taskId]).toBe(AIRLINE_SCRIPT_TASK);
        expect(call.headers[AGENT_HEADERS.trial]).toBe("0");
        expect(call.headers[AGENT_HEADERS.domain]).toBe("airline");
        expect(call.headers.authorization).toBe("Bearer agent-key");
        expect(call.body.messages[0].role).toBe("system");
        expect(call.body.messages[0].content).toContain("<policy>");
        expect(call.body.tools.map((tool: any) => tool.function.name)).toContain(
          "update_reservation_flights",
        );
      }
      // The whole conversation goes every time: the last call carries both tool results.
      expect(agentCalls[2]!.body.messages.filter((m: any) => m.role === "tool")).toHaveLength(2);

      // The results file says which adapter and endpoint played the agent (no credentials).
      const { info } = JSON.parse(readFileSync(config.resultsPath, "utf8"));
      expect(info.agent_info).toMatchObject({ implementation: "url_agent_right", llm: null });
      expect(info.taubench.agent).toMatchObject({
        adapter: "chat-completions",
        endpoint: fake.openaiBaseUrl,
      });
    });

    it("grades a wrong write 0.0", async () => {
      fake.setHandler(airlineScriptHandler("wrong"));
      const { outcome } = await run("url_agent_wrong", fake.openaiBaseUrl);
      expect(outcome.simulations[0]?.reward_info?.reward).toBe(0);
      expect(outcome.simulations[0]?.reward_info?.db_check?.db_match).toBe(false);
    });

    it("stops the run on a 401 with the service's error, recording no simulation", async () => {
      fake.setHandler((request) =>
        isUserSimulatorRequest(request)
          ? airlineScriptHandler("right")(request)
          : { kind: "error", status: 401, message: "bad agent key" },
      );
      const { outcome } = await run("url_agent_denied", fake.openaiBaseUrl, { maxRetries: 3 });
      expect(outcome.stoppedBy?.message).toMatch(
        /^agent at http:\/\/127\.0\.0\.1:\d+\/v1: HTTP 401 \(auth\)/,
      );
      expect(outcome.simulations).toHaveLength(0);
      expect(outcome.ranNow).toBe(0);
    });

    it("records an unreachable service as an infrastructure error, never as an agent failure", async () => {
      const closed = await startFakeProvider();
      const url = closed.openaiBaseUrl;
      await closed.close();
      fake.setHandler(airlineScriptHandler("right"));
      const { outcome } = await run("url_agent_gone", url);
      expect(outcome.stoppedBy).toBeNull();
      const [simulation] = outcome.simulations;
      expect(simulation?.termination_reason).toBe("infrastructure_error");
      expect(simulation?.reward_info).toBeNull();
      expect(String(simulation?.info?.error)).toMatch(/agent at .*ECONNREFUSED/);
    });
  },
);
