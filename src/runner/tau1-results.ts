/**
 * τ-bench's own results files, both ways: our simulations of a `tau1-*` run
 * written as upstream's list of `EnvRunResult`s (the agent's context as
 * `traj`, upstream's `info` with the task and `reward_info`), and a file
 * upstream's `run.py` wrote read back as simulations, so `tau view`,
 * `tau compare` and `tau evaluate-trajs` work on published τ-bench runs.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { basename } from "node:path";
import { FileFormatError, UsageError } from "../core/errors.ts";
import {
  type AssistantMessage,
  assistantMessage,
  type Message,
  type ToolCall,
  type ToolMessage,
  userMessage,
} from "../core/messages.ts";
import { PyFloat, type PyValue, parsePyJson, PyJsonSyntaxError, pyDumps, toNumber } from "../core/py-json.ts";
import { readPyJson } from "../core/read-files.ts";
import { Info } from "../core/results.ts";
import { taubenchStamp, writeAtomically } from "../core/results-file.ts";
import type { RewardInfo, SimulationRun } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import {
  type PyDict,
  parseTau1Results,
  serializeTau1Results,
  type Tau1ResultEntry,
  Tau1ResultsFormatError,
} from "../core/tau1-results.ts";
import { RESPOND_ACTION_NAME, TERMINATE_TOOL } from "../domains/tau1/env.ts";
import { recordToTask, type Tau1Domain, type Tau1TaskRecord, taskToRecord } from "../domains/tau1/index.ts";
import { rewardInfo } from "../evaluation/reward-parts.ts";
import { actionToPy, tau1RewardResultFromInfo } from "../evaluation/tau1.ts";
import {
  API_OUTPUT_PREFIX,
  fewShotSystemPrompt,
  parseTau1TextAction,
  type Tau1AgentStrategy,
  textOf,
} from "../agents/tau1-agents.ts";
import { TAU1_STOP_TOKEN } from "../orchestrator/tau1-episode.ts";
import { tau1Metrics } from "../metrics/tau1.ts";
import { loadCheckpointState } from "./checkpoint-state.ts";
import { checkpointInfo } from "./export.ts";
import { readFewShotDisplays } from "./tau1-run.ts";

const dict = (entries: [string, unknown][]) => new Map(entries) as PyDict;

/** `Task.model_dump()`: pydantic's field order. */
function taskToPy(record: Tau1TaskRecord): PyDict {
  return dict([
    ["user_id", record.user_id],
    ["actions", record.actions.map(actionToPy)],
    ["instruction", record.instruction],
    ["outputs", record.outputs],
  ]);
}

/**
 * The agent's context as upstream's agents keep it (`SolveResult.messages`):
 * the system prompt, the user's first message, then per step the model's
 * reply as the provider library dumps it and the observation — a `tool`
 * message for tool calls, a `user` message for replies and for ReAct/Act
 * observations (`API output: …`).
 */
export function tau1Trajectory(
  strategy: Tau1AgentStrategy,
  systemPrompt: string,
  messages: readonly Message[],
): PyDict[] {
  const traj: PyDict[] = [
    dict([
      ["role", "system"],
      ["content", systemPrompt],
    ]),
  ];
  const text = strategy === "react" || strategy === "act";
  let pending: AssistantMessage | null = null;
  for (const message of messages) {
    switch (message.role) {
      case "assistant": {
        pending = message;
        const call = message.tool_calls?.[0];
        if (text)
          traj.push(
            dict([
              ["content", textOf(message)],
              ["role", "assistant"],
            ]),
          );
        else
          traj.push(
            dict([
              ["content", message.content],
              ["role", "assistant"],
              ...(call
                ? ([
                    [
                      "tool_calls",
                      [
                        dict([
                          [
                            "function",
                            dict([
                              ["arguments", pyDumps(call.arguments)],
                              ["name", call.name],
                            ]),
                          ],
                          ["id", call.id],
                          ["type", "function"],
                        ]),
                      ],
                    ],
                  ] as [string, unknown][])
                : []),
            ]),
          );
        break;
      }
      case "tool": {
        const call = pending?.tool_calls?.[0];
        const content = message.content ?? "";
        if (text)
          traj.push(
            dict([
              ["role", "user"],
              ["content", `${API_OUTPUT_PREFIX}${content}`],
            ]),
          );
        else
          traj.push(
            dict([
              ["role", "tool"],
              ["tool_call_id", message.id],
              ["name", call?.name ?? ""],
              ["content", content],
            ]),
          );
        break;
      }
      case "user":
        traj.push(
          dict([
            ["role", "user"],
            ["content", message.content ?? ""],
          ]),
        );
        break;
      case "system":
        break;
      default: {
        const never: never = message;
        throw new TypeError(`unknown message ${JSON.stringify(never)}`);
      }
    }
  }
  return traj;
}

