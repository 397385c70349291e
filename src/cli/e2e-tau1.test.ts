/**
 * End to end on the original τ-bench: `tau run --domain tau1-retail` with the
 * tool-calling agent and the llm user, both scripted on the fake provider
 * (OpenAI Chat Completions on 127.0.0.1); then τ-bench's own results file is
 * read by `tau view`, re-graded by `tau evaluate-trajs` and compared.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDomain } from "../domains/registry.ts";
import { isTau1Domain, type Tau1Domain } from "../domains/tau1/index.ts";
import {
  type FakeProvider,
  type FakeReply,
  type FakeRequest,
  startFakeProvider,
} from "../testing/fake-provider.ts";
import { runTau } from "./e2e-harness.ts";

const dataDir = process.env.TAU1_DATA_DIR;
const hasData = Boolean(dataDir && existsSync(join(dataDir, "retail")));

/** The agent's system prompt is the policy; the simulated user's holds its instruction. */
function roleOf(request: FakeRequest): "agent" | "user" {
  const system = request.body.messages?.[0];
  return system?.role === "system" && String(system.content).includes("\nInstruction: ") ? "user" : "agent";
}

/** How many replies the participant has given so far in this conversation. */
function turnOf(request: FakeRequest): number {
  return (request.body.messages as { role: string }[]).filter((message) => message.role === "assistant")
    .length;
}

