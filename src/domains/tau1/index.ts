/**
 * The original τ-bench domains `tau1-retail` and `tau1-airline`
 * (sierra-research/tau-bench at 59a200c, specs/tau-bench-v1.md): their data
 * folder (upstream's JSON files, `wiki.md`, the converted task lists, the tool
 * descriptions and the few-shot displays), split-addressed tasks whose id is
 * the index in the split, and fresh databases in O(1) per episode.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { FileFormatError, UsageError } from "../../core/errors.ts";
import type { PyValue } from "../../core/py-json.ts";
import { parseOrThrow, readPyJson, readText } from "../../core/read-files.ts";
import { Task } from "../../core/task.ts";
import type { Domain, DomainDefinition } from "../types.ts";
import { AIRLINE_TOOLS } from "./airline-tools.ts";
import { Tau1Data } from "./data.ts";
import { Tau1ToolRunner } from "./env.ts";
import { RETAIL_TOOLS } from "./retail-tools.ts";
import type { Tau1Tool, Tau1ToolInfo } from "./tool.ts";

/** One expected action of a task file (upstream `Action`). */
export const Tau1ActionRecord = z.object({ name: z.string(), kwargs: z.record(z.string(), z.any()) });
export type Tau1ActionRecord = z.infer<typeof Tau1ActionRecord>;

/** One task of a task file (upstream `Task`: the list index is its id). */
export const Tau1TaskRecord = z.object({
  user_id: z.string(),
  actions: z.array(Tau1ActionRecord),
  instruction: z.string(),
  outputs: z.array(z.string()),
});
export type Tau1TaskRecord = z.infer<typeof Tau1TaskRecord>;

/** Which of the two original domains. */
export type Tau1Variant = "retail" | "airline";

/** What the tau1 layers above need from a loaded original τ-bench domain. */
export interface Tau1DomainData {
  readonly variant: Tau1Variant;
  /** The τ-bench data folder it was loaded from. */
  readonly dataDir: string;
  /** Upstream's environment class name (`MockRetailDomainEnv`), which names the few-shot file. */
  readonly envClassName: string;
  /** The splits, the default (`test`) first. */
  readonly splitNames: readonly string[];
  /** The agent's whole system prompt: `wiki.md`. */
  wiki(): string;
  /** The function schemas the agent gets: upstream's `tools_info.json` when present, else ours. */
  toolsInfo(): Tau1ToolInfo[];
  /** Whether {@link toolsInfo} is upstream's text (`upstream`) or our wording (`paraphrased`). */
  toolsInfoSource(): "upstream" | "paraphrased";
  /** The tools, by name. */
  readonly tools: Tau1ToolRunner;
  /** The tasks of a split in task-file order (ids are indices); unknown splits are a UsageError. */
  tasksOf(split: string): Task[];
  /** The task-file record behind a task of {@link tasksOf}. */
  record(task: Task): Tau1TaskRecord;
  /** A fresh database (upstream's `load_data()`), an O(1) fork of the files parsed once. */
  freshData(): Tau1Data;
  /** The few-shot agent's display file. */
  fewShotPath(): string;
}

/** A registered domain that is an original τ-bench domain. */
export interface Tau1Domain extends Domain {
  readonly tau1: Tau1DomainData;
}

/** Whether a loaded domain is `tau1-retail` or `tau1-airline`. */
export function isTau1Domain(domain: Domain): domain is Tau1Domain {
  return (domain as Partial<Tau1Domain>).tau1 !== undefined;
}

/** Whether a domain name is one of the original τ-bench domains (they read the τ-bench data folder). */
export function isTau1DomainName(name: string): boolean {
  return name === TAU1_RETAIL || name === TAU1_AIRLINE;
}

/** Registry names. */
export const TAU1_RETAIL = "tau1-retail";
export const TAU1_AIRLINE = "tau1-airline";

interface VariantSpec {
  variant: Tau1Variant;
  name: string;
  envClassName: string;
  /** `load_data()`'s keys, in its order; each is `<key>.json`. */
  collections: readonly string[];
  splits: readonly string[];
  tools: readonly Tau1Tool[];
}

const RETAIL: VariantSpec = {
  variant: "retail",
  name: TAU1_RETAIL,
  envClassName: "MockRetailDomainEnv",
  collections: ["orders", "products", "users"],
  splits: ["test", "train", "dev"],
  tools: RETAIL_TOOLS,
};

const AIRLINE: VariantSpec = {
  variant: "airline",
  name: TAU1_AIRLINE,
  envClassName: "MockAirlineDomainEnv",
  collections: ["flights", "reservations", "users"],
  splits: ["test"],
  tools: AIRLINE_TOOLS,
};

/** The task-file name of a split. */
export function taskFileName(split: string): string {
  return `tasks_${split}.json`;
}

/** Reads a task file into records (errors name the file, the task index and the field). */
export function readTau1Tasks(path: string): Tau1TaskRecord[] {
  const raw = readPyJson(path);
  if (!Array.isArray(raw)) throw new FileFormatError(path, "expected a JSON list of tasks");
  return raw.map((item, index) => parseOrThrow(path, Tau1TaskRecord, item, `[${index}]`));
}

/** The τ²-shaped task of a record: id = index, the instruction, the actions and outputs as expected actions and communicate info. */
export function recordToTask(record: Tau1TaskRecord, index: number): Task {
  return Task.parse({
    id: String(index),
    user_scenario: { persona: null, instructions: record.instruction },
    evaluation_criteria: {
      actions: record.actions.map((action, i) => ({
        action_id: String(i),
        name: action.name,
        arguments: action.kwargs,
      })),
      communicate_info: record.outputs,
      reward_basis: record.outputs.length > 0 ? ["DB", "COMMUNICATE"] : ["DB"],
    },
  });
}

