/** The `tau replay` record of one task: the fidelity probe compared with upstream's own output. */
import type { Task } from "../core/task.ts";
import type { Domain } from "../domains/types.ts";
import { errorText } from "../env/environment.ts";
import { type GoldStep, replayGold } from "./gold.ts";

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

/** Replays a task's expected actions on its gold environment and records outputs, hashes and assertions. */
export function replayRecord(domain: Domain, task: Task): ReplayRecord {
  const gold = replayGold(domain, task);
  const finalAgent = gold.env.getDbHash();
  const finalUser = gold.env.getUserDbHash();
  // Upstream's replay syncs once before checking assertions (the telecom golden sample shows
  // it: roaming enabled by the last actions already counts); a no-op in other domains.
  gold.env.syncTools();
  const envAssertions = (task.evaluation_criteria?.env_assertions ?? []).map((assertion) => {
    const base = {
      env_type: assertion.env_type,
      func_name: assertion.func_name,
      arguments: assertion.arguments,
      assert_value: assertion.assert_value,
    };
    try {
      return { ...base, met: gold.env.runEnvAssertion(assertion) };
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