describe.skipIf(!hasData)(
  "tau run on tau1-retail against the fake provider (skipped: TAU1_DATA_DIR not set)",
  () => {
    let fake: FakeProvider;
    let cwd: string;
    let env: Record<string, string>;
    let domain: Tau1Domain;
    const goldId = 5;
    const wrongId = 6;

    beforeAll(async () => {
      fake = await startFakeProvider();
      cwd = mkdtempSync(join(tmpdir(), "tau-e2e-tau1-"));
      env = { OPENAI_API_KEY: "sk-test-dummy", OPENAI_BASE_URL: fake.openaiBaseUrl, TAU1_DATA_DIR: dataDir! };
      const loaded = loadDomain("tau1-retail", dataDir!);
      if (!isTau1Domain(loaded)) throw new Error("not tau1");
      domain = loaded;
      // The agent plays task 5's gold actions and says its outputs; on task 6 it only talks.
      const tasks = domain.tau1.tasksOf("test");
      const gold = domain.tau1.record(tasks[goldId]!);
      const goldInstruction = gold.instruction;
      fake.setHandler((request): FakeReply => {
        const turn = turnOf(request);
        if (roleOf(request) === "user") {
          if (turn > 0) return { text: "###STOP###" };
          const system = String(request.body.messages[0].content);
          return { text: system.includes(goldInstruction) ? "Hi, gold task here." : "Hi, other task." };
        }
        if (request.body.messages[1].content !== "Hi, gold task here.")
          return { text: "Sorry, I cannot help." };
        const action = gold.actions[turn];
        if (action)
          return { toolCalls: [{ id: `call_${turn}`, name: action.name, arguments: action.kwargs }] };
        return { text: `Done. ${gold.outputs.join(", ")}` };
      });
    });
    afterAll(async () => {
      await fake?.close();
      if (cwd) rmSync(cwd, { recursive: true, force: true });
    });

    const args = (saveTo: string) => [
      "run",
      "--no-preflight",
      "--domain",
      "tau1-retail",
      "--task-ids",
      `${goldId},${wrongId}`,
      "--num-trials",
      "2",
      "--agent-llm",
      "openai/gpt-4o",
      "--max-concurrency",
      "3",
      "--save-to",
      saveTo,
    ];

    it("writes our checkpoint and τ-bench's results list; view, evaluate-trajs and compare read it", async () => {
      const path = join(cwd, "runs", "a", "results.json");
      const run = await runTau(args(path), { cwd, env });
      expect(run.status, run.stderr).toBe(0);
      expect(existsSync(join(cwd, "runs", "a", "results.jsonl"))).toBe(true);
      expect(run.stdout).toContain("τ-bench's own numbers");
      const entries = JSON.parse(readFileSync(path, "utf8")) as Record<string, any>[];
      expect(entries.map((entry) => [entry.trial, entry.task_id, entry.reward])).toEqual([
        [0, goldId, 1],
        [0, wrongId, 0],
        [1, goldId, 1],
        [1, wrongId, 0],
      ]);
      expect(readFileSync(path, "utf8")).toContain('"reward": 1.0');
      const first = entries[0]!;
      expect(Object.keys(first)).toEqual(["task_id", "reward", "info", "traj", "trial"]);
      expect(first.info.task.user_id).toBe(domain.tau1.record(domain.tau1.tasksOf("test")[goldId]!).user_id);
      expect(first.info.reward_info.info.r_actions ?? first.info.reward_info.info.r_outputs).toBe(1);
      expect(first.traj[0]).toEqual({ role: "system", content: domain.tau1.wiki() });
      // The user simulator got no temperature (upstream passes none); the agent temperature 0.
      const userRequest = fake.requests.find((request) => roleOf(request) === "user")!;
      expect(userRequest.body.temperature).toBeUndefined();
      expect(userRequest.body.model).toBe("gpt-4o");
      const agentRequest = fake.requests.find((request) => roleOf(request) === "agent")!;
      expect(agentRequest.body.temperature).toBe(0);
      expect(agentRequest.body.tools.map((tool: any) => tool.function.name)).toContain("think");

      // Resuming the finished run runs nothing.
      const before = fake.requests.length;
      const again = await runTau(args(path), { cwd, env });
      expect(again.status, again.stderr).toBe(0);
      expect(fake.requests.length).toBe(before);

      // The results list alone (as upstream writes it) needs --domain, then reads like any run.
      const bare = await runTau(["view", path], { cwd, env });
      expect(bare.status).toBe(2);
      expect(bare.stderr).toMatch(
        /τ-bench results file .* pass --domain tau1-retail or --domain tau1-airline/,
      );
      const view = await runTau(["view", path, "--domain", "tau1-retail"], { cwd, env });
      expect(view.status, view.stderr).toBe(0);
      expect(view.stdout).toContain("Pass^k: k=1 0.500  k=2 0.500");
      const one = await runTau(
        ["view", path, "--domain", "tau1-retail", "--task", String(goldId), "--trial", "1"],
        {
          cwd,
          env,
        },
      );
      expect(one.status, one.stderr).toBe(0);
      expect(one.stdout).toContain(domain.tau1.record(domain.tau1.tasksOf("test")[goldId]!).actions[0]!.name);

      const regraded = await runTau(["evaluate-trajs", path, "--domain", "tau1-retail", "--judge", "none"], {
        cwd,
        env,
      });
      expect(regraded.status, regraded.stderr).toBe(0);
      expect(regraded.stdout).toContain("No reward changed.");
      const updated = JSON.parse(
        readFileSync(join(cwd, "runs", "a", "updated_results.json"), "utf8"),
      ) as any[];
      expect(updated.map((entry) => entry.reward)).toEqual([1, 0, 1, 0]);
      expect(updated[0].traj).toEqual(entries[0]!.traj);

      const compared = await runTau(["compare", join(cwd, "runs", "a"), path, "--domain", "tau1-retail"], {
        cwd,
        env,
      });
      expect(compared.status, compared.stderr).toBe(0);
      expect(compared.stdout).toContain(
        "τ-bench's pass^k (its formula, errors as 0): A 0.500 / 0.500  B 0.500 / 0.500",
      );

      // `tau plan` sizes a comparison from the τ-bench list as from the checkpoint.
      const planned = await runTau(["plan", path, "--domain", "tau1-retail"], { cwd, env });
      expect(planned.status, planned.stderr).toBe(0);
      expect(planned.stdout).toContain("2 tasks, 2 trials per task, pass^1 0.500");

      // `tau export` of the checkpoint writes the same τ-bench list.
      const exported = join(cwd, "exported.json");
      const exportRun = await runTau(["export", join(cwd, "runs", "a"), "--output", exported], { cwd, env });
      expect(exportRun.status, exportRun.stderr).toBe(0);
      expect(readFileSync(exported, "utf8")).toBe(readFileSync(path, "utf8"));
    }, 300_000);

    it("a response cache replays a whole τ-bench run offline", async () => {
      const cache = join(cwd, "cache");
      const first = await runTau([...args(join(cwd, "runs", "c1", "results.json")), "--llm-cache", cache], {
        cwd,
        env,
      });
      expect(first.status, first.stderr).toBe(0);
      const before = fake.requests.length;
      const second = await runTau([...args(join(cwd, "runs", "c2", "results.json")), "--llm-cache", cache], {
        cwd,
        env,
      });
      expect(second.status, second.stderr).toBe(0);
      expect(fake.requests.length).toBe(before);
      const rewards = (run: string) =>
        (
          JSON.parse(readFileSync(join(cwd, "runs", run, "results.json"), "utf8")) as { reward: number }[]
        ).map((entry) => entry.reward);
      expect(rewards("c2")).toEqual(rewards("c1"));
    }, 300_000);

    it("refuses τ²-bench agents and unknown strategies on these domains in one line", async () => {
      const bad = await runTau([...args(join(cwd, "bad.json")), "--agent", "llm_agent"], { cwd, env });
      expect(bad.status).toBe(2);
      expect(bad.stderr.trim()).toBe(
        "tau: Unknown agent 'llm_agent' for the original τ-bench domains. Known agent strategies: tool-calling, act, react, few-shot",
      );
      const user = await runTau([...args(join(cwd, "bad2.json")), "--user-strategy", "nope"], { cwd, env });
      expect(user.status).toBe(2);
      expect(user.stderr).toContain("Known user strategies: llm, react, verify, reflection, human");
    }, 120_000);
  },
);