/** What an export needs about the run. */
export interface Tau1ExportContext {
  strategy: Tau1AgentStrategy;
  /** The policy (the tool-calling system prompt). */
  policy: string;
  /** The ReAct/Act system prompt, as recorded for the run. */
  textPrompt: string | null;
  /** The few-shot displays, when the run used them. */
  displays: readonly string[] | null;
}

function systemPromptOf(context: Tau1ExportContext, simulation: SimulationRun): string {
  switch (context.strategy) {
    case "tool-calling":
      return context.policy;
    case "react":
    case "act":
      if (context.textPrompt === null)
        throw new UsageError("the run did not record its ReAct/Act system prompt");
      return context.textPrompt;
    case "few-shot": {
      const indices = (simulation.info?.tau1 as { few_shot?: number[] } | undefined)?.few_shot ?? [];
      if (!context.displays) throw new UsageError("the run's few-shot displays are not available");
      return fewShotSystemPrompt(
        context.policy,
        indices.map((index) => context.displays![index]!),
      );
    }
    default: {
      const never: never = context.strategy;
      throw new TypeError(`unknown strategy ${String(never)}`);
    }
  }
}

/** One of our simulations as upstream's `EnvRunResult.model_dump()`. */
export function simulationToTau1Entry(
  simulation: SimulationRun,
  task: Task,
  context: Tau1ExportContext,
): PyDict {
  const taskId = Number(simulation.task_id);
  const trial = simulation.trial ?? 0;
  if (simulation.termination_reason === "infrastructure_error") {
    // What upstream records when `solve` raised.
    return dict([
      ["task_id", taskId],
      ["reward", new PyFloat(0)],
      [
        "info",
        dict([
          ["error", String(simulation.info?.error ?? "")],
          ["traceback", String(simulation.info?.error_traceback ?? "")],
        ]),
      ],
      ["traj", []],
      ["trial", trial],
    ]);
  }
  const tau1 = (simulation.info?.tau1 ?? {}) as {
    user_id?: string;
    source?: string;
    user_cost?: number | null;
  };
  const record = taskToRecord(task, tau1.user_id ?? "");
  const info = dict([
    ["task", taskToPy(record)],
    ["source", tau1.source ?? "user"],
    ["user_cost", tau1.user_cost == null ? null : new PyFloat(tau1.user_cost)],
    ["reward_info", tau1RewardResultFromInfo(simulation.reward_info, record)],
  ]);
  return dict([
    ["task_id", taskId],
    ["reward", new PyFloat(simulation.reward_info?.reward ?? 0)],
    ["info", info],
    ["traj", tau1Trajectory(context.strategy, systemPromptOf(context, simulation), simulation.messages)],
    ["trial", trial],
  ]);
}

/** What the export needs, from a run's recorded `info` (the few-shot displays read from their file). */
export function tau1ExportContext(info: Info, domain: Tau1Domain | null = null): Tau1ExportContext {
  const stamp = (info.taubench?.tau1 ?? {}) as {
    agent_strategy?: Tau1AgentStrategy;
    agent_system_prompt?: string | null;
    few_shot_displays?: { path?: string };
  };
  const strategy = stamp.agent_strategy ?? "tool-calling";
  const displaysPath = stamp.few_shot_displays?.path ?? domain?.tau1.fewShotPath() ?? null;
  return {
    strategy,
    policy: info.environment_info.policy,
    textPrompt: stamp.agent_system_prompt ?? null,
    displays: strategy === "few-shot" && displaysPath ? readFewShotDisplays(displaysPath).displays : null,
  };
}

