/**
 * The worker's side of a run: from a coordinator's {@link RunDescriptor} to a
 * {@link SimulationRunner} over the worker's own data and model clients.
 * A worker whose taubench version or plan digest differs from the
 * coordinator's is refused before it runs anything.
 */
import { agentApiKeyFrom, urlAgentDefinition } from "../agents/url-agent.ts";
import { TauError } from "../core/errors.ts";
import { packageVersion } from "../core/results-file.ts";
import type { SimulationRun } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import type { LlmEventListener } from "../llm/events.ts";
import { slimSimulation } from "../runner/checkpoint-state.ts";
import { ProviderScheduler } from "../runner/concurrency.ts";
import { defaultRetrievalServices, type LlmSettings, llmFactory } from "../runner/evaluate.ts";
import { planRun, type RunPlan } from "../runner/plan.ts";
import { createRunClients } from "../runner/run-clients.ts";
import { SimulationRunner } from "../runner/simulation-runner.ts";
import {
  decodeConfig,
  encodeError,
  encodeSimulation,
  type LocalOutcome,
  planDigest,
  type RunDescriptor,
  simulationLine,
  toCloneable,
  type UnitRef,
  type WireOutcome,
} from "./protocol.ts";

/** A worker that must not serve a run (another taubench version, other data); the message is one line. */
export class WorkerRefusedError extends TauError {
  constructor(message: string) {
    super(message, { exitCode: 2 });
  }
}

/** Settings of a {@link UnitHost} besides the descriptor. */
export interface HostOptions {
  /** This machine's data folder (default the coordinator's path, which suits local workers). */
  dataDir?: string | undefined;
  /** Hears every provider event of the host's clients. */
  onLlmEvent: LlmEventListener;
  /** The per-provider limits of the run's calls (default: this process's own; a queue worker's are the fleet's). */
  scheduler?: (maxConcurrency: number, keyOf: (model: string) => string) => ProviderScheduler;
}

/** Runs attempts of one run's units in this process. */
export class UnitHost {
  private constructor(
    readonly runId: string,
    private readonly runner: SimulationRunner,
    private readonly tasks: ReadonlyMap<string, Task>,
    private readonly scheduler: ProviderScheduler,
  ) {}

  /** Plans the descriptor's run here; throws {@link WorkerRefusedError} when this worker does not match. */
  static async open(descriptor: RunDescriptor, options: HostOptions): Promise<UnitHost> {
    const mine = packageVersion();
    if (descriptor.version !== mine)
      throw new WorkerRefusedError(
        `worker refused run ${descriptor.runId}: taubench ${mine} here, ${descriptor.version} on the coordinator (install the same version on every machine)`,
      );
    const config = decodeConfig(descriptor.config);
    if (options.dataDir !== undefined) config.dataDir = options.dataDir;
    if (descriptor.agent) config.agent = urlAgentDefinition(descriptor.agent, agentApiKeyFrom(process.env));
    const plan = await planRun(config, {
      retrievalServices: (onEvent) => defaultRetrievalServices(descriptor.llm, onEvent),
    });
    if (descriptor.digest !== null && planDigest(plan) !== descriptor.digest)
      throw new WorkerRefusedError(
        `worker refused run ${descriptor.runId}: the data in ${config.dataDir} differs from the coordinator's (tasks, policy or database hash); give every machine the same data folder`,
      );
    return UnitHost.forPlan(descriptor.runId, plan, descriptor.llm, options);
  }

  /** A host over a plan made in this process (the coordinator running units itself, see `localWorkers`). */
  static forPlan(runId: string, plan: RunPlan, llm: LlmSettings, options: HostOptions): UnitHost {
    plan.serviceEvents.listener = options.onLlmEvent;
    const factory = llmFactory(llm);
    const scheduler =
      options.scheduler?.(plan.config.maxConcurrency, factory.providerKey) ??
      new ProviderScheduler({ maxConcurrency: plan.config.maxConcurrency }, factory.providerKey);
    const clients = createRunClients(plan, factory, options.onLlmEvent, true, scheduler);
    const runner = new SimulationRunner(plan, clients, options.onLlmEvent);
    return new UnitHost(runId, runner, new Map(plan.tasks.map((task) => [task.id, task])), scheduler);
  }

  /** One attempt of a unit; never throws (an error is an outcome). */
  async run(ref: UnitRef, signal: AbortSignal): Promise<WireOutcome> {
    try {
      return encodeSimulation(await this.simulate(ref, signal));
    } catch (error) {
      return encodeError(error);
    }
  }

  /** {@link run} for a local worker process: the checkpoint line with the slim copy the coordinator keeps. */
  async runLocal(ref: UnitRef, signal: AbortSignal): Promise<LocalOutcome> {
    try {
      const simulation = await this.simulate(ref, signal);
      return {
        kind: "simulation",
        line: simulationLine(simulation),
        slim: toCloneable(slimSimulation(simulation)),
      };
    } catch (error) {
      return encodeError(error);
    }
  }

  /** One attempt of a unit as a simulation; throws what the attempt threw. */
  async simulate(ref: UnitRef, signal: AbortSignal): Promise<SimulationRun> {
    const task = this.tasks.get(ref.taskId);
    if (!task) throw new Error(`task ${ref.taskId} is not among this worker's tasks of the run`);
    const simulation = await this.runner.run({ trial: ref.trial, task, seed: ref.seed }, signal);
    return { ...simulation, trial: ref.trial, seed: ref.seed };
  }

  /** Another worker of the run saw a 429 from `model`: slow this one's queue for it too. */
  rateLimited(model: string): void {
    this.scheduler.rateLimited(model);
  }
}
