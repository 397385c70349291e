/**
 * The web viewer's fault audit in a real browser: a run reviewed by
 * `tau review` and analysed by `tau analyze` (against the fake provider, with
 * scripted judge replies) shows, after the standard numbers, the audit the
 * terminal report computes, and each trajectory shows its review's errors.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyzeRun } from "../analysis/error-identification.ts";
import { runFaultAudit } from "../analysis/fault-report.ts";
import { reviewRun } from "../analysis/review-run.ts";
import { readAnalysisFile, readReviewFile, reviewFilePath } from "../core/review-file.ts";
import type { SimulationRun } from "../core/simulation.ts";
import { analysisBreakdown, type FaultAudit } from "../metrics/fault-audit.ts";
import { computeMetrics } from "../metrics/index.ts";
import { type LoadedRun, loadRun } from "../runner/run-file.ts";
import { type FakeProvider, type FakeRequest, startFakeProvider } from "../testing/fake-provider.ts";
import { fakeJudgeDependencies } from "../testing/review-fixtures.ts";
import { ensureApp } from "./app-files.ts";
import { RunCatalog } from "./catalog.ts";
import { startViewerServer, type ViewerServer } from "./server.ts";
import { launchChromium, makeRun, strictPage } from "./test-runs.ts";
import { domainLoader } from "./trajectory.ts";

const dataDir = process.env.TAU_DATA_DIR;
const SHOTS = resolve(import.meta.dirname, "..", "..", "test-output", "viewer");

/**
 * The scripted judge: a conversation with a garbled argument gets a critical
 * agent error; any other gets a critical user-simulator error (so the failures
 * that forgot an action are set apart) and a minor agent one. The analysis
 * blames the agent (wrong argument) for the garbled ones, the user otherwise.
 */
function judge(request: FakeRequest) {
  const system = String(request.body.messages[0].content);
  const user = String(request.body.messages[1]?.content ?? "");
  const garbled = user.includes("_wrong");
  if (system.includes("authenticating the user"))
    return { text: '{"status": "not_needed", "reasoning": "Nothing to authenticate."}' };
  if (system.startsWith("Classify")) {
    if (user.includes("The agent called the wrong tool")) return { text: '{"classification": "B"}' };
    return { text: `{"classification": "${garbled ? "B" : "A"}"}` };
  }
  if (system.includes("Explain why")) return { text: "The reference and the conversation differ." };
  const errors = garbled
    ? [
        {
          source: "agent",
          error_tags: ["tool_call_argument_error"],
          severity: "critical",
          turn_idx: 2,
          reasoning: "Passed a status the user never asked for.",
          correct_behavior: "Use the status the user named.",
        },
      ]
    : [
        {
          source: "user",
          error_tags: ["premature_termination"],
          severity: "critical_hindered",
          turn_idx: 1,
          reasoning: "Ended the call before the request was done.",
        },
        {
          source: "agent",
          error_tags: ["other"],
          severity: "minor",
          turn_idx: 0,
          reasoning: "A terse greeting.",
        },
      ];
  return { text: JSON.stringify({ errors, summary: garbled ? "The agent erred." : "The user erred." }) };
}

let root: string;
let run: LoadedRun;
let simulations: SimulationRun[];
let audit: FaultAudit;
let provider: FakeProvider;
let server: ViewerServer;
let browser: Browser;
let page: Page;