/** Our simulations of a `tau1-*` run as τ-bench's results list: trial by trial, tasks in run order. */
export function tau1Entries(
  tasks: readonly Task[],
  simulations: readonly SimulationRun[],
  context: Tau1ExportContext,
): PyDict[] {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const order = new Map(tasks.map((task, index) => [task.id, index]));
  const sorted = [...simulations].sort(
    (a, b) => (a.trial ?? 0) - (b.trial ?? 0) || (order.get(a.task_id) ?? 0) - (order.get(b.task_id) ?? 0),
  );
  return sorted.map((simulation) => {
    const task = byId.get(simulation.task_id);
    if (!task)
      throw new UsageError(`task ${simulation.task_id} of a simulation is not among the run's tasks`);
    return simulationToTau1Entry(simulation, task, context);
  });
}

/** Writes τ-bench's results file for a `tau1-*` run's checkpoint. */
export async function exportTau1Results(
  checkpointPath: string,
  resultsPath: string,
  domain: Tau1Domain | null = null,
): Promise<{ path: string; simulations: number; tasks: number }> {
  const state = await loadCheckpointState(checkpointPath, { full: true });
  const info = checkpointInfo(state, checkpointPath);
  const tasks = [...state.tasks.values()];
  const entries = tau1Entries(tasks, [...state.simulations.values()], tau1ExportContext(info, domain));
  writeAtomically(resultsPath, serializeTau1Results(entries));
  return { path: resultsPath, simulations: entries.length, tasks: tasks.length };
}

// ---------------------------------------------------------------------------
// Reading upstream's files

const str = (value: PyValue | undefined) => (typeof value === "string" ? value : null);

/** Which agent wrote a trajectory: tool calls mean function calling, a tool list in the prompt means ReAct/Act. */
export function trajectoryStyle(entries: readonly Tau1ResultEntry[]): "tool-calling" | "text" {
  for (const entry of entries) {
    for (const message of entry.traj) {
      if (message.get("role") === "tool" || message.has("tool_calls")) return "tool-calling";
    }
  }
  const system = entries.find((entry) => entry.traj.length > 0)?.traj[0];
  return str(system?.get("content"))?.includes("\n#Available tools\n") ? "text" : "tool-calling";
}

function toolCallOf(value: PyValue | undefined, where: string): ToolCall | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  const first = value[0];
  if (!(first instanceof Map)) return null;
  const fn = first.get("function");
  if (!(fn instanceof Map)) return null;
  const argumentsText = str(fn.get("arguments")) ?? "{}";
  let args: PyValue;
  try {
    args = parsePyJson(argumentsText);
  } catch (error) {
    if (error instanceof PyJsonSyntaxError)
      throw new Tau1ResultsFormatError(where, `tool call arguments are not JSON: ${error.message}`);
    throw error;
  }
  return {
    id: str(first.get("id")) ?? "",
    name: str(fn.get("name")) ?? "",
    arguments: (args !== null && typeof args === "object" && !Array.isArray(args) ? args : {}) as Record<
      string,
      unknown
    >,
    requestor: "assistant",
  };
}

