/** Small emulations of Python runtime behaviour that telecom tools expose in their error texts. */
import { PyFloat, pyTypeName } from "../../core/py-json.ts";
import { ToolError } from "../../env/toolkit.ts";

/** A number argument as Python would compare it; other types raise the `<`/`<=` TypeError text. */
export function pyNumberOperand(value: unknown, operator: string, other: string): number {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number") return value;
  if (value instanceof PyFloat) return value.value;
  throw new ToolError(
    `'${operator}' not supported between instances of '${pyTypeName(value)}' and '${other}'`,
  );
}

/** Python `seq[:limit]` for a list. */
export function pySliceTo<T>(items: readonly T[], limit: unknown): T[] {
  if (limit === null || limit === undefined) return [...items];
  let n: number;
  if (typeof limit === "boolean") n = limit ? 1 : 0;
  else if (typeof limit === "number" && Number.isInteger(limit)) n = limit;
  else throw new ToolError("slice indices must be integers or None or have an __index__ method");
  return items.slice(0, n < 0 ? Math.max(items.length + n, 0) : n);
}