describe.skipIf(!dataDir)("web viewer's fault audit in chromium (skipped: TAU_DATA_DIR not set)", () => {
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "tau-viewer-faults-"));
    const folder = join(root, "runs", "mock-reviewed");
    await makeRun({ dataDir: dataDir!, folder, trials: 3 });
    run = await loadRun(folder);
    simulations = await run.full(run.simulations.map((_, index) => index));
    provider = await startFakeProvider({ handler: judge });
    const deps = fakeJudgeDependencies(provider);
    const settings = { llm: "openai/gpt-4.1", llmArgs: {}, maxConcurrency: 2, maxAttempts: 2 };
    await reviewRun(run, { ...settings, mode: "full" }, deps);
    await analyzeRun(run, settings, deps);
    audit = runFaultAudit(run.path, simulations, run.info.num_trials)!;
    const catalog = new RunCatalog({ targets: [], cwd: root });
    server = await startViewerServer({
      catalog,
      appDir: ensureApp(),
      load: domainLoader(dataDir!),
      followIntervalMs: 0,
    });
    browser = await launchChromium();
    page = await strictPage(browser);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await provider?.close();
  });

  it("shows the fault audit after the standard numbers, with the terminal report's numbers", async () => {
    // The scripted reviews make the audit's every part non-trivial.
    expect(audit.reviewed).toBe(
      simulations.filter((s) => s.termination_reason !== "infrastructure_error").length,
    );
    expect(audit.userCausedFailures).toBeGreaterThan(0);
    expect(audit.agentCriticalSimulations).toBeGreaterThan(0);
    await page.goto(`${server.url}#/run/mock-reviewed`);
    const card = page.locator("[data-section=fault-audit]");
    await card.locator("[data-testid=fault-audit]").waitFor({ timeout: 20_000 });
    expect(await card.locator("h2").textContent()).toBe("Fault audit (non-standard)");
    // After every standard card.
    const sections = await page
      .locator("[data-section]")
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-section")));
    expect(sections.at(-1)).toBe("fault-audit");
    expect(sections.indexOf("reliability")).toBeLessThan(sections.indexOf("fault-audit"));

    const value = (scope: string, name: string) =>
      card.locator(`${scope} [data-value="${name}"]`).first().textContent();
    const pct = (part: number) => `${((100 * part) / audit.reviewed).toFixed(1)}%`;
    expect(await value("[data-testid=fault-audit] p", "reviewed")).toBe(String(audit.reviewed));
    expect(await value("tr[data-row=user-errors]", "all")).toBe(String(audit.userErrorSimulations));
    expect(await value("tr[data-row=user-errors]", "all-rate")).toBe(pct(audit.userErrorSimulations));
    expect(await value("tr[data-row=user-errors]", "critical")).toBe(String(audit.userCriticalSimulations));
    expect(await value("tr[data-row=user-errors]", "critical-rate")).toBe(pct(audit.userCriticalSimulations));
    expect(await value("tr[data-row=agent-errors]", "all")).toBe(String(audit.agentErrorSimulations));
    expect(await value("tr[data-row=agent-errors]", "critical")).toBe(String(audit.agentCriticalSimulations));
    for (const entry of audit.agentTags) {
      const tag = card.locator(`[data-testid=agent-tags] [data-tag="${entry.tag}"]`);
      expect(await tag.locator("[data-value=count]").textContent(), entry.tag).toBe(String(entry.count));
      if (entry.critical > 0)
        expect(await tag.locator("[data-value=critical]").textContent()).toBe(String(entry.critical));
    }
    expect(await card.locator("[data-testid=agent-tags] [data-tag]").count()).toBe(audit.agentTags.length);
    expect(await card.locator("[data-testid=user-tags] [data-tag]").count()).toBe(audit.userTags.length);
    expect(await value("[data-testid=non-standard]", "set-apart")).toBe(String(audit.userCausedFailures));
    expect(await card.locator("[data-testid=non-standard]").textContent()).toContain("Non-standard view");

    // pass^k: the standard row is the run's, the other sets the user's critical failures apart.
    const standard = computeMetrics(simulations, { numTrials: run.info.num_trials });
    const adjusted = audit.withoutUserCausedFailures!;
    for (let k = 1; k <= adjusted.passHatK.length; k++) {
      expect(await card.locator(`tr[data-row=standard] [data-k="${k}"]`).textContent()).toBe(
        standard.passHatK[k - 1]!.toFixed(3),
      );
      expect(await card.locator(`tr[data-row=set-apart] [data-k="${k}"]`).textContent()).toBe(
        adjusted.passHatK[k - 1]!.toFixed(3),
      );
    }
    expect(adjusted.passHatK[0]).toBeGreaterThan(standard.passHatK[0]!);

    // τ-bench's error identification: the breakdown `tau analyze` prints.
    const breakdown = analysisBreakdown([
      ...readAnalysisFile(reviewFilePath(run.path, "analysis")).simulations.values(),
    ]);
    expect(breakdown.analysed).toBeGreaterThan(0);
    expect(await value("[data-testid=fault-analysis] p", "analysed")).toBe(String(breakdown.analysed));
    for (const entry of breakdown.authors)
      expect(
        await card.locator(`tr[data-author=${entry.author}] [data-value=count]`).textContent(),
        entry.author,
      ).toBe(String(entry.count));
    for (const entry of breakdown.faultTypes)
      expect(
        await card.locator(`tr[data-fault-type=${entry.faultType}] [data-value=count]`).textContent(),
        entry.faultType,
      ).toBe(String(entry.count));
    for (const author of ["agent", "user"])
      expect(breakdown.authors.find((entry) => entry.author === author)!.count, author).toBeGreaterThan(0);
    mkdirSync(SHOTS, { recursive: true });
    await card.screenshot({ path: join(SHOTS, "run-fault-audit.png") });
  });

  it("shows each simulation's review errors in its trajectory: source, tag, severity, turn, reasoning", async () => {
    const records = readReviewFile(reviewFilePath(run.path, "review_full")).simulations;
    for (const simulation of simulations
      .filter((s) => s.termination_reason !== "infrastructure_error")
      .slice(0, 4)) {
      const record = records.get(simulation.id)!;
      expect(record.status).toBe("reviewed");
      if (record.status !== "reviewed") continue;
      await page.goto(
        `${server.url}#/run/mock-reviewed/task/${encodeURIComponent(simulation.task_id)}/trial/${simulation.trial}`,
      );
      await page.locator("[data-testid=grading]").waitFor({ timeout: 20_000 });
      const items = page.locator("[data-testid=review-errors] li");
      expect(await items.count()).toBe(record.review.errors.length);
      for (const [i, error] of record.review.errors.entries()) {
        const item = items.nth(i);
        expect(await item.getAttribute("data-source")).toBe("source" in error ? error.source : "user");
        expect(await item.getAttribute("data-severity")).toBe(error.severity);
        expect(await item.locator("[data-value=tag]").allTextContents()).toEqual(
          error.error_tags.map((tag) => `${tag} `),
        );
        expect(await item.locator("[data-value=turn]").textContent()).toBe(`turn ${error.turn_idx}`);
        expect(await item.locator("[data-value=reasoning]").textContent()).toBe(error.reasoning);
      }
    }
    await page.locator("[data-check=review]").screenshot({ path: join(SHOTS, "trajectory-review.png") });
  });
});
