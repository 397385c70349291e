/**
 * The original τ-bench domains: what upstream pays on every episode — a fresh
 * database (upstream reloads the JSON files: 18 ms retail, 40 ms airline on
 * this machine kind), a tool step (0.06 / 0.05 ms) and the data hash (92 /
 * 237 ms, taken at every grading and every gold replay) — measured on our
 * copy-on-write state with its incremental hash. One process per domain.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { getDomainDefinition } from "../src/domains/registry.ts";
import type { Tau1Action } from "../src/domains/tau1/env.ts";
import { isTau1Domain, TAU1_AIRLINE, TAU1_RETAIL, type Tau1Domain } from "../src/domains/tau1/index.ts";
import { gradeTau1 } from "../src/evaluation/tau1.ts";
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
export const TAU1_TARGETS = { resetMs: 0.1, toolStepMs: 0.05, hashAfterWriteMs: 5 };

/** Upstream's numbers (CPython 3.11, same machine kind), for the notes. */
const UPSTREAM = {
  [TAU1_RETAIL]: { reset: "18 ms", step: "0.06 ms", hash: "92 ms" },
  [TAU1_AIRLINE]: { reset: "40 ms", step: "0.05 ms", hash: "237 ms" },
} as const;

/** The first gold write of the test split, and the reads before it. */
function firstWrite(domain: Tau1Domain): { reads: Tau1Action[]; write: Tau1Action; taskId: string } {
  const writes = new Set(
    domain.tau1.variant === "retail"
      ? [
          "cancel_pending_order",
          "modify_pending_order_address",
          "return_delivered_order_items",
          "exchange_delivered_order_items",
        ]
      : [
          "book_reservation",
          "cancel_reservation",
          "update_reservation_flights",
          "update_reservation_baggages",
        ],
  );
  for (const task of domain.tau1.tasksOf("test")) {
    const actions = domain.tau1.record(task).actions;
    const index = actions.findIndex((action) => writes.has(action.name));
    if (index >= 0) return { reads: actions.slice(0, index), write: actions[index]!, taskId: task.id };
  }
  throw new Error(`${domain.name}: no gold write in the test split`);
}

function benchTau1(name: string, context: BenchContext): BenchResult[] {
  const { results, add } = subjectResults(name);
  const upstream = UPSTREAM[name as keyof typeof UPSTREAM];
  const scale = context.scale;

  const loadStart = performance.now();
  const loaded = getDomainDefinition(name).load(context.dataDir);
  if (!isTau1Domain(loaded)) throw new Error(`${name} is not a τ-bench domain`);
  const domain = loaded;
  domain.tau1.freshData();
  add("load data files (once)", performance.now() - loadStart, "ms");
  const coldStart = performance.now();
  domain.tau1.freshData().hash();
  add(
    "hash, first ever (once)",
    performance.now() - coldStart,
    "ms",
    undefined,
    "builds the hashed string and midstates",
  );

  context.log(`${name}: reset`);
  add(
    "env reset (fresh data)",
    timeMedianMs(() => domain.tau1.freshData(), { samples: Math.ceil(31 * scale), batch: 100 }),
    "ms",
    TAU1_TARGETS.resetMs,
    `upstream reloads the files: ${upstream.reset}`,
  );

  const { reads, write, taskId } = firstWrite(domain);
  const tools = domain.tau1.tools;
  // A read-only gold action, timed on fresh data (a read needs no write before it).
  const read = domain.tau1
    .tasksOf("test")
    .flatMap((task) => domain.tau1.record(task).actions)
    .find((action) => /^(get|search)_/.test(action.name));
  if (read) {
    context.log(`${name}: read tool step`);
    const data = domain.tau1.freshData();
    add(
      "tool step (read)",
      timeMedianMs(() => tools.step(data, read), { samples: Math.ceil(31 * scale), batch: 50 }),
      "ms",
      TAU1_TARGETS.toolStepMs,
      `${read.name}; upstream ${upstream.step}`,
    );
  }
  context.log(`${name}: write tool step`);
  const prepare = () => {
    const data = domain.tau1.freshData();
    for (const action of reads) tools.step(data, action);
    return data;
  };
  add(
    "tool step (write)",
    timePreparedMs(prepare, (data) => tools.step(data, write), Math.ceil(301 * scale)),
    "ms",
    TAU1_TARGETS.toolStepMs,
    `${write.name} (task ${taskId})`,
  );

  context.log(`${name}: hashing`);
  add(
    "data hash, fresh",
    timePreparedMs(
      () => domain.tau1.freshData(),
      (data) => data.hash(),
      Math.ceil(51 * scale),
    ),
    "ms",
    TAU1_TARGETS.hashAfterWriteMs,
    `upstream ${upstream.hash}`,
  );
  add(
    "data hash after one write",
    timePreparedMs(
      () => {
        const data = prepare();
        tools.step(data, write);
        return data;
      },
      (data) => data.hash(),
      Math.ceil(51 * scale),
    ),
    "ms",
    TAU1_TARGETS.hashAfterWriteMs,
    `${write.name}; upstream ${upstream.hash}`,
  );
  const task = domain.tau1.tasksOf("test")[Number(taskId)]!;
  const record = domain.tau1.record(task);
  add(
    "grading (data hash; gold kept per task)",
    timePreparedMs(
      () => {
        const data = domain.tau1.freshData();
        for (const action of record.actions) tools.step(data, action);
        return data;
      },
      (data) => gradeTau1(domain, record, data, []),
      Math.ceil(31 * scale),
    ),
    "ms",
    undefined,
    `task ${taskId}, ${record.actions.length} actions; upstream reloads, replays and hashes twice`,
  );

  context.log(`${name}: memory`);
  const count = Math.max(10, Math.round(1000 * Math.min(scale, 1)));
  const kept = [];
  const before = heapUsedBytes();
  for (let i = 0; i < count; i++) {
    const data = prepare();
    tools.step(data, write);
    kept.push(data);
  }
  add(
    "heap per episode state",
    (heapUsedBytes() - before) / kept.length,
    "bytes",
    undefined,
    `${kept.length} states, one write each${canCollectGarbage() ? "" : ", no --expose-gc: rough"}`,
  );
  return results;
}

/** The τ-bench data folder: `TAU1_DATA_DIR`, else `../shared/tau-bench-data` next to the repository. */
function tau1DataDir(): string {
  return (
    process.env.TAU1_DATA_DIR ??
    resolve(fileURLToPath(import.meta.url), "..", "..", "..", "shared", "tau-bench-data")
  );
}

/** The original τ-bench domains' benchmarks (skipped, with one line, without their data folder). */
export const tau1Bench: BenchModule = {
  name: "tau1",
  description: "original τ-bench: env reset, tool steps and the data hash (one process per domain)",
  run(context) {
    const dataDir = tau1DataDir();
    if (!existsSync(resolve(dataDir, "retail"))) {
      context.log(`tau1: skipped (no τ-bench data at ${dataDir}; set TAU1_DATA_DIR)`);
      return [];
    }
    return runInChildren(import.meta.url, [TAU1_RETAIL, TAU1_AIRLINE], context, { TAU1_DATA_DIR: dataDir });
  },
};

// Child mode (`tau1.ts <domain> <scale>`): one domain's results as JSON on stdout.
runChildMode(import.meta.url, process.env.TAU1_DATA_DIR, benchTau1);
