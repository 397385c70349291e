import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { readReviewFile, reviewFilePath } from "../core/review-file.ts";
import { readResultsFile } from "../core/results-file.ts";
import { faultAudit } from "../metrics/fault-audit.ts";
import { loadRun } from "../runner/run-file.ts";
import { type FakeProvider, type FakeRequest, startFakeProvider } from "../testing/fake-provider.ts";
import { fakeJudgeDependencies, writeReviewFixtureRun } from "../testing/review-fixtures.ts";
import { extractJson, parseAuthClassification, parseFullReview, parseUserReview } from "./review.ts";
import { reviewRun } from "./review-run.ts";

const MODEL = "openai/gpt-4.1";

const providers: FakeProvider[] = [];
afterEach(async () => {
  for (const provider of providers.splice(0)) await provider.close();
});

const REVIEW_WITH_ERRORS = JSON.stringify({
  errors: [
    {
      source: "agent",
      error_tags: ["guideline_violation"],
      severity: "critical",
      turn_idx: 2,
      reasoning: "Looked up the order before authenticating the user.",
      correct_behavior: "Ask for the email first.",
    },
    {
      source: "user",
      error_tags: "hallucination",
      severity: "critical_hindered",
      turn_idx: 1,
      reasoning: "Named an order the instructions do not give.",
    },
  ],
  summary: "Both sides erred.",
});
const CLEAN_REVIEW = '```json\n{"errors": [], "summary": "No errors."}\n```';
const AUTH = '{"status": "succeeded", "reasoning": "Email lookup worked."}';

/** Answers by the system prompt: the review, or the authentication classification. */
function judge(review: (request: FakeRequest) => string) {
  return (request: FakeRequest) => {
    const system = String(request.body.messages[0].content);
    return { text: system.includes("authenticating the user") ? AUTH : review(request) };
  };
}

describe("judge reply parsing", () => {
  it("takes the JSON out of a fenced block or from the first { to the last }", () => {
    expect(extractJson('Here:\n```json\n{"a": 1}\n```\nbye')).toBe('{"a": 1}');
    expect(extractJson('noise {"a": {"b": 2}} trailing')).toBe('{"a": {"b": 2}}');
    expect(extractJson("no json at all")).toBe("no json at all");
  });

  it("derives the flags from the errors and drops severities that do not fit the source", () => {
    const review = parseFullReview(
      JSON.stringify({
        errors: [
          {
            source: "Agent",
            error_tags: ["other"],
            severity: "critical_helped",
            turn_idx: "3",
            reasoning: "x",
          },
          { source: "user", error_tags: ["hallucination"], severity: "critical_helped", reasoning: "y" },
        ],
        summary: "s",
      }),
      0.5,
    );
    expect(review.errors.map((error) => [error.source, error.severity, error.turn_idx])).toEqual([
      ["agent", null, 3],
      ["user", "critical_helped", null],
    ]);
    expect(review).toMatchObject({
      agent_error: true,
      user_error: true,
      critical_user_error: true,
      has_errors: true,
      cost: 0.5,
    });
  });

  it("rejects empty replies, non-JSON and wrong shapes instead of reading them as clean", () => {
    expect(() => parseFullReview("")).toThrow(/empty/);
    expect(() => parseFullReview(null)).toThrow(/empty/);
    expect(() => parseFullReview("{not json")).toThrow(/not valid JSON/);
    expect(() => parseFullReview('{"errors": 3}')).toThrow(/'errors' is not a list/);
    expect(() => parseFullReview('{"errors": [{"source": "agent", "turn_idx": 1.5}]}')).toThrow(
      /turn_idx is not an integer/,
    );
    expect(() => parseUserReview("[1, 2]")).toThrow(/not a JSON object/);
    expect(() => parseAuthClassification('{"status": "maybe"}')).toThrow(/unknown authentication status/);
    expect(() => parseAuthClassification("no idea")).toThrow(/no JSON object/);
  });

  it("keeps the user severities in a user-only review (upstream's own type would reject them)", () => {
    const review = parseUserReview(
      '{"errors": [{"turn_idx": 1, "error_tags": ["hallucination"], "severity": "critical_hindered", "reasoning": "r", "user_message": "m"}]}',
    );
    expect(review).toMatchObject({ user_error: true, critical_user_error: true, has_errors: true });
    expect(review.errors[0]).toMatchObject({ error_type: "content_error", user_message: "m" });
  });
});

