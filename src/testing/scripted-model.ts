/**
 * A deterministic {@link LlmClient} for tests: it answers from a queue of
 * scripted responses (or a function of the request) and records every request
 * it was given, so tests can assert on prompts, tools and arguments.
 */
import { TauError } from "../core/errors.ts";
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
    if (step instanceof Error) throw step;
    return completeResponse(step);
  }
}
