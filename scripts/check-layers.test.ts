import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findViolations } from "./check-layers.ts";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A throwaway src/ tree: path → file text. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "layers-"));
  made.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe("check-layers", () => {
  it("passes on this repository's src/", () => {
    expect(findViolations(resolve(import.meta.dirname, "..", "src"))).toEqual([]);
  });

  it("reports an import that points up", () => {
    const root = tree({
      "core/a.ts": 'import { b } from "../runner/b.ts";\n',
      "runner/b.ts": "export const b = 1;\n",
    });
    expect(findViolations(root)).toEqual([expect.stringContaining("core imports runner")]);
  });

  it("reports peers on one rank importing each other", () => {
    const root = tree({
      "agents/a.ts": 'import { u } from "../users/u.ts";\n',
      "users/u.ts": "export const u = 1;\n",
    });
    expect(findViolations(root)).toEqual([expect.stringContaining("agents imports users")]);
  });

  it("fails on a folder that has no layer instead of skipping it", () => {
    const root = tree({ "plugins/p.ts": 'import { c } from "../core/c.ts";\n', "core/c.ts": "" });
    expect(findViolations(root)).toEqual([expect.stringContaining("src/plugins: folder is not in a layer")]);
  });

  it("lets the root index import anything but no layer import the index", () => {
    const root = tree({
      "index.ts": 'export { c } from "./cli/c.ts";\n',
      "cli/c.ts": "export const c = 1;\n",
      "core/x.ts": 'import { c } from "../index.ts";\n',
    });
    expect(findViolations(root)).toEqual([expect.stringContaining("core imports the package index")]);
  });

  it("exempts tests and the testing folder from the direction rule", () => {
    const root = tree({
      "core/a.test.ts": 'import { b } from "../runner/b.ts";\n',
      "testing/t.ts": 'import { b } from "../runner/b.ts";\n',
      "runner/b.ts": "",
    });
    expect(findViolations(root)).toEqual([]);
  });
});
