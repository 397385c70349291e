/**
 * The seam every execution path shares: given a resolved {@link RunPlan} and
 * its model clients, run one work unit `(trial, task, seed)` to a graded
 * {@link SimulationRun}. It writes nothing; `executeRun` records what it
 * returns in the checkpoint, a queue worker sends it back to its coordinator,
 * and a library caller may keep it. Exceptions propagate (upstream's retry
 * cases), so the caller decides about retries.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import type { SimulationRun } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import { TAU2_TEXT } from "../domains/texts/tau2.ts";
import { isTau1Domain } from "../domains/tau1/index.ts";
import type { Environment } from "../env/environment.ts";
import type { ToolSchema } from "../env/toolkit.ts";
import type { LlmEventListener } from "../llm/events.ts";
import type { HumanIo } from "../users/tau1-users.ts";
import { runEpisode } from "../orchestrator/episode.ts";
import type { WorkUnit } from "./batch.ts";
import { checkedAgent, checkedUser } from "./checked-participants.ts";
import { type RunPlan, userToolsFor } from "./plan.ts";
import type { SimulationClients } from "./run-clients.ts";
import { createTau1UnitRunner, tau1AgentStrategy, tau1UserStrategy } from "./tau1-run.ts";

/** What {@link SimulationRunner.run} needs of a unit (a {@link WorkUnit} fits). */
export type UnitSpec = Pick<WorkUnit, "trial" | "task" | "seed">;

/** What some runs need besides the plan and the clients (none of it serializable). */
export interface SimulationRunnerOptions {
  /** The terminal of the original τ-bench `human` user strategy. */
  humanUser?: HumanIo | undefined;
}

/** Runs the units of one plan; cheap to call concurrently (each call has its own episode). */
export class SimulationRunner {
  private readonly template: Environment | null = null;
  private readonly agentTools: ToolSchema[] = [];
  /** The user's tool schemas per task, built once: every trial of a task offers the same ones. */
  private readonly userToolsByTask = new WeakMap<Task, ToolSchema[]>();
  private readonly guidelinesDir: string;
  /** Upstream's greeting when the data folder has its texts (else the episode's own). */
  private readonly greeting: string | undefined;
  /** The original τ-bench domains run their own episode loop and participants. */
  private readonly tau1: ((unit: UnitSpec, signal: AbortSignal) => Promise<SimulationRun>) | null = null;

  /** `onLlmEvent` is the run's accounting, for participants that build model clients of their own. */
  constructor(
    readonly plan: RunPlan,
    private readonly clients: SimulationClients,
    private readonly onLlmEvent?: LlmEventListener,
    options: SimulationRunnerOptions = {},
  ) {
    this.guidelinesDir = join(plan.config.dataDir, "user_simulator");
    this.greeting = plan.prompts.texts?.text(TAU2_TEXT.greeting);
    const { domain, config } = plan;
    if (isTau1Domain(domain)) {
      this.tau1 = createTau1UnitRunner({
        domain,
        agent: tau1AgentStrategy(plan.agent.name),
        user: tau1UserStrategy(plan.user.name),
        agentLlm: clients.agentLlm,
        userLlm: clients.userLlm,
        agentLlmArgs: config.agentLlmArgs,
        userLlmArgs: config.userLlmArgs,
        maxSteps: config.maxSteps,
        timeoutMs: config.timeoutMs,
        seed: config.seed,
        tasks: plan.tasks,
        trials: config.numTrials,
        fewShotPath: config.fewShotDisplaysPath ?? null,
        ...(options.humanUser ? { human: options.humanUser } : {}),
      });
      return;
    }
    // One environment for the schemas; every episode forks its own from the domain.
    this.template = domain.makeEnvironment({ soloMode: plan.soloMode });
    this.agentTools = plan.soloMode
      ? [...this.template.getToolSchemas(), ...this.template.getUserToolSchemas()]
      : this.template.getToolSchemas();
  }

  /** Builds the participants for `unit`, runs the episode and grades it. */
  async run(unit: UnitSpec, signal: AbortSignal): Promise<SimulationRun> {
    if (this.tau1) return this.tau1(unit, signal);
    const { plan, clients } = this;
    if (!this.template) throw new Error("SimulationRunner: no environment template");
    const { config, domain } = plan;
    let userTools = this.userToolsByTask.get(unit.task);
    if (userTools === undefined) {
      userTools = userToolsFor(domain, this.template, unit.task);
      this.userToolsByTask.set(unit.task, userTools);
    }
    // Every attempt is a simulation of its own, with an id of its own.
    const simulationId = randomUUID();
    const episode = { signal, simulationId, trial: unit.trial, seed: unit.seed };
    const builtAgent = plan.agent.create({
      ...episode,
      options: plan.agentParticipant.options as Record<string, unknown>,
      domainName: domain.name,
      task: unit.task,
      tools: this.agentTools,
      // Per task: golden_retrieval shows each task its own documents; --no-policy shows none.
      policy: config.noPolicy ? "" : domain.policy({ soloMode: plan.soloMode, task: unit.task }),
      soloMode: plan.soloMode,
      llm: clients.agentLlm,
      llmArgs: { ...config.agentLlmArgs },
      texts: plan.prompts.texts,
      ...(this.onLlmEvent ? { onLlmEvent: this.onLlmEvent } : {}),
    });
    const builtUser = plan.user.create({
      ...episode,
      options: plan.userParticipant.options as Record<string, unknown>,
      domainName: domain.name,
      task: unit.task,
      tools: userTools.length > 0 ? userTools : null,
      guidelinesDir: this.guidelinesDir,
      llm: clients.userLlm,
      llmArgs: { ...config.userLlmArgs },
      texts: plan.prompts.texts,
    });
    // Built-in participants are trusted; the others' messages are checked at the boundary.
    const agent =
      plan.agentParticipant.source.kind === "registry"
        ? builtAgent
        : checkedAgent(builtAgent, plan.agent.name);
    const user =
      plan.userParticipant.source.kind === "registry" ? builtUser : checkedUser(builtUser, plan.user.name);
    return runEpisode({
      domain,
      task: unit.task,
      agent,
      user,
      soloMode: plan.soloMode,
      maxSteps: config.maxSteps,
      maxErrors: config.maxErrors,
      seed: unit.seed,
      trial: unit.trial,
      timeoutMs: config.timeoutMs,
      judge: clients.judge,
      enforceCommunicationProtocol: config.enforceCommunicationProtocol,
      ...(this.greeting !== undefined ? { greeting: this.greeting } : {}),
      signal,
      simulationId,
    });
  }
}
