/**
 * The web viewer at scale: a synthetic 10,000-simulation checkpoint (2,500
 * tasks × 4 trials, each with a 24-message transcript, about 200 MB) is
 * indexed by the server, then opened in Debian's chromium. Measured: the
 * index's time and the heap it keeps (the transcripts must not stay in
 * memory), the time from navigation until the run page shows its grid and
 * pass^k table, how many grid rows the page holds (virtualized), the frame
 * times while the grid scrolls, and the time to open one trajectory.
 *
 * Alone: `node --expose-gc --import tsx bench/index.ts --only viewer`.
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PyFloat } from "../src/core/py-json.ts";
import type { SimulationRun } from "../src/core/simulation.ts";
import type { Task } from "../src/core/task.ts";
import { CHECKPOINT_VERSION, formatCheckpointLine } from "../src/runner/checkpoint.ts";
import { ensureApp } from "../src/viewer/app-files.ts";
import { RunCatalog } from "../src/viewer/catalog.ts";
import { RunIndex } from "../src/viewer/run-index.ts";
import { startViewerServer } from "../src/viewer/server.ts";
import { CHROMIUM, launchChromium } from "../src/viewer/test-runs.ts";
import { domainLoader } from "../src/viewer/trajectory.ts";
import { type BenchContext, type BenchModule, type BenchResult, heapUsedBytes, median } from "./harness.ts";

/** Small deterministic generator (the same run every time). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SENTENCE =
  "I understand; let me look up the reservation details and check what the policy allows for this change before I do anything. ";

function task(index: number, writes: number): Task {
  const actions = Array.from({ length: writes + 1 }, (_, i) => ({
    action_id: `a${i}`,
    requestor: "assistant" as const,
    name: i === 0 ? "get_user_details" : "update_reservation",
    arguments: { user_id: `user_${index}`, step: i },
    info: null,
    compare_args: null,
  }));
  return {
    id: `task_${String(index).padStart(4, "0")}`,
    description: { purpose: "synthetic", relevant_policies: null, notes: null },
    user_scenario: { persona: null, instructions: "Change my reservation." },
    ticket: null,
    initial_state: null,
    evaluation_criteria: {
      actions,
      env_assertions: null,
      communicate_info: null,
      nl_assertions: null,
      reward_basis: ["DB", "COMMUNICATE"],
    },
    issues: null,
    required_documents: null,
    user_tools: null,
  };
}

function simulation(taskValue: Task, trial: number, rand: () => number): SimulationRun {
  const writes = (taskValue.evaluation_criteria?.actions?.length ?? 1) - 1;
  const success = rand() < 0.85 - 0.1 * writes;
  const infra = rand() < 0.01;
  const messages: SimulationRun["messages"] = [];
  for (let turn = 0; turn < 24; turn++) {
    const role = turn % 3 === 2 ? "tool" : turn % 3 === 0 ? "assistant" : "user";
    if (role === "tool")
      messages.push({
        role: "tool",
        id: `call_${turn}`,
        content: `{"result": "${SENTENCE.repeat(3)}"}`,
        requestor: "assistant",
        error: false,
        turn_idx: turn,
        timestamp: null,
      });
    else
      messages.push({
        role,
        content: SENTENCE.repeat(4),
        tool_calls:
          role === "assistant"
            ? [
                {
                  id: `call_${turn + 2}`,
                  name: "update_reservation",
                  arguments: { user_id: "u", step: turn },
                  requestor: "assistant",
                },
              ]
            : null,
        turn_idx: turn,
        timestamp: null,
        cost: 0.0012,
        usage: { completion_tokens: 60, prompt_tokens: 1500 + 90 * turn },
        raw_data: null,
      });
  }
  const checks = (taskValue.evaluation_criteria?.actions ?? []).map((action, i) => ({
    action,
    action_match: success || i === 0,
    action_reward: success || i === 0 ? 1 : 0,
    tool_type: i === 0 ? ("read" as const) : ("write" as const),
  }));
  return {
    id: `${taskValue.id}-${trial}`,
    task_id: taskValue.id,
    timestamp: null,
    start_time: "2026-11-01T12:00:00.000000",
    end_time: "2026-11-01T12:01:00.000000",
    duration: 60,
    termination_reason: infra ? "infrastructure_error" : "user_stop",
    agent_cost: infra ? null : 0.0144,
    user_cost: infra ? null : 0.0144,
    reward_info: infra
      ? null
      : {
          reward: success ? 1 : 0,
          db_check: { db_match: success, db_reward: success ? 1 : 0 },
          env_assertions: null,
          action_checks: checks,
          nl_assertions: null,
          communicate_checks: null,
          reward_basis: ["DB", "COMMUNICATE"],
          reward_breakdown: { DB: success ? 1 : 0, COMMUNICATE: 1 },
          info: null,
        },
    messages: infra ? [] : messages,
    trial,
    seed: 1000 + trial,
    mode: "half_duplex",
    info: infra ? { error: "provider unreachable after 3 attempts" } : null,
  };
}

/** Writes the synthetic checkpoint under `dir/runs/synthetic-10k/` and returns its path and size. */
export function writeCheckpoint(dir: string, tasks: number, trials: number): { path: string; bytes: number } {
  const rand = random(12);
  const all = Array.from({ length: tasks }, (_, i) => task(i, Math.floor(rand() * 5)));
  const path = join(dir, "runs", "synthetic-10k", "results.jsonl");
  mkdirSync(join(dir, "runs", "synthetic-10k"), { recursive: true });
  const fd = openSync(path, "w");
  const info = {
    git_commit: "0000000",
    num_trials: trials,
    max_steps: 200,
    max_errors: 10,
    user_info: {
      implementation: "user_simulator",
      llm: "openai/gpt-4.1",
      llm_args: { temperature: new PyFloat(0) },
    },
    agent_info: {
      implementation: "llm_agent",
      llm: "openai/gpt-4.1",
      llm_args: { temperature: new PyFloat(0) },
    },
    environment_info: { domain_name: "airline", policy: "synthetic", tool_defs: null },
    seed: 300,
  };
  writeSync(
    fd,
    `${formatCheckpointLine({
      kind: "run",
      version: CHECKPOINT_VERSION,
      created_at: "2026-11-01T12:00:00.000000",
      fingerprint: {
        domain: "airline",
        agent: "llm_agent",
        user: "user_simulator",
        agent_llm: "openai/gpt-4.1",
        user_llm: "openai/gpt-4.1",
        agent_llm_args: {},
        user_llm_args: {},
        judge_llm: "none",
        judge_llm_args: {},
        max_steps: 200,
        max_errors: 10,
        seed: 300,
        solo_mode: false,
        enforce_communication_protocol: false,
      },
      num_trials: trials,
      seeds: Array.from({ length: trials }, (_, i) => 1000 + i),
      info,
      tasks: all,
      resume_command: null,
    })}\n`,
  );
  let pending = "";
  for (let trial = 0; trial < trials; trial++)
    for (const each of all) {
      pending += `${formatCheckpointLine({ kind: "simulation", version: CHECKPOINT_VERSION, simulation: simulation(each, trial, rand) })}\n`;
      if (pending.length > 1 << 22) {
        writeSync(fd, pending);
        pending = "";
      }
    }
  writeSync(fd, pending);
  closeSync(fd);
  return { path, bytes: statSync(path).size };
}

