/**
 * Which wording a run's models see: upstream's exact texts (from the data
 * folder's texts file) or taubench's own. A run is `upstream` only when every
 * text that reaches a model is upstream's; results record it in
 * `info.taubench.prompts` (with the texts file's sha256), and `tau view`,
 * `tau compare` and submissions read it back.
 */
import { dirname } from "node:path";
import type { AgentDefinition } from "../agents/registry.ts";
import { agentWording } from "../agents/prompts.ts";
import type { Domain } from "../domains/types.ts";
import { loadUpstreamTexts, TEXTS_HOW_TO, textsPath, type UpstreamTexts } from "../domains/texts/store.ts";
import type { UserDefinition } from "../users/registry.ts";

/** What a run's models were prompted with. */
export type PromptsWording = "upstream" | "paraphrased";

/** The wording of one run, decided before it starts. */
export interface RunPrompts {
  readonly wording: PromptsWording;
  /** The data folder's upstream texts (null when it has none); participants that can speak them do. */
  readonly texts: UpstreamTexts | null;
  /** sha256 of the texts file when the wording is upstream's, else null. */
  readonly sha256: string | null;
  /** Why the run is not upstream's wording, as one line (null when it is). */
  readonly note: string | null;
  /** The agent's fixed instruction text in the wording used (hashed into results). */
  readonly agentInstructions: string | undefined;
}

/** Decides a run's wording from the data folder and the participants. */
export function runPrompts(
  dataDir: string,
  domain: Domain,
  agent: AgentDefinition,
  user: UserDefinition,
  /** Which participants are built-in ones (a module's or an adapter's prompt is its author's). */
  builtIn: { agent: boolean; user: boolean } = { agent: true, user: true },
): RunPrompts {
  const texts = loadUpstreamTexts(dataDir);
  const agentInstructions = agent.wordedInstructions
    ? agent.wordedInstructions(agentWording(texts))
    : agent.instructions;
  const reasons: string[] = [];
  if (!texts)
    reasons.push(
      `no upstream texts in ${dirname(textsPath(dataDir))}, so taubench uses its own wording; ${TEXTS_HOW_TO}`,
    );
  else {
    if (!domain.upstreamTexts) {
      // The domain's own notes say which of its texts are ours (banking's reranker prompt, say).
      const notes = domain.notices?.() ?? [];
      reasons.push(...(notes.length > 0 ? notes : [`domain '${domain.name}' uses texts of taubench's own`]));
    }
    // Another agent (a module, an adapter) may prompt any model any way: not upstream's agent.
    if (!builtIn.agent || agent.origin)
      reasons.push(`agent '${agent.name}' is not one of upstream's agents, its prompts are its own`);
    else if (agent.needsLlm && !agent.wordedInstructions)
      reasons.push(`agent '${agent.name}' has a prompt of taubench's own`);
    if (!builtIn.user) reasons.push(`user '${user.name}' is not upstream's user simulator`);
    else if (user.needsLlm && !user.speaksUpstreamTexts)
      reasons.push(`user '${user.name}' has a prompt of taubench's own`);
  }
  const wording: PromptsWording = reasons.length === 0 ? "upstream" : "paraphrased";
  return {
    wording,
    texts,
    sha256: wording === "upstream" ? (texts?.sha256 ?? null) : null,
    note:
      reasons.length === 0
        ? null
        : `Prompts: not upstream's exact texts (${reasons.join("; ")}); scores are not the leaderboard's experiment.`,
    agentInstructions,
  };
}

/**
 * The wording of a run on an original τ-bench domain, from its stamp (`info.taubench.tau1`: which
 * of its prompt texts came from the τ-bench data folder's `texts/`).
 */
export function tau1RunPrompts(
  stamp: { prompts?: unknown; texts?: unknown },
  agent: Pick<AgentDefinition, "instructions">,
): RunPrompts {
  const used = (stamp.texts ?? {}) as Record<string, string>;
  const ours = Object.keys(used).filter((name) => used[name] !== "upstream");
  const wording: PromptsWording = stamp.prompts === "upstream" ? "upstream" : "paraphrased";
  return {
    wording,
    texts: null,
    sha256: null,
    note:
      wording === "upstream"
        ? null
        : `Prompts: not upstream's exact texts (taubench's own wording of τ-bench's ${ours.join(", ") || "prompts"}; \`tau data pull --tau1\` extracts upstream's); scores are not the leaderboard's experiment.`,
    agentInstructions: agent.instructions,
  };
}

/** How a results file says its models were prompted. */
export interface RecordedPrompts {
  /** `upstream-tau2`: the file was written by upstream's own tau2 (no taubench stamp). */
  readonly wording: PromptsWording | "upstream-tau2";
  readonly sha256: string | null;
}

/** The wording a results file records (files from before taubench recorded it were all paraphrased). */
export function recordedPrompts(info: { taubench?: Record<string, unknown> | undefined }): RecordedPrompts {
  const stamp = info.taubench;
  if (!stamp) return { wording: "upstream-tau2", sha256: null };
  const sha256 = typeof stamp.prompts_sha256 === "string" ? stamp.prompts_sha256 : null;
  return { wording: stamp.prompts === "upstream" ? "upstream" : "paraphrased", sha256 };
}

/**
 * Whether a run's models saw upstream's exact texts, i.e. the run is the
 * leaderboard's experiment (a submission's `modified_prompts` is the opposite).
 */
export function usedUpstreamPrompts(info: { taubench?: Record<string, unknown> | undefined }): boolean {
  return recordedPrompts(info).wording !== "paraphrased";
}

/** One line describing a run's wording, for summaries. */
export function describePrompts(prompts: RecordedPrompts): string {
  switch (prompts.wording) {
    case "upstream":
      return `upstream's exact texts${prompts.sha256 ? ` (sha256 ${prompts.sha256.slice(0, 12)}…)` : ""}`;
    case "upstream-tau2":
      return "upstream's (written by tau2)";
    case "paraphrased":
      return "not upstream's exact texts (taubench's own wording, or a participant's own prompts)";
    default: {
      const never: never = prompts.wording;
      throw new Error(`unknown wording ${String(never)}`);
    }
  }
}
