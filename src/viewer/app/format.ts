/** Number and date formatting shared by the pages. */

/** A rate as `0.812` (three decimals, as `tau view` prints pass^k). */
export const rate = (value: number | null | undefined): string =>
  value === null || value === undefined || Number.isNaN(value) ? "–" : value.toFixed(3);

/** A share as `81.2%`. */
export const percent = (value: number | null | undefined, digits = 1): string =>
  value === null || value === undefined || Number.isNaN(value) ? "–" : `${(100 * value).toFixed(digits)}%`;

/** A cost in dollars, with more digits for small amounts. */
export function usd(value: number | null | undefined): string {
  if (value === null || value === undefined) return "n/a";
  if (value === 0) return "$0";
  if (Math.abs(value) < 0.01) return `$${value.toFixed(4)}`;
  if (Math.abs(value) < 100) return `$${value.toFixed(2)}`;
  return `$${Math.round(value).toLocaleString("en-US")}`;
}

/** A count with thousands separators (`12,345`), or `1.2M` past a million. */
export function count(value: number): string {
  if (Math.abs(value) >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  return Math.round(value).toLocaleString("en-US");
}

/** A signed difference (`+0.050`). */
export const signed = (value: number): string => `${value >= 0 ? "+" : "−"}${Math.abs(value).toFixed(3)}`;

/** An interval as `[0.71, 0.86]`. */
export const interval = (value: [number, number] | null | undefined): string =>
  value ? `[${value[0].toFixed(3)}, ${value[1].toFixed(3)}]` : "";

/** A recorded timestamp (`2026-11-01T12:00:00.123456`) as `2026-11-01 12:00`. */
export function when(value: string | null | undefined): string {
  if (!value) return "–";
  const match = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})/.exec(value);
  return match ? `${match[1]} ${match[2]}` : value;
}

/** Seconds as `12.3 s` or `4 min 5 s`. */
export function duration(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - 60 * minutes)} s`;
}

/** A participant as `llm_agent · gpt-4.1` (the model's last path part). */
export function participant(value: { implementation: string; llm: string | null }): string {
  return value.llm ? `${value.implementation} · ${value.llm}` : value.implementation;
}

/** Termination reasons in words. */
export function terminationLabel(reason: string): string {
  return reason.replaceAll("_", " ");
}
