/**
 * One episode end to end (upstream `run_simulation`): a fresh environment,
 * the orchestrated conversation, then grading on fresh environments. Upstream's
 * exception cases (P6) propagate so the runner can retry the whole episode.
 */
import type { SimulationRun } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import type { Domain } from "../domains/types.ts";
import { evaluateSimulation } from "../evaluation/evaluator.ts";
import type { NlAssertionJudge } from "../evaluation/nl-assertions.ts";
import type { Agent } from "../agents/types.ts";
import type { User } from "../users/types.ts";
import { Orchestrator } from "./orchestrator.ts";

/** Everything one episode needs. */
export interface EpisodeOptions {
  domain: Domain;
  task: Task;
  agent: Agent;
  user: User;
  soloMode: boolean;
  maxSteps: number;
  maxErrors: number;
  /** The trial seed given to agent and user (null: none). */
  seed: number | null;
  /** 0-based trial index recorded on the simulation. */
  trial: number;
  timeoutMs?: number | null;
  /** NL-assertion judge; null leaves NL_ASSERTION un-evaluated when a task needs it. */
  judge: NlAssertionJudge | null;
  enforceCommunicationProtocol?: boolean;
  /** The simulation's id (default: a random uuid); the runner gives the agent the same one. */
  simulationId?: string;
  signal?: AbortSignal;
}

/** Runs and grades one episode; the returned simulation has `reward_info`, `policy`, `trial` and (from the orchestrator) `seed` set. */
export async function runEpisode(options: EpisodeOptions): Promise<SimulationRun> {
  const { domain, task, soloMode } = options;
  const environment = domain.makeEnvironment({ soloMode, task });
  const orchestrator = new Orchestrator({
    environment,
    task,
    agent: options.agent,
    user: options.user,
    soloMode,
    maxSteps: options.maxSteps,
    maxErrors: options.maxErrors,
    seed: options.seed,
    timeoutMs: options.timeoutMs ?? null,
    enforceCommunicationProtocol: options.enforceCommunicationProtocol ?? false,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.simulationId ? { simulationId: options.simulationId } : {}),
  });
  const simulation = await orchestrator.run();
  simulation.policy = environment.policy;
  simulation.reward_info = await evaluateSimulation({
    simulation,
    task,
    domain,
    soloMode,
    judge: options.judge,
    strictReplay: true,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  simulation.trial = options.trial;
  return simulation;
}
