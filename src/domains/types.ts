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
  /**
   * The task the environment is built for. Upstream's runner passes it to every environment of the
   * task (live, predicted, gold): banking_knowledge derives its read-log allowlist from it and, with
   * `golden_retrieval`, its policy. Other domains ignore it.
   */
  task?: Task | null;
}

/** Run-level settings of a domain that has any (banking_knowledge's retrieval config). */
export interface DomainSettings {
  /** `--retrieval-config` (banking_knowledge; default `alltools`). */
  retrievalConfig?: string | null;
  /** `--retrieval-config-kwargs`: `top_k`, `grep_top_k`, `case_sensitive`, `reranker_min_score`. */
  retrievalConfigKwargs?: Record<string, unknown> | null;
  /** Outside services some settings need (embedding models, the reranker's LLM). */
  services?: unknown;
}

/** A loaded domain (one per data folder per process). */
export interface Domain {
  /** Environment name as upstream registers it (`mock`, `retail`, `airline`, `telecom`, `telecom-workflow`, `banking_knowledge`). */
  readonly name: string;
  /** The folder the domain's files are read from (a resume checks that they did not change). */
  readonly dataFolder?: string;
  /** Whether the environment can be built in solo mode (mock, telecom). */
  readonly supportsSolo: boolean;
  /** Whether the simulated user has tools (mock, telecom, banking_knowledge). */
  readonly hasUserTools: boolean;
  /** A fresh environment: O(1) fork of the parsed DBs. */
  makeEnvironment(options?: EnvironmentOptions): Environment;
  /** Every task of the domain, in upstream's order (parsed once). */
  tasks(): readonly Task[];
  /** The split file (`split_tasks.json`), or null when the domain has none. */
  splits(): TaskSplits | null;
  /**
   * The tasks of a split, for domains whose splits are separate task lists with
   * overlapping ids (the original τ-bench: ids are indices within a split).
   * Null asks for the domain's default split.
   */
  tasksOf?(split: string | null): readonly Task[];
  /** Every split name selects all tasks (banking_knowledge: upstream's loader ignores the name). */
  readonly ignoresSplitName?: boolean;
  /** The policy text the agent sees (for `task`, when it depends on the task). */
  policy(options?: EnvironmentOptions): string;
  /**
   * The upstream texts its tools are worded with (`withUpstreamToolTexts`); absent or null: the tool
   * descriptions are taubench's own.
   */
  readonly upstreamTexts?: UpstreamTexts | null;
  /** The run's settings (retrieval config) and what is recorded about them; null for domains without any. */
  readonly settings?: {
    retrievalConfig: string;
    retrievalConfigKwargs: Record<string, unknown> | null;
  } | null;
  /**
   * The same domain with other run-level settings (absent for domains that have none). Throws a
   * usage error for an unknown setting value.
   */
  configure?(settings: DomainSettings): Domain;
  /** One-line notes worth telling the user before a run or replay (e.g. texts in our own wording). */
  notices?(): string[];
  /**
   * Checks that what the settings need is available (keys, sandbox binaries), so a run fails
   * before its first simulation with one line saying what to install or set.
   */
  checkRequirements?(): void;
}

/** A domain's entry in the registry. */
export interface DomainDefinition {
  readonly name: string;
  readonly description: string;
  /**
   * Which data folder the domain reads: `tau2` (default; `--data-dir`, `TAU_DATA_DIR`) or
   * `tau1`, the original τ-bench's (`--tau1-data-dir`, `TAU1_DATA_DIR`).
   */
  readonly dataFolder?: "tau2" | "tau1";
  /** Loads the domain's files from `dataDir` (`<dataDir>/domains/<folder>`, or the τ-bench layout for `tau1`). */
  load(dataDir: string): Domain;
}
