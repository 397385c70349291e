/**
 * Domain micro-benchmarks, for every registered domain: one-time load, fork
 * of an episode environment, one read and one write tool call (chosen from
 * the task data by the toolkit's tool kind), DB hashing fresh and after one
 * write, and heap per forked environment.
 */
import type { Task } from "../src/core/task.ts";
import { domainNames, getDomainDefinition } from "../src/domains/registry.ts";
import type { Domain } from "../src/domains/types.ts";
import type { Environment } from "../src/env/environment.ts";
import type { ToolKind } from "../src/env/toolkit.ts";
import { applyInitialState } from "../src/evaluation/gold.ts";
import {
  type BenchContext,
  type BenchModule,
  type BenchResult,
  canCollectGarbage,
  heapUsedBytes,
  runChildMode,
  runInChildren,
  timeMedianMs,
  timePreparedMs,
  subjectResults,
} from "./harness.ts";

/** Targets from the issue (ms unless stated). */
export const DOMAIN_TARGETS = {
  forkMs: 0.1,
  toolCallMs: 0.05,
  rehashMs: 10,
  bytesPerFork: 50 * 1024,
};

const FORKS_FOR_MEMORY = 1000;

type Action = NonNullable<NonNullable<Task["evaluation_criteria"]>["actions"]>[number];

/** A task action to time, with the task whose initial state it needs (none for a fallback call). */
interface PickedAction {
  task?: Task;
  action: Pick<Action, "name" | "arguments" | "requestor">;
}

function kindOf(env: Environment, action: Action): ToolKind | undefined {
  const toolkit = action.requestor === "user" ? env.userTools : env.tools;
  return toolkit?.getTool(action.name)?.kind;
}

/**
 * The first expected action of the given kind whose task reaches it through
 * non-mutating actions only, so a fresh environment (plus the task's initial
 * state) is all it needs.
 */
export function pickAction(domain: Domain, kind: ToolKind): PickedAction | undefined {
  const env = domain.makeEnvironment();
  for (const task of domain.tasks()) {
    for (const action of task.evaluation_criteria?.actions ?? []) {
      const actionKind = kindOf(env, action);
      if (actionKind === kind) return { task, action };
      if (actionKind === undefined || actionKind === "write") break;
    }
  }
  return undefined;
}

/**
 * When no expected action of the kind is reachable without a write first (telecom's), the first
 * tool of that kind that needs no arguments, from the agent's toolkit and then the user's, called on
 * a fresh environment.
 */
export function pickArgumentFreeTool(domain: Domain, kind: ToolKind): PickedAction | undefined {
  const env = domain.makeEnvironment();
  const toolkits = [
    { requestor: "assistant", toolkit: env.tools },
    { requestor: "user", toolkit: env.userTools },
  ] as const;
  for (const { requestor, toolkit } of toolkits) {
    const tool = toolkit?.tools.find((t) => t.kind === kind && t.params.every((p) => p.default));
    if (tool) return { action: { requestor, name: tool.name, arguments: {} } };
  }
  return undefined;
}

function prepared(domain: Domain, picked: PickedAction): Environment {
  const env = domain.makeEnvironment();
  if (picked.task) applyInitialState(env, picked.task);
  return env;
}

function noteOf(picked: PickedAction, error: boolean): string {
  const source = picked.task ? `task ${picked.task.id}` : "no such expected action; argument-free tool";
  return `${picked.action.name} (${source}${error ? ", returns an error" : ""})`;
}

function callOf(picked: PickedAction) {
  return {
    id: "bench",
    name: picked.action.name,
    arguments: picked.action.arguments,
    requestor: picked.action.requestor,
  } as const;
}

function hashBoth(env: Environment): void {
  env.getDbHash();
  env.getUserDbHash();
}

