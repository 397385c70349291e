/**
 * The `telecom` domain (specs/telecom.md): mobile-carrier tech support with
 * dual control — the agent works on the carrier DB, the simulated user on
 * their phone — coupled by `sync_tools`. Registered twice, as upstream does:
 * `telecom` (tech-support manual) and `telecom-workflow` (workflow manual);
 * both share the data files, tasks and splits.
 */
import { join } from "node:path";
import type { DbState } from "../../env/db-state.ts";
import { Environment } from "../../env/environment.ts";
import type { ToolDef } from "../../env/toolkit.ts";
import { type DomainFiles, domainFiles, readDb } from "../files.ts";
import { loadUpstreamTexts, type UpstreamTexts } from "../texts/store.ts";
import { TAU2_TEXT } from "../texts/tau2.ts";
import { withUpstreamToolTexts } from "../texts/tool-wording.ts";
import type { Domain, DomainDefinition, EnvironmentOptions } from "../types.ts";
import { type AgentToolsState, DraftBillIds, makeAgentToolkit, telecomAgentTools } from "./agent-tools.ts";
import { TelecomDb, type TelecomRoot, type TelecomUserRoot, TelecomUserDb } from "./models.ts";
import { syncTelecom } from "./sync.ts";
import { makeUserToolkit, newUserToolsState, telecomUserTools, type UserToolsState } from "./user-tools.ts";

/** Which tech-support document the agent gets. */
export type TelecomPolicyKind = "manual" | "workflow";

/** Policy files per variant and mode (upstream-architecture.md §7.3); there is no solo manual. */
const POLICY_FILES: Record<TelecomPolicyKind, Record<"normal" | "solo", [string, string]>> = {
  manual: {
    normal: ["main_policy.md", "tech_support_manual.md"],
    solo: ["main_policy_solo.md", "tech_support_manual.md"],
  },
  workflow: {
    normal: ["main_policy.md", "tech_support_workflow.md"],
    solo: ["main_policy_solo.md", "tech_support_workflow_solo.md"],
  },
};

/** The agent's policy: the main policy and the tech-support document, each wrapped in its tag (upstream's wrapper when given). */
export function telecomPolicy(main: string, techSupport: string, texts: UpstreamTexts | null = null): string {
  if (texts)
    return texts.format(TAU2_TEXT.telecomPolicy, { main_policy: main, tech_support_policy: techSupport });
  return `<main_policy>\n${main}\n</main_policy>\n<tech_support_policy>\n${techSupport}\n</tech_support_policy>`;
}

/** Files shared by both variants, parsed once per data folder. */
interface TelecomData {
  db: DbState<TelecomRoot>;
  userDb: DbState<TelecomUserRoot>;
  files: DomainFiles;
  texts: UpstreamTexts | null;
  agentTools: readonly ToolDef<AgentToolsState>[];
  userTools: readonly ToolDef<UserToolsState>[];
  dir: string;
}

const shared = new Map<string, TelecomData>();

function telecomData(dataDir: string): TelecomData {
  let data = shared.get(dataDir);
  if (!data) {
    const dir = join(dataDir, "domains", "telecom");
    const texts = loadUpstreamTexts(dataDir);
    data = {
      texts,
      // Both variants are upstream's `telecom` domain folder, so their tools share its texts.
      agentTools: withUpstreamToolTexts(telecomAgentTools, texts, "telecom"),
      userTools: withUpstreamToolTexts(telecomUserTools, texts, "telecom"),
      db: readDb<TelecomRoot>(join(dir, "db.toml"), TelecomDb),
      userDb: readDb<TelecomUserRoot>(join(dir, "user_db.toml"), TelecomUserDb),
      files: domainFiles(dir),
      dir,
    };
    shared.set(dataDir, data);
  }
  return data;
}

function loadVariant(name: string, kind: TelecomPolicyKind, dataDir: string): Domain {
  const data = telecomData(dataDir);
  const policy = (options: EnvironmentOptions = {}) => {
    const [main, tech] = POLICY_FILES[kind][options.soloMode ? "solo" : "normal"];
    return telecomPolicy(data.files.text(main), data.files.text(tech), data.texts);
  };
  return {
    name,
    dataFolder: data.dir,
    supportsSolo: true,
    hasUserTools: true,
    makeEnvironment: (options = {}) =>
      new Environment({
        domainName: name,
        policy: policy(options),
        tools: makeAgentToolkit(data.db.fork(), new DraftBillIds(), data.agentTools),
        userTools: makeUserToolkit(data.userDb.fork(), newUserToolsState(), data.userTools),
        soloMode: options.soloMode ?? false,
        sync: syncTelecom,
      }),
    tasks: data.files.tasks,
    splits: data.files.splits,
    policy,
    upstreamTexts: data.texts,
  };
}

/** Registry entry of the telecom domain (tech-support manual policy). */
export const telecomDomain: DomainDefinition = {
  name: "telecom",
  description:
    "Mobile-carrier tech support with dual control: the user operates their phone (2,285 tasks, 114 in `base`).",
  load: (dataDir) => loadVariant("telecom", "manual", dataDir),
};

/** Registry entry of the telecom domain with the workflow-style tech-support policy. */
export const telecomWorkflowDomain: DomainDefinition = {
  name: "telecom-workflow",
  description: "The telecom domain with the tech-support policy written as workflows (same tasks).",
  load: (dataDir) => loadVariant("telecom-workflow", "workflow", dataDir),
};
