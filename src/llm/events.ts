/**
 * Events the provider layer emits so a runner can count calls, costs, retries
 * and 429s (and adapt its concurrency) without parsing logs.
 */
import type { Usage } from "../core/messages.ts";
import type { LlmErrorKind } from "./errors.ts";

/** One observable thing that happened in the provider layer. */
export type LlmEvent =
  | {
      type: "call";
      model: string;
      callName: string | undefined;
      usage: Usage;
      /** USD; null when the model has no known price. */
      costUsd: number | null;
      durationMs: number;
      /** Attempts it took (1 = no retry). */
      attempts: number;
      /** True when the response was replayed from the response cache (no provider call). */
      cached: boolean;
    }
  | {
      type: "retry";
      model: string;
      /** 1 for the first retry. */
      attempt: number;
      delayMs: number;
      reason: string;
      kind: LlmErrorKind;
      statusCode: number | undefined;
    }
  | { type: "rate_limited"; model: string; retryAfterMs: number | null }
  | { type: "error"; model: string; kind: LlmErrorKind; message: string }
  | { type: "debug"; model: string; message: string };

/** Receives {@link LlmEvent}s; must not throw. */
export type LlmEventListener = (event: LlmEvent) => void;
