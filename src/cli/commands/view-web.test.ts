import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../core/errors.ts";
import { buildProgram } from "../main.ts";
import { viewWebCommand } from "./view-web.ts";

const fixture = fileURLToPath(new URL("../../core/fixtures/results-upstream.json", import.meta.url));

describe("tau view --web", () => {
  it("exports the named runs as a static site, without the data folder", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-view-web-"));
    mkdirSync(join(cwd, "upstream"));
    copyFileSync(fixture, join(cwd, "upstream", "results.json"));
    const out: string[] = [];
    const previous = process.cwd();
    process.chdir(cwd);
    try {
      await viewWebCommand(
        ["upstream"],
        { export: "site/", dataDir: join(cwd, "no-data") },
        { out: (l) => out.push(l), err: () => {} },
      );
    } finally {
      process.chdir(previous);
    }
    expect(out.join("\n")).toMatch(/^Wrote 1 run and 3 trajectories to site\/; open site\/index\.html$/);
    expect(readFileSync(join(cwd, "site", "index.html"), "utf8")).toContain('TAU_VIEWER_MODE = "static"');
    expect(existsSync(join(cwd, "site", "assets", "app.js"))).toBe(true);
    const trajectory = readFileSync(join(cwd, "site", "data", "upstream", "sim-0.js"), "utf8");
    expect(trajectory).toContain('"status":"unavailable","reason":"no data folder, so no DB difference');
  });

  it("a run it cannot read is one line naming its file once, and the others are exported", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-view-web-"));
    mkdirSync(join(cwd, "upstream"));
    copyFileSync(fixture, join(cwd, "upstream", "results.json"));
    mkdirSync(join(cwd, "broken"));
    writeFileSync(join(cwd, "broken", "results.jsonl"), '{"x\n');
    const out: string[] = [];
    const err: string[] = [];
    const previous = process.cwd();
    process.chdir(cwd);
    try {
      await viewWebCommand(
        ["upstream", "broken"],
        { export: "site/", dataDir: join(cwd, "no-data") },
        { out: (l) => out.push(l), err: (l) => err.push(l) },
      );
    } finally {
      process.chdir(previous);
    }
    const lines = err.filter((line) => line.includes("results.jsonl"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^tau: [^ ]*broken\/results\.jsonl: line 1: not valid JSON/);
    expect(lines[0]!.split("results.jsonl")).toHaveLength(2);
    expect(out.join("\n")).toMatch(/^Wrote 2 runs and 3 trajectories to site\//);
  });

  it("keeps --port and --export with --web, and one run without it", async () => {
    const run = async (args: string[]) =>
      (await buildProgram(["view"])).parseAsync(["node", "tau", "view", ...args]);
    await expect(run(["a", "--port", "8080"])).rejects.toThrow(UsageError);
    await expect(run(["a", "b"])).rejects.toThrow(/takes one run/);
    await expect(run(["--web", "--task", "1"])).rejects.toThrow(/--web shows every task/);
  });
});
