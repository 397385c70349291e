/**
 * The adapter examples, run offline: the fake provider on 127.0.0.1 plays the
 * agent's model (the examples' OpenAI clients read OPENAI_BASE_URL) and the
 * user simulator; each example reaches reward 1.0 on the scripted airline task
 * and 0.0 when the script makes a wrong write.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentDefinition } from "../src/agents/registry.ts";
import {
  AIRLINE_SCRIPT_TASK,
  type AirlineScriptVariant,
  airlineScriptHandler,
} from "../src/testing/airline-script.ts";
import { type FakeHandler, type FakeProvider, startFakeProvider } from "../src/testing/fake-provider.ts";
import { offlineRunConfig } from "../src/testing/run-config.ts";

// Nothing here may load an AI SDK provider before the environment points it at the fake provider:
// `openai` from @ai-sdk/openai reads OPENAI_BASE_URL once, when its module is loaded.
type Harness = {
  registerAgent: typeof import("../src/agents/registry.ts").registerAgent;
  fakeProviderDependencies: typeof import("../src/testing/fake-run-dependencies.ts").fakeProviderDependencies;
  executeRun: typeof import("../src/runner/run.ts").executeRun;
};

const dataDir = process.env.TAU_DATA_DIR;

/** The OpenAI Agents SDK example's front desk hands off first; then the airline script plays the changes desk. */
function handOffFirst(script: FakeHandler): FakeHandler {
  return (request) => {
    const handoff = "transfer_to_Changes_desk";
    const offered = (request.body.tools ?? []).some((tool: any) => tool.function?.name === handoff);
    const asked = JSON.stringify(request.body.messages ?? []).includes(`"name":"${handoff}"`);
    if (offered && !asked) return { toolCalls: [{ name: handoff, arguments: "{}" }] };
    return script(request);
  };
}

describe.skipIf(!dataDir)("examples on the scripted airline task (skipped: TAU_DATA_DIR not set)", () => {
  let fake: FakeProvider;
  const examples = new Map<string, AgentDefinition>();
  let harness: Harness;

  beforeAll(async () => {
    fake = await startFakeProvider();
    // What a user's shell would hold; the examples' providers read it when they are loaded.
    process.env.OPENAI_BASE_URL = fake.openaiBaseUrl;
    process.env.OPENAI_API_KEY = "sk-example";
    process.env.OPENAI_AGENTS_DISABLE_TRACING = "1";
    harness = {
      registerAgent: (await import("../src/agents/registry.ts")).registerAgent,
      fakeProviderDependencies: (await import("../src/testing/fake-run-dependencies.ts"))
        .fakeProviderDependencies,
      executeRun: (await import("../src/runner/run.ts")).executeRun,
    };
    examples.set("ai-sdk-agent", (await import("./ai-sdk-agent.ts")).default);
    examples.set("openai-agents-sdk", (await import("./openai-agents-sdk.ts")).default);
  });
  afterAll(async () => {
    await fake?.close();
  });

  async function rewardOf(example: string, variant: AirlineScriptVariant, handler: FakeHandler) {
    const definition = examples.get(example)!;
    const name = `${definition.name}_${variant}`;
    harness.registerAgent({ ...definition, name });
    fake.requests.length = 0;
    fake.setHandler(handler);
    const config = offlineRunConfig(dataDir!, {
      domain: "airline",
      taskIds: [AIRLINE_SCRIPT_TASK],
      agent: name,
      user: "user_simulator",
      userLlm: "openai/gpt-4.1",
    });
    const outcome = await harness.executeRun(config, harness.fakeProviderDependencies(fake.openaiBaseUrl));
    const [simulation] = outcome.simulations;
    // Every model call went to the fake provider (none left this machine).
    expect(fake.requests.length).toBeGreaterThan(3);
    expect(simulation?.termination_reason, JSON.stringify(simulation?.info)).toBe("user_stop");
    return { simulation: simulation!, outcome };
  }

  for (const variant of ["right", "wrong"] as const) {
    const expected = variant === "right" ? 1 : 0;

    it(`ai-sdk-agent.ts: ${variant} write → reward ${expected}`, async () => {
      const { simulation, outcome } = await rewardOf("ai-sdk-agent", variant, airlineScriptHandler(variant));
      expect(simulation.reward_info?.reward).toBe(expected);
      expect(outcome.info.agent_info).toMatchObject({
        implementation: `ai_sdk_agent_${variant}`,
        llm: "openai/gpt-4.1",
      });
      // The fake's usage is priced like taubench's own gpt-4.1 client.
      expect(simulation.agent_cost).toBeGreaterThan(0);
    });

    it(`openai-agents-sdk.ts: ${variant} write → reward ${expected}`, async () => {
      const { simulation, outcome } = await rewardOf(
        "openai-agents-sdk",
        variant,
        handOffFirst(airlineScriptHandler(variant)),
      );
      expect(simulation.reward_info?.reward).toBe(expected);
      expect(outcome.info.taubench).toMatchObject({ agent: { adapter: "openai-agents" } });
      // The harness executed both domain calls and recorded them as for any agent (the handoff is the SDK's own).
      const { simulations } = JSON.parse(readFileSync(outcome.resultsPath, "utf8"));
      const calls = simulations[0].messages.flatMap((message: any) => message.tool_calls ?? []);
      const write = variant === "right" ? "update_reservation_flights" : "cancel_reservation";
      expect(calls.map((call: any) => call.name)).toEqual(["get_reservation_details", write]);
      const tools = simulations[0].messages.filter((message: any) => message.role === "tool");
      expect(tools.map((message: any) => message.error)).toEqual([false, false]);
      const agentRequests = fake.requests.filter((request) =>
        (request.body.tools ?? []).some((tool: any) => tool.function?.name === "update_reservation_flights"),
      );
      // The SDK's own instructions, followed by the domain policy.
      expect(agentRequests.at(-1)!.body.messages[0].content).toMatch(/^You change, cancel[\s\S]*<policy>/);
    });
  }
});
