import { describe, expect, it } from "vitest";
import { runEvaluation } from "./evaluate.ts";
import { checkEvaluationOptions } from "./evaluation-options.ts";

describe("checkEvaluationOptions", () => {
  it.each([
    [
      { domain: "mock", numTrial: 4 },
      "runEvaluation: unknown option 'numTrial' (did you mean 'numTrials'?); the options are domain, ",
    ],
    [{ domain: "mock", maxConcurency: 5 }, "unknown option 'maxConcurency' (did you mean 'maxConcurrency'?)"],
    [
      { domain: "mock", llm: { priceTabel: {} } },
      "runEvaluation: llm: unknown option 'priceTabel' (did you mean 'priceTable'?)",
    ],
    [
      { domain: "mock", untilDecided: { against: "x", effect: 0.1, maxTrial: 2 } },
      "runEvaluation: untilDecided: unknown option 'maxTrial' (did you mean 'maxTrials'?)",
    ],
    [{ domain: "mock", numTrials: "4" }, 'runEvaluation: numTrials must be a number, got the string "4"'],
    [
      { domain: "mock", taskIds: "0" },
      'runEvaluation: taskIds must be an array of strings, got the string "0"',
    ],
    [{ domain: "mock", judge: 42 }, "runEvaluation: judge must be a string or null, got the number 42"],
    [
      { domain: "mock", noPolicy: "yes" },
      'runEvaluation: noPolicy must be true or false, got the string "yes"',
    ],
    [{ domain: "mock", signal: {} }, "runEvaluation: signal must be an AbortSignal, got an object"],
    [
      { domain: "mock", agent: 42 },
      "runEvaluation: agent must be a name, a module path or a definition object, got the number 42",
    ],
    [{ domain: "mock", onEvent: 42 }, "runEvaluation: onEvent must be a function, got the number 42"],
    [{ domain: 42 }, "runEvaluation: domain must be a string, got the number 42"],
    [{}, "runEvaluation: domain is required"],
    [
      { domain: "mock", taskIds: [] },
      "runEvaluation: taskIds is empty; give at least one task id, or leave it out to run every task",
    ],
    [null, "runEvaluation takes an options object ({ domain, … }), got null"],
  ])("refuses %j with one line", (options, message) => {
    expect(() => checkEvaluationOptions(options)).toThrow(message);
  });

  it("takes every option of tau run's kind, undefined ones included", () => {
    expect(() =>
      checkEvaluationOptions({
        domain: "mock",
        split: null,
        taskIds: ["a"],
        numTrials: 2,
        timeoutMs: null,
        agent: "replay",
        user: { name: "u", create: () => ({}) },
        judge: null,
        retrievalConfigKwargs: null,
        signal: new AbortController().signal,
        llm: { promptCache: false },
        saveTo: undefined,
      }),
    ).not.toThrow();
  });

  it("runs before anything is planned or written", async () => {
    await expect(runEvaluation({ domain: "mock", numTrial: 3 } as never)).rejects.toThrow(
      "unknown option 'numTrial'",
    );
  });
});