/** The record behind a τ²-shaped task (the inverse of {@link recordToTask}; the user id is not part of the task). */
export function taskToRecord(task: Task, userId: string): Tau1TaskRecord {
  const criteria = task.evaluation_criteria;
  const instructions = task.user_scenario.instructions;
  return {
    user_id: userId,
    actions: (criteria?.actions ?? []).map((action) => ({ name: action.name, kwargs: action.arguments })),
    instruction: typeof instructions === "string" ? instructions : instructions.task_instructions,
    outputs: criteria?.communicate_info ?? [],
  };
}

function readToolsInfo(path: string, tools: readonly Tau1Tool[]): Tau1ToolInfo[] {
  const raw = readPyJson(path, { maps: false });
  const names = Array.isArray(raw)
    ? raw.map((info) => (info as { function?: { name?: unknown } })?.function?.name)
    : null;
  const expected = tools.map((tool) => tool.name);
  if (!names || names.length !== expected.length || names.some((name, i) => name !== expected[i])) {
    throw new FileFormatError(
      path,
      `expected the function schemas of ${expected.join(", ")} in that order, got ${names ? names.join(", ") : "no list"}`,
    );
  }
  return raw as unknown as Tau1ToolInfo[];
}

function loadVariant(spec: VariantSpec, dataDir: string): Tau1Domain {
  const dir = join(dataDir, spec.variant);
  if (!existsSync(dir))
    throw new FileFormatError(
      dir,
      `missing: the τ-bench data folder has no ${spec.variant}/ (run \`tau data pull --tau1\`)`,
    );
  let base: Tau1Data | undefined;
  let wiki: string | undefined;
  let toolsInfo: { infos: Tau1ToolInfo[]; source: "upstream" | "paraphrased" } | undefined;
  const tasks = new Map<string, { records: Tau1TaskRecord[]; tasks: Task[] }>();
  const records = new WeakMap<Task, Tau1TaskRecord>();

  const split = (name: string) => {
    if (!spec.splits.includes(name))
      throw new UsageError(
        `Unknown task split '${name}' for domain '${spec.name}'. Known splits: ${spec.splits.join(", ")}`,
      );
    let loaded = tasks.get(name);
    if (!loaded) {
      const list = readTau1Tasks(join(dir, taskFileName(name)));
      const converted = list.map((record, index) => {
        const task = recordToTask(record, index);
        records.set(task, record);
        return task;
      });
      loaded = { records: list, tasks: converted };
      tasks.set(name, loaded);
    }
    return loaded;
  };

  const loadData = () => {
    const collections = new Map<string, Map<string, PyValue>>();
    for (const name of spec.collections) {
      const path = join(dir, `${name}.json`);
      const value = readPyJson(path, { maps: true });
      if (!(value instanceof Map)) throw new FileFormatError(path, "expected a JSON object at the top level");
      collections.set(name, value as Map<string, PyValue>);
    }
    return Tau1Data.fromCollections(collections);
  };

  const tau1: Tau1DomainData = {
    variant: spec.variant,
    dataDir,
    envClassName: spec.envClassName,
    splitNames: spec.splits,
    wiki: () => (wiki ??= readText(join(dir, "wiki.md"))),
    toolsInfo: () => {
      toolsInfo ??= existsSync(join(dir, "tools_info.json"))
        ? { infos: readToolsInfo(join(dir, "tools_info.json"), spec.tools), source: "upstream" }
        : { infos: spec.tools.map((tool) => tool.info), source: "paraphrased" };
      return toolsInfo.infos;
    },
    toolsInfoSource: () => {
      tau1.toolsInfo();
      return toolsInfo!.source;
    },
    tools: new Tau1ToolRunner(spec.tools),
    tasksOf: (name) => split(name).tasks,
    record: (task) => {
      const known = records.get(task);
      if (known) return known;
      // A task read back from a results file: find it among the splits by index and instruction.
      const index = Number(task.id);
      const instruction = task.user_scenario.instructions;
      for (const name of spec.splits) {
        const candidate = split(name).records[index];
        if (candidate && candidate.instruction === instruction) return candidate;
      }
      throw new UsageError(`Task '${task.id}' is not a task of ${spec.name} (no split has it at that index)`);
    },
    freshData: () => (base ??= loadData()).fresh(),
    fewShotPath: () => join(dataDir, "few_shot", `${spec.envClassName}-few_shot.jsonl`),
  };

  return {
    name: spec.name,
    supportsSolo: false,
    hasUserTools: false,
    makeEnvironment: () => {
      throw new UsageError(
        `Domain '${spec.name}' runs on the original τ-bench environment; this command supports only the τ²-bench domains`,
      );
    },
    tasks: () => split("test").tasks,
    splits: () => null,
    tasksOf: (name) => {
      // `base` is the τ²-bench default split name; for τ-bench it means its own default, `test`.
      if (name === null || name === "base") return split("test").tasks;
      return split(name).tasks;
    },
    policy: () => tau1.wiki(),
    tau1,
  };
}

/** Registry entry of `tau1-retail`. */
export const tau1RetailDomain: DomainDefinition = {
  name: TAU1_RETAIL,
  description:
    "Original τ-bench retail (2024): 115 test / 500 train / 20 dev tasks, graded on the final database × expected outputs.",
  dataFolder: "tau1",
  load: (dataDir) => loadVariant(RETAIL, dataDir),
};

/** Registry entry of `tau1-airline`. */
export const tau1AirlineDomain: DomainDefinition = {
  name: TAU1_AIRLINE,
  description:
    "Original τ-bench airline (2024): 50 test tasks, graded on the final database × expected outputs.",
  dataFolder: "tau1",
  load: (dataDir) => loadVariant(AIRLINE, dataDir),
};
