/**
 * A deterministic {@link LlmClient} for tests: it answers from a queue of
 * scripted responses (or a function of the request) and records every request
 * it was given, so tests can assert on prompts, tools and arguments.
 */
import { TauError, UsageError } from "../core/errors.ts";
import { deepClone } from "../env/model.ts";
import type { LlmClient, LlmRequest, LlmResponse } from "../llm/types.ts";

/** One scripted answer: a partial response, or an error to throw for that call. */
export type ScriptedStep = Partial<LlmResponse> | Error;

/** Computes the answer from the request (may be async, may throw). */
export type ScriptedResponder = (
  request: LlmRequest,
  callIndex: number,
) => ScriptedStep | Promise<ScriptedStep>;

/** Raised when a queue-backed script runs out of answers. */
export class ScriptExhaustedError extends TauError {}

const STEP_FIELDS = new Set([
  "content",
  "toolCalls",
  "usage",
  "costUsd",
  "raw",
  "reasoning",
  "generationTimeSeconds",
]);

/** Throws a one-line {@link UsageError} when `step` is not a scripted step (a misspelt field would answer with nothing). */
function checkStep(step: unknown, where: string): asserts step is ScriptedStep {
  if (step instanceof Error) return;
  if (step === null || typeof step !== "object" || Array.isArray(step))
    throw new UsageError(
      `${where}: a scripted step is a partial response or an Error, got ${step === null ? "null" : Array.isArray(step) ? "an array" : typeof step}`,
    );
  const record = step as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => !STEP_FIELDS.has(key));
  if (unknown.length > 0)
    throw new UsageError(
      `${where}: unknown field${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} (a step has ${[...STEP_FIELDS].join(", ")})`,
    );
  if (record.content !== undefined && record.content !== null && typeof record.content !== "string")
    throw new UsageError(`${where}: content must be a string or null, got ${typeof record.content}`);
  if (record.toolCalls !== undefined && record.toolCalls !== null && !Array.isArray(record.toolCalls))
    throw new UsageError(`${where}: toolCalls must be an array, got ${typeof record.toolCalls}`);
}

/** Fills the fields a scripted step left out with neutral defaults. */
export function completeResponse(partial: Partial<LlmResponse>): LlmResponse {
  return {
    content: partial.content ?? null,
    toolCalls: partial.toolCalls && partial.toolCalls.length > 0 ? partial.toolCalls : null,
    usage: partial.usage ?? { prompt_tokens: 0, completion_tokens: 0 },
    costUsd: partial.costUsd === undefined ? 0 : partial.costUsd,
    ...(partial.raw !== undefined ? { raw: partial.raw } : {}),
    ...(partial.reasoning !== undefined ? { reasoning: partial.reasoning } : {}),
    ...(partial.generationTimeSeconds !== undefined
      ? { generationTimeSeconds: partial.generationTimeSeconds }
      : {}),
  };
}

/** A scripted model: a queue of answers or a responder function; records requests. */
export class ScriptedLlmClient implements LlmClient {
  readonly model: string;
  /** Every request received, in order (deep-copied so later state changes do not leak in). */
  readonly requests: LlmRequest[] = [];
  private readonly queue: ScriptedStep[] | null;
  private readonly responder: ScriptedResponder | null;

  constructor(script: ScriptedStep[] | ScriptedResponder, options: { model?: string } = {}) {
    this.model = options.model ?? "scripted/model";
    if (typeof script === "function") {
      this.queue = null;
      this.responder = script;
    } else {
      if (!Array.isArray(script))
        throw new UsageError(
          `ScriptedLlmClient takes an array of scripted steps or a responder function, got ${script === null ? "null" : typeof script}`,
        );
      for (const [index, step] of script.entries())
        checkStep(step, `ScriptedLlmClient (${this.model}) step ${index + 1}`);
      this.queue = [...script];
      this.responder = null;
    }
  }

  /** Number of scripted answers not yet used (queue mode; Infinity for a responder). */
  get remaining(): number {
    return this.queue ? this.queue.length : Number.POSITIVE_INFINITY;
  }

  /** The last request received. */
  get lastRequest(): LlmRequest | undefined {
    return this.requests[this.requests.length - 1];
  }

  async generate(request: LlmRequest): Promise<LlmResponse> {
    request.signal?.throwIfAborted();
    const callIndex = this.requests.length;
    const { signal, ...copyable } = request;
    this.requests.push({ ...deepClone(copyable), ...(signal ? { signal } : {}) });
    let step: ScriptedStep;
    if (this.responder) {
      step = await this.responder(request, callIndex);
    } else {
      const next = this.queue?.shift();
      if (next === undefined) {
        throw new ScriptExhaustedError(
          `ScriptedLlmClient (${this.model}): no scripted response left for call ${callIndex + 1}`,
        );
      }
      step = next;
    }
    checkStep(step, `ScriptedLlmClient (${this.model}) call ${callIndex + 1}`);
    if (step instanceof Error) throw step;
    return completeResponse(step);
  }
}
