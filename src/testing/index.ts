/**
 * `taubench/testing`: deterministic fakes for testing agents and programs
 * built on taubench, offline: a scripted model, a fake provider server on
 * 127.0.0.1 that speaks the OpenAI, Anthropic and Google wire protocols, and
 * ready-made offline run settings.
 */

/** A model client that answers from a script and records every request. */
export { ScriptedLlmClient, ScriptExhaustedError, completeResponse } from "./scripted-model.ts";
/** One scripted answer, or a function that computes it from the request. */
export type { ScriptedResponder, ScriptedStep } from "./scripted-model.ts";
/** Starts an HTTP server on 127.0.0.1 (port 0) that answers provider requests from your handler. */
export { startFakeProvider } from "./fake-provider.ts";
/** The fake provider's handle, options, requests and replies. */
export type {
  FakeHandler,
  FakeProtocol,
  FakeProvider,
  FakeProviderOptions,
  FakeReply,
  FakeRequest,
  FakeToolCall,
  FakeUsage,
} from "./fake-provider.ts";
/** `runEvaluation` options of an offline run (mock domain, replay agent, scripted user, temporary folder). */
export { offlineEvaluation } from "./run-config.ts";
/** The per-episode context fields (signal, simulation id, trial, seed, options) for calling `create` in a test. */
export { episodeFields } from "./contexts.ts";
