/**
 * Offline runs for tests and benchmarks: `runEvaluation` options and a
 * complete `RunConfig` (replay agent, scripted user, mock domain, upstream's
 * defaults, a fresh temporary results file), plus run dependencies that
 * refuse to build any model client.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PyFloat } from "../core/py-json.ts";
import type { EvaluationOptions } from "../runner/evaluate.ts";
import type { RunConfig, RunDependencies } from "../runner/run.ts";

/** Run dependencies for participants that need no model: building a client is a test failure. */
export const OFFLINE_RUN_DEPENDENCIES: RunDependencies = {
  createLlm: () => {
    throw new Error("offline test: no model expected");
  },
  providerKey: (model) => model,
};

/** A fresh temporary `results.json` path. */
function temporaryResultsPath(): string {
  return join(mkdtempSync(join(tmpdir(), "tau-run-")), "results.json");
}

/**
 * `runEvaluation` options for an offline run of the mock domain (replay agent, scripted user, no
 * judge, no model) into a fresh temporary results file; `overrides` replace any field.
 */
export function offlineEvaluation(overrides: Partial<EvaluationOptions> = {}): EvaluationOptions {
  return {
    domain: "mock",
    agent: "replay",
    user: "scripted",
    judge: null,
    saveTo: temporaryResultsPath(),
    createLlm: OFFLINE_RUN_DEPENDENCIES.createLlm,
    ...overrides,
  };
}

/** An offline run of the mock domain into a fresh temporary results file; `overrides` replace any field. */
export function offlineRunConfig(dataDir: string, overrides: Partial<RunConfig> = {}): RunConfig {
  return {
    domain: "mock",
    dataDir,
    split: "base",
    numTrials: 1,
    seed: 300,
    maxSteps: 200,
    maxErrors: 10,
    maxConcurrency: 4,
    maxRetries: 0,
    retryDelayMs: 0,
    timeoutMs: null,
    agent: "replay",
    user: "scripted",
    agentLlm: "openai/gpt-4.1-2025-04-14",
    userLlm: "openai/gpt-4.1-2025-04-14",
    judgeLlm: null,
    agentLlmArgs: { temperature: new PyFloat(0) },
    userLlmArgs: { temperature: new PyFloat(0) },
    judgeLlmArgs: { temperature: new PyFloat(0) },
    enforceCommunicationProtocol: false,
    resultsPath: temporaryResultsPath(),
    ...overrides,
  };
}
