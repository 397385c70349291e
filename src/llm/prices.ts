/**
 * Prices in USD per million tokens, and the cost of a call. The bundled
 * table is a snapshot of public list prices (standard tier, short context);
 * a JSON file can override or extend it. Unknown models cost `null`, never 0.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { FileFormatError, formatIssuePath } from "../core/errors.ts";
import type { Usage } from "../core/messages.ts";
import { providerKey } from "./model-id.ts";

/** Price of one model, USD per million tokens. Cache rates default to the input rate. */
export const ModelPrice = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  /** Input tokens served from the prompt cache. */
  cacheRead: z.number().nonnegative().optional(),
  /** Input tokens written to the prompt cache (Anthropic: 1.25× input for the 5-minute cache). */
  cacheWrite: z.number().nonnegative().optional(),
});
export type ModelPrice = z.infer<typeof ModelPrice>;

/** Prices keyed by canonical `provider/model`. */
export type PriceTable = Record<string, ModelPrice>;

/** A price override file: `{"version": 1, "models": {"openai/gpt-4.1": {"input": 2, "output": 8}}}`. */
export const PriceFile = z.object({
  version: z.literal(1),
  models: z.record(z.string(), ModelPrice),
});
export type PriceFile = z.infer<typeof PriceFile>;

const openai = (input: number, cacheRead: number | undefined, output: number): ModelPrice =>
  cacheRead === undefined ? { input, output } : { input, output, cacheRead };
// Anthropic: cache reads cost 0.1× input, 5-minute cache writes 1.25× input.
const anthropic = (input: number, output: number): ModelPrice => ({
  input,
  output,
  cacheRead: round6(input * 0.1),
  cacheWrite: round6(input * 1.25),
});
const google = (input: number, cacheRead: number, output: number): ModelPrice => ({
  input,
  output,
  cacheRead,
});

function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** The bundled price snapshot (list prices as of late 2025; check before budgeting). */
export const BUNDLED_PRICES: PriceTable = {
  "openai/gpt-4.1": openai(2, 0.5, 8),
  "openai/gpt-4.1-mini": openai(0.4, 0.1, 1.6),
  "openai/gpt-4.1-nano": openai(0.1, 0.025, 0.4),
  "openai/gpt-4o": openai(2.5, 1.25, 10),
  "openai/gpt-4o-2024-05-13": openai(5, undefined, 15),
  "openai/gpt-4o-mini": openai(0.15, 0.075, 0.6),
  "openai/gpt-4-turbo": openai(10, undefined, 30),
  "openai/gpt-3.5-turbo": openai(0.5, undefined, 1.5),
  "openai/o1": openai(15, 7.5, 60),
  "openai/o1-mini": openai(1.1, 0.55, 4.4),
  "openai/o3": openai(2, 0.5, 8),
  "openai/o3-mini": openai(1.1, 0.55, 4.4),
  "openai/o4-mini": openai(1.1, 0.275, 4.4),
  "openai/gpt-5": openai(1.25, 0.125, 10),
  "openai/gpt-5-mini": openai(0.25, 0.025, 2),
  "openai/gpt-5-nano": openai(0.05, 0.005, 0.4),
  "openai/gpt-5.1": openai(1.25, 0.125, 10),
  "openai/gpt-5.2": openai(1.75, 0.175, 14),
  "anthropic/claude-3-haiku": anthropic(0.25, 1.25),
  "anthropic/claude-3-5-haiku": anthropic(0.8, 4),
  "anthropic/claude-3-5-sonnet": anthropic(3, 15),
  "anthropic/claude-3-7-sonnet": anthropic(3, 15),
  "anthropic/claude-sonnet-4": anthropic(3, 15),
  "anthropic/claude-sonnet-4-0": anthropic(3, 15),
  "anthropic/claude-sonnet-4-5": anthropic(3, 15),
  "anthropic/claude-haiku-4-5": anthropic(1, 5),
  "anthropic/claude-3-opus": anthropic(15, 75),
  "anthropic/claude-opus-4": anthropic(15, 75),
  "anthropic/claude-opus-4-0": anthropic(15, 75),
  "anthropic/claude-opus-4-1": anthropic(15, 75),
  "anthropic/claude-opus-4-5": anthropic(5, 25),
  "google/gemini-2.0-flash": google(0.1, 0.025, 0.4),
  "google/gemini-2.0-flash-lite": { input: 0.075, output: 0.3 },
  "google/gemini-2.5-flash-lite": google(0.1, 0.01, 0.4),
  "google/gemini-2.5-flash": google(0.3, 0.03, 2.5),
  "google/gemini-2.5-pro": google(1.25, 0.125, 10),
  "google/gemini-3-pro-preview": google(2, 0.2, 12),
  "google/gemini-3-flash-preview": google(0.5, 0.05, 3),
};

/**
 * Finds the price of a model: exact name first, then without a date suffix
 * (`-2025-04-14`, `-20250219`) or `-latest`, so snapshots inherit their family's price.
 */
export function lookupPrice(model: string, table: PriceTable = BUNDLED_PRICES): ModelPrice | null {
  let key: string;
  try {
    key = providerKey(model);
  } catch {
    return null;
  }
  const exact = table[key];
  if (exact) return exact;
  const stripped = key.replace(/-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$/, "");
  return stripped !== key ? (table[stripped] ?? null) : null;
}

/** Cost in USD of one call's usage; null when the model has no price. */
export function costUsd(model: string, usage: Usage, table: PriceTable = BUNDLED_PRICES): number | null {
  const price = lookupPrice(model, table);
  return price ? usageCostUsd(price, usage) : null;
}

/** Cost in USD of one call's usage at a known price (clients look the price up once, not per call). */
export function usageCostUsd(price: ModelPrice, usage: Usage): number {
  const cacheRead = usage.cache_read_tokens ?? 0;
  const cacheWrite = usage.cache_write_tokens ?? 0;
  // prompt_tokens counts every input token, cached or not (as LiteLLM reports it).
  const uncached = Math.max(0, usage.prompt_tokens - cacheRead - cacheWrite);
  const total =
    uncached * price.input +
    cacheRead * (price.cacheRead ?? price.input) +
    cacheWrite * (price.cacheWrite ?? price.input) +
    usage.completion_tokens * price.output;
  return total / 1e6;
}

/** Reads a price override file and merges it over the bundled table (file entries win). */
export function loadPriceTable(path: string, base: PriceTable = BUNDLED_PRICES): PriceTable {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new FileFormatError(path, `cannot read price file (${(error as Error).message})`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new FileFormatError(path, `not valid JSON (${(error as Error).message})`, { cause: error });
  }
  const parsed = PriceFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new FileFormatError(path, `${formatIssuePath(issue.path)}: ${issue.message}`);
  }
  const table: PriceTable = { ...base };
  for (const [model, price] of Object.entries(parsed.data.models)) {
    let key: string;
    try {
      key = providerKey(model);
    } catch {
      throw new FileFormatError(path, `models.${model}: not a provider/model name`);
    }
    table[key] = price;
  }
  return table;
}
