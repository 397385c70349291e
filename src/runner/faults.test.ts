/**
 * The fault suite: whole runs against the fake provider, for each of OpenAI,
 * Anthropic, Google and a local OpenAI-compatible server, under each fault a
 * provider can throw (429 with and without retry-after, 500/502/503/529, a reset
 * connection, a call that never answers, a body cut short, malformed tool
 * arguments, an empty reply, context overflow).
 *
 * Each run has two tasks. On `create_task_1` the fault strikes once, on the
 * agent's first call: the run recovers (a provider retry, or a re-run of the
 * simulation for faults a second call cannot fix) and the task scores 1. On
 * `update_task_1` it strikes every agent call: the simulation ends as an
 * infrastructure error labelled with the fault, after a bounded number of
 * calls, and pass^k counts only the other task.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { SimulationRun } from "../core/simulation.ts";
import { createLlmClient, type LlmEvent } from "../llm/index.ts";
import { computeMetrics } from "../metrics/index.ts";
import { participantOf } from "../cli/e2e-harness.ts";
import {
  FAKE_FAULTS,
  type FakeFault,
  type FakeProtocol,
  type FakeReply,
  type FakeRequest,
  faultReply,
  startFakeProvider,
} from "../testing/fake-provider.ts";
import { offlineRunConfig } from "../testing/run-config.ts";
import { parseRunUsage } from "./llm-usage.ts";
import { executeRun } from "./run.ts";

const dataDir = process.env.TAU_DATA_DIR;

const PROVIDERS = [
  { name: "openai", model: "openai/gpt-4.1", protocol: "openai" },
  { name: "anthropic", model: "anthropic/claude-sonnet-4-5", protocol: "anthropic" },
  { name: "google", model: "google/gemini-2.5-pro", protocol: "google" },
  { name: "local", model: "local/qwen3:8b", protocol: "openai" },
] as const satisfies readonly { name: string; model: string; protocol: FakeProtocol }[];

/** Calls a second attempt can fix: the provider layer retries them itself. */
const RETRIED_BY_PROVIDER = new Set<FakeFault>([
  "rate_limit_retry_after",
  "rate_limit",
  "server_500",
  "bad_gateway_502",
  "unavailable_503",
  "overloaded_529",
  "connection_reset",
  "timeout",
  "truncated_body",
]);

/** The label an infrastructure error carries for each fault (`info.error_kind`, `info.status_code`). */
const LABELS: Record<FakeFault, { error_kind: string; status_code?: number }> = {
  rate_limit_retry_after: { error_kind: "rate_limit", status_code: 429 },
  rate_limit: { error_kind: "rate_limit", status_code: 429 },
  server_500: { error_kind: "server", status_code: 500 },
  bad_gateway_502: { error_kind: "server", status_code: 502 },
  unavailable_503: { error_kind: "server", status_code: 503 },
  overloaded_529: { error_kind: "server", status_code: 529 },
  connection_reset: { error_kind: "network" },
  timeout: { error_kind: "timeout" },
  truncated_body: { error_kind: "network" },
  malformed_tool_json: { error_kind: "invalid_tool_arguments" },
  empty_reply: { error_kind: "empty_response" },
  context_overflow: { error_kind: "context_overflow", status_code: 400 },
};

const PROVIDER_RETRIES = 2;
const SIMULATION_RETRIES = 1;
const RETRY_AFTER_CAP_MS = 20;
/** A hanging call is given up after this long; other calls get far more, so a busy machine cannot time them out. */
const TIMEOUT_MS = { hanging: 300, normal: 30_000 };

/** The whole request as text, whatever the protocol (to find the scenario and the conversation). */
const textOf = (request: FakeRequest) => JSON.stringify(request.body);

/** How many replies the agent or the user already gave in the conversation a request carries. */
function repliesSoFar(request: FakeRequest, role: "agent" | "user"): number {
  const turns: { role?: string }[] =
    request.protocol === "google" ? (request.body.contents ?? []) : (request.body.messages ?? []);
  const own = turns.filter(
    (turn) => turn.role === (request.protocol === "google" ? "model" : "assistant"),
  ).length;
  // The agent's history opens with the fixed greeting, which no model wrote.
  return role === "agent" ? Math.max(0, own - 1) : own;
}

/** The scripted conversation: the user asks for its task, the agent does it and says so, the user stops. */
function script(request: FakeRequest): FakeReply {
  const text = textOf(request);
  if (participantOf(request) === "user") {
    if (repliesSoFar(request, "user") > 0) return { text: "###STOP###" };
    return { text: text.includes("Important Meeting") ? "TASK-CREATE please" : "TASK-UPDATE please" };
  }
  if (repliesSoFar(request, "agent") > 0) return { text: "Done." };
  return text.includes("TASK-CREATE")
    ? { toolCalls: [{ name: "create_task", arguments: { user_id: "user_1", title: "Important Meeting" } }] }
    : { toolCalls: [{ name: "update_task_status", arguments: { task_id: "task_1", status: "completed" } }] };
}

