import { existsSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { Role, TaskState } from "@a2a-js/sdk";
import {
  AgentEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PreflightError, preflightEndpoints } from "../runner/preflight.ts";
import { executeRun } from "../runner/run.ts";
import {
  AIRLINE_CLOSING,
  AIRLINE_SCRIPT_TASK,
  type AirlineScriptVariant,
  airlineScriptCalls,
  airlineUserReply,
} from "../testing/airline-script.ts";
import { publishAgentReply, startA2aServer, type TestA2aServer } from "../testing/a2a-server.ts";
import { type FakeProvider, startFakeProvider } from "../testing/fake-provider.ts";
import { fakeProviderDependencies } from "../testing/fake-run-dependencies.ts";
import { offlineRunConfig } from "../testing/run-config.ts";
import { A2A_PARTS, a2aAgent } from "./a2a-agent.ts";
import { registerAgent } from "./registry.ts";

/** What the remote agent saw, per context. */
interface Seen {
  episode: any;
  texts: string[];
  results: any[];
  metadata: any[];
}

/** A scripted A2A agent: the airline script's calls (one per reply), then the closing line. */
class ScriptedExecutor implements AgentExecutor {
  readonly contexts = new Map<string, Seen>();
  variant: AirlineScriptVariant = "right";

  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const seen = this.contexts.get(context.contextId) ?? {
      episode: null,
      texts: [],
      results: [],
      metadata: [],
    };
    this.contexts.set(context.contextId, seen);
    seen.metadata.push(context.userMessage.metadata);
    for (const part of context.userMessage.parts) {
      const content = part.content;
      if (content?.$case === "text") seen.texts.push(content.value);
      if (content?.$case === "data" && content.value?.type === A2A_PARTS.episode)
        seen.episode = content.value;
      if (content?.$case === "data" && content.value?.type === A2A_PARTS.toolResults)
        seen.results.push(...content.value.results);
    }
    const calls = airlineScriptCalls(this.variant);
    const next = calls[seen.results.length];
    publishAgentReply(
      context,
      bus,
      next
        ? {
            // The first call sends its arguments as an object, the second as JSON text.
            $case: "data",
            value: {
              type: A2A_PARTS.toolCalls,
              calls: [
                {
                  id: `call_${seen.results.length}`,
                  name: next.name,
                  arguments: seen.results.length === 0 ? next.arguments : JSON.stringify(next.arguments),
                },
              ],
            },
          }
        : { $case: "text", value: AIRLINE_CLOSING },
    );
  }

  async cancelTask(): Promise<void> {}
}

/** An A2A agent that breaks the protocol one way (`mode`) on its first reply. */
class BrokenExecutor implements AgentExecutor {
  constructor(private readonly mode: "failed" | "rejected" | "bad_json" | "no_list" | "empty") {}

  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    if (this.mode === "failed" || this.mode === "rejected") {
      bus.publish(
        AgentEvent.task({
          id: context.taskId,
          contextId: context.contextId,
          status: {
            state: this.mode === "failed" ? TaskState.TASK_STATE_FAILED : TaskState.TASK_STATE_REJECTED,
            message: {
              messageId: "m1",
              contextId: context.contextId,
              taskId: context.taskId,
              role: Role.ROLE_AGENT,
              parts: [
                {
                  content: { $case: "text", value: "my model is down" },
                  metadata: undefined,
                  filename: "",
                  mediaType: "text/plain",
                },
              ],
              metadata: undefined,
              extensions: [],
              referenceTaskIds: [],
            },
            timestamp: undefined,
          },
          artifacts: [],
          history: [],
          metadata: undefined,
        }),
      );
      bus.finished();
      return;
    }
    const calls =
      this.mode === "bad_json"
        ? [{ id: "c1", name: "get_user_details", arguments: '{"user_id": ' }]
        : "get_user_details";
    publishAgentReply(
      context,
      bus,
      this.mode === "empty"
        ? { $case: "text", value: "  " }
        : { $case: "data", value: { type: A2A_PARTS.toolCalls, calls } },
    );
  }

  async cancelTask(): Promise<void> {}
}

const dataDir = process.env.TAU_DATA_DIR;

