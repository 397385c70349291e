/**
 * The front door exports what the docs tell a program to import from
 * "taubench" (docs/providers.md: a price file read in code).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPriceTable, type PriceTable } from "./index.ts";

describe("taubench's root export", () => {
  it("has loadPriceTable, which merges a price file over the bundled table", () => {
    const path = join(mkdtempSync(join(tmpdir(), "tau-index-")), "prices.json");
    writeFileSync(
      path,
      JSON.stringify({
        version: 1,
        models: { "local/qwen3:8b": { input: 0, output: 0 }, "openai/gpt-4.1": { input: 1, output: 4 } },
      }),
    );
    const table: PriceTable = loadPriceTable(path);
    expect(table["local/qwen3:8b"]).toEqual({ input: 0, output: 0 });
    // The file's entry wins over the bundled one; models the file leaves out keep their bundled price.
    expect(table["openai/gpt-4.1"]).toEqual({ input: 1, output: 4 });
    expect(table["openai/gpt-4.1-mini"]?.input).toBeGreaterThan(0);
  });
});
