/**
 * Re-grading saved simulations with our evaluator (upstream
 * `evaluate_trajectories`): lenient replay (strict_replay off), the embedded
 * task definitions unless fresh ones are asked for, solo mode detected as
 * upstream does.
 */
import { UsageError } from "../core/errors.ts";
import type { Info } from "../core/results.ts";
import type { RewardInfo, SimulationRun } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import type { Domain } from "../domains/types.ts";
import { evaluateSimulation } from "../evaluation/evaluator.ts";
import type { NlAssertionJudge } from "../evaluation/nl-assertions.ts";

/** Upstream's solo detection for saved runs: the solo agent with the dummy user (or our recorded flag). */
export function isSoloRun(
  info: Pick<Info, "agent_info" | "user_info"> & { taubench?: Record<string, unknown> | undefined },
): boolean {
  const recorded = info.taubench?.solo_mode;
  if (typeof recorded === "boolean") return recorded;
  return info.agent_info.implementation.endsWith("_solo") && info.user_info.implementation === "dummy_user";
}

/** One simulation whose reward moved. */
export interface RewardChange {
  taskId: string;
  trial: number;
  before: number | null;
  after: number | null;
}

/** The outcome of a re-grade. */
export interface RegradeOutcome {
  simulations: SimulationRun[];
  changes: RewardChange[];
  /** Infrastructure errors, left as they were. */
  skipped: number;
}

/** Re-grades every simulation; `tasks` supplies the definitions used (embedded or fresh). */
export async function regradeSimulations(options: {
  simulations: readonly SimulationRun[];
  tasks: ReadonlyMap<string, Task>;
  domain: Domain;
  soloMode: boolean;
  judge: NlAssertionJudge | null;
  signal?: AbortSignal;
}): Promise<RegradeOutcome> {
  const out: SimulationRun[] = [];
  const changes: RewardChange[] = [];
  let skipped = 0;
  for (const simulation of options.simulations) {
    if (simulation.termination_reason === "infrastructure_error") {
      skipped++;
      out.push(simulation);
      continue;
    }
    const task = options.tasks.get(simulation.task_id);
    if (!task)
      throw new UsageError(`Task '${simulation.task_id}' of a saved simulation is not among the tasks`);
    const rewardInfo: RewardInfo = await evaluateSimulation({
      simulation,
      task,
      domain: options.domain,
      soloMode: options.soloMode,
      judge: options.judge,
      strictReplay: false,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const before = simulation.reward_info?.reward ?? null;
    const after = rewardInfo.reward;
    if (before === null || Math.abs(before - after) > 1e-9)
      changes.push({ taskId: simulation.task_id, trial: simulation.trial ?? 0, before, after });
    out.push({ ...simulation, reward_info: rewardInfo });
  }
  return { simulations: out, changes, skipped };
}

/** Does any of these tasks need the NL judge? */
export function tasksNeedJudge(tasks: Iterable<Task>): boolean {
  for (const task of tasks) {
    const criteria = task.evaluation_criteria;
    if (criteria?.reward_basis.includes("NL_ASSERTION") && (criteria.nl_assertions?.length ?? 0) > 0)
      return true;
  }
  return false;
}
