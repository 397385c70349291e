import { describe, expect, it } from "vitest";
import type { Agent, AgentInput } from "../agents/types.ts";
import {
  type AssistantMessage,
  assistantMessage,
  type Message,
  type ToolCall,
  type UserMessage,
  userMessage,
} from "../core/messages.ts";
import { InfrastructureError } from "../core/errors.ts";
import type { Task } from "../core/task.ts";
import { loadDomain } from "../domains/registry.ts";
import type { Domain } from "../domains/types.ts";
import { deepClone } from "../env/model.ts";
import { LlmError } from "../llm/errors.ts";
import type { User, UserInput } from "../users/types.ts";
import { runEpisode } from "./episode.ts";
import { GREETING_TEXT, Orchestrator, type OrchestratorOptions, trajectoryCosts } from "./orchestrator.ts";

const dataDir = process.env.TAU_DATA_DIR;

type Reply<M> = Partial<Omit<M, "role">>;

/** A scripted agent: `script(input, turn)` gives each reply; it records what it was told. */
class FakeAgent implements Agent<Message[]> {
  readonly name = "fake_agent";
  readonly inputs: AgentInput[] = [];
  readonly initHistories: Message[][] = [];
  readonly seeds: number[] = [];
  constructor(
    private readonly script: (input: AgentInput, turn: number) => Reply<AssistantMessage>,
    private readonly stopToken: string | null = null,
  ) {}
  initState(history: readonly Message[]): Message[] {
    this.initHistories.push([...history]);
    return [...history];
  }
  async generate(input: AgentInput, state: Message[]) {
    this.inputs.push(input);
    const message = assistantMessage(this.script(input, this.inputs.length - 1));
    return { message, state: [...state, message] };
  }
  isStop(message: AssistantMessage): boolean {
    return this.stopToken !== null && (message.content ?? "").includes(this.stopToken);
  }
  setSeed(seed: number): void {
    this.seeds.push(seed);
  }
}

/** A scripted user, same idea. */
class FakeUser implements User<Message[]> {
  readonly name = "fake_user";
  readonly inputs: UserInput[] = [];
  readonly initHistories: Message[][] = [];
  readonly seeds: number[] = [];
  constructor(private readonly script: (input: UserInput, turn: number) => Reply<UserMessage>) {}
  initState(history: readonly Message[]): Message[] {
    this.initHistories.push([...history]);
    return [...history];
  }
  async generate(input: UserInput, state: Message[]) {
    this.inputs.push(input);
    const message = userMessage(this.script(input, this.inputs.length - 1));
    return { message, state: [...state, message] };
  }
  setSeed(seed: number): void {
    this.seeds.push(seed);
  }
}

const tc = (
  id: string,
  name: string,
  args: Record<string, unknown> = {},
  requestor: "assistant" | "user" = "assistant",
): ToolCall => ({
  id,
  name,
  arguments: args,
  requestor,
});

/** Text of whatever the user was last sent. */
const textOf = (input: UserInput | AgentInput): string =>
  input && "content" in input && input.role !== "tool" ? (input.content ?? "") : "";