function benchDomain(name: string, context: BenchContext): BenchResult[] {
  const { results, add } = subjectResults(name);
  const scale = context.scale;

  const loadStart = performance.now();
  const domain = getDomainDefinition(name).load(context.dataDir);
  const loadMs = performance.now() - loadStart;
  const tasksStart = performance.now();
  const taskCount = domain.tasks().length;
  const tasksMs = performance.now() - tasksStart;
  add("load DB (once)", loadMs, "ms");
  add("load tasks (once)", tasksMs, "ms", undefined, `${taskCount} tasks`);
  const coldStart = performance.now();
  hashBoth(domain.makeEnvironment());
  add(
    "hash, first ever (once)",
    performance.now() - coldStart,
    "ms",
    undefined,
    "fills serialization caches",
  );

  context.log(`${name}: fork`);
  add(
    "fork environment",
    timeMedianMs(() => domain.makeEnvironment(), { samples: Math.ceil(31 * scale), batch: 100 }),
    "ms",
    DOMAIN_TARGETS.forkMs,
  );

  const read = pickAction(domain, "read") ?? pickArgumentFreeTool(domain, "read");
  if (read) {
    context.log(`${name}: read tool call`);
    const env = prepared(domain, read);
    const call = callOf(read);
    const check = env.getResponse(call);
    add(
      "read tool call",
      timeMedianMs(() => env.getResponse(call), { samples: Math.ceil(31 * scale), batch: 50 }),
      "ms",
      DOMAIN_TARGETS.toolCallMs,
      noteOf(read, check.error ?? false),
    );
  }

  const write = pickAction(domain, "write");
  if (write) {
    context.log(`${name}: write tool call`);
    const call = callOf(write);
    const check = prepared(domain, write).getResponse(call);
    const note = noteOf(write, check.error ?? false);
    add(
      "write tool call",
      timePreparedMs(
        () => prepared(domain, write),
        (env) => env.getResponse(call),
        Math.ceil(301 * scale),
      ),
      "ms",
      DOMAIN_TARGETS.toolCallMs,
      note,
    );
  }

  context.log(`${name}: hashing`);
  add(
    "hash fresh DB",
    timePreparedMs(
      () => domain.makeEnvironment(),
      (env) => hashBoth(env),
      Math.ceil(21 * scale),
    ),
    "ms",
    DOMAIN_TARGETS.rehashMs,
  );
  if (write) {
    const call = callOf(write);
    add(
      "re-hash after one write",
      timePreparedMs(
        () => {
          const env = prepared(domain, write);
          env.getResponse(call);
          return env;
        },
        (env) => hashBoth(env),
        Math.ceil(21 * scale),
      ),
      "ms",
      DOMAIN_TARGETS.rehashMs,
      write.action.name,
    );
  }

  context.log(`${name}: memory`);
  const forks = Math.max(10, Math.round(FORKS_FOR_MEMORY * Math.min(scale, 1)));
  const kept: Environment[] = [];
  const before = heapUsedBytes();
  for (let i = 0; i < forks; i++) {
    const env = write ? prepared(domain, write) : domain.makeEnvironment();
    if (write) env.getResponse(callOf(write));
    kept.push(env);
  }
  const after = heapUsedBytes();
  add(
    "heap per forked env",
    (after - before) / kept.length,
    "bytes",
    DOMAIN_TARGETS.bytesPerFork,
    `${kept.length} forks${write ? ", one write each" : ""}${canCollectGarbage() ? "" : ", no --expose-gc: rough"}`,
  );
  return results;
}

/**
 * The domain micro-benchmarks, over every registered domain. Each domain runs
 * in its own Node process, as a `tau run` would: the process's JIT and heap
 * then carry only that domain's shapes, and one domain's garbage does not
 * land in another's timings.
 */
export const domainBench: BenchModule = {
  name: "domains",
  description: "fork, tool calls, hashing and memory per domain (one process per domain)",
  run(context) {
    // The original τ-bench domains read their own data folder and have their own module (bench/tau1.ts).
    const names = domainNames().filter((domain) => getDomainDefinition(domain).dataFolder !== "tau1");
    return runInChildren(import.meta.url, names, context, { TAU_DATA_DIR: context.dataDir });
  },
};

// Child mode (`domains.ts <domain> <scale>`): one domain's results as JSON on stdout.
runChildMode(import.meta.url, process.env.TAU_DATA_DIR, benchDomain);
