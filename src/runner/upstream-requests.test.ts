/**
 * With upstream's texts in the data folder, what taubench's client puts on
 * the wire at the start of a run is what upstream sends: the agent's system
 * prompt and `tools` (every schema field and description, in upstream's key
 * order), the user simulator's system prompt and tools, and the NL judge's
 * prompts. Checked two ways, both through the real provider client talking
 * to a fake OpenAI server on 127.0.0.1:
 *
 * - against the developer-visible golden sample (`../shared/golden-sample/requests/`), byte for byte;
 * - against `fixtures/upstream-requests.json`: sha256 digests of the requests upstream's own code
 *   made for 42 runs of every domain and agent, and of five of banking's retrieval configurations
 *   (`scripts/upstream-requests-reference.py`); banking's other configurations combine pieces of
 *   those (see below).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pyDumps } from "../core/py-json.ts";
import { RETRIEVAL_CONFIG_NAMES } from "../domains/banking_knowledge/retrieval/variants.ts";
import { domainNames, loadDomain } from "../domains/registry.ts";
import { createLlmClient } from "../llm/index.ts";
import { type FakeProvider, type FakeRequest, startFakeProvider } from "../testing/fake-provider.ts";
import { offlineRunConfig } from "../testing/run-config.ts";
import { dataDirWithUpstreamTexts, tau2SourceDir } from "../testing/upstream-texts.ts";
import { type RunDependencies, executeRun } from "./run.ts";

const sharedData = process.env.TAU_DATA_DIR;
const sources = tau2SourceDir(sharedData);
const goldenDir = sharedData ? join(sharedData, "..", "golden-sample", "requests") : "";
const MODEL = "openai/gpt-4.1-2025-04-14";

interface ExpectedRequest {
  call: string;
  model: string;
  tool_choice: string | null;
  kwargs: Record<string, unknown>;
  roles: string[];
  system_sha256: string | null;
  contents_sha256: string;
  tool_names: string[] | null;
  tools_sha256: string | null;
  tool_sha256: string[] | null;
}
interface ExpectedCase {
  domain: string;
  retrieval_config: string | null;
  agent: string;
  user: string;
  task_id: string;
  requests: ExpectedRequest[];
}

const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const content = (request: FakeRequest, index: number): string => request.body.messages[index].content;
const isUserCall = (request: FakeRequest) => content(request, 0).includes("\n<scenario>\n");

/** What upstream's script recorded, computed the same way from a request our client sent. */
function digestOf(request: FakeRequest) {
  const body = request.body;
  const tools = body.tools ?? null;
  return {
    model: `openai/${body.model}`,
    tool_choice: body.tool_choice ?? null,
    seed: body.seed ?? null,
    temperature: body.temperature ?? null,
    roles: body.messages.map((message: { role: string }) => message.role),
    system_sha256: body.messages[0]?.role === "system" ? sha(content(request, 0)) : null,
    contents_sha256: sha(
      pyDumps(
        body.messages.map((message: { role: string; content: string }) => [message.role, message.content]),
      ),
    ),
    tool_names: tools ? tools.map((tool: { function: { name: string } }) => tool.function.name) : null,
    tools_sha256: tools ? sha(pyDumps(tools, { indent: 2 })) : null,
    tool_sha256: tools ? tools.map((tool: unknown) => sha(pyDumps(tool, { indent: 2 }))) : null,
  };
}