/** Upstream's agent context back as our trajectory (the system prompt dropped). */
export function trajectoryToMessages(
  traj: readonly PyDict[],
  style: "tool-calling" | "text",
  where: string,
): Message[] {
  const out: Message[] = [];
  let calls = 0;
  let lastCall: ToolCall | null = null;
  traj.forEach((message, index) => {
    const role = message.get("role");
    const content = message.get("content");
    const text = typeof content === "string" ? content : null;
    const at = `${where}.traj[${index}]`;
    if (role === "system") return;
    if (role === "assistant") {
      if (style === "text") {
        const reply = text ?? "";
        const action = parseTau1TextAction("react", reply);
        lastCall =
          action.name === RESPOND_ACTION_NAME
            ? null
            : {
                id: `text_call_${++calls}`,
                name: action.name,
                arguments: action.kwargs,
                requestor: "assistant",
              };
        const said = action.name === RESPOND_ACTION_NAME ? action.kwargs.content : null;
        out.push(
          assistantMessage({
            content: typeof said === "string" ? said : null,
            tool_calls: lastCall ? [lastCall] : null,
            raw_data: { text: reply },
          }),
        );
      } else {
        lastCall = toolCallOf(message.get("tool_calls"), at);
        out.push(assistantMessage({ content: text, tool_calls: lastCall ? [lastCall] : null }));
      }
      return;
    }
    if (
      role === "tool" ||
      (style === "text" && role === "user" && lastCall && out.at(-1)?.role === "assistant")
    ) {
      const observation =
        role === "tool" ? (text ?? "") : (text ?? "").replace(new RegExp(`^${API_OUTPUT_PREFIX}`), "");
      const tool: ToolMessage = {
        role: "tool",
        id: role === "tool" ? (str(message.get("tool_call_id")) ?? lastCall?.id ?? "") : (lastCall?.id ?? ""),
        content: observation,
        requestor: "assistant",
        error: observation.startsWith("Error"),
        turn_idx: null,
        timestamp: null,
      };
      out.push(tool);
      lastCall = null;
      return;
    }
    if (role === "user") {
      out.push(userMessage({ content: text ?? "" }));
      return;
    }
    throw new Tau1ResultsFormatError(`${at}.role`, `unexpected role ${pyDumps(role ?? null)}`);
  });
  return out.map((message, index) => ({ ...message, turn_idx: index }));
}

/** Our reward record of an upstream result (its `reward_info`; the database verdict where it can be told). */
function rewardInfoOf(entry: Tau1ResultEntry): RewardInfo | null {
  const reward = entry.info.get("reward_info");
  if (!(reward instanceof Map))
    return rewardInfo({ reward: entry.reward, info: { note: "not graded (step limit)" } });
  const detail = reward.get("info");
  const detailMap = detail instanceof Map ? detail : new Map<string, PyValue>();
  const value = toNumber(reward.get("reward") ?? entry.reward);
  if (detailMap.has("r_actions")) {
    const match = toNumber(detailMap.get("r_actions")) === 1;
    return rewardInfo({
      reward: value,
      db_check: { db_match: match, db_reward: match ? 1 : 0 },
      reward_basis: ["DB"],
      info: { gold_data_hash: str(detailMap.get("gt_data_hash")) },
    });
  }
  const outputs = detailMap.get("outputs");
  const checks =
    outputs instanceof Map
      ? [...outputs].map(([info, met]) => ({ info, met: met === true, justification: null }))
      : [];
  const allSaid = toNumber(detailMap.get("r_outputs")) === 1;
  // With outputs upstream records only their part: reward 0 with every output said means the database was wrong.
  const dbMatch = allSaid ? value === 1 : null;
  return rewardInfo({
    reward: value,
    db_check: dbMatch === null ? null : { db_match: dbMatch, db_reward: dbMatch ? 1 : 0 },
    communicate_checks: checks,
    reward_basis: ["DB", "COMMUNICATE"],
    info: {},
  });
}

function terminationOf(
  entry: Tau1ResultEntry,
  messages: readonly Message[],
): SimulationRun["termination_reason"] {
  if (entry.info.has("error")) return "infrastructure_error";
  if (!(entry.info.get("reward_info") instanceof Map)) return "max_steps";
  const lastAssistant = [...messages].reverse().find((message) => message.role === "assistant");
  if (lastAssistant?.role === "assistant" && lastAssistant.tool_calls?.[0]?.name === TERMINATE_TOOL)
    return "agent_stop";
  const last = messages.at(-1);
  return last?.role === "user" && (last.content ?? "").includes(TAU1_STOP_TOKEN) ? "user_stop" : "agent_stop";
}