async function browserPart(context: BenchContext, dir: string, simulations: number): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const catalog = new RunCatalog({ targets: [], cwd: dir });
  const server = await startViewerServer({
    catalog,
    appDir: ensureApp(context.log),
    load: domainLoader({ missing: "synthetic run" }),
    followIntervalMs: 0,
  });
  const rssAfterServe = process.memoryUsage().rss;
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const openTimes: number[] = [];
    const samples = Math.max(2, Math.round(5 * context.scale));
    for (let i = 0; i < samples; i++) {
      await page.goto("about:blank");
      const start = performance.now();
      await page.goto(`${server.url}#/run/synthetic-10k`);
      await page.locator("[data-testid=grid] .grid-row").first().waitFor({ timeout: 60_000 });
      await page.locator("[data-testid=passk-table] tbody tr").first().waitFor({ timeout: 60_000 });
      openTimes.push(performance.now() - start);
    }
    results.push({
      subject: "viewer",
      metric: `open a ${simulations.toLocaleString("en-US")}-simulation run (navigation → grid and pass^k)`,
      value: median(openTimes),
      unit: "ms",
      target: 2000,
      note: `median of ${samples}, chromium headless`,
    });
    const domRows = await page.locator("[data-testid=grid] .grid-row").count();
    results.push({
      subject: "viewer",
      metric: "grid rows in the page (of 2,500 tasks)",
      value: domRows,
      unit: "count",
      target: 80,
      note: "the grid draws only the rows in view",
    });
    // Scroll the grid from top to bottom in steps, one step per frame, and record frame intervals.
    // Browser code, as text: this file is type-checked without the DOM library.
    const frames = (await page.evaluate(`(async () => {
      const viewport = document.querySelector("[data-testid=grid]");
      viewport.scrollIntoView();
      const intervals = [];
      const step = (viewport.scrollHeight - viewport.clientHeight) / 240;
      let last = performance.now();
      for (let i = 0; i < 240; i++) {
        viewport.scrollTop = step * (i + 1);
        await new Promise((resolve) => requestAnimationFrame(resolve));
        const now = performance.now();
        intervals.push(now - last);
        last = now;
      }
      return { intervals, rows: document.querySelectorAll("[data-testid=grid] .grid-row").length };
    })()`)) as { intervals: number[]; rows: number };
    const sorted = [...frames.intervals].sort((a, b) => a - b);
    results.push({
      subject: "viewer",
      metric: "grid scroll: frame time, 95th percentile",
      value: sorted[Math.floor(sorted.length * 0.95)]!,
      unit: "ms",
      target: 50,
      note: `240 frames top to bottom; median ${median(frames.intervals).toFixed(1)} ms; ${frames.rows} rows in the page at the end`,
    });
    const trajectoryTimes: number[] = [];
    for (let i = 0; i < samples; i++) {
      const start = performance.now();
      await page.goto(
        `${server.url}#/run/synthetic-10k/task/task_${String(100 + i).padStart(4, "0")}/trial/1`,
      );
      await page.locator("[data-testid=grading]").waitFor({ timeout: 60_000 });
      trajectoryTimes.push(performance.now() - start);
    }
    results.push({
      subject: "viewer",
      metric: "open one trajectory (read from the checkpoint on demand)",
      value: median(trajectoryTimes),
      unit: "ms",
      target: 1000,
      note: `median of ${samples}`,
    });
  } finally {
    await browser.close();
    await server.close();
  }
  results.push({
    subject: "viewer",
    metric: "server RSS after starting, run indexed",
    value: rssAfterServe,
    unit: "bytes",
    note: "the bench process",
  });
  return results;
}