describe.skipIf(!sharedData || !sources)(
  "the first requests with upstream's texts (skipped: no ../shared data and tau2-src)",
  () => {
    let fake: FakeProvider;
    let dataDir = "";
    let userTurns = 0;
    beforeAll(async () => {
      dataDir = dataDirWithUpstreamTexts(sharedData!, sources!);
      // The replies upstream's script scripted: the user says one thing and then stops, the agent answers
      // in text, the solo agent calls done, the judge finds nothing to report.
      fake = await startFakeProvider({
        handler: (request) => {
          if (request.body.seed === undefined) return { text: '{"results": []}' };
          if (request.body.tool_choice === "required")
            return { toolCalls: [{ id: "call_done", name: "done", arguments: "{}" }] };
          if (isUserCall(request)) return { text: ++userTurns === 1 ? "Hello, I need help." : "###STOP###" };
          return { text: "Sure." };
        },
      });
    });
    afterAll(async () => {
      await fake?.close();
    });

    const deps = (): RunDependencies => ({
      createLlm: (model) =>
        createLlmClient(model, {
          baseUrl: fake.openaiBaseUrl,
          env: { OPENAI_API_KEY: "sk-test" },
          retry: { maxRetries: 0 },
        }),
      providerKey: (model) => model,
      // banking's AllTools needs an embedder to start; no search runs here, so it is never called.
      // banking's dense and reranking configs need their services to start; no search runs here.
      retrievalServices: () => ({
        embedder: {
          embed: async () => {
            throw new Error("no embeddings in this test");
          },
        },
        rater: {
          rate: async () => {
            throw new Error("no reranking in this test");
          },
        },
      }),
    });

    /** Runs one task (trial 0, seed 626729 as upstream's default seed 300 gives) and returns what was sent. */
    async function requestsOf(
      domain: string,
      agent: string,
      user: string,
      taskId: string,
      retrievalConfig: string | null = null,
      wording: "upstream" | "paraphrased" = "upstream",
    ): Promise<FakeRequest[]> {
      fake.requests.length = 0;
      userTurns = 0;
      const outcome = await executeRun(
        offlineRunConfig(dataDir, {
          domain,
          agent,
          user,
          taskIds: [taskId],
          agentLlm: MODEL,
          userLlm: MODEL,
          judgeLlm: MODEL,
          maxConcurrency: 1,
          ...(retrievalConfig ? { retrievalConfig } : {}),
        }),
        deps(),
      );
      expect(outcome.info.taubench?.prompts).toBe(wording);
      return [...fake.requests];
    }

    it("matches the golden sample byte for byte (airline task 0, telecom's first base task)", async () => {
      for (const [prefix, domain, taskId] of [
        ["airline_task_0", "airline", "0"],
        [
          "telecom_base_0",
          "telecom",
          "[mobile_data_issue]airplane_mode_on|user_abroad_roaming_enabled_off[PERSONA:None]",
        ],
      ] as const) {
        const requests = await requestsOf(domain, "llm_agent", "user_simulator", taskId);
        const userRequest = requests[0]!;
        const agentRequest = requests[1]!;
        expect(isUserCall(userRequest)).toBe(true);
        expect(content(agentRequest, 0)).toBe(
          readFileSync(join(goldenDir, `${prefix}.agent_system_prompt.txt`), "utf8"),
        );
        expect(`${pyDumps(agentRequest.body.tools, { indent: 2 })}\n`).toBe(
          readFileSync(join(goldenDir, `${prefix}.agent_tools.json`), "utf8"),
        );
        expect(content(userRequest, 0)).toBe(
          readFileSync(join(goldenDir, `${prefix}.user_system_prompt.txt`), "utf8"),
        );
        expect(agentRequest.body.messages.slice(1)).toEqual([
          { role: "assistant", content: "Hi! How can I help you today?" },
          { role: "user", content: "Hello, I need help." },
        ]);
      }
    });

    const fixture = JSON.parse(
      readFileSync(join(import.meta.dirname, "fixtures", "upstream-requests.json"), "utf8"),
    ) as { seed: number; cases: ExpectedCase[] };
    const cases = fixture.cases.filter((c) => domainNames().includes(c.domain));

    it("covers every domain, agent and banking retrieval configuration of the reference", () => {
      expect(cases).toHaveLength(fixture.cases.length);
      expect(cases).toHaveLength(42);
      expect(new Set(cases.map((c) => `${c.domain}/${c.retrieval_config}/${c.agent}`)).size).toBe(17);
    });

    it.each(
      cases.map(
        (c) =>
          [
            `${c.domain}${c.retrieval_config ? `@${c.retrieval_config}` : ""} ${c.agent} ${c.task_id}`,
            c,
          ] as const,
      ),
    )("sends what upstream sends: %s", async (_name, expected) => {
      const requests = await requestsOf(
        expected.domain,
        expected.agent,
        expected.user,
        expected.task_id,
        expected.retrieval_config,
      );
      expect(requests.map(digestOf)).toEqual(
        expected.requests.map((request) => ({
          model: `openai/${request.model}`,
          tool_choice: request.tool_choice,
          seed: request.kwargs.seed ?? null,
          temperature: request.kwargs.temperature,
          roles: request.roles,
          system_sha256: request.system_sha256,
          contents_sha256: request.contents_sha256,
          tool_names: request.tool_names,
          tools_sha256: request.tools_sha256,
          tool_sha256: request.tool_sha256,
        })),
      );
      expect(fixture.seed).toBe(626729);
    });

    // The reference has five of banking's retrieval configs; the others combine the same pieces: a
    // policy (its sha256 checked against the spec in banking.test.ts) in the same system prompt, and
    // retrieval tools the reference covers (one text per tool name), in upstream's toolkit order.
    const banking = cases.filter((c) => c.domain === "banking_knowledge");
    const toolSha = new Map<string, string>();
    for (const c of banking)
      for (const request of c.requests)
        request.tool_names?.forEach((name, i) => {
          toolSha.set(name, request.tool_sha256![i]!);
        });
    const agentRequestOf = (c: ExpectedCase) => c.requests.find((r) => r.call === "agent_response")!;
    const allTools = banking.find((c) => c.retrieval_config === null)!;
    const base = agentRequestOf(banking.find((c) => c.retrieval_config === "no_knowledge")!).tool_names!;
    /** The retrieval tools before the base tools, as the spec's table (§7) gives them per config. */
    const retrievalTools = (config: string): string[] => {
      if (config.startsWith("alltools")) return ["KB_search_bm25", "KB_search_dense", "shell"];
      if (config.startsWith("terminal_use")) return ["shell"];
      if (config === "grep_only") return ["grep"];
      if (config.startsWith("bm25") || config.includes("embeddings"))
        return config.endsWith("_grep") ? ["KB_search", "grep"] : ["KB_search"];
      return [];
    };

    it.each(RETRIEVAL_CONFIG_NAMES.filter((name) => !banking.some((c) => c.retrieval_config === name)))(
      "sends upstream's tools and system prompt frame for banking_knowledge@%s",
      async (config) => {
        const reranks = config.includes("reranker");
        const requests = await requestsOf(
          "banking_knowledge",
          "llm_agent",
          "user_simulator",
          allTools.task_id,
          config,
          // The reranker's prompt is ours, so such a run says it is not upstream's wording.
          reranks ? "paraphrased" : "upstream",
        );
        const agentRequest = requests.find((request) => !isUserCall(request))!;
        const digest = digestOf(agentRequest);
        expect(digest.tool_names).toEqual([...retrievalTools(config), ...base]);
        expect(digest.tool_sha256).toEqual(digest.tool_names!.map((name: string) => toolSha.get(name)));
        const domain = loadDomain("banking_knowledge", dataDir);
        const policy = domain.configure!({ retrievalConfig: config }).policy();
        const system = content(agentRequest, 0);
        expect(system).toContain(policy);
        // With the default config's policy in its place, it is the reference's system prompt.
        const reference = domain.configure!({ retrievalConfig: "alltools" }).policy();
        expect(sha(system.replace(policy, () => reference))).toBe(agentRequestOf(allTools).system_sha256);
      },
    );

    it("says so when the data folder has no texts: paraphrased, one line at the start", async () => {
      const lines: string[] = [];
      const outcome = await executeRun(
        offlineRunConfig(sharedData!, {
          domain: "mock",
          agent: "llm_agent",
          user: "user_simulator",
          taskIds: ["create_task_1"],
          agentLlm: MODEL,
          userLlm: MODEL,
        }),
        {
          ...deps(),
          onEvent: (event) => {
            if (event.type === "note") lines.push(event.message);
          },
        },
      );
      expect(outcome.info.taubench).toMatchObject({ prompts: "paraphrased", prompts_sha256: null });
      expect(lines[0]).toBe(
        `Prompts: not upstream's exact texts (no upstream texts in ${join(sharedData!, "taubench")}, so taubench uses its own wording; run \`tau data pull\`, or \`tau data extract-texts --from <tau2-bench checkout>\`); scores are not the leaderboard's experiment.`,
      );
      expect(lines[1]).toMatch(/^Run /);
      expect(lines.filter((line) => line.startsWith("Prompts:"))).toHaveLength(1);
      expect(existsSync(outcome.resultsPath)).toBe(true);
    });
  },
);
