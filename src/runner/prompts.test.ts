import { describe, expect, it } from "vitest";
import { defineAgent } from "../agents/define.ts";
import { getAgentDefinition } from "../agents/registry.ts";
import { configureDomain, loadDomain } from "../domains/registry.ts";
import { TAU2_TEXT_SOURCE } from "../domains/texts/tau2.ts";
import { dataDirWithUpstreamTexts, tau2SourceDir } from "../testing/upstream-texts.ts";
import { getUserDefinition } from "../users/registry.ts";
import { recordedPrompts, runPrompts, tau1RunPrompts, usedUpstreamPrompts } from "./prompts.ts";

describe("usedUpstreamPrompts (what a submission's modified_prompts is the opposite of)", () => {
  it("is true for runs recorded as upstream and for files upstream's tau2 wrote, false otherwise", () => {
    const stamp = { format_version: 1, version: "0.1.0" };
    expect(usedUpstreamPrompts({ taubench: { ...stamp, prompts: "upstream", prompts_sha256: "ab" } })).toBe(
      true,
    );
    expect(
      usedUpstreamPrompts({ taubench: { ...stamp, prompts: "paraphrased", prompts_sha256: null } }),
    ).toBe(false);
    // taubench recorded no wording before it could use upstream's: those runs were paraphrased.
    expect(usedUpstreamPrompts({ taubench: stamp })).toBe(false);
    expect(usedUpstreamPrompts({})).toBe(true);
    expect(recordedPrompts({ taubench: { ...stamp, prompts: "upstream", prompts_sha256: "ab" } })).toEqual({
      wording: "upstream",
      sha256: "ab",
    });
  });
});

describe("tau1RunPrompts", () => {
  it("follows τ-bench's stamp and names the texts that are ours", () => {
    const agent = { instructions: "x" };
    const exact = tau1RunPrompts({ prompts: "upstream", texts: { tools_info: "upstream" } }, agent);
    expect(exact).toMatchObject({ wording: "upstream", note: null, texts: null });
    const ours = tau1RunPrompts(
      { prompts: "paraphrased", texts: { tools_info: "upstream", react_instruction: "paraphrased" } },
      agent,
    );
    expect(ours.wording).toBe("paraphrased");
    expect(ours.note).toBe(
      "Prompts: not upstream's exact texts (taubench's own wording of τ-bench's react_instruction; `tau data pull --tau1` extracts upstream's); scores are not the leaderboard's experiment.",
    );
  });
});

const dataDir = process.env.TAU_DATA_DIR;
const sources = tau2SourceDir(dataDir);

describe.skipIf(!dataDir || !sources)("runPrompts (skipped: no ../shared data and tau2-src)", () => {
  const withTexts = dataDir && sources ? dataDirWithUpstreamTexts(dataDir, sources) : "";
  const plan = (dir: string, agent: string, user = "user_simulator") =>
    runPrompts(dir, loadDomain("airline", dir), getAgentDefinition(agent), getUserDefinition(user));

  it("is upstream when the texts are there and every model-facing participant speaks them", () => {
    const prompts = plan(withTexts, "llm_agent");
    expect(prompts).toMatchObject({ wording: "upstream", sha256: TAU2_TEXT_SOURCE.textsSha256, note: null });
    expect(prompts.agentInstructions).toBe(prompts.texts!.text("agent.instruction"));
    // Offline participants send nothing to a model, so nothing is paraphrased.
    expect(plan(withTexts, "replay", "scripted").wording).toBe("upstream");
  });

  it("is paraphrased, with the reason, for an agent with a prompt of its own or without the texts", () => {
    const react = plan(withTexts, "react");
    expect(react.wording).toBe("paraphrased");
    expect(react.note).toContain("agent 'react' has a prompt of taubench's own");
    expect(react.sha256).toBeNull();
    const bare = plan(dataDir!, "llm_agent");
    expect(bare).toMatchObject({ wording: "paraphrased", texts: null });
    expect(bare.note).toContain("no upstream texts in");
  });

  it("names a prompt its author wrote, and banking's reranker, as not upstream's", () => {
    const own = defineAgent({ name: "terse", needsLlm: true, create: () => ({}) as never });
    const mine = runPrompts(
      withTexts,
      loadDomain("airline", withTexts),
      own,
      getUserDefinition("user_simulator"),
      { agent: false, user: true },
    );
    expect(mine.wording).toBe("paraphrased");
    expect(mine.note).toBe(
      "Prompts: not upstream's exact texts (agent 'terse' is not one of upstream's agents, its prompts are its own); scores are not the leaderboard's experiment.",
    );
    const banking = (retrievalConfig: string) =>
      runPrompts(
        withTexts,
        configureDomain(loadDomain("banking_knowledge", withTexts), { retrievalConfig }),
        getAgentDefinition("llm_agent"),
        getUserDefinition("user_simulator"),
      );
    expect(banking("bm25").wording).toBe("upstream");
    const reranked = banking("bm25_reranker");
    expect(reranked.wording).toBe("paraphrased");
    expect(reranked.note).toContain(
      "retrieval config 'bm25_reranker' prompts its LLM reranker in taubench's own wording",
    );
  });
});
