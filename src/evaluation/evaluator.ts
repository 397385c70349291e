/**
 * Grading of one simulation (upstream `evaluate_simulation` with
 * `EvaluationType.ALL`, spec §5.1): every component runs for diagnostics, the
 * reward is the product of the components named in the task's `reward_basis`.
 */
import { TauError } from "../core/errors.ts";
import type { RewardInfo, SimulationRun } from "../core/simulation.ts";
import type { RewardType, Task } from "../core/task.ts";
import { isTau1Domain } from "../domains/tau1/index.ts";
import type { Domain } from "../domains/types.ts";
import type { Environment, ReplayMismatchError } from "../env/environment.ts";
import type { ToolKind } from "../env/toolkit.ts";
import { evaluateActions } from "./action-evaluator.ts";
import { evaluateCommunicate } from "./communicate-evaluator.ts";
import { evaluateEnvironment } from "./env-evaluator.ts";
import { evaluateNlAssertions, type NlAssertionJudge } from "./nl-assertions.ts";
import { rewardInfo } from "./reward-parts.ts";
import { evaluateTau1Simulation } from "./tau1.ts";

/** Termination reasons after which the conversation is graded; anything else scores 0 (P4). */
const GRADED_TERMINATIONS = new Set(["agent_stop", "user_stop"]);

/** Options of {@link evaluateSimulation}. */
export interface EvaluateSimulationOptions {
  simulation: SimulationRun;
  task: Task;
  domain: Domain;
  soloMode: boolean;
  /** Grades NL assertions; null leaves NL_ASSERTION un-evaluated (recorded in `info.not_evaluated`). */
  judge: NlAssertionJudge | null;
  /** Replay write tools strictly (live grading; default) or leniently (re-grading old files). */
  strictReplay?: boolean;
  onReplayMismatch?: (error: ReplayMismatchError) => void;
  signal?: AbortSignal;
}

/** Raised when asked to grade a simulation that never ran to an end (infrastructure errors are not scored). */
export class NotGradableError extends TauError {}

/** Maps tool names to their kind, user tools overriding agent tools as upstream's dict update does. */
export function toolKinds(domain: Domain, soloMode: boolean): Map<string, ToolKind> | null {
  let env: Environment;
  try {
    env = domain.makeEnvironment({ soloMode });
  } catch {
    // Upstream ignores failures here and grades without tool types.
    return null;
  }
  const kinds = new Map<string, ToolKind>();
  for (const tool of env.tools.offeredTools()) kinds.set(tool.name, tool.kind);
  for (const tool of env.userTools?.offeredTools() ?? []) kinds.set(tool.name, tool.kind);
  return kinds;
}

/** Grades a finished simulation. Never touches a live environment: it builds fresh ones. */
export async function evaluateSimulation(options: EvaluateSimulationOptions): Promise<RewardInfo> {
  const { simulation, task, domain, soloMode, judge } = options;
  if (simulation.termination_reason === "infrastructure_error") {
    throw new NotGradableError(
      `Simulation ${simulation.id} of task ${task.id} ended with an infrastructure error and is not graded`,
    );
  }
  // The original τ-bench grades differently (final-state hash × expected outputs): evaluation/tau1.ts.
  if (isTau1Domain(domain)) return evaluateTau1Simulation(domain, task, simulation);
  if (!GRADED_TERMINATIONS.has(simulation.termination_reason)) {
    return rewardInfo({
      reward: 0,
      info: {
        note: `Simulation terminated prematurely. Termination reason: ${simulation.termination_reason}`,
      },
    });
  }
  const criteria = task.evaluation_criteria;
  if (criteria === null) return rewardInfo({ reward: 1, info: { note: "No evaluation criteria" } });

  const trajectory = simulation.messages;
  const env = evaluateEnvironment({
    domain,
    task,
    trajectory,
    soloMode,
    strictReplay: options.strictReplay ?? true,
    ...(options.onReplayMismatch ? { onReplayMismatch: options.onReplayMismatch } : {}),
  });
  const action = evaluateActions(task, trajectory, toolKinds(domain, soloMode));
  const communicate = evaluateCommunicate(task, trajectory);
  const basis = new Set<RewardType>(criteria.reward_basis);
  const needsNl = basis.has("NL_ASSERTION");
  // Without a judge, NL assertions that would need one come back null and are reported as not evaluated.
  const nl = needsNl ? await evaluateNlAssertions(task, trajectory, judge, options.signal) : null;

  let reward = 1;
  const breakdown: Record<string, number> = {};
  const include = (component: RewardInfo | null, types: RewardType[]) => {
    if (component === null || !types.some((type) => basis.has(type))) return;
    Object.assign(breakdown, component.reward_breakdown ?? {});
    reward *= component.reward;
  };
  include(env, ["DB", "ENV_ASSERTION"]);
  include(action, ["ACTION"]);
  include(nl, ["NL_ASSERTION"]);
  include(communicate, ["COMMUNICATE"]);

  const info: Record<string, unknown> = {
    env: env.info,
    nl: nl?.info ?? null,
    communicate: communicate.info,
    action: action.info,
  };
  if (needsNl && nl === null) info.not_evaluated = ["NL_ASSERTION"];
  return rewardInfo({
    reward,
    db_check: env.db_check,
    env_assertions: env.env_assertions,
    action_checks: action.action_checks,
    nl_assertions: nl?.nl_assertions ?? null,
    communicate_checks: communicate.communicate_checks,
    reward_basis: criteria.reward_basis,
    reward_breakdown: breakdown,
    info,
  });
}
