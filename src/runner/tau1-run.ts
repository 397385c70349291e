/**
 * `tau run` on the original τ-bench domains: the agent strategy (`--agent
 * tool-calling|act|react|few-shot`) and user strategy (`--user llm|react|
 * verify|reflection|human`) as registry-like definitions for the runner, the
 * prompt texts, the few-shot draws, and the per-unit episode. The runner's
 * queue, retries, checkpoint, resume and cost accounting are the same as for
 * every domain; only the episode differs (orchestrator/tau1-episode.ts).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { UsageError } from "../core/errors.ts";
import type { SimulationRun } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import type { Tau1Domain } from "../domains/tau1/index.ts";
import { tau1Text } from "../domains/tau1/texts.ts";
import type { ToolSchema } from "../env/toolkit.ts";
import type { LlmClient } from "../llm/types.ts";
import type { AgentDefinition } from "../agents/registry.ts";
import {
  createTau1Agent,
  FEW_SHOT_COUNT,
  TAU1_AGENT_STRATEGIES,
  type Tau1AgentStrategy,
  tau1InstructionFallback,
  textActionSystemPrompt,
} from "../agents/tau1-agents.ts";
import type { UserDefinition } from "../users/registry.ts";
import {
  createTau1User,
  type HumanIo,
  LLM_USER_SYSTEM_FALLBACK,
  REACT_USER_SYSTEM_FALLBACK,
  REFLECTION_PROMPT_FALLBACK,
  TAU1_USER_STRATEGIES,
  type Tau1UserStrategy,
  type Tau1UserTexts,
  VERIFY_PROMPT_FALLBACK,
} from "../users/tau1-users.ts";
import { runTau1Episode } from "../orchestrator/tau1-episode.ts";
import type { WorkUnit } from "./batch.ts";
import { simulationKey } from "./checkpoint.ts";
import { MersenneTwister } from "./seeds.ts";

/** Upstream's defaults for these domains (`run.py`, `RunConfig`). */
export const TAU1_DEFAULTS = {
  agent: "tool-calling",
  user: "llm",
  userLlm: "openai/gpt-4o",
  maxSteps: 30,
  seed: 10,
} as const;

/** The agent strategy a name stands for; other names are a UsageError listing the strategies. */
export function tau1AgentStrategy(name: string): Tau1AgentStrategy {
  if ((TAU1_AGENT_STRATEGIES as readonly string[]).includes(name)) return name as Tau1AgentStrategy;
  throw new UsageError(
    `Unknown agent '${name}' for the original τ-bench domains. Known agent strategies: ${TAU1_AGENT_STRATEGIES.join(", ")}`,
  );
}

/** The user strategy a name stands for; other names are a UsageError listing the strategies. */
export function tau1UserStrategy(name: string): Tau1UserStrategy {
  if ((TAU1_USER_STRATEGIES as readonly string[]).includes(name)) return name as Tau1UserStrategy;
  throw new UsageError(
    `Unknown user strategy '${name}' for the original τ-bench domains. Known user strategies: ${TAU1_USER_STRATEGIES.join(", ")}`,
  );
}

const notThroughRegistry = (name: string) => () => {
  throw new UsageError(`'${name}' runs only on the original τ-bench domains (tau1-retail, tau1-airline)`);
};

/** The plan's participants: names and whether they need a model (the episode builds them itself). */
export function tau1Definitions(
  agentName: string,
  userName: string,
): { agent: AgentDefinition; user: UserDefinition } {
  const agent = tau1AgentStrategy(agentName);
  const user = tau1UserStrategy(userName);
  return {
    agent: {
      name: agent,
      description: `original τ-bench ${agent} agent`,
      soloMode: false,
      needsLlm: true,
      create: notThroughRegistry(agent),
    },
    user: {
      name: user,
      description: `original τ-bench ${user} user`,
      needsLlm: user !== "human",
      create: notThroughRegistry(user),
    },
  };
}

