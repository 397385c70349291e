/**
 * Run dependencies whose model clients all talk to a fake provider (tests of
 * agents that bring their own endpoint, while the user simulator and judge run
 * on the fake): OpenAI-protocol clients with a dummy key.
 */
import { createLlmClient } from "../llm/index.ts";
import type { RunDependencies } from "../runner/run.ts";

/** Run dependencies building every `provider/model` client against `openaiBaseUrl`. */
export function fakeProviderDependencies(openaiBaseUrl: string): RunDependencies {
  return {
    createLlm: (model, onEvent) =>
      createLlmClient(model, { baseUrl: openaiBaseUrl, env: { OPENAI_API_KEY: "sk-test-dummy" }, onEvent }),
    providerKey: (model) => model,
  };
}