describe.skipIf(!dataDir)("Orchestrator on mock (skipped: TAU_DATA_DIR not set)", () => {
  const domain: Domain = dataDir ? loadDomain("mock", dataDir) : (undefined as never);
  const task = (id: string): Task => {
    const found = domain.tasks().find((t) => t.id === id);
    if (!found) throw new Error(`no task ${id}`);
    return deepClone(found);
  };
  const make = (
    t: Task,
    agent: FakeAgent,
    user: FakeUser,
    extra: Partial<OrchestratorOptions> = {},
  ): Orchestrator =>
    new Orchestrator({
      environment: domain.makeEnvironment({ soloMode: extra.soloMode ?? false }),
      task: t,
      agent,
      user,
      soloMode: false,
      ...extra,
    });
  const chatty = () => new FakeAgent((_, turn) => ({ content: `agent ${turn}`, cost: 0.5 }));
  const talker = (stopAt = Number.POSITIVE_INFINITY) =>
    new FakeUser((_, turn) => ({ content: turn >= stopAt ? "bye ###STOP###" : `user ${turn}`, cost: 0.25 }));

  it("opens with the greeting: agent → user, step 0, trajectory = [greeting]", async () => {
    const agent = chatty();
    const user = talker();
    const orchestrator = make(task("create_task_1"), agent, user, { seed: 42 });
    await orchestrator.initialize();
    expect(orchestrator.fromRole).toBe("agent");
    expect(orchestrator.toRole).toBe("user");
    expect(orchestrator.stepCount).toBe(0);
    expect(orchestrator.trajectory).toHaveLength(1);
    expect(orchestrator.trajectory[0]).toMatchObject({ role: "assistant", content: GREETING_TEXT, cost: 0 });
    expect(agent.initHistories).toEqual([[orchestrator.trajectory[0]]]);
    expect(user.initHistories).toEqual([[]]);
    expect(agent.seeds).toEqual([42]);
    expect(user.seeds).toEqual([42]);

    await orchestrator.step();
    expect(orchestrator.trajectory[1]).toMatchObject({ role: "user", content: "user 0" });
    expect(user.inputs[0]).toBe(orchestrator.trajectory[0]);
    expect([orchestrator.fromRole, orchestrator.toRole, orchestrator.stepCount]).toEqual([
      "user",
      "agent",
      1,
    ]);
    await orchestrator.step();
    expect(orchestrator.trajectory[2]).toMatchObject({ role: "assistant", content: "agent 0" });
    expect([orchestrator.fromRole, orchestrator.toRole, orchestrator.stepCount]).toEqual([
      "agent",
      "user",
      2,
    ]);
  });

  it("resumes a message-history task from its last message with filtered participant states", async () => {
    const agent = chatty();
    const user = talker();
    const before = Date.now();
    const orchestrator = make(task("update_task_with_message_history"), agent, user);
    await orchestrator.initialize();
    const trajectory = orchestrator.trajectory;
    expect(trajectory.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(trajectory.every((m) => m.turn_idx === null)).toBe(true);
    // back-dated one second apart, ending a second before now
    const times = trajectory.map((m) => new Date(m.timestamp!).getTime());
    expect(times[3]! - times[0]!).toBe(3000);
    expect(times[3]!).toBeLessThan(before);
    expect([orchestrator.fromRole, orchestrator.toRole]).toEqual(["agent", "user"]);
    expect(orchestrator.message).toBe(trajectory[3]);
    // the agent sees everything of its own; the user lacks the agent's tool traffic and the undelivered last message
    expect(agent.initHistories[0]).toHaveLength(4);
    expect(user.initHistories[0]?.map((m) => m.role)).toEqual(["user"]);
    // the history's create_task was replayed into the live environment
    const env = (orchestrator as unknown as { options: OrchestratorOptions }).options.environment;
    expect(
      env.runEnvAssertion({
        env_type: "assistant",
        func_name: "assert_task_status",
        arguments: { task_id: "task_2", expected_status: "pending" },
        assert_value: true,
        message: null,
      }),
    ).toBe(true);
    await orchestrator.step();
    expect(user.inputs[0]).toBe(trajectory[3]);
  });

  it("applies initialization data and actions before anything else", async () => {
    for (const id of ["update_task_with_initialization_data", "update_task_with_initialization_actions"]) {
      const environment = domain.makeEnvironment();
      const orchestrator = new Orchestrator({
        environment,
        task: task(id),
        agent: chatty(),
        user: talker(),
        soloMode: false,
      });
      await orchestrator.initialize();
      const assertion = {
        env_type: "assistant" as const,
        func_name: "assert_task_status",
        arguments: { task_id: "task_2", expected_status: "pending" },
        assert_value: true,
        message: null,
      };
      expect(environment.runEnvAssertion(assertion), id).toBe(true);
    }
    const environment = domain.makeEnvironment();
    await new Orchestrator({
      environment,
      task: task("update_task_with_user_tools"),
      agent: chatty(),
      user: talker(),
      soloMode: false,
    }).initialize();
    expect(
      environment.runEnvAssertion({
        env_type: "user",
        func_name: "assert_notification_status",
        arguments: { notification_id: "notif_1", expected_status: "unread" },
        assert_value: true,
        message: null,
      }),
    ).toBe(true);
  });

  it("routes histories ending in a user message, a tool result, or a stop", async () => {
    const withHistory = (history: Message[]): Task => ({
      ...task("create_task_1"),
      initial_state: { initialization_data: null, initialization_actions: null, message_history: history },
    });
    const agent = chatty();
    const user = talker();
    const endsWithUser = make(
      withHistory([assistantMessage({ content: "Hello" }), userMessage({ content: "Hi there" })]),
      agent,
      user,
    );
    await endsWithUser.initialize();
    expect([endsWithUser.fromRole, endsWithUser.toRole]).toEqual(["user", "agent"]);
    expect(agent.initHistories[0]?.map((m) => m.content)).toEqual(["Hello"]);
    expect(user.initHistories[0]?.map((m) => m.content)).toEqual(["Hello", "Hi there"]);

    const call = tc("c1", "get_users");
    const endsWithTool = make(
      withHistory([
        userMessage({ content: "Who is there?" }),
        assistantMessage({ tool_calls: [call] }),
        {
          role: "tool",
          id: "c1",
          content: "[]",
          requestor: "assistant",
          error: false,
          turn_idx: null,
          timestamp: null,
        },
      ]),
      chatty(),
      talker(),
    );
    await endsWithTool.initialize();
    expect([endsWithTool.fromRole, endsWithTool.toRole]).toEqual(["env", "agent"]);

    // the user's own tool traffic: a result in the history goes back to the user, never to the agent
    const userCall = tc("u1", "check_notifications", {}, "user");
    const userToolHistory: Message[] = [
      assistantMessage({ content: "Hello" }),
      userMessage({ tool_calls: [userCall] }),
      {
        role: "tool",
        id: "u1",
        content: "[]",
        requestor: "user",
        error: false,
        turn_idx: null,
        timestamp: null,
      },
    ];
    // a history may not end on an unanswered call: set_state needs a result for every call (as upstream)
    await expect(
      make(withHistory(userToolHistory.slice(0, 2)), chatty(), talker()).initialize(),
    ).rejects.toThrow("not followed by its tool message");
    const resultAgent = chatty();
    const resultUser = talker();
    const endsWithUserResult = make(withHistory(userToolHistory), resultAgent, resultUser);
    await endsWithUserResult.initialize();
    expect([endsWithUserResult.fromRole, endsWithUserResult.toRole]).toEqual(["env", "user"]);
    expect(resultAgent.initHistories[0]?.map((m) => m.role)).toEqual(["assistant"]);
    expect(resultUser.initHistories[0]?.map((m) => m.role)).toEqual(["assistant", "user"]);
    await endsWithUserResult.step();
    expect(resultUser.inputs[0]).toMatchObject({ role: "tool", id: "u1", requestor: "user" });
    expect(resultAgent.inputs).toHaveLength(0);

    const stopAgent = chatty();
    const stopped = make(
      withHistory([assistantMessage({ content: "Hello" }), userMessage({ content: "###STOP###" })]),
      stopAgent,
      talker(),
    );
    const simulation = await stopped.run();
    expect(simulation.termination_reason).toBe("user_stop");
    expect(simulation.messages).toHaveLength(2);
    expect(stopAgent.inputs).toHaveLength(0);
    // history messages carry no cost, so both sides' costs are null
    expect([simulation.agent_cost, simulation.user_cost]).toEqual([null, null]);

    const broken = make(
      withHistory([
        userMessage({ content: "x" }),
        {
          role: "tool",
          id: "z",
          content: "?",
          requestor: "assistant",
          error: false,
          turn_idx: null,
          timestamp: null,
        },
      ]),
      chatty(),
      talker(),
    );
    await expect(broken.initialize()).rejects.toThrow();
  });

  it("lets max_steps overwrite a user stop on the last step (P3)", async () => {
    // steps: 1 user, 2 agent, 3 user (stop)
    const atLimit = await make(task("create_task_1"), chatty(), talker(1), { maxSteps: 3 }).run();
    expect(atLimit.termination_reason).toBe("max_steps");
    expect(atLimit.messages.at(-1)?.content).toBe("bye ###STOP###");
    const belowLimit = await make(task("create_task_1"), chatty(), talker(1), { maxSteps: 4 }).run();
    expect(belowLimit.termination_reason).toBe("user_stop");
    expect(belowLimit.reward_info).toBeNull();
    expect(belowLimit.mode).toBe("half_duplex");
    expect(belowLimit.messages.map((m) => m.turn_idx)).toEqual([0, 1, 2, 3]);
    expect(belowLimit.agent_cost).toBe(0.5);
    expect(belowLimit.user_cost).toBe(0.5);
  });

  it("counts failed tool calls of both sides cumulatively, and never ends on a pending tool result", async () => {
    // agent: bad call, good call, bad call; user: one failing user-tool call first
    const agentPlan: Reply<AssistantMessage>[] = [
      { tool_calls: [tc("a1", "no_such_tool")] },
      { tool_calls: [tc("a2", "get_users")] },
      { tool_calls: [tc("a3", "update_task_status", { task_id: "nope", status: "completed" })] },
      { content: "anything else?" },
    ];
    const agent = new FakeAgent((_, turn) => agentPlan[turn] ?? { content: "..." });
    const user = new FakeUser((_, turn) =>
      turn === 0
        ? { tool_calls: [tc("u1", "dismiss_notification", { notification_id: "missing" }, "user")] }
        : { content: "help" },
    );
    const orchestrator = make(task("create_task_1"), agent, user, { maxErrors: 3 });
    const simulation = await orchestrator.run();
    expect(simulation.termination_reason).toBe("too_many_errors");
    expect(orchestrator.numErrors).toBe(3);
    const toolMessages = simulation.messages.filter((m) => m.role === "tool");
    expect(toolMessages.map((m) => m.error)).toEqual([true, true, false, true]);
    expect(toolMessages[1]?.content).toBe("Error: Tool 'no_such_tool' not found.");
    // the last message is the failed tool result delivered to the agent's turn boundary
    expect(simulation.messages.at(-1)?.role).toBe("tool");
  });

  it("returns user tool results to the user only (dual control, P21)", async () => {
    const agent = new FakeAgent((input) => ({ content: `you said: ${textOf(input)}` }));
    const user = new FakeUser((input, turn) => {
      if (turn === 0)
        return {
          content: "Let me check my inbox",
          tool_calls: [tc("u1", "check_notifications", {}, "user")],
        };
      if (turn === 1) return { content: `I have: ${input.role === "tool" ? input.content : "?"}` };
      return { content: "###STOP###" };
    });
    const simulation = await make(task("create_task_1"), agent, user).run();
    expect(simulation.termination_reason).toBe("user_stop");
    expect(simulation.messages.map((m) => m.role)).toEqual([
      "assistant",
      "user",
      "tool",
      "user",
      "assistant",
      "user",
    ]);
    expect(simulation.messages[2]).toMatchObject({ role: "tool", requestor: "user", error: false });
    expect(user.inputs[1]).toMatchObject({ role: "tool", id: "u1" });
    // the agent only ever saw the user's plain text turn, never the tool call, its text, or its result
    expect(agent.inputs).toHaveLength(1);
    expect(textOf(agent.inputs[0]!)).toMatch(/^I have: \[\{"notification_id": "notif_1"/);
  });

  it("delivers several results at once, numbers flattened tool messages, and routes mixed messages as tool calls (P8)", async () => {
    const agent = new FakeAgent((_, turn) =>
      turn === 0
        ? {
            content: "Working on it",
            tool_calls: [tc("a1", "get_users"), tc("a2", "create_task", { user_id: "user_1", title: "T" })],
          }
        : { content: "Done" },
    );
    const user = new FakeUser((_, turn) => ({ content: turn === 0 ? "make a task" : "###STOP###" }));
    const simulation = await make(task("create_task_1"), agent, user).run();
    expect(agent.inputs[1]).toMatchObject({ role: "multi_tool" });
    expect((agent.inputs[1] as { tool_messages: unknown[] }).tool_messages).toHaveLength(2);
    expect(simulation.messages.map((m) => m.role)).toEqual([
      "assistant",
      "user",
      "assistant",
      "tool",
      "tool",
      "assistant",
      "user",
    ]);
    expect(simulation.messages.map((m) => m.turn_idx)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    // the mixed message's text stays in the trajectory but the user never receives it
    expect(simulation.messages[2]?.content).toBe("Working on it");
    expect(user.inputs.map(textOf)).toEqual([GREETING_TEXT, "Done"]);

    const strict = await make(
      task("create_task_1"),
      new FakeAgent((_, turn) =>
        turn === 0 ? { content: "Working", tool_calls: [tc("a1", "get_users")] } : { content: "ok" },
      ),
      talker(),
      {
        enforceCommunicationProtocol: true,
      },
    ).run();
    expect(strict.termination_reason).toBe("agent_error");
    expect(strict.messages).toHaveLength(3);
  });

  it("ends as the participant's error on an empty message from its own code (a protocol break)", async () => {
    // From a model, an empty reply is the LLM layer's infrastructure error (P6) and never gets here.
    const agent = new FakeAgent(() => ({ content: "   " }));
    const byAgent = await make(task("create_task_1"), agent, talker()).run();
    expect(byAgent.termination_reason).toBe("agent_error");
    expect(byAgent.info).toMatchObject({ error_type: "EmptyMessageError", raised_by: "agent" });
    const user = new FakeUser(() => ({ content: null }));
    const byUser = await make(task("create_task_1"), chatty(), user).run();
    expect(byUser.termination_reason).toBe("user_error");
    expect(byUser.info).toMatchObject({ error_type: "EmptyMessageError", raised_by: "user" });
  });

  it("ends as agent_error / user_error when a participant's code throws, keeping the message", async () => {
    const buggy = () =>
      new FakeAgent((_, turn) => {
        if (turn === 1) throw new TypeError("Cannot read properties of undefined (reading 'id')");
        return { content: "How can I help?" };
      });
    const agentBug = await make(task("create_task_1"), buggy(), talker()).run();
    expect(agentBug.termination_reason).toBe("agent_error");
    expect(agentBug.info).toMatchObject({
      error: "Cannot read properties of undefined (reading 'id')",
      error_type: "TypeError",
      raised_by: "agent",
    });
    expect(agentBug.info!.error_traceback).toMatch(/^TypeError: Cannot read properties/);
    // What happened before the exception stays in the trajectory.
    expect(agentBug.messages.map((m) => m.role)).toEqual(["assistant", "user", "assistant", "user"]);
    const graded = await runEpisode({
      domain,
      task: task("create_task_1"),
      agent: buggy(),
      user: talker(),
      soloMode: false,
      maxSteps: 50,
      maxErrors: 10,
      seed: null,
      trial: 0,
      judge: null,
    });
    expect(graded.termination_reason).toBe("agent_error");
    expect(graded.reward_info?.reward).toBe(0);

    const failingUser = new FakeUser(() => {
      throw new RangeError("user module bug");
    });
    const userBug = await make(task("create_task_1"), chatty(), failingUser).run();
    expect(userBug.termination_reason).toBe("user_error");
    expect(userBug.info).toMatchObject({ error: "user module bug", raised_by: "user" });

    // Even from initState or isStop.
    const badInit = new FakeAgent(() => ({ content: "x" }));
    badInit.initState = () => {
      throw new Error("no state for you");
    };
    expect((await make(task("create_task_1"), badInit, talker()).run()).termination_reason).toBe(
      "agent_error",
    );
  });

  it("lets provider and transport failures through: they are infrastructure errors, retried by the runner", async () => {
    const provider = new FakeAgent(() => {
      throw new LlmError("openai/gpt-4.1: HTTP 503 (server): overloaded", { kind: "server", model: "m" });
    });
    await expect(make(task("create_task_1"), provider, talker()).run()).rejects.toBeInstanceOf(LlmError);
    const transport = new FakeAgent(() => {
      throw new TypeError("fetch failed", {
        cause: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }),
      });
    });
    await expect(make(task("create_task_1"), transport, talker()).run()).rejects.toThrow("fetch failed");
    const declared = new FakeUser(() => {
      throw new InfrastructureError("the user service is down");
    });
    await expect(make(task("create_task_1"), chatty(), declared).run()).rejects.toBeInstanceOf(
      InfrastructureError,
    );
  });

  it("times out between steps", async () => {
    const slow = new FakeUser(() => {
      const until = performance.now() + 5;
      while (performance.now() < until) {
        // busy-wait: the timeout is measured in wall-clock time
      }
      return { content: "still here" };
    });
    const simulation = await make(task("create_task_1"), chatty(), slow, { timeoutMs: 1 }).run();
    expect(simulation.termination_reason).toBe("timeout");
    expect(simulation.messages).toHaveLength(2);
  });

  it("ends a call still in flight at the limit: a generate that never settles is a timeout, its signal aborted", async () => {
    const signals: (AbortSignal | undefined)[] = [];
    const hangingUser = new FakeUser(() => ({ content: "unused" }));
    hangingUser.generate = (_input: UserInput, _state: Message[], signal?: AbortSignal) => {
      signals.push(signal);
      return new Promise<never>(() => {});
    };
    const started = performance.now();
    const simulation = await make(task("create_task_1"), chatty(), hangingUser, {
      timeoutMs: 30,
      inFlightGraceMs: 20,
    }).run();
    expect(simulation.termination_reason).toBe("timeout");
    expect(simulation.messages.map((m) => m.content)).toEqual([GREETING_TEXT]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(true);

    // The agent's call too, after a user turn: the trajectory keeps what was said before the limit.
    const agent = chatty();
    agent.generate = () => new Promise<never>(() => {});
    const cut = await make(task("create_task_1"), agent, talker(), {
      timeoutMs: 50,
      inFlightGraceMs: 0,
    }).run();
    expect(cut.termination_reason).toBe("timeout");
    expect(cut.messages.map((m) => m.role)).toEqual(["assistant", "user"]);
  });

  it("takes a call that returns after the limit, within the grace, as upstream does: its stop still counts", async () => {
    const lateStop = new FakeUser(() => ({ content: "unused" }));
    lateStop.generate = async (_input: UserInput, state: Message[]) => {
      await new Promise((resolve) => setTimeout(resolve, 80));
      const message = userMessage({ content: "bye ###STOP###" });
      return { message, state: [...state, message] };
    };
    const simulation = await make(task("create_task_1"), chatty(), lateStop, { timeoutMs: 20 }).run();
    expect(simulation.termination_reason).toBe("user_stop");
  });

  it("lets the timeout end only a running episode: a stop or an earlier check in the same step wins", async () => {
    const busy = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until) {
        // busy-wait: the timeout is measured in wall-clock time
      }
    };
    // The limit is far above what a plain step takes even on a loaded machine (a check after any
    // step that is not meant to trip must not), and each busy step is well past it.
    const limit = { timeoutMs: 300 };
    const slow = 400;
    // upstream `_check_timeout` is guarded by `not self.done`, unlike max_steps and too_many_errors (P3)
    const stoppingLate = new FakeUser(() => {
      busy(slow);
      return { content: "bye ###STOP###" };
    });
    const stopped = await make(task("create_task_1"), chatty(), stoppingLate, limit).run();
    expect(stopped.termination_reason).toBe("user_stop");

    // steps: 1 user, 2 agent (bad tool call), 3 env (error 1): max_steps, then too_many_errors, then timeout
    const agent = new FakeAgent(() => {
      busy(slow);
      return { tool_calls: [tc("a1", "no_such_tool")] };
    });
    const all = make(task("create_task_1"), agent, talker(), { maxSteps: 3, maxErrors: 1, ...limit });
    const simulation = await all.run();
    expect([all.stepCount, all.numErrors]).toEqual([3, 1]);
    expect(simulation.termination_reason).toBe("too_many_errors");
    const stepsOnly = await make(task("create_task_1"), agent, talker(), {
      maxSteps: 3,
      maxErrors: 2,
      ...limit,
    }).run();
    expect(stepsOnly.termination_reason).toBe("max_steps");
  });

  it("syncs the environment after set-up, initialization, every step and every successful tool call", async () => {
    const environment = domain.makeEnvironment();
    let syncs = 0;
    environment.syncTools = () => {
      syncs += 1;
    };
    const agent = new FakeAgent((_, turn) =>
      turn === 0 ? { tool_calls: [tc("a1", "get_users"), tc("a2", "nope")] } : { content: "ok" },
    );
    const orchestrator = new Orchestrator({
      environment,
      task: task("create_task_1"),
      agent,
      user: talker(1),
      soloMode: false,
    });
    await orchestrator.run();
    // set_state 1 + initialize 1 + steps + 1 successful tool call
    expect(syncs).toBe(2 + orchestrator.stepCount + 1);
  });

  describe("solo mode (P22)", () => {
    const soloTask = () => task("update_task_1");
    const solo = (agent: FakeAgent) =>
      new Orchestrator({
        environment: domain.makeEnvironment({ soloMode: true }),
        task: soloTask(),
        agent,
        user: new FakeUser(() => {
          throw new Error("the dummy user is never asked");
        }),
        soloMode: true,
      });

    it("takes the first agent turn inside initialize without counting it, then stops on the stop token", async () => {
      const plan: Reply<AssistantMessage>[] = [
        { tool_calls: [tc("a1", "update_task_status", { task_id: "task_1", status: "completed" })] },
        { tool_calls: [tc("a2", "dismiss_notification", { notification_id: "notif_1" })] },
        { content: "###STOP###" },
      ];
      const agent = new FakeAgent((_, turn) => plan[turn]!, "###STOP###");
      const orchestrator = solo(agent);
      await orchestrator.initialize();
      expect(agent.inputs).toEqual([null]);
      expect(agent.initHistories).toEqual([[]]);
      expect([orchestrator.stepCount, orchestrator.toRole, orchestrator.trajectory.length]).toEqual([
        0,
        "env",
        1,
      ]);
      while (!orchestrator.done) {
        await orchestrator.step();
        orchestrator.checkTermination();
      }
      const simulation = orchestrator.finalize();
      expect(simulation.termination_reason).toBe("agent_stop");
      // the agent may call user tools by name in solo mode
      expect(simulation.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
        '{"task_id": "task_1", "title": "Test task", "description": "A test task", "status": "completed"}',
        "Notification notif_1 dismissed",
      ]);
      expect(orchestrator.stepCount).toBe(4);
    });

    it("ends with agent_error on text that is not a stop, first turn or later", async () => {
      const first = await solo(new FakeAgent(() => ({ content: "hello?" }), "###STOP###")).run();
      expect(first.termination_reason).toBe("agent_error");
      expect(first.messages).toHaveLength(1);
      const later = await solo(
        new FakeAgent(
          (_, turn) => (turn === 0 ? { tool_calls: [tc("a1", "get_users")] } : { content: "done, I think" }),
          "###STOP###",
        ),
      ).run();
      expect(later.termination_reason).toBe("agent_error");
      const immediate = await solo(new FakeAgent(() => ({ content: "###STOP###" }), "###STOP###")).run();
      expect(immediate.termination_reason).toBe("agent_stop");
    });
  });
});

