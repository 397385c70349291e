/** The `tau replay` record of one task: the fidelity probe compared with upstream's own output. */
import type { Task } from "../core/task.ts";
import type { Domain } from "../domains/types.ts";
import { type Environment, errorText } from "../env/environment.ts";
import { replayPredicted } from "./env-evaluator.ts";
import { type GoldStep, goldTrajectory, replayGold } from "./gold.ts";

/** One line of `tau replay` output (field order as upstream's tool writes it). */
export interface ReplayRecord {
  id: string;
  initial_agent_db_hash: string;
  initial_user_db_hash: string | null;
  steps: GoldStep[];
  final_agent_db_hash: string;
  final_user_db_hash: string | null;
  env_assertions: {
    env_type: string;
    func_name: string;
    arguments: Record<string, unknown>;
    assert_value: boolean;
    met: boolean;
    error?: string;
  }[];
}

/**
 * Replays a task's expected actions on its gold environment and records outputs and hashes (what
 * upstream's evaluator builds as the gold side). The env assertions are what the evaluator computes
 * for the gold trajectory: on the predicted environment, the trajectory replayed onto it
 * (`set_state`, syncs included), as grading does. On the gold environment itself, which never
 * syncs between actions, a payment request is not yet on the phone when the user pays.
 */
export function replayRecord(domain: Domain, task: Task): ReplayRecord {
  const gold = replayGold(domain, task);
  const finalAgent = gold.env.getDbHash();
  const finalUser = gold.env.getUserDbHash();
  const assertions = task.evaluation_criteria?.env_assertions ?? [];
  let predicted: Environment | null = null;
  let replayError: string | null = null;
  if (assertions.length > 0) {
    try {
      predicted = replayPredicted({
        domain,
        task,
        trajectory: goldTrajectory(domain, task),
        soloMode: false,
        strictReplay: true,
      });
    } catch (e) {
      replayError = errorText(e);
    }
  }
  const envAssertions = assertions.map((assertion) => {
    const base = {
      env_type: assertion.env_type,
      func_name: assertion.func_name,
      arguments: assertion.arguments,
      assert_value: assertion.assert_value,
    };
    if (predicted === null) return { ...base, met: false, error: replayError ?? "no predicted environment" };
    try {
      return { ...base, met: predicted.runEnvAssertion(assertion) };
    } catch (e) {
      return { ...base, met: false, error: errorText(e) };
    }
  });
  return {
    id: task.id,
    initial_agent_db_hash: gold.initialAgentDbHash,
    initial_user_db_hash: gold.initialUserDbHash,
    steps: gold.steps,
    final_agent_db_hash: finalAgent,
    final_user_db_hash: finalUser,
    env_assertions: envAssertions,
  };
}
