/** The registry of users: names, metadata and factories. */
import { UsageError } from "../core/errors.ts";
import type { Task } from "../core/task.ts";
import type { UpstreamTexts } from "../domains/texts/store.ts";
import type { ToolSchema } from "../env/toolkit.ts";
import type { LlmClient } from "../llm/types.ts";
import { DummyUser } from "./dummy-user.ts";
import { renderUserScenario, TAUBENCH_SCENARIO_WORDING, upstreamScenarioWording } from "./scenario.ts";
import { ScriptedUser } from "./scripted-user.ts";
import type { User } from "./types.ts";
import { readGuidelines, UserSimulator } from "./user-simulator.ts";

/** What a factory gets to build a user for one episode (one attempt of one simulation). */
export interface UserContext<Options = Record<string, unknown>> {
  domainName: string;
  task: Task;
  /** The user's tools, or null when the domain has none (or the task's list is empty). */
  tools: ToolSchema[] | null;
  /** The data folder's `user_simulator/` (guideline files). */
  guidelinesDir: string;
  /** The run's user model (`--user-llm`), or null when the definition does not need one. */
  llm: LlmClient | null;
  /** The user model's arguments (`--user-llm-args`); a fresh copy per episode. */
  llmArgs: Record<string, unknown>;
  /** Aborted when the run stops (Ctrl-C, the caller's signal) or this attempt is abandoned. */
  signal: AbortSignal;
  /** The id the simulation is recorded under. */
  simulationId: string;
  /** 0-based trial index. */
  trial: number;
  /** The trial seed. */
  seed: number;
  /** `--user-options` (or `userOptions` of the library), after the definition's `parseOptions`. */
  options: Options;
  /** Upstream's texts from the data folder, when it has them (then `user_simulator` speaks them). */
  texts?: UpstreamTexts | null;
}

/** A user implementation: its metadata and the factory the runner calls once per episode. */
export interface UserDefinition<Options = Record<string, unknown>> {
  name: string;
  /** Recorded in results and part of the resume fingerprint. */
  version?: string;
  description: string;
  /** Whether the runner builds the `--user-llm` client for it. */
  needsLlm: boolean;
  /**
   * Reads the data folder's user-simulator guideline file for each task (the one for tasks with
   * user tools or the one without): a run checks the files its tasks need exist before it starts.
   */
  readsGuidelines?: boolean;
  /** Only valid together with a solo agent (upstream `build_user` asserts this for `dummy_user`). */
  requiresSoloAgent?: boolean;
  /** Whether its model prompts are upstream's texts when the data folder has them. */
  speaksUpstreamTexts?: boolean;
  /** Checks (and may convert) the options once, before any simulation; a throw stops the run with its message. */
  parseOptions?(options: Record<string, unknown>): Options;
  create(ctx: UserContext<Options>): User;
}

const definitions: UserDefinition[] = [
  {
    name: "user_simulator",
    description: "LLM customer following the task's scenario and upstream's guidelines",
    needsLlm: true,
    speaksUpstreamTexts: true,
    readsGuidelines: true,
    create: (ctx) => {
      if (!ctx.llm)
        throw new UsageError("User 'user_simulator' needs a model: pass --user-llm provider/model");
      const hasTools = ctx.tools !== null && ctx.tools.length > 0;
      const texts = ctx.texts ?? null;
      return new UserSimulator({
        llm: ctx.llm,
        guidelines: readGuidelines(ctx.guidelinesDir, ctx.tools),
        instructions: renderUserScenario(
          ctx.task.user_scenario,
          texts ? upstreamScenarioWording(texts) : TAUBENCH_SCENARIO_WORDING,
        ),
        tools: hasTools ? ctx.tools : null,
        llmArgs: ctx.llmArgs,
        texts,
      });
    },
  },
  {
    name: "scripted",
    description:
      "Offline customer for the replay agent: states the reason for calling and does what it is asked",
    needsLlm: false,
    create: (ctx) => new ScriptedUser(ctx.task),
  },
  {
    name: "dummy_user",
    description: "Placeholder user for solo agents (never speaks)",
    needsLlm: false,
    requiresSoloAgent: true,
    create: () => new DummyUser(),
  },
];

const byName = new Map(definitions.map((definition) => [definition.name, definition]));

/** Names of the registered users, in registration order. */
export function userNames(): string[] {
  return [...byName.keys()];
}

/** The registry entry for a name; unknown names are a {@link UsageError} listing the known ones. */
export function getUserDefinition(name: string): UserDefinition {
  const definition = byName.get(name);
  if (!definition) throw new UsageError(`Unknown user '${name}'. Known users: ${userNames().join(", ")}`);
  return definition;
}

/** Adds a user implementation to the registry. */
export function registerUser(definition: UserDefinition): void {
  byName.set(definition.name, definition);
}