describe("trajectoryCosts", () => {
  it("sums each side and nulls a side with any uncosted message (§9.3)", () => {
    const messages: Message[] = [
      assistantMessage({ content: "a", cost: 0 }),
      userMessage({ content: "b", cost: 0.25 }),
      assistantMessage({ content: "c", cost: 0.125 }),
      userMessage({ content: "d", cost: null }),
    ];
    expect(trajectoryCosts(messages)).toEqual({ agentCost: 0.125, userCost: null });
    expect(trajectoryCosts([])).toEqual({ agentCost: 0, userCost: 0 });
  });
});

describe.skipIf(!dataDir)("runEpisode on mock (skipped: TAU_DATA_DIR not set)", () => {
  const domain: Domain = dataDir ? loadDomain("mock", dataDir) : (undefined as never);

  /** An agent that performs the task's expected actions, then says the communicate_info. */
  const goldAgent = (t: Task) => {
    const actions = t.evaluation_criteria?.actions ?? [];
    const closing = `All done. ${(t.evaluation_criteria?.communicate_info ?? []).join(". ")}`;
    return new FakeAgent((_, turn) =>
      turn < actions.length
        ? {
            tool_calls: [
              tc(`g${turn}`, actions[turn]!.name, actions[turn]!.arguments, actions[turn]!.requestor),
            ],
            cost: 0.01,
          }
        : { content: closing, cost: 0.01 },
    );
  };
  const goldUser = () =>
    new FakeUser((input) => ({
      content: textOf(input).startsWith("All done") ? "Thanks ###STOP###" : "Please help",
      cost: 0.001,
    }));

  it("grades gold play of every mock task: pass^1 0.8", async () => {
    const rewards: Record<string, number> = {};
    for (const t of domain.tasks()) {
      const simulation = await runEpisode({
        domain,
        task: t,
        agent: goldAgent(t),
        user: goldUser(),
        soloMode: false,
        maxSteps: 200,
        maxErrors: 10,
        seed: 300,
        trial: 2,
        judge: null,
      });
      expect(simulation.termination_reason, t.id).toBe("user_stop");
      expect(simulation.trial).toBe(2);
      expect(simulation.seed).toBe(300);
      expect(simulation.policy).toBe(domain.policy());
      rewards[t.id] = simulation.reward_info!.reward;
    }
    const failing = Object.entries(rewards)
      .filter(([, r]) => r !== 1)
      .map(([id]) => id)
      .sort();
    expect(failing).toEqual(["update_task_with_history_and_env_assertions", "update_task_with_user_tools"]);
    const values = Object.values(rewards);
    expect(values.reduce((a, b) => a + b, 0) / values.length).toBeCloseTo(0.8, 12);
  });

  it("runs a solo episode on a solo environment and grades it", async () => {
    const t = domain.tasks().find((x) => x.id === "update_task_1")!;
    const plan: Reply<AssistantMessage>[] = [
      {
        tool_calls: [tc("a1", "update_task_status", { task_id: "task_1", status: "completed" })],
        cost: 0.02,
      },
      { content: "###STOP###", cost: 0.02 },
    ];
    const simulation = await runEpisode({
      domain,
      task: t,
      agent: new FakeAgent((_, turn) => plan[turn]!, "###STOP###"),
      user: new FakeUser(() => ({ content: "unused" })),
      soloMode: true,
      maxSteps: 200,
      maxErrors: 10,
      seed: null,
      trial: 0,
      judge: null,
    });
    expect(simulation.termination_reason).toBe("agent_stop");
    expect(simulation.reward_info?.reward).toBe(1);
    expect(simulation.policy).toBe(domain.policy({ soloMode: true }));
    expect(simulation.agent_cost).toBeCloseTo(0.04, 12);
    expect(simulation.user_cost).toBe(0);
  });
});
