/**
 * Real runs for the viewer's tests and benchmark, made offline on the mock
 * domain (replay agent, scripted user): some trials forget an expected
 * action or call it with a wrong argument (a DB difference, an unmatched
 * action, a failed tool call), one task hits an infrastructure error, and messages get deterministic token counts and
 * costs so the cost figures have something to show.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { type Browser, chromium, type Page } from "playwright-core";
import { join } from "node:path";
import { registerAgent } from "../agents/registry.ts";
import { ReplayAgent } from "../agents/replay-agent.ts";
import { InfrastructureError } from "../core/errors.ts";
import type { Task } from "../core/task.ts";
import { formatCheckpointLine, parseCheckpointLine } from "../runner/checkpoint.ts";
import { executeRun } from "../runner/run.ts";
import { OFFLINE_RUN_DEPENDENCIES, offlineRunConfig } from "../testing/run-config.ts";

/** The sloppy test agent's name. */
export const SLOPPY_AGENT = "sloppy_replay_viewer_tests";

const episodes = new Map<string, number>();
let registered = false;

/**
 * The task as a sloppy agent would do it: without its last assistant action
 * (`forget`), or with that action's last string argument garbled (`garble`).
 */
function sloppy(task: Task, how: "forget" | "garble"): Task {
  const actions = task.evaluation_criteria?.actions ?? [];
  const last = actions.map((action) => action.requestor).lastIndexOf("assistant");
  if (last < 0 || !task.evaluation_criteria) return task;
  const changed =
    how === "forget"
      ? actions.filter((_, i) => i !== last)
      : actions.map((action, i) => {
          if (i !== last) return action;
          const key = Object.keys(action.arguments).findLast(
            (name) => typeof action.arguments[name] === "string",
          );
          return key === undefined
            ? action
            : { ...action, arguments: { ...action.arguments, [key]: `${action.arguments[key]}_wrong` } };
        });
  return { ...task, evaluation_criteria: { ...task.evaluation_criteria, actions: changed } };
}

function register(): void {
  if (registered) return;
  registered = true;
  registerAgent({
    name: SLOPPY_AGENT,
    description: "viewer tests: replay that gets every second episode of a task wrong",
    soloMode: false,
    needsLlm: false,
    create: (ctx) => {
      const n = episodes.get(ctx.task.id) ?? 0;
      episodes.set(ctx.task.id, n + 1);
      if (ctx.task.id === infraTask && n === 2)
        throw new InfrastructureError(`provider unreachable (injected for ${ctx.task.id})`);
      // Every second episode of a task goes wrong: tasks that update something get a wrong argument, the others a forgotten call.
      const plan =
        n % 2 === 0 ? ctx.task : sloppy(ctx.task, ctx.task.id.startsWith("update") ? "garble" : "forget");
      return new ReplayAgent(plan, { solo: false });
    },
  });
}
let infraTask: string | null = null;

/** Options of {@link makeRun}. */
export interface TestRunOptions {
  dataDir: string;
  /** The run folder: `<folder>/results.jsonl` is written. */
  folder: string;
  domain?: string;
  /** Default: the sloppy replay agent above; `replay` follows every task exactly. */
  agent?: string;
  split?: string;
  trials?: number;
  /** This task's third episode is an infrastructure error. */
  infraTaskId?: string;
}

/** Runs a domain offline into `folder` and returns the checkpoint's path. */
export async function makeRun(options: TestRunOptions): Promise<string> {
  register();
  episodes.clear();
  infraTask = options.infraTaskId ?? null;
  const resultsPath = join(options.folder, "results.json");
  await executeRun(
    offlineRunConfig(options.dataDir, {
      domain: options.domain ?? "mock",
      split: options.split ?? "base",
      agent: options.agent ?? SLOPPY_AGENT,
      numTrials: options.trials ?? 3,
      maxConcurrency: 1,
      maxRetries: 0,
      resultsPath,
    }),
    OFFLINE_RUN_DEPENDENCIES,
  );
  const checkpoint = `${resultsPath}l`;
  stampUsage(checkpoint);
  return checkpoint;
}

/** Gives every agent and user message deterministic token counts and costs (the checkpoint is rewritten). */
export function stampUsage(checkpoint: string): void {
  const lines = readFileSync(checkpoint, "utf8")
    .split("\n")
    .filter((line) => line !== "");
  const out = lines.map((text, i) => {
    const record = parseCheckpointLine(checkpoint, i + 1, text);
    if (record.kind !== "simulation") return text;
    const simulation = record.simulation;
    let agentCost = 0;
    let userCost = 0;
    simulation.messages = simulation.messages.map((message, j) => {
      if (message.role !== "assistant" && message.role !== "user") return message;
      const prompt = 800 + 120 * j + (simulation.trial ?? 0) * 37;
      const completion = 40 + ((j * 53) % 90);
      const cost = (prompt * 2 + completion * 8) / 1e6;
      if (message.role === "assistant") agentCost += cost;
      else userCost += cost;
      return { ...message, cost, usage: { completion_tokens: completion, prompt_tokens: prompt } };
    });
    simulation.agent_cost = agentCost;
    simulation.user_cost = userCost;
    return formatCheckpointLine(record);
  });
  writeFileSync(checkpoint, `${out.join("\n")}\n`);
}

/**
 * Appends a copy of the checkpoint's first simulation with some fields
 * changed (a new trial, say), as a running batch would append it.
 */
export function appendSimulationCopy(checkpoint: string, changes: Record<string, unknown>): void {
  const line = readFileSync(checkpoint, "utf8")
    .split("\n")
    .find((text) => text.includes('"kind": "simulation"'));
  if (!line) throw new Error(`${checkpoint} has no simulation to copy`);
  const record = JSON.parse(line) as { simulation: Record<string, unknown> };
  appendFileSync(
    checkpoint,
    `${JSON.stringify({ ...record, simulation: { ...record.simulation, ...changes } })}\n`,
  );
}

/** Debian's chromium, or `TAU_CHROMIUM`. */
export const CHROMIUM = process.env.TAU_CHROMIUM ?? "/usr/bin/chromium";

/** The flags this machine's chromium needs: no sandbox as root, no network beyond loopback (playwright adds headless and a fresh profile). */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Launches headless chromium through playwright-core (which never downloads a browser of its own). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no chromium at ${CHROMIUM}: apt-get install -y chromium`);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** A 1400×900 page of `browser` on which an uncaught error in the app fails the test. */
export async function strictPage(browser: Browser): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on("pageerror", (error) => {
    throw error;
  });
  return page;
}