describe("tau review against the fake provider", () => {
  it("reviews every simulation, classifies authentication, records cost and writes upstream's reviewed results", async () => {
    const provider = await startFakeProvider({
      handler: judge((request) =>
        String(request.body.messages[1].content).includes("#W1") ? REVIEW_WITH_ERRORS : CLEAN_REVIEW,
      ),
    });
    providers.push(provider);
    const run = await loadRun(writeReviewFixtureRun());
    const result = await reviewRun(
      run,
      { mode: "full", llm: MODEL, llmArgs: {}, maxConcurrency: 2 },
      fakeJudgeDependencies(provider),
    );
    expect(result.done).toBe(4);
    expect(provider.callCount).toBe(8); // review + authentication per simulation
    const byTask = new Map(result.records.map((record) => [record.task_id, record]));
    const erred = byTask.get("1")!;
    expect(erred.status).toBe("reviewed");
    if (erred.status !== "reviewed") throw new Error("unreachable");
    expect(erred.review).toMatchObject({ has_errors: true, agent_error: true, critical_user_error: true });
    expect(erred.review.errors[1]!.error_tags).toEqual(["hallucination"]);
    expect(erred.auth_classification).toMatchObject({ status: "succeeded" });
    expect(erred.cost_usd).toBeGreaterThan(0);
    expect(erred.review.cost).toBeGreaterThan(0);
    // The prompt carries the run's policy, guidelines, the task's instructions and expected actions.
    const prompt = String(provider.requests[0]!.body.messages[1].content);
    expect(prompt).toContain("<Policy>\nAuthenticate the user by email");
    expect(prompt).toContain("Play the customer.");
    expect(prompt).toContain('"name": "get_order_details"');
    expect(prompt).toMatch(/\[TURN 2\] \*\*assistant\*\*:\n\*\*Tool Call\*\*: get_order_details/);
    // Upstream's output: the run with each simulation's review embedded.
    const reviewed = JSON.parse(readFileSync(result.reviewedResultsPath, "utf8"));
    const simulation = reviewed.simulations.find((s: { task_id: string }) => s.task_id === "1");
    expect(simulation.review.errors).toHaveLength(2);
    expect(simulation.auth_classification.status).toBe("succeeded");
    expect(readResultsFile(result.reviewedResultsPath).simulations).toHaveLength(4);
    const state = readReviewFile(result.filePath);
    expect(state.header).toMatchObject({ file_kind: "review_full", llm: MODEL });
    const sessions = [...state.sessions.values()];
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.usage.provider_calls).toBe(8);
    expect(sessions[0]!.usage.cost_usd).toBeGreaterThan(0);
  });

  it("asks again after a malformed reply, and records a review failure — never a clean review — when it stays unusable", async () => {
    const replies = new Map<string, string[]>([
      ["#W0", ["{this is not json", CLEAN_REVIEW]],
      ["#W1", ["", "", ""]],
      ["#W2", ["[]", "nothing here", '```json\n{"errors": "x"}\n```']],
    ]);
    const provider = await startFakeProvider({
      handler: judge((request) => {
        const prompt = String(request.body.messages[1].content);
        for (const [marker, queue] of replies)
          if (prompt.includes(`return order ${marker}`)) return queue.shift() ?? CLEAN_REVIEW;
        return CLEAN_REVIEW;
      }),
    });
    providers.push(provider);
    const run = await loadRun(writeReviewFixtureRun());
    const result = await reviewRun(
      run,
      { mode: "full", llm: MODEL, llmArgs: {}, maxConcurrency: 1 },
      fakeJudgeDependencies(provider),
    );
    const byTask = new Map(result.records.map((record) => [record.task_id, record]));
    expect(byTask.get("0")!.status).toBe("reviewed");
    for (const id of ["1", "2"]) {
      const record = byTask.get(id)!;
      expect(record.status).toBe("failed");
      if (record.status !== "failed") throw new Error("unreachable");
      expect(record.failure.attempts).toBe(3);
      expect(record.cost_usd).toBeGreaterThan(0);
    }
    const failure = byTask.get("1")!;
    if (failure.status !== "failed") throw new Error("unreachable");
    expect(failure.failure.error).toMatch(/empty/);
    const audit = faultAudit(
      "full",
      run.simulations,
      new Map(result.records.map((r) => [r.simulation_id, r])),
    );
    expect(audit).toMatchObject({ reviewed: 2, reviewFailures: 2 });
    // Upstream's reviewed results carry no review for the failures.
    const reviewed = JSON.parse(readFileSync(result.reviewedResultsPath, "utf8"));
    expect(reviewed.simulations.filter((s: { review: unknown }) => s.review !== null)).toHaveLength(2);

    // Resuming retries only the failures.
    provider.setHandler(judge(() => CLEAN_REVIEW));
    const calls = provider.callCount;
    const again = await reviewRun(
      run,
      { mode: "full", llm: MODEL, llmArgs: {}, maxConcurrency: 1 },
      fakeJudgeDependencies(provider),
    );
    expect(again).toMatchObject({ done: 2, resumed: 2 });
    expect(provider.callCount - calls).toBe(4);
    expect(again.records.every((record) => record.status === "reviewed")).toBe(true);
  });

  it("a killed review resumes without redoing finished simulations", async () => {
    const controller = new AbortController();
    let answered = 0;
    const provider = await startFakeProvider({
      handler: (request) => {
        const system = String(request.body.messages[0].content);
        if (system.includes("authenticating the user") && ++answered === 3)
          controller.abort(new Error("killed"));
        return judge(() => CLEAN_REVIEW)(request);
      },
    });
    providers.push(provider);
    const run = await loadRun(writeReviewFixtureRun({ tasks: 6 }));
    const first = await reviewRun(
      run,
      { mode: "full", llm: MODEL, llmArgs: {}, maxConcurrency: 1 },
      fakeJudgeDependencies(provider, controller.signal),
    );
    expect(first.interrupted).toBe(true);
    expect(first.done).toBeLessThan(6);
    const finished = first.records.length;
    expect(finished).toBeGreaterThanOrEqual(2);
    const reviewedIds = new Set(first.records.map((record) => record.simulation_id));
    const before = provider.requests.length;
    const second = await reviewRun(
      run,
      { mode: "full", llm: MODEL, llmArgs: {}, maxConcurrency: 1 },
      fakeJudgeDependencies(provider),
    );
    expect(second).toMatchObject({ resumed: finished, done: 6 - finished });
    const reviewedAgain = provider.requests
      .slice(before)
      .map((request) => String(request.body.messages[1].content))
      .filter((prompt) =>
        [...reviewedIds].some((id) => prompt.includes(`return order #W${id.split("-")[1]}.`)),
      );
    expect(reviewedAgain).toEqual([]);
    expect(readReviewFile(reviewFilePath(run.path, "review_full")).sessions.size).toBe(2);
  });

  it("spreads the reviews over the scheduler up to --max-concurrency", async () => {
    const provider = await startFakeProvider({
      handler: (request) => ({ ...judge(() => CLEAN_REVIEW)(request), delayMs: 40 }),
    });
    providers.push(provider);
    const run = await loadRun(writeReviewFixtureRun({ tasks: 8 }));
    await reviewRun(
      run,
      { mode: "user", llm: MODEL, llmArgs: {}, maxConcurrency: 3 },
      fakeJudgeDependencies(provider),
    );
    expect(provider.maxInFlight).toBe(3);
    expect(provider.callCount).toBe(8); // user mode: no authentication call
  });

  it("--mode user shows the judge only what the user saw and writes review-user.jsonl", async () => {
    const provider = await startFakeProvider({
      handler: () => ({
        text: '{"errors": [{"turn_idx": 1, "error_tags": ["hallucination"], "severity": "critical_hindered", "reasoning": "made up"}], "summary": "s"}',
      }),
    });
    providers.push(provider);
    const run = await loadRun(writeReviewFixtureRun({ tasks: 2 }));
    const result = await reviewRun(
      run,
      { mode: "user", llm: MODEL, llmArgs: {}, maxConcurrency: 1 },
      fakeJudgeDependencies(provider),
    );
    expect(result.filePath).toBe(reviewFilePath(run.path, "review_user"));
    const prompt = String(provider.requests[0]!.body.messages[1].content);
    expect(prompt).not.toContain("get_order_details");
    expect(prompt).toContain("Your return is confirmed.");
    expect(String(provider.requests[0]!.body.messages[0].content)).toContain("Play the customer.");
    const reviewed = JSON.parse(readFileSync(result.reviewedResultsPath, "utf8"));
    expect(reviewed.simulations[0].user_only_review.critical_user_error).toBe(true);
  });

  it("refuses to continue a review file written with another model", async () => {
    const provider = await startFakeProvider({ handler: judge(() => CLEAN_REVIEW) });
    providers.push(provider);
    const run = await loadRun(writeReviewFixtureRun({ tasks: 1 }));
    await reviewRun(
      run,
      { mode: "full", llm: MODEL, llmArgs: {}, maxConcurrency: 1 },
      fakeJudgeDependencies(provider),
    );
    await expect(
      reviewRun(
        run,
        { mode: "full", llm: "openai/gpt-4.1-mini", llmArgs: {}, maxConcurrency: 1 },
        fakeJudgeDependencies(provider),
      ),
    ).rejects.toThrow(/written with other settings \(model openai\/gpt-4.1 → openai\/gpt-4.1-mini\)/);
  });
});
