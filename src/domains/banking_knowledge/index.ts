/**
 * The `banking_knowledge` domain (τ-knowledge; specs/banking_knowledge.md):
 * customer service for a bank whose procedures, and the names of hidden
 * tools, are in a knowledge base of 698 documents the agent searches. The
 * agent and the user share one DB; the retrieval configuration decides the
 * agent's search tools and policy.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../../core/errors.ts";
import { Task } from "../../core/task.ts";
import type { DbState } from "../../env/db-state.ts";
import { Environment } from "../../env/environment.ts";
import { type ToolDef, Toolkit } from "../../env/toolkit.ts";
import { readDb, readPyJson } from "../files.ts";
import { TEXTS_HOW_TO } from "../texts/store.ts";
import type { Domain, DomainDefinition, DomainSettings, EnvironmentOptions } from "../types.ts";
import { AGENT_DISCOVERABLE_TOOLS } from "./agent-discoverable.ts";
import { baseAgentTools } from "./agent-tools.ts";
import { TransactionalDb } from "./db.ts";
import { type KnowledgeBase, knowledgeBase } from "./knowledge-base.ts";
import { composePolicy } from "./policy.ts";
import { defaultEmbeddingsCacheDir } from "./retrieval/dense.ts";
import { checkSandbox } from "./retrieval/shell.ts";
import {
  RetrievalBackends,
  type RetrievalServices,
  type RetrievalState,
  retrievalTools,
} from "./retrieval/tools.ts";
import {
  DEFAULT_RETRIEVAL_CONFIG,
  requirementsOf,
  type RetrievalVariant,
  resolveVariant,
} from "./retrieval/variants.ts";
import { type BankingTexts, loadBankingTexts } from "./texts.ts";
import type { AgentToolsState, UserToolsState } from "./toolkit-state.ts";
import { offeredUserTools, USER_DISCOVERABLE_TOOLS } from "./user-tools.ts";

export type { RelevanceRater, RetrievalServices } from "./retrieval/tools.ts";

const NAME = "banking_knowledge";

/** The file of a task, as upstream loads them: `tasks/task_*.json`, sorted by name; broken files are skipped with a warning. */
function readTaskFolder(dir: string): Task[] {
  const names = readdirSync(dir)
    .filter((name) => /^task_.*\.json$/.test(name))
    .sort();
  const tasks: Task[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      const result = Task.safeParse(readPyJson(path));
      if (result.success) tasks.push(result.data);
      else
        console.error(
          `Warning: Failed to load ${path}: ${result.error.issues[0]?.message ?? "invalid task"}`,
        );
    } catch (error) {
      console.error(`Warning: Failed to load ${path}: ${(error as Error).message}`);
    }
  }
  return tasks;
}

/** The names of the read discoverable tools a task's gold trajectory calls (#329, spec §5.4). */
export function readLogAllowlist(task: Task | null | undefined): Set<string> {
  const names = new Set<string>();
  for (const action of task?.evaluation_criteria?.actions ?? []) {
    const name = action.arguments?.agent_tool_name;
    if (action.name === "call_discoverable_agent_tool" && typeof name === "string") names.add(name);
  }
  return names;
}

/** Upstream's composed toolkit class for a configuration (named in `'X' object has no attribute` texts). */
function toolkitClass(variant: RetrievalVariant): string {
  if (variant.kbSearchBm25 && variant.kbSearchDense && variant.shell) return "KnowledgeToolsAllTools";
  if (variant.shell) return "KnowledgeToolsWithShell";
  if (variant.kbSearch && variant.grep) return "KnowledgeToolsWithKBSearchAndGrep";
  if (variant.kbSearch) return "KnowledgeToolsWithKBSearch";
  if (variant.grep) return "KnowledgeToolsWithGrep";
  return "KnowledgeToolsPlain";
}

/** What every configuration of one data folder shares: files parsed once, on first use. */
interface Shared {
  dir: string;
  db(): DbState<any>;
  texts(): BankingTexts;
  kb(): KnowledgeBase;
  tasks(): Task[];
}

function lazy<T>(make: () => T): () => T {
  let value: T | undefined;
  let made = false;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value as T;
  };
}