/** Upstream's `Task` dump inside a result, as a record. */
function recordOfEntry(entry: Tau1ResultEntry): Tau1TaskRecord | null {
  const task = entry.info.get("task");
  if (!(task instanceof Map)) return null;
  const actions = task.get("actions");
  return {
    user_id: str(task.get("user_id")) ?? "",
    actions: Array.isArray(actions)
      ? actions.map((action) => {
          const map = action instanceof Map ? action : new Map<string, PyValue>();
          const kwargs = map.get("kwargs");
          return { name: str(map.get("name")) ?? "", kwargs: toPlainDict(kwargs) };
        })
      : [],
    instruction: str(task.get("instruction")) ?? "",
    outputs: (Array.isArray(task.get("outputs")) ? (task.get("outputs") as PyValue[]) : []).filter(
      (output): output is string => typeof output === "string",
    ),
  };
}

function toPlainDict(value: PyValue | undefined): Record<string, unknown> {
  if (!(value instanceof Map)) return {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of value) out[k] = toPlainValue(v);
  return out;
}

function toPlainValue(value: PyValue): unknown {
  if (value instanceof Map) return toPlainDict(value);
  if (Array.isArray(value)) return value.map(toPlainValue);
  return value;
}

/** One upstream result as our simulation. */
export function tau1EntryToSimulation(
  entry: Tau1ResultEntry,
  index: number,
  style: "tool-calling" | "text",
): SimulationRun {
  const messages = trajectoryToMessages(entry.traj, style, `[${index}]`);
  const termination = terminationOf(entry, messages);
  const userCost = entry.info.get("user_cost");
  const task = entry.info.get("task");
  return {
    id: `tau1-${entry.trial}-${entry.task_id}-${index}`,
    task_id: String(entry.task_id),
    timestamp: null,
    start_time: "",
    end_time: "",
    duration: 0,
    termination_reason: termination,
    agent_cost: null,
    user_cost: typeof userCost === "number" || userCost instanceof PyFloat ? toNumber(userCost) : null,
    reward_info: termination === "infrastructure_error" ? null : rewardInfoOf(entry),
    messages,
    trial: entry.trial,
    seed: null,
    mode: "half_duplex",
    info:
      termination === "infrastructure_error"
        ? { error: str(entry.info.get("error")), error_traceback: str(entry.info.get("traceback")) }
        : {
            tau1: {
              user_id: task instanceof Map ? (str(task.get("user_id")) ?? "") : "",
              source: str(entry.info.get("source")) ?? "user",
              user_cost:
                typeof userCost === "number" || userCost instanceof PyFloat ? toNumber(userCost) : null,
            },
          },
  };
}

/** A τ-bench results file read as a run (what `loadRun` gives for the other formats). */
export interface Tau1LoadedResults {
  info: Info;
  tasks: Task[];
  simulations: SimulationRun[];
  entries: Tau1ResultEntry[];
  style: "tool-calling" | "text";
}

/** `run.py`'s log file name: `{agent}-{model}-{temperature}_range_{start}-{end}_user-{user model}-{user strategy}_{time}.json`. */
function namedSettings(
  path: string,
): { agent: string; model: string; userModel: string; userStrategy: string } | null {
  const match =
    /^(tool-calling|few-shot|react|act)-(.+)-([\d.]+)_range_-?\d+--?\d+_user-(.+)-(llm|react|verify|reflection|human)_\d+\.json$/.exec(
      basename(path),
    );
  if (!match) return null;
  return { agent: match[1]!, model: match[2]!, userModel: match[4]!, userStrategy: match[5]! };
}

