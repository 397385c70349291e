/**
 * A small results file for the review and analysis tests, written without
 * any data folder: `tasks` tasks of a made-up retail-like domain, each with
 * `trials` simulations (a short conversation with an agent tool call), the
 * rewards given per (task, trial).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JudgePassDependencies } from "../analysis/judge-pass.ts";
import { Results } from "../core/results.ts";
import { writeResultsFile } from "../core/results-file.ts";
import { createLlmClient } from "../llm/index.ts";
import type { FakeProvider } from "./fake-provider.ts";

/** Options of {@link writeReviewFixtureRun}. */
export interface ReviewFixtureOptions {
  tasks?: number;
  trials?: number;
  /** Reward of (task index, trial); default: every odd task fails its trial 0. */
  reward?: (task: number, trial: number) => number;
  domain?: string;
  /** A simulation whose agent calls a lookup that answers "not found" (task index, trial). */
  notFound?: (task: number, trial: number) => boolean;
}

/** Writes the run into a fresh temporary folder; returns the results path. */
export function writeReviewFixtureRun(options: ReviewFixtureOptions = {}): string {
  const taskCount = options.tasks ?? 4;
  const trials = options.trials ?? 1;
  const reward = options.reward ?? ((task, trial) => (task % 2 === 1 && trial === 0 ? 0 : 1));
  const domain = options.domain ?? "retail";
  const tasks = Array.from({ length: taskCount }, (_, index) => ({
    id: String(index),
    user_scenario: {
      persona: null,
      instructions: {
        domain,
        reason_for_call: `You want to return order #W${index}.`,
        known_info: "Your email is user@example.com.",
        unknown_info: null,
        task_instructions: "Be polite.",
      },
    },
    evaluation_criteria: {
      actions: [
        {
          action_id: `a${index}`,
          name: "get_order_details",
          arguments: { order_id: `#W${index}` },
        },
      ],
      nl_assertions: index === 0 ? ["The agent confirms the return."] : null,
      reward_basis: ["DB"],
    },
  }));
  const simulations = tasks.flatMap((task, index) =>
    Array.from({ length: trials }, (_, trial) => {
      const missing = options.notFound?.(index, trial) ?? false;
      const value = reward(index, trial);
      return {
        id: `sim-${task.id}-${trial}`,
        task_id: task.id,
        start_time: "2025-01-01T00:00:00",
        end_time: "2025-01-01T00:00:05",
        duration: 5,
        termination_reason: "user_stop",
        agent_cost: 0.01 * (index + 1),
        user_cost: 0.001,
        reward_info: { reward: value, reward_basis: ["DB"], reward_breakdown: { DB: value } },
        trial,
        seed: 100 + trial,
        messages: [
          { role: "assistant", content: "Hi! How can I help you today?", turn_idx: 0 },
          { role: "user", content: `I want to return order #W${index}.`, turn_idx: 1 },
          {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                id: "call_1",
                name: "get_order_details",
                arguments: { order_id: missing ? "#W999" : `#W${index}` },
                requestor: "assistant",
              },
            ],
            turn_idx: 2,
          },
          {
            role: "tool",
            id: "call_1",
            content: missing ? "Error: Order not found" : '{"order_id": "#W0", "status": "delivered"}',
            requestor: "assistant",
            error: missing,
            turn_idx: 3,
          },
          { role: "assistant", content: "Your return is confirmed.", turn_idx: 4 },
          { role: "user", content: "Thanks! ###STOP###", turn_idx: 5 },
        ],
      };
    }),
  );
  const results = Results.parse({
    timestamp: "2025-01-01T00:00:00",
    info: {
      git_commit: "test",
      num_trials: trials,
      max_steps: 200,
      max_errors: 10,
      seed: 300,
      user_info: {
        implementation: "user_simulator",
        llm: "openai/gpt-4.1",
        llm_args: { temperature: 0 },
        global_simulation_guidelines: "Play the customer. Only say what your instructions give you.",
      },
      agent_info: { implementation: "llm_agent", llm: "openai/gpt-4.1", llm_args: { temperature: 0 } },
      environment_info: { domain_name: domain, policy: "Authenticate the user by email before any action." },
    },
    tasks,
    simulations,
  });
  const path = join(mkdtempSync(join(tmpdir(), "tau-review-")), "results.json");
  writeResultsFile(path, results);
  return path;
}

/** Judge-pass dependencies whose clients talk to a fake provider (OpenAI protocol, no retries). */
export function fakeJudgeDependencies(provider: FakeProvider, signal?: AbortSignal): JudgePassDependencies {
  return {
    createLlm: (model, onEvent) =>
      createLlmClient(model, {
        baseUrl: provider.openaiBaseUrl,
        env: { OPENAI_API_KEY: "sk-test-dummy" },
        retry: { maxRetries: 0 },
        onEvent,
      }),
    providerKey: (model) => model,
    ...(signal ? { signal } : {}),
  };
}
