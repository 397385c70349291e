/**
 * The web viewer in a real browser (Debian's chromium driven by
 * playwright-core): what the pages render is checked against the metrics
 * computed here from the same files, and every page is kept as a screenshot
 * in `test-output/viewer/` (git-ignored) for a person to look at.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareMetrics, computeMetrics, describeIntervalMethod, isSuccessful } from "../metrics/index.ts";
import { type LoadedRun, loadRun } from "../runner/run-file.ts";
import { ensureApp } from "./app-files.ts";
import { RunCatalog } from "./catalog.ts";
import { exportSite } from "./export.ts";
import { startViewerServer, type ViewerServer } from "./server.ts";
import { appendSimulationCopy, launchChromium, makeRun, strictPage } from "./test-runs.ts";
import { domainLoader, writeActionCounter } from "./trajectory.ts";

const dataDir = process.env.TAU_DATA_DIR;
const SHOTS = resolve(import.meta.dirname, "..", "..", "test-output", "viewer");

let root: string;
let server: ViewerServer;
let browser: Browser;
let page: Page;
const runs: Record<string, LoadedRun> = {};

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

async function open(hash: string, ready: string): Promise<void> {
  await page.goto(`${server.url}${hash}`);
  await page.locator(ready).first().waitFor({ timeout: 20_000 });
}

describe.skipIf(!dataDir)("web viewer in chromium (skipped: TAU_DATA_DIR not set)", () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    root = mkdtempSync(join(tmpdir(), "tau-viewer-browser-"));
    const folder = (name: string) => join(root, "runs", name);
    await makeRun({
      dataDir: dataDir!,
      folder: folder("mock-sloppy"),
      trials: 3,
      infraTaskId: "create_task_1",
    });
    await makeRun({ dataDir: dataDir!, folder: folder("mock-replay"), agent: "replay", trials: 3 });
    await makeRun({
      dataDir: dataDir!,
      folder: folder("telecom-small"),
      domain: "telecom",
      split: "small",
      trials: 2,
    });
    for (const name of ["mock-sloppy", "mock-replay", "telecom-small"])
      runs[name] = await loadRun(folder(name));
    const load = domainLoader(dataDir!);
    const catalog = new RunCatalog({ targets: [], cwd: root, writeActionCounter: writeActionCounter(load) });
    server = await startViewerServer({ catalog, appDir: ensureApp(), load, followIntervalMs: 200 });
    browser = await launchChromium();
    page = await strictPage(browser);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const metricsOf = (name: string) =>
    computeMetrics(runs[name]!.simulations, { numTrials: runs[name]!.info.num_trials });

  it("lists the runs with pass^1 as computeMetrics gives it", async () => {
    await open("#/", "[data-testid=runs-table] tbody tr");
    for (const name of Object.keys(runs)) {
      const cell = page.locator(`tr[data-run="${name}"] [data-cell=pass1] strong`);
      expect(await cell.textContent()).toBe(metricsOf(name).passHatK[0]!.toFixed(3));
    }
    await shot("runs");
  });

  it("shows pass^k and pass@k for every k equal to computeMetrics, and infrastructure errors apart", async () => {
    await open("#/run/mock-sloppy", "[data-testid=passk-table] tbody tr");
    const metrics = metricsOf("mock-sloppy");
    expect(metrics.maxK).toBeGreaterThan(1);
    const rows = page.locator("[data-testid=passk-table] tbody tr");
    expect(await rows.count()).toBe(metrics.maxK);
    for (let k = 1; k <= metrics.maxK; k++) {
      const row = page.locator(`[data-testid=passk-table] tr[data-k="${k}"]`);
      expect(await row.locator("[data-value=pass-hat]").textContent()).toBe(
        metrics.passHatK[k - 1]!.toFixed(3),
      );
      expect(await row.locator("[data-value=pass-at]").textContent()).toBe(
        metrics.passAtK[k - 1]!.toFixed(3),
      );
      // Every pass^k has its interval, and the table names how they were computed.
      const [low, high] = metrics.passHatKIntervals[k - 1]!;
      expect(await row.locator("td").nth(2).textContent()).toBe(`[${low.toFixed(3)}, ${high.toFixed(3)}]`);
    }
    expect(await page.locator("[data-testid=passk-table] caption").textContent()).toBe(
      `Intervals: ${describeIntervalMethod(metrics.intervalMethod)}.`,
    );
    expect(await page.locator("[data-kpi='pass^1'] .kpi-value").textContent()).toBe(
      metrics.passHatK[0]!.toFixed(3),
    );
    expect(await page.locator("[data-kpi=infra] .kpi-value").textContent()).toBe(
      String(metrics.infraErrorCount),
    );
    expect(metrics.infraErrorCount).toBeGreaterThan(0);
    expect(await page.locator("[data-testid=infra-table] tbody tr").count()).toBe(metrics.infraErrorCount);
    // The breakdowns are drawn once the headline is on screen.
    await page.locator("[data-section=write-actions] svg").first().waitFor();
    for (const section of ["reliability", "components", "write-actions", "terminations", "cost"])
      expect(await page.locator(`[data-section=${section}] svg`).count(), section).toBeGreaterThan(0);
    await shot("run-mock");
  });

  it("draws the task × trial grid with one cell per simulation and its outcome", async () => {
    await open("#/run/mock-sloppy", "[data-testid=grid] .grid-row");
    const run = runs["mock-sloppy"]!;
    const tasks = [...new Set(run.simulations.map((s) => s.task_id))];
    expect(await page.locator("[data-testid=grid] .grid-row").count()).toBe(tasks.length);
    for (const simulation of run.simulations) {
      const expected =
        simulation.termination_reason === "infrastructure_error"
          ? "infra"
          : isSuccessful(simulation.reward_info?.reward ?? 0)
            ? "success"
            : "failure";
      const cell = page.locator(
        `.grid-row[data-task="${simulation.task_id}"] [data-trial="${simulation.trial}"]`,
      );
      expect(await cell.getAttribute("data-outcome"), `${simulation.task_id} trial ${simulation.trial}`).toBe(
        expected,
      );
    }
    // The filter keeps only tasks with a failure.
    await page.selectOption("select[aria-label='filter tasks']", "failed");
    const failing = new Set(
      run.simulations
        .filter(
          (s) => s.termination_reason !== "infrastructure_error" && !isSuccessful(s.reward_info?.reward ?? 0),
        )
        .map((s) => s.task_id),
    );
    await page.waitForFunction(
      `document.querySelectorAll("[data-testid=grid] .grid-row").length === ${failing.size}`,
    );
  });

  it("opens a failed trajectory from the grid: the tool call that went wrong, the grading and the DB difference", async () => {
    await open("#/run/mock-sloppy", "[data-testid=grid] .grid-row");
    await page.locator('.grid-row[data-task="update_task_1"] [data-trial="1"]').click();
    await page.locator("[data-testid=grading]").waitFor();
    expect(page.url()).toContain("#/run/mock-sloppy/task/update_task_1/trial/1");
    const call = page.locator('[data-testid=conversation] .tool-call[data-tool="update_task_status"]');
    expect(await call.getAttribute("data-mismatch")).not.toBeNull();
    expect(await call.locator(".tag").last().textContent()).toBe("differs from expected: status");
    expect(await page.locator("[data-component=DB]").textContent()).toContain("✗");
    const diff = page.locator("[data-testid=db-diff] tbody tr");
    expect(await diff.count()).toBe(1);
    expect(await diff.first().textContent()).toBe('tasks › task_1 › status"completed""completed_wrong"');
    expect(await page.locator("[data-check=actions] li.no").textContent()).toContain(
      "called with different status",
    );
    await shot("trajectory-wrong-argument");
  });

  it("puts the user's tool calls on the user's side and shows every check", async () => {
    const run = runs["telecom-small"]!;
    const full = await run.full(run.simulations.map((_, i) => i));
    const calls = (simulation: (typeof full)[number], role: "user" | "assistant") =>
      simulation.messages.flatMap((m) => (m.role === role ? (m.tool_calls ?? []) : []));
    const both = full.find((s) => calls(s, "user").length > 0 && calls(s, "assistant").length > 0)!;
    expect(both).toBeDefined();
    await open(
      `#/run/telecom-small/task/${encodeURIComponent(both.task_id)}/trial/${both.trial}`,
      "[data-testid=grading]",
    );
    expect(await page.locator("[data-testid=conversation] .turn.user .tool-call").count()).toBe(
      calls(both, "user").length,
    );
    expect(await page.locator("[data-testid=conversation] .turn.agent .tool-call").count()).toBe(
      calls(both, "assistant").length,
    );
    expect(await page.locator("[data-check=env] li").count()).toBe(both.reward_info!.env_assertions!.length);
    await shot("trajectory-telecom");
  });

  it("breaks telecom down by intent, persona and number of sub-issues", async () => {
    await open("#/run/telecom-small", "[data-section=telecom-intent] svg");
    for (const section of ["telecom-intent", "telecom-persona", "telecom-subissues", "write-actions"])
      expect(await page.locator(`[data-section=${section}] svg`).count(), section).toBeGreaterThan(0);
    const personas = new Set(
      runs["telecom-small"]!.simulations.map((s) => /PERSONA:(\w+)/.exec(s.task_id)![1]),
    );
    const labels = await page.locator("[data-section=telecom-persona] svg text").allTextContents();
    for (const persona of personas) expect(labels).toContain(persona);
    await shot("run-telecom");
  });

  it("compares two runs with tau compare's paired test and lists the tasks that flipped", async () => {
    await open("#/compare/mock-replay/mock-sloppy", "[data-testid=verdict]");
    const comparison = compareMetrics(metricsOf("mock-replay"), metricsOf("mock-sloppy"));
    expect(await page.locator("[data-kpi=difference] .kpi-value").textContent()).toBe(
      `${comparison.meanDifference! >= 0 ? "+" : "−"}${Math.abs(comparison.meanDifference!).toFixed(3)}`,
    );
    expect(await page.locator("[data-testid=verdict]").textContent()).toMatch(
      comparison.decision === "worse"
        ? /^A is better/
        : comparison.decision === "better"
          ? /^B is better/
          : /^No clear/,
    );
    const flipped = comparison.tasks.filter((task) => task.difference !== 0);
    expect(flipped.length).toBeGreaterThan(0);
    expect(await page.locator("[data-testid=flipped-table] tbody tr").count()).toBe(flipped.length);
    await shot("compare");
  });

  it("updates a live run's page as its checkpoint grows", async () => {
    await open("#/", "[data-testid=runs-table] tbody tr");
    const checkpoint = join(root, "runs", "mock-replay", "results.jsonl");
    appendSimulationCopy(checkpoint, { id: "late", trial: 5 });
    const before = runs["mock-replay"]!.simulations.length;
    await page.waitForFunction(
      `document.querySelector('tr[data-run="mock-replay"] .progress-cell span')?.textContent?.startsWith("${before + 1}")`,
      undefined,
      { timeout: 15_000 },
    );
    expect(await page.locator('tr[data-run="mock-replay"] .tag.live').count()).toBe(1);
  });

  it("exports a static site that works from a local file, without a server", async () => {
    const dir = join(root, "site");
    const catalog = new RunCatalog({ targets: [join(root, "runs", "mock-sloppy")], cwd: root });
    const summary = exportSite(catalog, ensureApp(), dir, domainLoader(dataDir!));
    expect(summary.trajectories).toBe(runs["mock-sloppy"]!.simulations.length);
    const url = pathToFileURL(join(dir, "index.html")).href;
    await page.goto(`${url}#/run/mock-sloppy`);
    await page.locator("[data-testid=passk-table] tbody tr").first().waitFor();
    expect(await page.locator("[data-kpi='pass^1'] .kpi-value").textContent()).toBe(
      metricsOf("mock-sloppy").passHatK[0]!.toFixed(3),
    );
    await page.goto(`${url}#/run/mock-sloppy/task/update_task_1/trial/1`);
    await page.locator("[data-testid=db-diff]").waitFor();
    expect(await page.locator("[data-testid=db-diff] tbody tr").count()).toBe(1);
    await shot("static-export-trajectory");
    // Exporting again replaces the earlier export; any other folder is refused.
    expect(exportSite(catalog, ensureApp(), dir, domainLoader(dataDir!)).runs).toBe(1);
    expect(() => exportSite(catalog, ensureApp(), join(root, "runs"), domainLoader(dataDir!))).toThrow(
      /not empty/,
    );
  });
});
