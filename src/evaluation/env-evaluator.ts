/**
 * The DB and ENV_ASSERTION components (spec §5.2, P7, P11): replay the whole
 * trajectory on a fresh "predicted" environment, build the gold environment
 * from the expected actions, compare agent and user DB hashes, and run the
 * env assertions on the predicted environment.
 */
import type { Message } from "../core/messages.ts";
import type { EnvAssertionCheck, RewardInfo } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import type { Domain } from "../domains/types.ts";
import type { Environment, ReplayMismatchError } from "../env/environment.ts";
import { buildGoldEnvironment } from "./gold.ts";
import { rewardInfo } from "./reward-parts.ts";

/** Options of {@link evaluateEnvironment}. */
export interface EnvEvaluationOptions {
  domain: Domain;
  task: Task;
  /** The full simulated trajectory (it already starts with the task's message history). */
  trajectory: readonly Message[];
  soloMode: boolean;
  /** Live grading replays strictly (a changed write-tool output throws); re-grading old files does not. */
  strictReplay: boolean;
  /** Told about each replay mismatch when `strictReplay` is off. */
  onReplayMismatch?: (error: ReplayMismatchError) => void;
}

/** Builds the predicted environment: fresh, in the simulation's solo mode, with the trajectory replayed. */
export function replayPredicted(options: EnvEvaluationOptions): Environment {
  const { domain, task, trajectory, soloMode, strictReplay } = options;
  const env = domain.makeEnvironment({ soloMode, task });
  env.setState(
    task.initial_state?.initialization_data ?? null,
    task.initial_state?.initialization_actions ?? null,
    trajectory,
    strictReplay,
    options.onReplayMismatch,
  );
  return env;
}

/** Grades the final state. An assertion function that throws propagates, as upstream (P7). */
export function evaluateEnvironment(options: EnvEvaluationOptions): RewardInfo {
  const { task } = options;
  const criteria = task.evaluation_criteria;
  if (criteria === null) return rewardInfo({ reward: 1, info: { note: "No evaluation criteria" } });
  if (criteria.actions === null && criteria.env_assertions === null) {
    // `actions: []` is not null: it still requires the DB to be unchanged (P11).
    return rewardInfo({
      reward: 1,
      db_check: { db_match: true, db_reward: 1 },
      info: { note: "No expected actions or env assertions" },
    });
  }
  const predicted = replayPredicted(options);
  const gold = buildGoldEnvironment(options.domain, task).env;
  const dbMatch = gold.sameDbsAs(predicted);
  const dbReward = dbMatch ? 1 : 0;

  const checks: EnvAssertionCheck[] = [];
  let assertionReward = 1;
  for (const assertion of criteria.env_assertions ?? []) {
    const met = predicted.runEnvAssertion(assertion);
    const reward = met ? 1 : 0;
    checks.push({ env_assertion: assertion, met, reward });
    assertionReward *= reward;
  }

  let reward = 1;
  const breakdown: Record<string, number> = {};
  if (criteria.reward_basis.includes("DB")) {
    breakdown.DB = dbReward;
    reward *= dbReward;
  }
  if (criteria.reward_basis.includes("ENV_ASSERTION")) {
    breakdown.ENV_ASSERTION = assertionReward;
    reward *= assertionReward;
  }
  return rewardInfo({
    reward,
    db_check: { db_match: dbMatch, db_reward: dbReward },
    env_assertions: checks,
    reward_basis: criteria.reward_basis,
    reward_breakdown: breakdown,
  });
}
