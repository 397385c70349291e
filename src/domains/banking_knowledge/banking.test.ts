import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parsePyJson, pyDumps } from "../../core/py-json.ts";
import type { Task } from "../../core/task.ts";
import type { Environment } from "../../env/environment.ts";
import { replayRecord } from "../../evaluation/replay-record.ts";
import { selectTasks } from "../../runner/task-selection.ts";
import type { Domain } from "../types.ts";
import { bankingKnowledgeDomain } from "./index.ts";
import { dataDirWithUpstreamTexts } from "../../testing/upstream-texts.ts";
import { loadBankingTexts } from "./texts.ts";

const dataDir = process.env.TAU_DATA_DIR;
const shared = dataDir ? join(dataDir, "..") : "";
const upstreamSource = join(shared, "tau2-src");
const hasUpstream = dataDir !== undefined && existsSync(join(upstreamSource, "src"));
const FRESH_HASH = "af324a7d72aced5889daf6cc044e573ad94ffa3bfe7cf65114fd3cfed5daaa48";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** A domain load from a data folder with upstream's extracted texts (the way a user with the release gets them). */
function loadWithUpstreamTexts(): Domain {
  const domain = bankingKnowledgeDomain.load(dataDirWithUpstreamTexts(dataDir!, upstreamSource));
  expect(domain.upstreamTexts).not.toBeNull();
  return domain;
}

function caller(env: Environment) {
  let n = 0;
  return (name: string, args: Record<string, unknown>, requestor: "assistant" | "user" = "assistant") =>
    env.getResponse({ id: `c${n++}`, name, arguments: args, requestor });
}

