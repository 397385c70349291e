/**
 * Differential test against upstream's own tool code: random action lists —
 * gold actions of real tasks with arguments corrupted in the ways models get
 * them wrong (wrong types, missing, extra and unknown names, odd numbers,
 * quotes and non-ASCII text) — run through upstream's tool classes under
 * python3 and through ours, on the same data; every observation and the final
 * data hash must be equal.
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PyFloat } from "../../core/py-json.ts";
import { loadDomain } from "../registry.ts";
import type { Tau1Action } from "./env.ts";
import { isTau1Domain, type Tau1Domain } from "./index.ts";
import { runUpstreamTools, upstreamSourceDir } from "./upstream-harness.ts";

const dataDir = process.env.TAU1_DATA_DIR;
const sourceDir = upstreamSourceDir();
const ready = Boolean(dataDir && existsSync(dataDir) && sourceDir);

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ODD_VALUES: unknown[] = [
  5,
  -3,
  0,
  2.5,
  new PyFloat(2),
  new PyFloat(0),
  null,
  true,
  false,
  "",
  "x",
  "it's",
  'say "hi"',
  "café ☕",
  "#W0000000",
  [],
  ["a"],
  [1, 2],
  {},
  { k: "v" },
];

function corrupt(random: () => number, value: unknown, pool: readonly unknown[]): unknown {
  const roll = random();
  if (roll < 0.55) return ODD_VALUES[Math.floor(random() * ODD_VALUES.length)];
  if (roll < 0.8) return pool[Math.floor(random() * pool.length)];
  if (Array.isArray(value)) {
    const copy = [...value];
    if (copy.length > 0 && random() < 0.5) copy.push(copy[0]);
    else copy.reverse();
    return copy;
  }
  if (typeof value === "number") return random() < 0.5 ? new PyFloat(value) : value + 1;
  if (typeof value === "string") return random() < 0.5 ? value.toUpperCase() : `${value} `;
  return value;
}

/** Builds random action lists from the domain's own gold actions. */
function episodes(domain: Tau1Domain, seed: number, count: number): Tau1Action[][] {
  const random = rng(seed);
  const tasks = domain.tau1.splitNames.flatMap((split) =>
    domain.tau1.tasksOf(split).map((task) => domain.tau1.record(task)),
  );
  const gold = tasks.flatMap((record) => record.actions);
  const pool = gold.flatMap((action) => Object.values(action.kwargs));
  const toolNames = domain.tau1.tools.tools.map((tool) => tool.name);
  const out: Tau1Action[][] = [];
  for (let e = 0; e < count; e++) {
    const record = tasks[Math.floor(random() * tasks.length)]!;
    const actions: Tau1Action[] = [];
    for (const action of record.actions) {
      const kwargs: Record<string, unknown> = { ...action.kwargs };
      const keys = Object.keys(kwargs);
      const roll = random();
      if (roll < 0.35 && keys.length > 0) {
        const key = keys[Math.floor(random() * keys.length)]!;
        kwargs[key] = corrupt(random, kwargs[key], pool);
      } else if (roll < 0.4 && keys.length > 0) delete kwargs[keys[Math.floor(random() * keys.length)]!];
      else if (roll < 0.43) kwargs.extra = 1;
      else if (roll < 0.45) kwargs.data = {};
      actions.push({ name: random() < 0.03 ? "no_such_tool" : action.name, kwargs });
      if (random() < 0.3) {
        const other = gold[Math.floor(random() * gold.length)]!;
        const name = random() < 0.2 ? toolNames[Math.floor(random() * toolNames.length)]! : other.name;
        actions.push({ name, kwargs: { ...other.kwargs } });
      }
    }
    out.push(actions);
  }
  return out;
}

describe.skipIf(!ready)(
  "tau1 tools against upstream's tool code (needs TAU1_DATA_DIR and TAU1_SRC_DIR)",
  () => {
    for (const [name, variant] of [
      ["tau1-retail", "retail"],
      ["tau1-airline", "airline"],
    ] as const) {
      it(`${name}: every observation and the final data hash equal upstream's`, () => {
        const domain = loadDomain(name, dataDir!);
        if (!isTau1Domain(domain)) throw new Error("not a tau1 domain");
        // python3 reloads and hashes the whole database per episode (0.1–0.3 s each, more on a busy machine).
        const cases = episodes(domain, variant === "retail" ? 11 : 29, variant === "retail" ? 30 : 20);
        const expected = runUpstreamTools(sourceDir!, dataDir!, variant, cases);
        let compared = 0;
        cases.forEach((actions, index) => {
          const data = domain.tau1.freshData();
          const outputs = actions.map((action) => {
            try {
              return domain.tau1.tools.step(data, action).observation;
            } catch {
              return null;
            }
          });
          expect({ index, outputs }).toEqual({ index, outputs: expected[index]!.outputs });
          expect({ index, hash: data.hash() }).toEqual({ index, hash: expected[index]!.hash });
          compared += actions.length;
        });
        expect(compared).toBeGreaterThan(60);
      }, 300_000);
    }
  },
);