function configured(
  shared: Shared,
  variant: RetrievalVariant,
  kwargs: Record<string, unknown> | null,
  services: RetrievalServices,
): Domain {
  const texts = shared.texts;
  const backends = new RetrievalBackends(
    variant,
    shared.kb,
    services,
    services.embeddingsCacheDir ?? defaultEmbeddingsCacheDir(),
    (query, document) => texts().rerankerPrompt(query, document),
  );
  const agentTools = lazy((): ToolDef<AgentToolsState>[] => [
    ...retrievalTools(variant, texts()),
    ...baseAgentTools(texts()),
    ...AGENT_DISCOVERABLE_TOOLS,
  ]);
  const userTools = lazy((): ToolDef<UserToolsState>[] => [
    ...offeredUserTools(texts()),
    ...USER_DISCOVERABLE_TOOLS,
  ]);
  const promptsDir = join(shared.dir, "prompts");
  const taskIndependentPolicy = lazy(() =>
    composePolicy({ promptsDir, variant, kb: shared.kb, texts: texts() }),
  );
  const policyFor = (task: Task | null | undefined) =>
    variant.prompt === "golden"
      ? composePolicy({ promptsDir, variant, kb: shared.kb, texts: texts(), task })
      : taskIndependentPolicy();
  const className = toolkitClass(variant);
  const domain: Domain = {
    name: NAME,
    dataFolder: shared.dir,
    supportsSolo: false,
    hasUserTools: true,
    settings: { retrievalConfig: variant.name, retrievalConfigKwargs: kwargs },
    // A reranking configuration prompts its reranker with our own wording (see texts.ts).
    get upstreamTexts() {
      return requirementsOf(variant).reranker ? null : texts().upstream;
    },
    makeEnvironment: (options: EnvironmentOptions = {}) => {
      if (options.soloMode) throw new UsageError("banking_knowledge domain does not support solo mode");
      const db = shared.db().fork();
      const retrieval: RetrievalState = { backends };
      const state: AgentToolsState = {
        unlocked: new Set(),
        allowlist: readLogAllowlist(options.task),
        texts: texts(),
        retrieval,
      };
      return new Environment({
        domainName: NAME,
        policy: policyFor(options.task),
        tools: new Toolkit(className, agentTools(), [], db, state),
        userTools: new Toolkit("KnowledgeUserTools", userTools(), [], db, { texts: texts() }),
      });
    },
    tasks: shared.tasks,
    splits: () => null,
    ignoresSplitName: true,
    // The run-level policy of golden_retrieval is a placeholder; each simulation records its own.
    policy: (options: EnvironmentOptions = {}) =>
      variant.prompt === "golden" && !options.task ? texts().perTaskPolicy : policyFor(options.task),
    configure: (settings: DomainSettings) =>
      configured(
        shared,
        resolveVariant(
          settings.retrievalConfig ?? DEFAULT_RETRIEVAL_CONFIG,
          settings.retrievalConfigKwargs ?? null,
        ),
        settings.retrievalConfigKwargs ?? null,
        (settings.services as RetrievalServices | undefined) ?? services,
      ),
    notices: () => [
      ...(texts().source === "paraphrased"
        ? [
            `banking_knowledge: the data folder has no upstream texts, so its tool descriptions and the discoverable tools' texts that unlock_discoverable_agent_tool and give_discoverable_user_tool print are taubench's own wording (${TEXTS_HOW_TO})`,
          ]
        : []),
      ...(requirementsOf(variant).reranker
        ? [
            `banking_knowledge: retrieval config '${variant.name}' prompts its LLM reranker in taubench's own wording (upstream's reranker prompt is not among the extracted texts)`,
          ]
        : []),
    ],
    checkRequirements: () => {
      const needs = requirementsOf(variant);
      const offline =
        "or choose an offline --retrieval-config (bm25, bm25_grep, grep_only, no_knowledge, full_kb, golden_retrieval)";
      const fail = (what: string, error?: unknown): never => {
        throw new UsageError(`Retrieval config '${variant.name}' needs ${what}; ${offline}`, {
          cause: error,
        });
      };
      for (const provider of needs.embedders) {
        if (!services.embedder) fail(`an embedding model (${provider})`);
        try {
          services.embedder?.requireKey?.(provider);
        } catch (error) {
          fail(`${provider}'s embedding model: ${(error as Error).message}`, error);
        }
      }
      if (needs.reranker) {
        if (!services.rater) fail("the LLM reranker's model");
        try {
          services.rater?.ready?.();
        } catch (error) {
          fail(`the LLM reranker's model: ${(error as Error).message}`, error);
        }
      }
      if (needs.shell) {
        try {
          checkSandbox();
        } catch (error) {
          fail(`the shell sandbox: ${(error as Error).message}`, error);
        }
      }
    },
  };
  return domain;
}

function load(dataDir: string): Domain {
  const dir = join(dataDir, "domains", NAME);
  // The DB is read now, like every domain's; the knowledge base, its indexes and the texts on first use.
  const db = readDb(join(dir, "db.json"), TransactionalDb);
  const shared: Shared = {
    dir,
    db: () => db,
    texts: lazy(() => loadBankingTexts(dataDir)),
    kb: lazy(() => knowledgeBase(join(dir, "documents"))),
    tasks: lazy(() => readTaskFolder(join(dir, "tasks"))),
  };
  return configured(shared, resolveVariant(DEFAULT_RETRIEVAL_CONFIG), null, {});
}

/** Registry entry of the banking_knowledge domain. */
export const bankingKnowledgeDomain: DomainDefinition = {
  name: NAME,
  description:
    "Bank customer service with a 698-document knowledge base to search and hidden tools to unlock (97 tasks).",
  load,
};
