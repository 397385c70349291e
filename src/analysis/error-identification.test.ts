import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { readAnalysisFile } from "../core/review-file.ts";
import { loadRun } from "../runner/run-file.ts";
import { type FakeProvider, type FakeRequest, startFakeProvider } from "../testing/fake-provider.ts";
import { fakeJudgeDependencies, writeReviewFixtureRun } from "../testing/review-fixtures.ts";
import { analyzeRun, parseClassification, renderAnalysisBreakdown } from "./error-identification.ts";

const MODEL = "openai/gpt-4.1";

const providers: FakeProvider[] = [];
afterEach(async () => {
  for (const provider of providers.splice(0)) await provider.close();
});

/** Which of the four questions a request asks, and about which order (the fixture's task i talks about #Wi). */
function question(request: FakeRequest): { step: string; order: string } {
  const system = String(request.body.messages[0].content);
  const user = String(request.body.messages[1].content);
  const order = /return order (#W\d+)/.exec(user)?.[1] ?? "?";
  if (system.startsWith("Classify"))
    return { step: user.includes("who is responsible") ? "author" : "type", order };
  return { step: system.includes("kind of fault") ? "type_description" : "author_description", order };
}

/** Scripted judge: task 1 is the agent's fault (wrong argument), task 3 the user's. */
function judge(overrides: (step: string, order: string) => string | undefined = () => undefined) {
  return (request: FakeRequest) => {
    const { step, order } = question(request);
    const scripted = overrides(step, order);
    if (scripted !== undefined) return { text: scripted };
    if (step === "author")
      return { text: order === "#W1" ? '{"classification": "B"}' : '{"classification": "A"}' };
    if (step === "type") return { text: '```json\n{"classification": "B"}\n```' };
    return { text: `Because of ${step} on ${order}.` };
  };
}

describe("parseClassification", () => {
  it("reads a letter, a letter with a dot, or the choice's own text; refuses anything else", () => {
    const choices = ["The user", "The agent", "The environment"];
    expect(parseClassification('{"classification": "B"}', choices)).toBe(1);
    expect(parseClassification('{"classification": "c."}', choices)).toBe(2);
    expect(parseClassification('{"classification": "the user"}', choices)).toBe(0);
    expect(() => parseClassification('{"classification": "D"}', choices)).toThrow(/unknown choice/);
    expect(() => parseClassification("", choices)).toThrow(/empty/);
    expect(() => parseClassification("{nope", choices)).toThrow(/not valid JSON/);
    expect(() => parseClassification('{"answer": "A"}', choices)).toThrow(/no 'classification'/);
  });
});

describe("tau analyze against the fake provider", () => {
  it("assigns faults and agent fault types to the failures only, prints the breakdown, stores records and cost", async () => {
    const provider = await startFakeProvider({ handler: judge() });
    providers.push(provider);
    const run = await loadRun(writeReviewFixtureRun({ tasks: 4 }));
    const result = await analyzeRun(
      run,
      { llm: MODEL, llmArgs: {}, maxConcurrency: 2 },
      fakeJudgeDependencies(provider),
    );
    // Only the failed tasks (1 and 3) are analysed: 4 calls for the agent's fault, 2 for the user's.
    expect(provider.callCount).toBe(6);
    const byTask = new Map(result.records.map((record) => [record.task_id, record]));
    expect([...byTask.keys()].sort()).toEqual(["1", "3"]);
    const agent = byTask.get("1")!;
    if (agent.status !== "reviewed") throw new Error(`task 1 was ${agent.status}`);
    expect(agent.fault_assignment).toEqual({
      task_id: "1",
      author: "agent",
      description: "Because of author_description on #W1.",
    });
    expect(agent.fault_type).toMatchObject({ fault_type: "used_wrong_tool_argument" });
    expect(agent.cost_usd).toBeGreaterThan(0);
    const user = byTask.get("3")!;
    if (user.status !== "reviewed") throw new Error(`task 3 was ${user.status}`);
    expect(user.fault_assignment.author).toBe("user");
    expect(user.fault_type).toBeNull();

    const breakdown = renderAnalysisBreakdown(result.records);
    expect(breakdown).toContain("  - User: 1 (50%)");
    expect(breakdown).toContain("  - Agent: 1 (50%)");
    expect(breakdown).toContain("  - Environment (otherwise): 0 (0%)");
    expect(breakdown).toContain("  - Used wrong tool argument: 1 (100%)");

    const json = JSON.parse(readFileSync(result.jsonPath, "utf8"));
    expect(json.fault_assignment_analysis).toHaveLength(2);
    expect(json.fault_type_analysis).toEqual([
      expect.objectContaining({ task_id: "1", fault_type: "used_wrong_tool_argument", trial: 0 }),
    ]);
    const state = readAnalysisFile(result.filePath);
    expect(state.header).toMatchObject({ file_kind: "analysis", llm: MODEL });
    expect([...state.sessions.values()][0]!.usage.provider_calls).toBe(6);
  });

  it("retries malformed and empty replies, records a failure when they stay unusable, and retries only it on resume", async () => {
    const queue = ["{not json", "", '{"classification": "Q"}'];
    const provider = await startFakeProvider({
      handler: judge((step, order) =>
        step === "author" && order === "#W1" ? (queue.shift() ?? undefined) : undefined,
      ),
    });
    providers.push(provider);
    const run = await loadRun(writeReviewFixtureRun({ tasks: 4 }));
    const first = await analyzeRun(
      run,
      { llm: MODEL, llmArgs: {}, maxConcurrency: 1 },
      fakeJudgeDependencies(provider),
    );
    const failed = first.records.find((record) => record.task_id === "1")!;
    expect(failed.status).toBe("failed");
    if (failed.status !== "failed") throw new Error("unreachable");
    expect(failed.failure.attempts).toBe(3);
    expect(failed.failure.error).toMatch(/unknown choice "Q"/);
    // The three unusable replies were paid for.
    expect(failed.cost_usd).toBeGreaterThan(0);
    expect(renderAnalysisBreakdown(first.records)).toMatch(
      /Analysed 1 failed simulation\(s\) \(1 could not be analysed/,
    );
    expect(JSON.parse(readFileSync(first.jsonPath, "utf8")).failed_analyses).toEqual([
      { simulation_id: "sim-1-0", task_id: "1", trial: 0 },
    ]);

    const calls = provider.callCount;
    const second = await analyzeRun(
      run,
      { llm: MODEL, llmArgs: {}, maxConcurrency: 1 },
      fakeJudgeDependencies(provider),
    );
    expect(second.resumed).toBe(1);
    expect(second.done).toBe(1);
    expect(provider.callCount - calls).toBe(4);
    expect(second.records.every((record) => record.status === "reviewed")).toBe(true);
    expect(readAnalysisFile(second.filePath).sessions.size).toBe(2);
  });
});