/** The prompt texts of a run: upstream's from the data folder when there, else ours. */
export function tau1Texts(domain: Tau1Domain, agent: Tau1AgentStrategy) {
  const dir = domain.tau1.dataDir;
  const user: Tau1UserTexts = {
    llmSystem: tau1Text(dir, "user_llm_system", LLM_USER_SYSTEM_FALLBACK),
    reactSystem: tau1Text(dir, "user_react_system", REACT_USER_SYSTEM_FALLBACK),
    verify: tau1Text(dir, "user_verify_prompt", VERIFY_PROMPT_FALLBACK),
    reflection: tau1Text(dir, "user_reflection_prompt", REFLECTION_PROMPT_FALLBACK),
  };
  const instruction =
    agent === "act"
      ? tau1Text(dir, "act_instruction", tau1InstructionFallback("act"))
      : tau1Text(dir, "react_instruction", tau1InstructionFallback("react"));
  return { user, instruction };
}

/** The few-shot displays (`{"messages_display": …}` per line); fewer than five is an error, as upstream. */
export function readFewShotDisplays(path: string): { displays: string[]; sha256: string } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`Cannot read the few-shot displays at ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const displays = text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line, index) => {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new UsageError(`${path}: line ${index + 1} is not JSON`);
      }
      const display = (value as { messages_display?: unknown })?.messages_display;
      if (typeof display !== "string")
        throw new UsageError(`${path}: line ${index + 1} has no "messages_display" string`);
      return display;
    });
  if (displays.length < FEW_SHOT_COUNT)
    throw new UsageError(
      `${path}: ${displays.length} few-shot displays, fewer than the ${FEW_SHOT_COUNT} each episode draws`,
    );
  return { displays, sha256: createHash("sha256").update(text).digest("hex") };
}

/**
 * CPython's `random.sample(range(n), k)` on a generator: the set method for
 * large populations, the pool method for small ones, as `random.py` chooses.
 */
export function pythonSample(generator: MersenneTwister, n: number, k: number): number[] {
  if (k > n) throw new RangeError("Sample larger than population or is negative");
  let setSize = 21;
  if (k > 5) setSize += 4 ** Math.ceil(Math.log(k * 3) / Math.log(4));
  const result: number[] = [];
  if (n <= setSize) {
    const pool = Array.from({ length: n }, (_, i) => i);
    for (let i = 0; i < k; i++) {
      const j = generator.randBelow(n - i);
      result.push(pool[j]!);
      pool[j] = pool[n - i - 1]!;
    }
    return result;
  }
  const selected = new Set<number>();
  for (let i = 0; i < k; i++) {
    let j = generator.randBelow(n);
    while (selected.has(j)) j = generator.randBelow(n);
    selected.add(j);
    result.push(j);
  }
  return result;
}

/**
 * The few-shot draw of every unit: upstream seeds Python's `random` once per
 * run and each episode samples five displays in the order the episodes run,
 * trial by trial, tasks in order — so with its default concurrency of 1 these
 * are exactly upstream's draws, whatever order our runner finishes them in.
 */
export function fewShotDraws(
  seed: number,
  tasks: readonly Task[],
  trials: number,
  displays: number,
): Map<string, number[]> {
  const generator = new MersenneTwister(seed);
  const draws = new Map<string, number[]>();
  for (let trial = 0; trial < trials; trial++)
    for (const task of tasks)
      draws.set(`${trial}\u0000${task.id}`, pythonSample(generator, displays, FEW_SHOT_COUNT));
  return draws;
}

/** What the runner records about a τ-bench run in `info.taubench.tau1`. */
export function tau1Stamp(
  domain: Tau1Domain,
  agent: Tau1AgentStrategy,
  user: Tau1UserStrategy,
  fewShotPath: string | null,
): Record<string, unknown> {
  const texts = tau1Texts(domain, agent);
  const used: Record<string, string> = { tools_info: domain.tau1.toolsInfoSource() };
  if (agent === "react" || agent === "act") used[`${agent}_instruction`] = texts.instruction.source;
  if (user === "llm" || user === "verify" || user === "reflection")
    used.user_llm_system = texts.user.llmSystem.source;
  if (user === "react") used.user_react_system = texts.user.reactSystem.source;
  if (user === "verify" || user === "reflection") used.user_verify_prompt = texts.user.verify.source;
  if (user === "reflection") used.user_reflection_prompt = texts.user.reflection.source;
  const stamp: Record<string, unknown> = {
    agent_strategy: agent,
    user_strategy: user,
    prompts: Object.values(used).every((source) => source === "upstream") ? "upstream" : "paraphrased",
    texts: used,
    // The ReAct/Act prompt is the same for every episode; results files keep it once, here.
    agent_system_prompt:
      agent === "react" || agent === "act"
        ? textActionSystemPrompt(
            domain.tau1.wiki(),
            domain.tau1.toolsInfo() as unknown as ToolSchema[],
            texts.instruction.text,
          )
        : null,
  };
  if (agent === "few-shot" && fewShotPath !== null) {
    stamp.few_shot_displays = { path: fewShotPath, sha256: readFewShotDisplays(fewShotPath).sha256 };
  }
  return stamp;
}

/** Options of {@link createTau1UnitRunner}. */
export interface Tau1UnitRunnerOptions {
  domain: Tau1Domain;
  agent: Tau1AgentStrategy;
  user: Tau1UserStrategy;
  agentLlm: LlmClient | null;
  userLlm: LlmClient | null;
  agentLlmArgs: Record<string, unknown>;
  userLlmArgs: Record<string, unknown>;
  maxSteps: number;
  timeoutMs: number | null;
  /** The run's seed (few-shot draws) and its tasks and trial count in upstream's order. */
  seed: number;
  tasks: readonly Task[];
  trials: number;
  fewShotPath: string | null;
  human?: HumanIo;
}

/** Builds the runner's `runSimulation` for a τ-bench run. */
export function createTau1UnitRunner(
  options: Tau1UnitRunnerOptions,
): (unit: Pick<WorkUnit, "trial" | "task" | "seed">, signal: AbortSignal) => Promise<SimulationRun> {
  const { domain } = options;
  const texts = tau1Texts(domain, options.agent);
  const toolsInfo = domain.tau1.toolsInfo() as unknown as ToolSchema[];
  const wiki = domain.tau1.wiki();
  const fewShot =
    options.agent === "few-shot"
      ? readFewShotDisplays(options.fewShotPath ?? domain.tau1.fewShotPath())
      : null;
  const draws = fewShot
    ? fewShotDraws(options.seed, options.tasks, options.trials, fewShot.displays.length)
    : null;
  return async (unit, signal) => {
    if (!options.agentLlm) throw new UsageError(`Agent '${options.agent}' needs a model: pass --agent-llm`);
    const indices = draws?.get(`${unit.trial}\u0000${unit.task.id}`) ?? null;
    if (fewShot && !indices)
      throw new Error(`no few-shot draw for unit ${simulationKey(unit.trial, unit.task.id, unit.seed)}`);
    const agent = createTau1Agent({
      strategy: options.agent,
      llm: options.agentLlm,
      llmArgs: { ...options.agentLlmArgs },
      wiki,
      toolsInfo,
      instruction: texts.instruction,
      ...(fewShot && indices ? { fewShot: { displays: fewShot.displays, indices } } : {}),
    });
    const user = createTau1User(options.user, {
      llm: options.userLlm,
      llmArgs: { ...options.userLlmArgs },
      texts: texts.user,
      ...(options.human ? { human: options.human } : {}),
    });
    return runTau1Episode({
      domain,
      task: unit.task,
      agent,
      user,
      maxSteps: options.maxSteps,
      seed: unit.seed,
      trial: unit.trial,
      timeoutMs: options.timeoutMs,
      ...(indices ? { extraInfo: { few_shot: indices } } : {}),
      signal,
    });
  };
}