describe.skipIf(!hasUpstream)(
  "banking_knowledge with upstream's texts (skipped: TAU_DATA_DIR or ../tau2-src not present)",
  () => {
    let domain: Domain;
    let tasks: readonly Task[];
    beforeAll(() => {
      domain = loadWithUpstreamTexts();
      tasks = domain.tasks();
    });

    it("loads the 97 tasks from tasks/ in file order; every split name selects all of them", () => {
      expect(tasks).toHaveLength(97);
      expect(tasks[0]!.id).toBe("task_001");
      expect(tasks.at(-1)!.id).toBe("task_102");
      expect(selectTasks(domain, { split: "base" })).toHaveLength(97);
      expect(selectTasks(domain, { split: "test" })).toHaveLength(97);
      // tasks.json is stale (trap T15): task_102's NL assertion differs there.
      const stale = parsePyJson(
        readFileSync(join(dataDir!, "domains", "banking_knowledge", "tasks.json"), "utf8"),
      );
      const staleTask = (stale as any[]).find((t) => t.id === "task_102");
      expect(tasks.at(-1)!.evaluation_criteria?.nl_assertions).not.toEqual(
        staleTask.evaluation_criteria.nl_assertions,
      );
    });

    it("reproduces upstream's replay of the golden sample byte for byte", () => {
      const lines = readFileSync(join(shared, "golden-sample", "banking_knowledge.jsonl"), "utf8")
        .trim()
        .split("\n");
      expect(lines).toHaveLength(13);
      for (const line of lines) {
        const golden = parsePyJson(line) as { id: string };
        const task = tasks.find((t) => t.id === golden.id)!;
        expect(pyDumps(replayRecord(domain, task), { ensureAscii: false }), golden.id).toBe(line);
      }
    });

    it("replays all 97 gold trajectories: 955 steps, none raises, the 5 known error texts, shared hashes", () => {
      let steps = 0;
      const errorTexts: string[] = [];
      let changedInitially = 0;
      for (const task of tasks) {
        const record = replayRecord(domain, task);
        expect(record.initial_user_db_hash).toBe(record.initial_agent_db_hash);
        expect(record.final_user_db_hash).toBe(record.final_agent_db_hash);
        if (record.initial_agent_db_hash !== FRESH_HASH) changedInitially++;
        for (const step of record.steps) {
          steps++;
          expect(step.error, `${step.action_id}: ${step.output}`).toBe(false);
          if (step.output.startsWith("Error")) errorTexts.push(step.action_id);
        }
      }
      expect(steps).toBe(955);
      expect(errorTexts).toEqual(["051_7", "083_6", "083_7", "083_8", "083_9"]);
      expect(changedInitially).toBe(35);
    });

    it("prints every discoverable tool's unlock and give texts as upstream does", () => {
      const spec = JSON.parse(
        readFileSync(join(shared, "specs", "banking_knowledge_discoverable_tools.json"), "utf8"),
      );
      const env = domain.makeEnvironment();
      const call = caller(env);
      for (const tool of spec.agent_discoverable_tools) {
        expect(call("unlock_discoverable_agent_tool", { agent_tool_name: tool.name }).content).toBe(
          tool.unlock_output,
        );
        expect(env.tools.getTool(tool.name)?.kind).toBe(tool.tool_type);
        expect(env.toolMutatesState(tool.name, "assistant")).toBe(tool.mutates_state);
      }
      for (const tool of spec.user_discoverable_tools) {
        expect(call("give_discoverable_user_tool", { discoverable_tool_name: tool.name }).content).toBe(
          tool.give_output_no_arguments,
        );
      }
    });

    it("composes each retrieval config's policy as upstream does (sha256 of the spec's table)", () => {
      const expected: [string, string][] = [
        ["no_knowledge", "03c468b433109e529058f9058541e116f656640f6e41682d211236de1b773982"],
        ["grep_only", "24ef71b87dbe5be0ba2099468f34b06e7beff494dcbe8c663404d65b0ebef0ea"],
        ["bm25_reranker", "430e719f33d876604547a0fb0a9f586fdfc4ae43d206699d62abb30e711b868a"],
        ["bm25_grep", "3417396339ae43679fe2797588f7b5700144ca0d968e4faef1de85dd8049065a"],
        ["openai_embeddings", "09b031d5370e3dbe728512e7d673a5aae76bc225b76c63a45449a3c928015bd9"],
        [
          "openai_embeddings_reranker_grep",
          "7ba091450240b693853e9df50816effbc5a2b455f45f31713d7d2bf633545a0a",
        ],
        ["qwen_embeddings_reranker", "03e021e355ce65b7cc22d218bb369358ec2bfae411d24ad330b90da5ba97ad73"],
        ["qwen_embeddings_grep", "61e1e7ab5690d97b8cd40569f72e9695845c7dd3a8f204cfcf7f2771186ec173"],
        ["terminal_use", "3c33b5bacdf90ff89c6aa9f20495affe720e344ef5cf1e847b6afa422befadb6"],
        ["terminal_use_write", "a861692f2cf25a46832502977c9da68440d98dc12b5e3f43d368f27e8546a589"],
        ["alltools", "a097943f9b9d8823290804e39f852f842e570e0104bee39a77720ac0bca15b0d"],
        ["alltools-qwen", "99d1d2d1b1b7748851a9faabaa75d59a5f19e4b65183e44cc6246063526a98fe"],
        ["full_kb", "22b909afdef971a83b8cc58fde5e8e859708ed86599c9cb2a6701ea3d631449e"],
      ];
      for (const [name, hash] of expected) {
        expect(sha256(domain.configure!({ retrievalConfig: name }).policy()), name).toBe(hash);
      }
      const golden = domain.configure!({ retrievalConfig: "golden_retrieval" });
      expect(sha256(golden.policy({ task: tasks[0]! }))).toBe(
        "9aa596d987a2a2a936c49904c2b1a1dc5b01b22a224726611f56cb58b20972b2",
      );
      expect(golden.makeEnvironment({ task: tasks[0]! }).policy).toBe(golden.policy({ task: tasks[0]! }));
      expect(golden.policy()).toBe("(Policy is task-specific - see 'policy' field in each simulation)");
      expect(() => domain.configure!({ retrievalConfig: "nope" })).toThrow(
        /^Unknown retrieval variant: 'nope'\. Available: \['alltools', 'alltools-qwen', 'bm25',/,
      );
    });

    it("offers each configuration's tools in upstream's order; discoverable tools are never offered", () => {
      const names = (config: string) =>
        domain.configure!({ retrievalConfig: config })
          .makeEnvironment()
          .getToolSchemas()
          .map((s) => s.function.name);
      expect(names("alltools").slice(0, 4)).toEqual([
        "KB_search_bm25",
        "KB_search_dense",
        "shell",
        "transfer_to_human_agents",
      ]);
      expect(names("bm25_grep").slice(0, 3)).toEqual(["KB_search", "grep", "transfer_to_human_agents"]);
      expect(names("no_knowledge")).toHaveLength(14);
      expect(names("alltools")).toHaveLength(17);
      const env = domain.makeEnvironment();
      expect(env.getUserToolSchemas().map((s) => s.function.name)).toEqual([
        "apply_for_credit_card",
        "submit_referral",
        "call_discoverable_user_tool",
        "list_discoverable_user_tools",
        "request_human_agent_transfer",
        "submit_transaction",
      ]);
      expect(() => env.getUserToolSchemas(["deposit_check_3847"])).toThrow(/not found/);
      const transfer = env.getToolSchemas().find((s) => s.function.name === "transfer_to_human_agents")!;
      expect(Object.keys((transfer.function.parameters as any).properties.reason)).toEqual([
        "default",
        "description",
        "enum",
        "title",
        "type",
      ]);
    });
  },
);

describe.skipIf(!dataDir)("banking_knowledge tools (skipped: TAU_DATA_DIR not set)", () => {
  let domain: Domain;
  beforeAll(() => {
    domain = bankingKnowledgeDomain.load(dataDir!);
  });

  it("hashes the fresh DB like upstream; agent and user share one DB", () => {
    const env = domain.makeEnvironment();
    expect(env.getDbHash()).toBe(FRESH_HASH);
    const call = caller(env);
    expect(
      call("submit_referral", { user_id: "76ad9cc60e", account_type: "Platinum Rewards Card" }, "user")
        .content,
    ).toContain("Referral ID: fa2896839e417592");
    expect(env.getUserDbHash()).toBe(env.getDbHash());
    expect(env.getDbHash()).not.toBe(FRESH_HASH);
    expect(domain.makeEnvironment().getDbHash()).toBe(FRESH_HASH);
  });

  it("formats records as Python's str(), keeps floats as floats, and pastes ids into JSON unescaped", () => {
    const call = caller(domain.makeEnvironment());
    expect(call("get_user_information_by_id", { user_id: "123" }).content).toBe(
      "Found 1 record(s) in 'users':\n\n1. Record ID: 123\n   name: Mia Smith\n   user_id: 123\n   address: 742 Maple Street, Austin, TX 78701\n   email: mia.smith8574@gmail.com\n   phone_number: 512-555-0147\n   date_of_birth: 03/15/1992\n",
    );
    expect(call("get_user_information_by_id", { user_id: 'a"b' }).content).toBe(
      "Error: Invalid JSON: Expecting ',' delimiter: line 1 column 16 (char 15)",
    );
    expect(call("get_user_information_by_email", { email: "nobody@example.com" }).content).toBe(
      "No records found in 'users'.",
    );
    expect(call("list_discoverable_agent_tools", {}).content).toBe(
      "Your called agent tools:\nNo records found in 'agent_discoverable_tools'.",
    );
    expect(call("get_current_time", {}).content).toBe("The current time is 2025-11-14 03:40:00 EST.");
  });

  it("gates discoverable tools behind unlock, logs calls per the allowlist, and reports Python's errors", () => {
    const task = domain.tasks().find((t) => t.id === "task_085")!;
    const env = domain.makeEnvironment({ task });
    const call = caller(env);
    const read = "get_all_user_accounts_by_user_id_3847";
    expect(call("call_discoverable_agent_tool", { agent_tool_name: read }).content).toMatch(
      /has not been unlocked/,
    );
    call("unlock_discoverable_agent_tool", { agent_tool_name: read });
    const before = env.getDbHash();
    expect(call("call_discoverable_agent_tool", { agent_tool_name: read, arguments: "{}" }).content).toBe(
      "Error: Invalid arguments: KnowledgeTools.get_all_user_accounts_by_user_id_3847() missing 1 required positional argument: 'user_id'",
    );
    expect(env.getDbHash()).toBe(before);
    const ok = call("call_discoverable_agent_tool", {
      agent_tool_name: read,
      arguments: '{"user_id": "123"}',
    });
    expect(ok.content).toMatch(/^User accounts retrieved successfully\./);
    // task_085's gold path calls this read tool, so the call is logged there; elsewhere it is not.
    expect(env.getDbHash()).not.toBe(before);
    const plain = domain.makeEnvironment();
    const plainCall = caller(plain);
    plainCall("unlock_discoverable_agent_tool", { agent_tool_name: read });
    plainCall("call_discoverable_agent_tool", { agent_tool_name: read, arguments: '{"user_id": "123"}' });
    expect(plain.getDbHash()).toBe(FRESH_HASH);
    const asObject = call("call_discoverable_agent_tool", {
      agent_tool_name: read,
      arguments: { user_id: "123" },
    });
    expect([asObject.error, asObject.content]).toEqual([
      true,
      "Error: the JSON object must be str, bytes or bytearray, not dict",
    ]);
    expect(
      call("call_discoverable_agent_tool", { agent_tool_name: read, arguments: "{user_id: 1}" }).content,
    ).toBe(
      "Error: Invalid JSON in arguments: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
    );
    expect(call("call_discoverable_agent_tool", { agent_tool_name: read, arguments: "[1]" }).content).toBe(
      "Error: Invalid arguments: tau2.domains.banking_knowledge.tools.KnowledgeTools.get_all_user_accounts_by_user_id_3847() argument after ** must be a mapping, not list",
    );
    // A discoverable tool dispatched by its own name runs without unlock or logging (trap T4).
    expect(call("get_debit_cards_by_account_id_7823", { account_id: "nope" }).content).toBe(
      "Error: Account 'nope' not found.",
    );
    expect(call("unlock_discoverable_agent_tool", { agent_tool_name: "nope" }).content).toBe(
      "Error: Unknown agent tool 'nope'. This tool is not available.",
    );
    expect(
      call("give_discoverable_user_tool", { discoverable_tool_name: "apply_for_credit_card" }).content,
    ).toBe("Error: Unknown discoverable tool 'apply_for_credit_card'.");
    expect(call("transfer_to_human_agents", { summary: "x", reason: "bored" }).content).toMatch(
      /^Error: Invalid transfer reason 'bored'\. Must be one of: fraud_or_security_concern, /,
    );
  });

  it("parses dispatcher numbers as floats (#397) and keeps user-tool gating", () => {
    const env = domain.makeEnvironment();
    const call = caller(env);
    const deposit = {
      discoverable_tool_name: "deposit_check_3847",
      arguments: '{"account_id": "nope", "check_amount": 1500}',
    };
    expect(call("call_discoverable_user_tool", deposit, "user").content).toMatch(
      /has not been given to you by the agent/,
    );
    expect(
      call("give_discoverable_user_tool", {
        discoverable_tool_name: "deposit_check_3847",
        arguments: '{"x": 1}',
      }).content,
    ).toBe("Error: Unexpected parameter: x");
    call("give_discoverable_user_tool", { discoverable_tool_name: "deposit_check_3847" });
    expect(call("call_discoverable_user_tool", deposit, "user").content).toBe(
      "Error: Account 'nope' not found.",
    );
    expect(
      call(
        "call_discoverable_user_tool",
        { discoverable_tool_name: "deposit_check_3847", arguments: "{}" },
        "user",
      ).content,
    ).toBe("Error: Missing required parameter: account_id");
    const a = domain.makeEnvironment();
    const b = domain.makeEnvironment();
    caller(a)(
      "apply_for_credit_card",
      { card_type: "Gold Rewards Card", customer_name: "X", annual_income: 100000 },
      "user",
    );
    caller(b)(
      "apply_for_credit_card",
      { card_type: "Gold Rewards Card", customer_name: "X", annual_income: parsePyJson("100000.0") },
      "user",
    );
    expect(a.getDbHash()).toBe(b.getDbHash());
  });

  it("falls back to our own wording without upstream's source, and says so", () => {
    const texts = loadBankingTexts(join(dataDir!, "nowhere"));
    expect(texts.source).toBe("paraphrased");
    expect(bankingKnowledgeDomain.load(dataDir!).upstreamTexts).toBeNull();
    const doc = texts.toolDoc("deposit_check_3847", [
      { name: "account_id", schema: { type: "string" } },
      { name: "check_amount", schema: { type: "number" } },
    ]);
    expect([...doc.parameters.keys()]).toEqual(["account_id", "check_amount"]);
    expect(doc.parameters.get("check_amount")?.type).toBe("number");
  });
});
