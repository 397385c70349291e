/**
 * Shared pieces of the `tau run` end-to-end tests (`e2e-*.test.ts`): spawn the
 * real CLI as a child process, script the fake provider per participant
 * (agent, user simulator, judge), and read what the run wrote; and run a
 * TypeScript snippet in a process of its own, for tests about a process
 * (its environment, whether it exits). Kept apart from the tests so each test
 * file stays about behaviour, not plumbing.
 */
import { type SpawnSyncReturns, spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { FakeReply, FakeRequest } from "../testing/fake-provider.ts";

const repo = resolve(import.meta.dirname, "..", "..");

/** The CLI entry point the tests spawn: the sources through tsx (the build in dist/ may be stale; the pack test runs it). */
export const TAU_BIN = join(repo, "scripts", "tau-from-source.js");

/**
 * Runs `tau <args>` (from the sources) synchronously, for tests that need no server in
 * this process; `env` is added to (or, with `undefined`, removes from) the parent's.
 */
export function runTauSync(
  args: string[],
  options: { cwd?: string; env?: Record<string, string | undefined> } = {},
): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [TAU_BIN, ...args], {
    encoding: "utf8",
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env: { ...process.env, ...options.env },
  });
}

/**
 * Runs `script` (an ES module in TypeScript, through tsx) in a child process without blocking this
 * one (a server the script calls may live here), with `env` added to the parent's. Resolves to its
 * exit code and what it printed (stdout and stderr together); code -1 when it had not exited
 * after `timeoutMs` and was killed.
 */
export function runModuleScript(
  script: string,
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  return new Promise((resolvePromise) => {
    const timer = setTimeout(() => {
      child.kill();
      resolvePromise({ code: -1, output });
    }, options.timeoutMs ?? 15_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolvePromise({ code, output });
    });
  });
}

/** What a finished `tau` child process left behind. */
export interface TauRun {
  status: number | null;
  stdout: string;
  stderr: string;
  durationMs: number;
}

/**
 * Runs `tau <args>` (from the sources) without blocking this process (the fake
 * provider lives in the test process, so a synchronous spawn would deadlock).
 * Provider keys and base URLs of the parent are dropped so a developer's real
 * credentials can never reach a test; `env` adds what the test wants.
 */
export function runTau(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<TauRun> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (/_API_KEY$|_BASE_URL$/.test(key)) continue;
    env[key] = value;
  }
  Object.assign(env, options.env ?? {});
  const started = Date.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [TAU_BIN, ...args], { cwd: options.cwd, env });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (status) =>
      resolvePromise({ status, stdout, stderr, durationMs: Date.now() - started }),
    );
  });
}

/** Which participant sent a request to the fake provider. */
export type Participant = "agent" | "user" | "judge";

/** The system prompt of a request, in any of the wire protocols the fake speaks. */
export function systemPromptOf(request: FakeRequest): string {
  const body = request.body;
  switch (request.protocol) {
    case "openai": {
      const first = body.messages?.[0];
      return first && (first.role === "system" || first.role === "developer") ? textOf(first.content) : "";
    }
    case "anthropic":
      return typeof body.system === "string" ? body.system : textOf(body.system ?? []);
    case "google":
      return textOf(body.systemInstruction?.parts ?? []);
    default: {
      const unreachable: never = request.protocol;
      throw new TypeError(`unknown protocol ${String(unreachable)}`);
    }
  }
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((part) => (part && typeof part === "object" && "text" in part ? String(part.text) : ""))
      .join("");
  return "";
}

/**
 * Tells the agent, the user simulator and the NL judge apart. Every agent
 * prompt opens with the `<instructions>` block (upstream's layout); the user
 * simulator's opens with the guidelines and carries a `<scenario>` block.
 */
export function participantOf(request: FakeRequest): Participant {
  const system = systemPromptOf(request);
  if (system.startsWith("<instructions>")) return "agent";
  if (system.includes("<scenario>")) return "user";
  return "judge";
}

/** A conversation message reduced to what the scripts need, whatever the protocol. */
export interface WireTurn {
  role: "user" | "assistant" | "tool";
  text: string;
}