/** The viewer benchmark module. */
export const viewerBench: BenchModule = {
  name: "viewer",
  description: "web viewer: index a 10,000-simulation checkpoint, open it in chromium, scroll its grid",
  async run(context) {
    const dir = mkdtempSync(join(tmpdir(), "tau-bench-viewer-"));
    try {
      const trials = 4;
      const tasks = 2500;
      context.log(`writing a synthetic checkpoint of ${tasks * trials} simulations…`);
      const { path, bytes } = writeCheckpoint(dir, tasks, trials);
      const heapBefore = heapUsedBytes();
      const start = performance.now();
      const index = RunIndex.open(path, { id: "bench", name: "bench", displayPath: path });
      const indexMs = performance.now() - start;
      const heapAfter = heapUsedBytes();
      if (index.error) throw new Error(index.error);
      const kept = heapAfter - heapBefore;
      const results: BenchResult[] = [
        {
          subject: "viewer",
          metric: `index a ${(bytes / 1e6).toFixed(0)} MB checkpoint (${index.size} simulations)`,
          value: indexMs,
          unit: "ms",
          note: `${((bytes / 1e6 / indexMs) * 1000).toFixed(0)} MB/s`,
        },
        {
          subject: "viewer",
          metric: "heap kept by the index per simulation",
          value: kept / index.size,
          unit: "bytes",
          target: 2048,
          note: `${(kept / 1e6).toFixed(1)} MB in all for a ${(bytes / 1e6).toFixed(0)} MB file (${((100 * kept) / bytes).toFixed(1)}%)`,
        },
      ];
      const start2 = performance.now();
      const data = JSON.stringify(index.data());
      results.push({
        subject: "viewer",
        metric: "run payload (all rows) built and serialized",
        value: performance.now() - start2,
        unit: "ms",
        note: `${(data.length / 1e6).toFixed(1)} MB of JSON`,
      });
      if (!existsSync(CHROMIUM)) {
        context.log(
          `no chromium at ${CHROMIUM}: the browser measurements are skipped (apt-get install -y chromium)`,
        );
        return results;
      }
      results.push(...(await browserPart(context, dir, index.size)));
      return results;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