async function runUnderFault(provider: (typeof PROVIDERS)[number], fault: FakeFault) {
  const fake = await startFakeProvider();
  const agentCalls = { create: 0, update: 0 };
  fake.setHandler((request) => {
    if (participantOf(request) !== "agent") return script(request);
    const task = textOf(request).includes("TASK-CREATE") ? "create" : "update";
    agentCalls[task]++;
    // Once on the create task's first call; on every call of the update task.
    if (task === "update" || agentCalls.create === 1)
      return faultReply(fault, provider.protocol, "get_users");
    return script(request);
  });
  const events: LlmEvent[] = [];
  const baseUrl =
    provider.protocol === "anthropic"
      ? fake.anthropicBaseUrl
      : provider.protocol === "google"
        ? fake.googleBaseUrl
        : fake.openaiBaseUrl;
  const config = offlineRunConfig(dataDir!, {
    agent: "llm_agent",
    user: "user_simulator",
    agentLlm: provider.model,
    userLlm: provider.model,
    taskIds: ["create_task_1", "update_task_1"],
    maxRetries: SIMULATION_RETRIES,
    maxConcurrency: 2,
  });
  try {
    const outcome = await executeRun(config, {
      providerKey: (model) => model,
      createLlm: (model, onEvent) =>
        createLlmClient(model, {
          baseUrl,
          env: { OPENAI_API_KEY: "sk-fault", ANTHROPIC_API_KEY: "ak-fault", GEMINI_API_KEY: "gk-fault" },
          retry: {
            maxRetries: PROVIDER_RETRIES,
            initialDelayMs: 2,
            maxDelayMs: 5,
            maxRetryAfterMs: RETRY_AFTER_CAP_MS,
          },
          timeoutMs: fault === "timeout" ? TIMEOUT_MS.hanging : TIMEOUT_MS.normal,
          onEvent: (event) => {
            events.push(event);
            onEvent(event);
          },
        }),
    });
    const saved = JSON.parse(readFileSync(config.resultsPath, "utf8")) as { simulations: SimulationRun[] };
    return { outcome, saved, events, agentCalls };
  } finally {
    await fake.close();
  }
}

describe.skipIf(!dataDir)(
  "fault suite: whole runs against the fake provider (skipped: TAU_DATA_DIR not set)",
  () => {
    for (const provider of PROVIDERS) {
      describe(provider.name, () => {
        it.each(FAKE_FAULTS)(
          "%s: recovers once, labels the persistent fault, bounds retries",
          async (fault) => {
            const { outcome, saved, events, agentCalls } = await runUnderFault(provider, fault);
            // The run completes: both units recorded, nothing stopped it.
            expect(outcome.interrupted).toBe(false);
            expect(outcome.stoppedBy).toBeNull();
            expect(saved.simulations).toHaveLength(2);
            const byTask = new Map(saved.simulations.map((simulation) => [simulation.task_id, simulation]));

            // Struck once: recovered, scored.
            const recovered = byTask.get("create_task_1")!;
            expect(recovered.termination_reason).toBe("user_stop");
            expect(recovered.reward_info?.reward).toBe(1);

            // Struck on every call: an infrastructure error that says which fault, after bounded attempts.
            const failed = byTask.get("update_task_1")!;
            expect(failed.termination_reason).toBe("infrastructure_error");
            expect(failed.reward_info).toBeNull();
            expect(failed.info).toMatchObject({
              ...LABELS[fault],
              failed_after_attempts: SIMULATION_RETRIES + 1,
            });
            const perSimulation = RETRIED_BY_PROVIDER.has(fault) ? PROVIDER_RETRIES + 1 : 1;
            if (fault === "timeout") {
              // A busy machine may time out a slow call too: bounded, not exact.
              expect(agentCalls.update).toBeGreaterThanOrEqual(perSimulation * (SIMULATION_RETRIES + 1));
              expect(agentCalls.update).toBeLessThanOrEqual(perSimulation * (SIMULATION_RETRIES + 1) + 2);
            } else {
              expect(agentCalls.update).toBe(perSimulation * (SIMULATION_RETRIES + 1));
            }

            // pass^k leaves out the infrastructure error, and only it.
            const metrics = computeMetrics(outcome.simulations);
            expect(metrics.infraErrorCount).toBe(1);
            expect(metrics.evaluatedSimulations).toBe(1);
            expect(metrics.passHatK[0]).toBe(1);

            // What it cost to get there is recorded: retries (provider or whole simulation), 429s once each.
            const usage = parseRunUsage(outcome.info.taubench?.llm_usage)!;
            if (RETRIED_BY_PROVIDER.has(fault)) {
              expect(usage.simulation_retries).toBe(SIMULATION_RETRIES);
              if (fault !== "timeout")
                expect(usage.retries).toBe(1 + PROVIDER_RETRIES * (SIMULATION_RETRIES + 1));
            } else {
              // A second call of the same request would not help: the whole simulation is re-run instead.
              expect(usage.retries).toBe(0);
              expect(usage.simulation_retries).toBe(1 + SIMULATION_RETRIES);
            }
            const rateLimited = fault === "rate_limit" || fault === "rate_limit_retry_after";
            expect(usage.rate_limited).toBe(rateLimited ? 1 + perSimulation * (SIMULATION_RETRIES + 1) : 0);
            expect(usage.failed_calls).toBe(
              SIMULATION_RETRIES + 1 + (RETRIED_BY_PROVIDER.has(fault) ? 0 : 1),
            );

            // retry-after is honoured (capped); without it the backoff is the policy's own.
            const delays = events.flatMap((event) => (event.type === "retry" ? [event.delayMs] : []));
            if (fault === "rate_limit_retry_after")
              expect(new Set(delays)).toEqual(new Set([RETRY_AFTER_CAP_MS]));
            else if (RETRIED_BY_PROVIDER.has(fault) && fault !== "timeout")
              expect(Math.max(...delays)).toBeLessThanOrEqual(5);
          },
        );
      });
    }
  },
);