/** The conversation (system prompt excluded) of an OpenAI or Anthropic request. */
export function turnsOf(request: FakeRequest): WireTurn[] {
  const out: WireTurn[] = [];
  for (const message of request.body.messages ?? []) {
    if (message.role === "system" || message.role === "developer") continue;
    if (request.protocol === "anthropic" && Array.isArray(message.content)) {
      // Anthropic carries tool results as user-role `tool_result` blocks.
      const results = message.content.filter((block: { type?: string }) => block.type === "tool_result");
      if (results.length > 0) {
        for (const block of results) out.push({ role: "tool", text: textOf(block.content) });
        continue;
      }
    }
    out.push({ role: message.role, text: textOf(message.content) });
  }
  return out;
}

/** How many replies this participant has already given in the conversation the request carries. */
export function repliesSoFar(request: FakeRequest, participant: Participant): number {
  const own = turnsOf(request).filter((turn) => turn.role === "assistant").length;
  // The agent's history opens with the fixed greeting, which no model wrote.
  return participant === "agent" ? Math.max(0, own - 1) : own;
}

/** A scripted agent or user: the reply for a request, given how many replies came before. */
export type Script = (request: FakeRequest, turn: number) => FakeReply;

/** A fake-provider handler that routes agent and user requests to their scripts. */
export function byParticipant(
  scripts: Partial<Record<Participant, Script>>,
): (request: FakeRequest) => FakeReply {
  return (request) => {
    const participant = participantOf(request);
    const script = scripts[participant];
    if (!script)
      return {
        kind: "error",
        status: 400,
        message: `e2e: no script for the ${participant} (request ${request.index})`,
      };
    return script(request, repliesSoFar(request, participant));
  };
}

/** A script that plays `steps` in order and repeats the last one if asked again. */
export function inOrder(steps: FakeReply[]): Script {
  return (_request, turn) => steps[Math.min(turn, steps.length - 1)]!;
}

/** Minimal view of a results file: enough to check grading and usage. */
export interface ResultsView {
  info: Record<string, any>;
  tasks: { id: string }[];
  simulations: Record<string, any>[];
}

/** Reads upstream-format `results.json` written by `tau run`. */
export function readResults(path: string): ResultsView {
  return JSON.parse(readFileSync(path, "utf8")) as ResultsView;
}

/** Every file under a folder, relative (to show that nothing was written). */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
}

/** The last plain progress line `tau run` printed to stderr (it carries the retry and 429 counters). */
export function lastProgressLine(stderr: string): string {
  const lines = stderr.split("\n").filter((line) => /^\[\S+\] \d+\/\d+ /.test(line));
  return lines.at(-1) ?? "";
}

/**
 * An agent module for `--agent FILE` tests (TypeScript, no imports): performs the task's expected
 * actions, then says the closing phrase it was given as an option (`closing`).
 */
export const AGENT_MODULE_TS = `
interface Step { step: number }
interface Action { name: string; arguments: Record<string, unknown> }
const definition = {
  name: "module_replay",
  version: "1.0.0",
  description: "replays the expected actions (a test module)",
  create(ctx: { task: { evaluation_criteria: { actions: Action[] | null } | null }; options: { closing?: string } }) {
    const actions: Action[] = ctx.task.evaluation_criteria?.actions ?? [];
    return {
      name: "module_replay",
      initState: (): Step => ({ step: 0 }),
      isStop: () => false,
      async generate(_input: unknown, state: Step) {
        const action = actions[state.step];
        const message = action
          ? { role: "assistant", tool_calls: [{ id: "call_" + state.step, name: action.name, arguments: action.arguments, requestor: "assistant" }] }
          : { role: "assistant", content: ctx.options.closing ?? "bye" };
        return { message, state: { step: state.step + 1 } };
      },
    };
  },
};
export default definition;
`;

/** A user module for `--user FILE` tests (JavaScript): opens with `greeting` and the task, hangs up on goodbye. */
export const USER_MODULE_MJS = `
export default {
  name: "module_user",
  create(ctx) {
    return {
      name: "module_user",
      initState: () => ({ opened: false }),
      async generate(input, state) {
        if (!state.opened)
          return { message: { role: "user", content: ctx.options.greeting + " " + ctx.task.user_scenario.instructions }, state: { opened: true } };
        const done = typeof input.content === "string" && input.content.includes("goodbye");
        return { message: { role: "user", content: done ? "###STOP###" : "ok" }, state };
      },
    };
  },
};
`;