/** Reads upstream's results file for `domainName`; tasks come from the results, else from the domain's test split. */
export function readTau1ResultsFile(
  path: string,
  domainName: string,
  domain: Tau1Domain | null,
): Tau1LoadedResults {
  let entries: Tau1ResultEntry[];
  try {
    entries = parseTau1Results(readPyJson(path, { maps: true }));
  } catch (error) {
    if (error instanceof Tau1ResultsFormatError)
      throw new FileFormatError(path, error.message, { cause: error });
    throw error;
  }
  const style = trajectoryStyle(entries);
  let simulations: SimulationRun[];
  try {
    simulations = entries.map((entry, index) => tau1EntryToSimulation(entry, index, style));
  } catch (error) {
    if (error instanceof Tau1ResultsFormatError)
      throw new FileFormatError(path, error.message, { cause: error });
    throw error;
  }
  const tasks = new Map<string, Task>();
  for (const entry of entries) {
    const id = String(entry.task_id);
    if (tasks.has(id)) continue;
    const record = recordOfEntry(entry);
    const fromDomain = domain?.tau1.tasksOf("test")[entry.task_id];
    if (record) tasks.set(id, recordToTask(record, entry.task_id));
    else if (fromDomain) tasks.set(id, fromDomain);
  }
  const settings = namedSettings(path);
  const trials = new Set(entries.map((entry) => entry.trial)).size;
  const system = entries.find((entry) => entry.traj.length > 0)?.traj[0];
  const info = Info.parse({
    git_commit: "unknown",
    num_trials: Math.max(1, trials),
    max_steps: 30,
    max_errors: 0,
    user_info: {
      implementation: settings?.userStrategy ?? "llm",
      llm: settings?.userModel ?? null,
    },
    agent_info: {
      implementation: settings?.agent ?? (style === "text" ? "react" : "tool-calling"),
      llm: settings?.model ?? null,
    },
    environment_info: {
      domain_name: domainName,
      policy: domain?.tau1.wiki() ?? str(system?.get("content")) ?? "",
    },
    taubench: taubenchStamp({ tau1: { results_format: "tau-bench", source: path } }),
  });
  return { info, tasks: [...tasks.values()], simulations, entries, style };
}

/** A result written back with a new grading (`evaluate-trajs`): reward and `info.reward_info` replaced. */
export function regradedTau1Entry(entry: Tau1ResultEntry, task: Task, simulation: SimulationRun): PyDict {
  if (entry.info.has("error")) return entry.raw;
  const tau1 = (simulation.info?.tau1 ?? {}) as { user_id?: string };
  const record = taskToRecord(task, tau1.user_id ?? "");
  const info = new Map(entry.info);
  info.set("reward_info", tau1RewardResultFromInfo(simulation.reward_info, record));
  const out = new Map(entry.raw);
  out.set("reward", new PyFloat(simulation.reward_info?.reward ?? 0));
  out.set("info", info);
  return out;
}

/** Whether a file holds a JSON list (τ-bench's results format) rather than an object (τ²-bench's). */
export function isTau1ResultsFile(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const head = Buffer.alloc(256);
    const read = readSync(fd, head, 0, head.length, 0);
    return head.subarray(0, read).toString("utf8").trimStart().startsWith("[");
  } finally {
    closeSync(fd);
  }
}

/** The τ-bench numbers of a run, for the reports (every result counts; errors and unfinished ones as reward 0). */
export function tau1MetricsLines(simulations: readonly SimulationRun[]): string[] {
  const metrics = tau1Metrics(
    simulations.map((simulation) => ({
      taskId: simulation.task_id,
      trial: simulation.trial ?? 0,
      reward: simulation.reward_info?.reward ?? 0,
    })),
  );
  if (metrics.numTasks === 0) return [];
  const lines = [
    "",
    `τ-bench's own numbers (its formula: every result counts, errors as 0; n = ${metrics.numTrials} trial${metrics.numTrials === 1 ? "" : "s"}, ${metrics.numTasks} tasks)`,
    `  Average reward: ${metrics.averageReward === null ? "-" : metrics.averageReward.toFixed(4)}`,
    `  Pass^k: ${metrics.passHatK.map((value, i) => `k=${i + 1} ${value.toFixed(3)}`).join("  ")}`,
  ];
  return lines;
}
