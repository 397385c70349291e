/**
 * End to end through the Anthropic Messages wire format: `tau run --domain
 * airline` with `anthropic/…` agent and user models on the fake provider, with
 * prompt caching on (the default). The requests must carry cache breakpoints
 * and the results must record the cache reads the provider reported.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeProvider, startFakeProvider } from "../testing/fake-provider.ts";
import { byParticipant, inOrder, participantOf, readResults, runTau } from "./e2e-harness.ts";

const dataDir = process.env.TAU_DATA_DIR;

const hasBreakpoint = (block: { cache_control?: { type?: string } } | undefined) =>
  block?.cache_control?.type === "ephemeral";

describe.skipIf(!dataDir)("tau run through the Anthropic endpoint (skipped: TAU_DATA_DIR not set)", () => {
  let fake: FakeProvider;
  let cwd: string;

  beforeAll(async () => {
    fake = await startFakeProvider();
    cwd = mkdtempSync(join(tmpdir(), "tau-e2e-anthropic-"));
  });
  afterAll(async () => {
    await fake?.close();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  it("sends cache breakpoints and records cache-read tokens in the results", async () => {
    fake.setHandler(
      byParticipant({
        agent: inOrder([
          { toolCalls: [{ name: "get_reservation_details", arguments: '{"reservation_id": "GV1N64"}' }] },
          {
            toolCalls: [
              {
                name: "update_reservation_flights",
                arguments:
                  '{"reservation_id": "GV1N64", "cabin": "basic_economy", "flights": [{"flight_number": "HAT003", "date": "2024-05-19"}, {"flight_number": "HAT290", "date": "2024-05-20"}], "payment_id": "gift_card_1642017"}',
              },
            ],
          },
          { text: "All passengers are in basic economy now; $5244 is refunded to your gift card." },
        ]),
        user: inOrder([
          { text: "Please downgrade reservation GV1N64 to basic economy." },
          { text: "###STOP###" },
        ]),
      }),
    );
    const path = join(cwd, "results.json");
    const run = await runTau(
      [
        "run",
        "--no-preflight",
        "--domain",
        "airline",
        "--task-ids",
        "11",
        "--agent-llm",
        "anthropic/claude-sonnet-4-5",
        "--user-llm",
        "anthropic/claude-sonnet-4-5",
        "--data-dir",
        dataDir!,
        "--save-to",
        path,
      ],
      { cwd, env: { ANTHROPIC_API_KEY: "sk-ant-test-dummy", ANTHROPIC_BASE_URL: fake.anthropicBaseUrl } },
    );
    expect(run.status, run.stderr).toBe(0);

    const agentRequests = fake.requests.filter((request) => participantOf(request) === "agent");
    expect(agentRequests).toHaveLength(3);
    for (const request of agentRequests) {
      expect(request.protocol).toBe("anthropic");
      const body = request.body;
      // Breakpoints on the last tool, the system prompt and the newest message.
      expect(hasBreakpoint(body.tools.at(-1))).toBe(true);
      expect(body.tools.slice(0, -1).some(hasBreakpoint)).toBe(false);
      expect(hasBreakpoint(body.system.at(-1))).toBe(true);
      expect(hasBreakpoint(body.messages.at(-1).content.at(-1))).toBe(true);
    }

    const results = readResults(path);
    const simulation = results.simulations[0]!;
    expect(simulation.reward_info.reward).toBe(1);
    const agentUsage = simulation.messages
      .filter((m: { role: string; usage?: unknown }) => m.role === "assistant" && m.usage)
      .map((m: { usage: Record<string, number> }) => m.usage);
    expect(agentUsage).toHaveLength(3);
    // The first call writes the prefix; every later call reads it back.
    expect(agentUsage[0].cache_write_tokens).toBeGreaterThan(1024);
    expect(agentUsage[0].cache_read_tokens).toBeUndefined();
    for (const usage of agentUsage.slice(1)) {
      expect(usage.cache_read_tokens).toBeGreaterThan(1024);
      expect(usage.cache_read_tokens).toBeLessThanOrEqual(usage.prompt_tokens);
    }
    // prompt_tokens counts all input, cached or not (upstream's meaning).
    expect(agentUsage[1].prompt_tokens).toBeGreaterThan(agentUsage[0].prompt_tokens);
    expect(results.info.agent_info.llm).toBe("anthropic/claude-sonnet-4-5");
    expect(simulation.agent_cost).toBeGreaterThan(0);
  });
});
