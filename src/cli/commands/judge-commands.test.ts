import { afterEach, describe, expect, it } from "vitest";
import { type FakeProvider, type FakeRequest, startFakeProvider } from "../../testing/fake-provider.ts";
import { fakeJudgeDependencies, writeReviewFixtureRun } from "../../testing/review-fixtures.ts";
import { analyzeCommand } from "./analyze.ts";
import { reviewCommand } from "./review.ts";
import { viewCommand } from "./view.ts";

const providers: FakeProvider[] = [];
afterEach(async () => {
  for (const provider of providers.splice(0)) await provider.close();
});

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (line: string) => out.push(line), err: (line: string) => err.push(line) } };
}

const SHARED = { maxConcurrency: "2", maxAttempts: "2" };

describe("tau review and tau analyze (commands)", () => {
  it("tau review prints the counts, the cost, the fault audit after the standard numbers, and the files", async () => {
    const provider = await startFakeProvider({
      handler: (request: FakeRequest) => {
        const system = String(request.body.messages[0].content);
        if (system.includes("authenticating the user"))
          return { text: '{"status": "not_needed", "reasoning": "No account was touched."}' };
        const user = String(request.body.messages[1].content);
        // Task 1 fails; its review blames the user simulator.
        return user.includes("return order #W1")
          ? {
              text: JSON.stringify({
                errors: [
                  {
                    source: "user",
                    error_tags: ["hallucination"],
                    severity: "critical_hindered",
                    turn_idx: 1,
                    reasoning: "Made up an order.",
                  },
                ],
                summary: "The user erred.",
              }),
            }
          : { text: '{"errors": [], "summary": "Clean."}' };
      },
    });
    providers.push(provider);
    const path = writeReviewFixtureRun({ tasks: 2 });
    const { out, io } = capture();
    const code = await reviewCommand(
      path,
      { ...SHARED, mode: "full", reviewLlm: "openai/gpt-4.1" },
      io,
      fakeJudgeDependencies(provider),
    );
    expect(code).toBe(0);
    const text = out.join("\n");
    expect(text).toContain("Reviewed 2 simulation(s) (2 now, 0 from before)");
    expect(text).toMatch(/review cost \$0\.\d{4}/);
    expect(text).toContain("User simulator errors  1/2 simulations (50.0%) · critical 1 (50.0%)");
    expect(text).toContain("User error tags        hallucination 1 (1 critical)");
    // The standard pass^1 comes first, the non-standard one (the user's critical failure set apart) after it.
    expect(text.indexOf("standard                0.500")).toBeGreaterThan(text.indexOf("NON-STANDARD VIEW"));
    expect(text.indexOf("user faults set apart   1.000")).toBeGreaterThan(
      text.indexOf("standard                0.500"),
    );
    expect(text).toContain("review.jsonl");
    expect(text).toContain("results_reviewed.json");

    // tau view: the standard summary first, then the fault audit read from review.jsonl.
    let view = "";
    await viewCommand(path, { maxToolChars: "500" }, (chunk) => (view += chunk));
    expect(view).toContain("Fault audit (LLM review of 2 simulation(s)");
    expect(view.indexOf("Per-task outcomes")).toBeGreaterThan(-1);
    expect(view.indexOf("Fault audit")).toBeGreaterThan(view.indexOf("Per-task outcomes"));
    expect(view).toContain("NON-STANDARD VIEW");
    // Without a review there is no audit.
    let plain = "";
    await viewCommand(
      writeReviewFixtureRun({ tasks: 2 }),
      { maxToolChars: "500" },
      (chunk) => (plain += chunk),
    );
    expect(plain).not.toContain("Fault audit");
  });

  it("tau review refuses an unknown --mode with one line", async () => {
    const { io } = capture();
    await expect(
      reviewCommand(writeReviewFixtureRun(), { ...SHARED, mode: "agent", reviewLlm: "openai/gpt-4.1" }, io),
    ).rejects.toThrow("--mode is full or user, got 'agent'");
  });

  it("tau analyze prints τ-bench's breakdown and the cost", async () => {
    const provider = await startFakeProvider({
      handler: (request: FakeRequest) =>
        String(request.body.messages[0].content).startsWith("Classify")
          ? { text: '{"classification": "C"}' }
          : { text: "Nobody in the conversation caused it." },
    });
    providers.push(provider);
    const { out, io } = capture();
    const code = await analyzeCommand(
      writeReviewFixtureRun({ tasks: 4 }),
      { ...SHARED, analysisLlm: "openai/gpt-4.1" },
      io,
      fakeJudgeDependencies(provider),
    );
    expect(code).toBe(0);
    const text = out.join("\n");
    expect(text).toContain("Analysed 2 failed simulation(s):");
    expect(text).toContain("  - Environment (otherwise): 2 (100%)");
    expect(text).toMatch(/Analysis cost \$0\.\d{4}/);
    expect(text).toContain("analysis.json");
  });
});
