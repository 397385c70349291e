/**
 * What a domain provides to the layers above: environments (forked from DBs
 * parsed once per process), its tasks and splits, and its policy.
 */
import type { Task, TaskSplits } from "../core/task.ts";
import type { Environment } from "../env/environment.ts";
import type { UpstreamTexts } from "./texts/store.ts";

/** Options for a new environment. */
export interface EnvironmentOptions {
  /** Solo (no-user) mode: the agent gets the user tools too. */
  soloMode?: boolean;
}

/** A loaded domain (one per data folder per process). */
export interface Domain {
  /** Environment name as upstream registers it (`mock`, `retail`, `airline`, `telecom`, `telecom-workflow`). */
  readonly name: string;
  /** Whether the environment can be built in solo mode (mock, telecom). */
  readonly supportsSolo: boolean;
  /** Whether the simulated user has tools (mock, telecom). */
  readonly hasUserTools: boolean;
  /** A fresh environment: O(1) fork of the parsed DBs. */
  makeEnvironment(options?: EnvironmentOptions): Environment;
  /** Every task of the domain's task file, in file order (parsed once). */
  tasks(): readonly Task[];
  /** The split file (`split_tasks.json`), or null when the domain has none. */
  splits(): TaskSplits | null;
  /** The policy text the agent sees. */
  policy(options?: EnvironmentOptions): string;
  /**
   * The upstream texts its tools are worded with (`withUpstreamToolTexts`); absent or null: the tool
   * descriptions are taubench's own.
   */
  readonly upstreamTexts?: UpstreamTexts | null;
}

/** A domain's entry in the registry. */
export interface DomainDefinition {
  readonly name: string;
  readonly description: string;
  /** Loads the domain's files from `dataDir` (`<dataDir>/domains/<folder>`). */
  load(dataDir: string): Domain;
}
