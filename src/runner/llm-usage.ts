/**
 * What a run asked of the model providers: calls, retries, 429s, tokens and
 * cost, counted from the provider layer's events. The progress line shows the
 * same counters live; these are the ones that get recorded (checkpoint
 * `session` records, `info.taubench.llm_usage` of the exported results) and
 * printed in the summary.
 *
 * Responses replayed from the response cache cost nothing and are counted
 * apart (`cached_calls`): their tokens and cost are not added.
 */
import { z } from "zod";
import { PyNumber } from "../core/messages.ts";
import { pyFloat } from "../core/py-json.ts";
import type { LlmEvent } from "../llm/events.ts";

const Count = z.preprocess((v) => (v === null || v === undefined ? 0 : Number(v)), z.number().int().min(0));

/** Provider traffic of one model (or of all models together). */
export const ModelUsage = z.object({
  /** Calls the provider answered. */
  provider_calls: Count,
  /** Calls answered from the response cache (no provider traffic). */
  cached_calls: Count,
  /** Calls that failed for good (retries exhausted or not retryable). */
  failed_calls: Count,
  /** Provider-call retries (a 429 that is retried counts here too). */
  retries: Count,
  /** Responses with status 429. */
  rate_limited: Count,
  prompt_tokens: Count,
  completion_tokens: Count,
  cache_read_tokens: Count,
  cache_write_tokens: Count,
  reasoning_tokens: Count,
  /** USD of the priced provider calls. */
  cost_usd: PyNumber.default(0),
  /** Provider calls whose model has no known price (their cost is missing from `cost_usd`). */
  unpriced_calls: Count,
});
export type ModelUsage = z.infer<typeof ModelUsage>;

/** A run's (or one session's) provider traffic: totals, whole-simulation re-runs, and per model. */
export const RunUsage = ModelUsage.extend({
  /** Whole simulations re-run after they raised (the batch's retries, not the provider's). */
  simulation_retries: Count,
  by_model: z.record(z.string(), ModelUsage).default({}),
});
export type RunUsage = z.infer<typeof RunUsage>;

/** All-zero counters of one model. */
export function emptyModelUsage(): ModelUsage {
  return {
    provider_calls: 0,
    cached_calls: 0,
    failed_calls: 0,
    retries: 0,
    rate_limited: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    cost_usd: 0,
    unpriced_calls: 0,
  };
}

/** All-zero counters of a run. */
export function emptyRunUsage(): RunUsage {
  return { ...emptyModelUsage(), simulation_retries: 0, by_model: {} };
}

const modelKeys = Object.keys(emptyModelUsage()) as (keyof ModelUsage)[];

function addInto(target: ModelUsage, source: ModelUsage): void {
  for (const key of modelKeys) target[key] += source[key];
}

/** The sum of several usages (sessions of one run). */
export function sumRunUsage(usages: Iterable<RunUsage>): RunUsage {
  const total = emptyRunUsage();
  for (const usage of usages) {
    addInto(total, usage);
    total.simulation_retries += usage.simulation_retries;
    for (const [model, counts] of Object.entries(usage.by_model)) {
      const existing = total.by_model[model] ?? emptyModelUsage();
      addInto(existing, counts);
      total.by_model[model] = existing;
    }
  }
  return total;
}

function modelUsageToPy(usage: ModelUsage): Record<string, unknown> {
  return { ...usage, cost_usd: pyFloat(usage.cost_usd) };
}

/** The usage as Python JSON sees it (`cost_usd` always a float, as upstream's costs are). */
export function runUsageToPy(usage: RunUsage): Record<string, unknown> {
  return {
    ...modelUsageToPy(usage),
    simulation_retries: usage.simulation_retries,
    by_model: Object.fromEntries(
      Object.entries(usage.by_model).map(([model, counts]) => [model, modelUsageToPy(counts)]),
    ),
  };
}

/** Reads a recorded usage (`info.taubench.llm_usage`); null when absent or not understood. */
export function parseRunUsage(value: unknown): RunUsage | null {
  if (value === undefined || value === null) return null;
  const parsed = RunUsage.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** Accumulates one session's usage from provider events. */
export class LlmUsageCounter {
  private readonly usage = emptyRunUsage();
  private changes = 0;

  private model(name: string): ModelUsage {
    let counts = this.usage.by_model[name];
    if (!counts) {
      counts = emptyModelUsage();
      this.usage.by_model[name] = counts;
    }
    return counts;
  }

  /** Feeds one provider-layer event. */
  onLlmEvent(event: LlmEvent): void {
    switch (event.type) {
      case "call": {
        const targets = [this.usage, this.model(event.model)];
        for (const counts of targets) {
          if (event.cached) {
            counts.cached_calls++;
            continue;
          }
          counts.provider_calls++;
          counts.prompt_tokens += event.usage.prompt_tokens ?? 0;
          counts.completion_tokens += event.usage.completion_tokens ?? 0;
          counts.cache_read_tokens += event.usage.cache_read_tokens ?? 0;
          counts.cache_write_tokens += event.usage.cache_write_tokens ?? 0;
          counts.reasoning_tokens += event.usage.reasoning_tokens ?? 0;
          if (event.costUsd === null) counts.unpriced_calls++;
          else counts.cost_usd += event.costUsd;
        }
        break;
      }
      case "retry":
        this.usage.retries++;
        this.model(event.model).retries++;
        break;
      case "rate_limited":
        this.usage.rate_limited++;
        this.model(event.model).rate_limited++;
        break;
      case "error":
        this.usage.failed_calls++;
        this.model(event.model).failed_calls++;
        break;
      case "debug":
        return;
      default: {
        const never: never = event;
        throw new Error(`unhandled LLM event ${String(never)}`);
      }
    }
    this.changes++;
  }

  /** A whole simulation is being re-run. */
  simulationRetried(): void {
    this.usage.simulation_retries++;
    this.changes++;
  }

  /** How many updates the counters have seen (lets a writer skip unchanged snapshots). */
  get version(): number {
    return this.changes;
  }

  /** A copy of the counters. */
  snapshot(): RunUsage {
    return sumRunUsage([this.usage]);
  }
}

/** The summary's one line: `Provider calls N · retries R · 429s Q · tokens in/out/cache-read … · cost $X`. */
export function formatUsageLine(usage: RunUsage): string {
  const calls = [`Provider calls ${usage.provider_calls}`];
  const extra: string[] = [];
  if (usage.cached_calls > 0) extra.push(`+${usage.cached_calls} from cache`);
  if (usage.failed_calls > 0) extra.push(`${usage.failed_calls} failed`);
  if (extra.length > 0) calls[0] += ` (${extra.join(", ")})`;
  const parts = [
    ...calls,
    `retries ${usage.retries}`,
    `429s ${usage.rate_limited}`,
    `tokens in/out/cache-read ${usage.prompt_tokens}/${usage.completion_tokens}/${usage.cache_read_tokens}`,
  ];
  if (usage.cache_write_tokens > 0) parts.push(`cache-write ${usage.cache_write_tokens}`);
  parts.push(
    `cost $${usage.cost_usd.toFixed(4)}${usage.unpriced_calls > 0 ? ` (+${usage.unpriced_calls} unpriced calls)` : ""}`,
  );
  if (usage.simulation_retries > 0) parts.push(`simulation re-runs ${usage.simulation_retries}`);
  return parts.join(" · ");
}
