import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PyFloat, pyDumps } from "../core/py-json.ts";
import { loadDomain } from "../domains/registry.ts";
import { isTau1Domain, type Tau1Domain } from "../domains/tau1/index.ts";
import type { ToolSchema } from "../env/toolkit.ts";
import type { LlmRequest } from "../llm/types.ts";
import { createTau1Agent, parseTau1TextAction, tau1InstructionFallback } from "../agents/tau1-agents.ts";
import { Info } from "../core/results.ts";
import { fewShotSystemPrompt } from "../agents/tau1-agents.ts";
import {
  createTau1UnitRunner,
  fewShotDraws,
  pythonSample,
  readFewShotDisplays,
  tau1Stamp,
  tau1Texts,
} from "../runner/tau1-run.ts";
import { simulationToTau1Entry, tau1ExportContext, tau1Trajectory } from "../runner/tau1-results.ts";
import { MersenneTwister } from "../runner/seeds.ts";
import { ScriptedLlmClient, type ScriptedStep } from "../testing/scripted-model.ts";
import {
  createTau1User,
  messageObjectText,
  parseReactUserReply,
  TAU1_GREETING,
} from "../users/tau1-users.ts";
import { runTau1Episode, TAU1_MAX_STEPS } from "./tau1-episode.ts";

const dataDir = process.env.TAU1_DATA_DIR;
const hasData = Boolean(dataDir && existsSync(join(dataDir, "retail")));

describe("few-shot draws and the ReAct parser (no data needed)", () => {
  it("draws like CPython's random.sample after random.seed (values from python3)", () => {
    const large = new MersenneTwister(10);
    expect([0, 1, 2].map(() => pythonSample(large, 69, 5))).toEqual([
      [4, 54, 61, 1, 26],
      [59, 62, 35, 20, 4],
      [66, 62, 41, 9, 31],
    ]);
    const small = new MersenneTwister(10);
    expect([0, 1, 2].map(() => pythonSample(small, 19, 5))).toEqual([
      [18, 1, 13, 15, 9],
      [0, 6, 14, 15, 13],
      [8, 5, 1, 15, 17],
    ]);
    expect(pythonSample(new MersenneTwister(7), 30, 12)).toEqual([
      10, 4, 12, 20, 1, 2, 17, 3, 11, 18, 25, 16,
    ]);
    // Upstream draws in run order, trial by trial: the second task of trial 0 gets the second draw.
    const tasks = [{ id: "0" }, { id: "1" }] as never[];
    const draws = fewShotDraws(10, tasks, 2, 69);
    expect(draws.get("0\u00001")).toEqual([59, 62, 35, 20, 4]);
    expect(draws.get("1\u00000")).toEqual([66, 62, 41, 9, 31]);
  });

  it("parses text actions as upstream does, falling back to a reply for non-JSON", () => {
    expect(
      parseTau1TextAction(
        "react",
        'Thought:\nlook\nAction:\n{"name": "calculate", "arguments": {"expression": "2.0"}}',
      ),
    ).toEqual({
      name: "calculate",
      kwargs: { expression: "2.0" },
    });
    expect(parseTau1TextAction("act", "Action: hello there")).toEqual({
      name: "respond",
      kwargs: { content: "hello there" },
    });
    expect(parseTau1TextAction("act", "no marker at all ")).toEqual({
      name: "respond",
      kwargs: { content: "no marker at all" },
    });
    const floats = parseTau1TextAction("act", 'Action: {"name": "x", "arguments": {"n": 2.0, "m": 2}}');
    expect(floats.kwargs.n).toBeInstanceOf(PyFloat);
    expect(floats.kwargs.m).toBe(2);
    expect(() => parseTau1TextAction("act", 'Action: {"name": "x"}')).toThrow(/lacks "name" or "arguments"/);
    expect(() => parseTau1TextAction("act", "Action: [1, 2]")).toThrow(/not an object/);
  });

  it("parses the react user's replies with upstream's quirk", () => {
    expect(parseReactUserReply("Thought:\nI am done\nUser Response:\n###STOP###")).toBe("###STOP###");
    // Everything after "Thought:", the thought and the label included.
    expect(parseReactUserReply("Thought:\nask\n\nUser Response:\nWhere is my order?")).toBe(
      "ask\n\nUser Response:\nWhere is my order?",
    );
    expect(parseReactUserReply("User Response: hi")).toBe("hi");
    expect(() => parseReactUserReply("Thought: a Thought: b")).toThrow(/too many values to unpack/);
    expect(() => parseReactUserReply("just text")).toThrow(/^Invalid response format: just text$/);
  });

  it("shows the verifier the reply as the provider's message object", () => {
    expect(messageObjectText("it's fine")).toBe(
      `content="it's fine" role='assistant' tool_calls=None function_call=None`,
    );
  });
});