describe.skipIf(!dataDir)("an A2A agent on airline (skipped: TAU_DATA_DIR not set)", () => {
  let fake: FakeProvider;
  let server: TestA2aServer;
  let url: string;
  const executor = new ScriptedExecutor();

  beforeAll(async () => {
    fake = await startFakeProvider({ handler: airlineUserReply });
    server = await startA2aServer(executor, "Scripted airline agent");
    url = server.url;
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });

  /** The run's config, with the agent registered under `name`. */
  function configOf(name: string, agentUrl: string) {
    registerAgent(a2aAgent({ url: agentUrl, name, retry: { maxRetries: 0 } }));
    return offlineRunConfig(dataDir!, {
      domain: "airline",
      taskIds: [AIRLINE_SCRIPT_TASK],
      agent: name,
      user: "user_simulator",
      userLlm: "openai/gpt-4.1",
      maxConcurrency: 1,
    });
  }

  async function run(name: string, agentUrl: string) {
    return executeRun(configOf(name, agentUrl), fakeProviderDependencies(fake.openaiBaseUrl));
  }

  /** The port of a server that was just closed (nothing listens there). */
  async function deadUrl() {
    const gone = express().listen(0, "127.0.0.1");
    await new Promise((resolve) => gone.once("listening", resolve));
    const url = `http://127.0.0.1:${(gone.address() as AddressInfo).port}`;
    await new Promise((resolve) => gone.close(resolve));
    return url;
  }

  it("maps the episode onto one A2A context per simulation and grades the right write 1.0", async () => {
    executor.variant = "right";
    const outcome = await run("a2a_right", url);
    const [simulation] = outcome.simulations;
    expect(simulation?.reward_info?.reward).toBe(1);
    const seen = executor.contexts.get(simulation!.id)!;
    expect(seen, "the A2A context id is the simulation id").toBeDefined();
    expect(seen.episode.policy).toContain("airline");
    expect(seen.episode.tools.map((tool: any) => tool.function.name)).toContain("update_reservation_flights");
    expect(seen.episode.history).toEqual([{ role: "assistant", content: "Hi! How can I help you today?" }]);
    expect(seen.texts[0]).toContain("GV1N64");
    expect(seen.results).toHaveLength(2);
    expect(seen.results.every((result) => result.error === false)).toBe(true);
    expect(seen.metadata[0]).toMatchObject({
      "tau/simulation_id": simulation!.id,
      "tau/task_id": AIRLINE_SCRIPT_TASK,
    });
    expect(outcome.info.taubench).toMatchObject({ agent: { adapter: "a2a", endpoint: url } });
  });

  it("grades a wrong write 0.0", async () => {
    executor.variant = "wrong";
    const outcome = await run("a2a_wrong", url);
    expect(outcome.simulations[0]?.reward_info?.reward).toBe(0);
  });

  it("stops the run on a 401 from the agent", async () => {
    server.denyCalls = true;
    try {
      const outcome = await run("a2a_denied", url);
      expect(outcome.stoppedBy?.message).toMatch(
        /^A2A agent at http:\/\/127\.0\.0\.1:\d+: HTTP 401 \(auth\)/,
      );
      expect(outcome.simulations).toHaveLength(0);
    } finally {
      server.denyCalls = false;
    }
  });

  it("records an unreachable agent as an infrastructure error", async () => {
    const goneUrl = await deadUrl();
    const outcome = await run("a2a_gone", goneUrl);
    expect(outcome.stoppedBy).toBeNull();
    expect(outcome.simulations[0]?.termination_reason).toBe("infrastructure_error");
    expect(String(outcome.simulations[0]?.info?.error)).toMatch(/A2A agent at .*network error/);
  });

  it.each([
    [
      "a task that ended as failed",
      "failed",
      "server",
      /^A2A agent at http:\/\/127\.0\.0\.1:\d+: the agent's task ended as failed: my model is down$/,
    ],
    [
      "tool-call arguments that are not JSON",
      "bad_json",
      "invalid_tool_arguments",
      /: the agent's reply is not valid: tool call get_user_details has arguments that are not valid JSON$/,
    ],
    [
      "a tool_calls part without a calls list",
      "no_list",
      "invalid_response",
      /: the agent's reply is not valid: its tau\/tool_calls part has no calls list \(calls: "get_user_details"\)$/,
    ],
    [
      "a reply with nothing in it",
      "empty",
      "empty_response",
      /: the agent's reply is not valid: it has neither text nor tool calls$/,
    ],
  ] as const)(
    "records %s as an infrastructure error naming it, never the agent's failure",
    async (_what, mode, kind, message) => {
      const broken = await startA2aServer(new BrokenExecutor(mode), "Broken agent");
      try {
        const outcome = await run(`a2a_broken_${mode}`, broken.url);
        const simulation = outcome.simulations[0]!;
        expect(simulation.termination_reason).toBe("infrastructure_error");
        expect(simulation.info?.error_kind).toBe(kind);
        expect(String(simulation.info?.error)).toMatch(message);
      } finally {
        await broken.close();
      }
    },
  );

  it("scores a task the agent rejected as its failure (agent_error), not an infrastructure error", async () => {
    const broken = await startA2aServer(new BrokenExecutor("rejected"), "Rejecting agent");
    try {
      const simulation = (await run("a2a_rejects", broken.url)).simulations[0]!;
      expect(simulation.termination_reason).toBe("agent_error");
      expect(simulation.reward_info?.reward).toBe(0);
      expect(String(simulation.info?.error)).toBe(
        "a2a_rejects: the agent rejected the task: my model is down",
      );
    } finally {
      await broken.close();
    }
  });

  async function runChecked(name: string, agentUrl: string) {
    const config = configOf(name, agentUrl);
    const notes: string[] = [];
    const outcome = executeRun(config, {
      ...fakeProviderDependencies(fake.openaiBaseUrl),
      beforeFirstSimulation: (plan, clients) => preflightEndpoints(plan, clients, (line) => notes.push(line)),
    });
    return { outcome, checkpoint: `${config.resultsPath}l`, notes };
  }

  it("reads the card and asks tasks/get of a task that does not exist; a present agent passes", async () => {
    server.methods.length = 0;
    executor.variant = "right";
    const { outcome, notes } = await runChecked("a2a_preflight_ok", url);
    expect((await outcome).simulations[0]?.reward_info?.reward).toBe(1);
    expect(server.methods[0]).toBe("GetTask");
    expect(notes).toEqual([]);
  });

  it("a 401 stops the run before the first simulation, nothing written", async () => {
    server.denyCalls = true;
    try {
      const { outcome, checkpoint } = await runChecked("a2a_preflight_denied", url);
      await expect(outcome).rejects.toThrow(
        /^pre-flight: the agent \(http:\/\/127\.0\.0\.1:\d+\) cannot be used: A2A agent at http:\/\/127\.0\.0\.1:\d+: HTTP 401 \(auth\): .*nothing was run/,
      );
      await expect(outcome).rejects.toBeInstanceOf(PreflightError);
      expect(existsSync(checkpoint)).toBe(false);
    } finally {
      server.denyCalls = false;
    }
  });

  it("a dead URL stops the run before the first simulation, nothing written", async () => {
    const goneUrl = await deadUrl();
    const { outcome, checkpoint } = await runChecked("a2a_preflight_gone", goneUrl);
    await expect(outcome).rejects.toThrow(
      /^pre-flight: the agent .* cannot be used: A2A agent at .*network error/,
    );
    expect(existsSync(checkpoint)).toBe(false);
  });

  it.each([
    ["not JSON", "<html>sign in</html>", /is not valid JSON/],
    [
      "a card without an interface",
      JSON.stringify({ name: "bare", description: "no interfaces" }),
      /No compatible transport/,
    ],
  ])(
    "an agent card that is %s stops the run before the first simulation, naming the card",
    async (_what, card, reason) => {
      const app = express();
      // Under a path: the card is looked for under the URL's path, not beside it.
      app.get("/a2a/agent/.well-known/agent-card.json", (_request, response) => {
        response.type("application/json").send(card);
      });
      const listening = app.listen(0, "127.0.0.1");
      await new Promise((resolve) => listening.once("listening", resolve));
      const cardUrl = `http://127.0.0.1:${(listening.address() as AddressInfo).port}/a2a/agent`;
      try {
        const { outcome, checkpoint } = await runChecked(`a2a_preflight_card_${card.length}`, cardUrl);
        const error = await outcome.catch((e: unknown) => e);
        expect(error).toBeInstanceOf(PreflightError);
        expect((error as Error).message).toContain(
          `cannot be used: A2A agent at ${cardUrl}: its agent card (${cardUrl}/.well-known/agent-card.json) cannot be used: `,
        );
        expect((error as Error).message).toMatch(reason);
        expect(existsSync(checkpoint)).toBe(false);
      } finally {
        await new Promise((resolve) => listening.close(resolve));
      }
    },
  );
});
