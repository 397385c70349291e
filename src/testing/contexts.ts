/**
 * The per-episode fields of an agent or user context (signal, simulation id,
 * trial, seed, options), for tests that call a definition's `create` directly.
 */

/** Episode fields with neutral values; `overrides` replace any of them. */
export function episodeFields<Options = Record<string, unknown>>(
  overrides: Partial<{
    signal: AbortSignal;
    simulationId: string;
    trial: number;
    seed: number;
    options: Options;
  }> = {},
): { signal: AbortSignal; simulationId: string; trial: number; seed: number; options: Options } {
  return {
    signal: new AbortController().signal,
    simulationId: "00000000-0000-4000-8000-000000000000",
    trial: 0,
    seed: 300,
    options: {} as Options,
    ...overrides,
  };
}