/** A user model that says `first`, then stops after the agent's `stopAfter`-th reply. */
function userSteps(...steps: string[]): ScriptedStep[] {
  return steps.map((content) => ({ content, costUsd: 0.001 }));
}

const call = (name: string, args: Record<string, unknown>, id = `call_${name}`) => ({
  toolCalls: [{ id, name, arguments: args, requestor: "assistant" as const }],
  costUsd: 0.01,
});

describe.skipIf(!hasData)("tau1 episodes with scripted models (skipped: TAU1_DATA_DIR not set)", () => {
  const domain = (name: string): Tau1Domain => {
    const loaded = loadDomain(name, dataDir!);
    if (!isTau1Domain(loaded)) throw new Error("not tau1");
    return loaded;
  };
  const retail = () => domain("tau1-retail");

  function setup(
    d: Tau1Domain,
    strategy: "tool-calling" | "react" | "act",
    agentSteps: ScriptedStep[],
    user: ScriptedStep[],
  ) {
    const agentLlm = new ScriptedLlmClient(agentSteps, { model: "scripted/agent" });
    const userLlm = new ScriptedLlmClient(user, { model: "scripted/user" });
    const texts = tau1Texts(d, strategy);
    const agent = createTau1Agent({
      strategy,
      llm: agentLlm,
      llmArgs: { temperature: new PyFloat(0) },
      wiki: d.tau1.wiki(),
      toolsInfo: d.tau1.toolsInfo() as unknown as ToolSchema[],
      instruction: texts.instruction,
    });
    const simulatedUser = createTau1User("llm", { llm: userLlm, llmArgs: {}, texts: texts.user });
    return { agentLlm, userLlm, agent, user: simulatedUser };
  }

  it("runs a gold tool-calling episode to reward 1.0, with upstream's info and trajectory", async () => {
    const d = retail();
    const task = d.tau1.tasksOf("test").find((t) => d.tau1.record(t).outputs.length > 0)!;
    const record = d.tau1.record(task);
    const steps: ScriptedStep[] = [
      ...record.actions.map((action, i) => call(action.name, action.kwargs, `call_${i}`)),
      { content: `Here you go: ${record.outputs.join(" and ")}.`, costUsd: 0.02 },
    ];
    const { agentLlm, userLlm, agent, user } = setup(
      d,
      "tool-calling",
      steps,
      userSteps("Hello, I need help.", "###STOP###"),
    );
    const simulation = await runTau1Episode({
      domain: d,
      task,
      agent,
      user,
      maxSteps: TAU1_MAX_STEPS,
      seed: 1,
      trial: 0,
    });
    expect(simulation.termination_reason).toBe("user_stop");
    expect(simulation.reward_info?.reward).toBe(1);
    expect(simulation.reward_info?.db_check?.db_match).toBe(true);
    expect(simulation.info?.tau1).toEqual({ user_id: record.user_id, source: "user", user_cost: 0.001 });
    expect(simulation.agent_cost).toBeCloseTo(0.01 * record.actions.length + 0.02);
    // The agent got the policy alone as its system prompt, then the user's first message; the user the greeting.
    const first = agentLlm.requests[0]!;
    expect(first.messages[0]).toEqual({ role: "system", content: d.tau1.wiki() });
    expect(first.messages[1]).toEqual({ role: "user", content: "Hello, I need help." });
    expect(first.tools?.map((tool) => tool.function.name)).toContain("think");
    expect(first.args).toEqual({ temperature: new PyFloat(0) });
    expect(userLlm.requests[0]!.messages[1]).toEqual({ role: "user", content: TAU1_GREETING });
    expect(userLlm.requests[0]!.args).toEqual({});
    // τ-bench's results entry: the task, the reward_info with only the outputs part, the agent's context.
    const entry = simulationToTau1Entry(simulation, task, {
      strategy: "tool-calling",
      policy: d.tau1.wiki(),
      textPrompt: null,
      displays: null,
    });
    const py = JSON.parse(pyDumps(entry));
    expect(Object.keys(py)).toEqual(["task_id", "reward", "info", "traj", "trial"]);
    expect(Object.keys(py.info)).toEqual(["task", "source", "user_cost", "reward_info"]);
    expect(Object.keys(py.info.task)).toEqual(["user_id", "actions", "instruction", "outputs"]);
    expect(Object.keys(py.info.reward_info.info)).toEqual(["r_outputs", "outputs"]);
    expect(pyDumps(entry)).toContain('"reward": 1.0');
    expect(py.traj[0]).toEqual({ role: "system", content: d.tau1.wiki() });
    expect(py.traj[2].tool_calls[0].function.name).toBe(record.actions[0]!.name);
    expect(py.traj[3]).toMatchObject({ role: "tool", tool_call_id: "call_0", name: record.actions[0]!.name });
    expect(py.traj.at(-1)).toEqual({ role: "user", content: "###STOP###" });
  });

  it("ends at the transfer with grading, and at 30 agent steps without grading", async () => {
    const d = retail();
    const task = d.tau1.tasksOf("test")[0]!;
    const transfer = setup(
      d,
      "tool-calling",
      [call("transfer_to_human_agents", { summary: "help" })],
      userSteps("Hi"),
    );
    const transferred = await runTau1Episode({
      domain: d,
      task,
      ...transfer,
      maxSteps: 30,
      seed: 1,
      trial: 0,
    });
    expect(transferred.termination_reason).toBe("agent_stop");
    expect(transferred.reward_info?.db_check?.db_match).toBe(false);
    expect(transferred.reward_info?.reward).toBe(0);
    expect(transfer.agentLlm.requests).toHaveLength(1);
    expect(transferred.info?.tau1).toMatchObject({ source: "transfer_to_human_agents", user_cost: 0.001 });

    const thinker = setup(
      d,
      "tool-calling",
      Array.from({ length: 40 }, () => call("think", { thought: "hm" })),
      userSteps("Hi"),
    );
    const limited = await runTau1Episode({
      domain: d,
      task,
      ...thinker,
      maxSteps: TAU1_MAX_STEPS,
      seed: 1,
      trial: 0,
    });
    expect(limited.termination_reason).toBe("max_steps");
    expect(limited.reward_info?.reward).toBe(0);
    expect(limited.reward_info?.db_check).toBeNull();
    expect(thinker.agentLlm.requests).toHaveLength(30);
    expect(limited.info?.tau1).toMatchObject({ source: "think", user_cost: null });
    // Every tool result the model saw came back as a tool message with the call's id.
    const last = thinker.agentLlm.requests.at(-1)!.messages.at(-1)!;
    expect(last).toEqual({ role: "tool", content: "", toolCallId: "call_think", toolName: "think" });
  });

  it("runs a ReAct episode: tools in the prompt, API output observations, a non-JSON reply goes to the user", async () => {
    const d = domain("tau1-airline");
    const task = d.tau1.tasksOf("test")[12]!; // a task without actions: nothing to change
    expect(d.tau1.record(task).actions).toHaveLength(0);
    const steps: ScriptedStep[] = [
      {
        content:
          'Thought:\nLook the user up.\nAction:\n{"name": "get_user_details", "arguments": {"user_id": "nobody"}}',
      },
      { content: "Thought:\nNo such user.\nAction:\nSorry, I cannot find you." },
    ];
    const run = setup(d, "react", steps, userSteps("Hi there", "###STOP###"));
    const simulation = await runTau1Episode({ domain: d, task, ...run, maxSteps: 30, seed: 1, trial: 0 });
    expect(simulation.termination_reason).toBe("user_stop");
    expect(simulation.reward_info?.reward).toBe(1);
    const system = run.agentLlm.requests[0]!.messages[0]!.content as string;
    expect(system.startsWith(`${d.tau1.wiki()}\n#Available tools\n[{"type": "function"`)).toBe(true);
    expect(system.endsWith(tau1InstructionFallback("react"))).toBe(true);
    expect(run.agentLlm.requests[0]!.tools).toBeUndefined();
    expect(run.agentLlm.requests[1]!.messages.at(-1)).toEqual({
      role: "user",
      content: "API output: Error: user not found",
    });
    expect(run.userLlm.requests[1]!.messages.at(-1)).toEqual({
      role: "user",
      content: "Sorry, I cannot find you.",
    });
    const traj = tau1Trajectory("react", system, simulation.messages);
    expect(traj.map((m) => m.get("role"))).toEqual([
      "system",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
    expect(traj[2]!.get("content")).toBe(steps[0]! && (steps[0] as { content: string }).content);
  });

  it("verify and reflection users call the checker and record only the last generation's cost", async () => {
    const d = retail();
    const texts = tau1Texts(d, "tool-calling").user;
    const checks: LlmRequest[] = [];
    let generated = 0;
    const llm = new ScriptedLlmClient((request) => {
      if (request.messages[0]!.role !== "system") {
        checks.push(request);
        return { content: checks.length < 3 ? "false" : "true", costUsd: 0.5 };
      }
      generated += 1;
      return { content: `reply ${generated}`, costUsd: 0.01 * generated };
    });
    const verify = createTau1User("verify", { llm, llmArgs: {}, texts });
    const reply = await verify.reset("Return the lamp.");
    // Two rejections, then the third reply is accepted.
    expect(reply.text).toBe("reply 3");
    expect(reply.calls).toBe(6);
    expect(reply.lastCallCostUsd).toBeCloseTo(0.03);
    expect(reply.costUsd).toBeCloseTo(0.01 + 0.02 + 0.03 + 1.5);
    const prompt = checks[0]!.messages[0]!.content as string;
    expect(prompt).toContain("System: ");
    expect(prompt).toContain(`Customer: ${TAU1_GREETING}`);
    expect(prompt).toContain("content='reply 1' role='assistant'");

    const reflect = createTau1User("reflection", {
      llm: new ScriptedLlmClient([
        { content: "first try", costUsd: 0.1 },
        { content: "false" },
        { content: "Reflection:\ntoo vague\n\nResponse:\nI want to return the lamp." },
        { content: "second try", costUsd: 0.2 },
        { content: "false" },
      ]),
      llmArgs: {},
      texts,
    });
    const kept = await reflect.reset("Return the lamp.");
    // Rejected twice: the first reply stands; the last generation's cost is recorded.
    expect(kept.text).toBe("first try");
    expect(kept.calls).toBe(5);
    expect(kept.lastCallCostUsd).toBeCloseTo(0.2);
  });

  it("few-shot draws five displays per episode into the system prompt, and the export rebuilds it", async () => {
    const d = domain("tau1-airline");
    const task = d.tau1.tasksOf("test")[12]!;
    const agentLlm = new ScriptedLlmClient([{ content: "Hello." }], { model: "scripted/agent" });
    const userLlm = new ScriptedLlmClient(userSteps("Hi", "###STOP###"), { model: "scripted/user" });
    const run = createTau1UnitRunner({
      domain: d,
      agent: "few-shot",
      user: "llm",
      agentLlm,
      userLlm,
      agentLlmArgs: {},
      userLlmArgs: {},
      maxSteps: 30,
      timeoutMs: null,
      seed: 10,
      tasks: [task],
      trials: 1,
      fewShotPath: null,
    });
    const simulation = await run({ trial: 0, task, seed: 1 }, new AbortController().signal);
    const { displays } = readFewShotDisplays(d.tau1.fewShotPath());
    const drawn = pythonSample(new MersenneTwister(10), displays.length, 5);
    expect((simulation.info?.tau1 as { few_shot?: number[] } | undefined)?.few_shot).toEqual(drawn);
    const system = agentLlm.requests[0]!.messages[0]!.content as string;
    expect(system).toBe(
      fewShotSystemPrompt(
        d.tau1.wiki(),
        drawn.map((i) => displays[i]!),
      ),
    );
    expect(system).toContain("\n\nExample 5:\n");
    const context = tau1ExportContext(
      Info.parse({
        git_commit: "x",
        num_trials: 1,
        max_steps: 30,
        max_errors: 0,
        user_info: { implementation: "llm" },
        agent_info: { implementation: "few-shot" },
        environment_info: { domain_name: d.name, policy: d.tau1.wiki() },
        taubench: { format_version: 1, version: "0", tau1: { agent_strategy: "few-shot" } },
      }),
      d,
    );
    const traj = simulationToTau1Entry(simulation, task, context).get("traj") as Map<string, unknown>[];
    expect(traj[0]!.get("content")).toBe(system);
  });

  it("act agents get the act instruction; the human user sees the instruction and the agent's words", async () => {
    const d = retail();
    const task = d.tau1.tasksOf("test")[0]!;
    const act = setup(
      d,
      "act",
      [{ content: 'Action:\n{"name": "think", "arguments": {"thought": "x"}}' }],
      [],
    );
    const asked: string[] = [];
    const human = createTau1User("human", {
      llm: null,
      llmArgs: {},
      texts: tau1Texts(d, "act").user,
      human: {
        ask: async (prompt) => {
          asked.push(prompt);
          return asked.length === 1 ? "I want to exchange things." : "###STOP###";
        },
      },
    });
    const simulation = await runTau1Episode({
      domain: d,
      task,
      agent: act.agent,
      user: human,
      maxSteps: 1,
      seed: null,
      trial: 0,
    });
    expect(simulation.termination_reason).toBe("max_steps");
    expect(
      (act.agentLlm.requests[0]!.messages[0]!.content as string).endsWith(tau1InstructionFallback("act")),
    ).toBe(true);
    expect(asked).toEqual([`${d.tau1.record(task).instruction}\n`]);
    expect(simulation.user_cost).toBe(0);
  });

  it("with upstream's texts in the data folder the models get upstream's words, and the run says so", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tau1-upstream-texts-"));
    for (const part of ["retail", "airline", "few_shot"]) symlinkSync(join(dataDir!, part), join(dir, part));
    mkdirSync(join(dir, "texts"));
    // Stand-ins with upstream's shape (its real texts come from `tau data pull --tau1`; texts.test.ts checks them).
    writeFileSync(join(dir, "texts", "react_instruction.txt"), "\nUPSTREAM REACT INSTRUCTION\n");
    writeFileSync(
      join(dir, "texts", "user_llm_system.txt"),
      "UPSTREAM USER{instruction_display}\nRules:\n- r",
    );
    const d = loadDomain("tau1-airline", dir);
    if (!isTau1Domain(d)) throw new Error("not tau1");
    const task = d.tau1.tasksOf("test")[12]!;
    const run = setup(d, "react", [{ content: "Action: bye" }], userSteps("Hi", "###STOP###"));
    await runTau1Episode({ domain: d, task, ...run, maxSteps: 30, seed: 1, trial: 0 });
    expect(
      (run.agentLlm.requests[0]!.messages[0]!.content as string).endsWith("\nUPSTREAM REACT INSTRUCTION\n"),
    ).toBe(true);
    expect(run.userLlm.requests[0]!.messages[0]!.content).toBe(
      `UPSTREAM USER\n\nInstruction: ${d.tau1.record(task).instruction}\n\nRules:\n- r`,
    );
    expect(tau1Stamp(d, "react", "llm", null)).toMatchObject({
      prompts: "upstream",
      texts: { tools_info: "upstream", react_instruction: "upstream", user_llm_system: "upstream" },
    });
    expect(tau1Stamp(d, "act", "verify", null)).toMatchObject({ prompts: "paraphrased" });
  });
});
