import { describe, expect, it } from "vitest";
import {
  type AssistantMessage,
  assistantMessage,
  type Message,
  type ToolCall,
  type ToolMessage,
  type UserMessage,
  userMessage,
} from "../core/messages.ts";
import { PyFloat } from "../core/py-json.ts";
import type { SimulationRun, TerminationReason } from "../core/simulation.ts";
import { Action, Task } from "../core/task.ts";
import { loadDomain } from "../domains/registry.ts";
import type { Domain } from "../domains/types.ts";
import { ReplayMismatchError } from "../env/environment.ts";
import { deepClone } from "../env/model.ts";
import { actionMatchesToolCall, evaluateActions } from "./action-evaluator.ts";
import { checkCommunicateInfo } from "./communicate-evaluator.ts";
import { evaluateSimulation, NotGradableError } from "./evaluator.ts";
import { applyInitialState } from "./gold.ts";
import type { NlAssertionJudge } from "./nl-assertions.ts";

const dataDir = process.env.TAU_DATA_DIR;

function simulationOf(messages: Message[], termination: TerminationReason = "user_stop"): SimulationRun {
  return {
    id: "sim-1",
    task_id: "t",
    start_time: "2025-01-01T00:00:00.000000",
    end_time: "2025-01-01T00:00:01.000000",
    duration: 1,
    termination_reason: termination,
    agent_cost: null,
    user_cost: null,
    reward_info: null,
    messages,
    trial: 0,
    seed: null,
    mode: "half_duplex",
    info: null,
  };
}

function call(
  id: string,
  name: string,
  args: Record<string, unknown>,
  requestor: "assistant" | "user" = "assistant",
): ToolCall {
  return { id, name, arguments: args, requestor };
}

function callMessage(calls: ToolCall[], content: string | null = null): AssistantMessage | UserMessage {
  const requestor = calls[0]?.requestor ?? "assistant";
  return requestor === "user"
    ? userMessage({ content, tool_calls: calls })
    : assistantMessage({ content, tool_calls: calls });
}

/**
 * A trajectory that does what the task expects: the task's history (or the
 * greeting and a request), every expected action executed with real outputs,
 * a closing agent message carrying the communicate_info, then a user stop.
 */
function goldTrajectory(domain: Domain, task: Task): Message[] {
  const history = task.initial_state?.message_history ?? [];
  const messages: Message[] =
    history.length > 0
      ? deepClone([...history])
      : [
          assistantMessage({ content: "Hi! How can I help you today?", cost: 0 }),
          userMessage({ content: "Please help me with my tasks." }),
        ];
  const env = domain.makeEnvironment();
  applyInitialState(env, task);
  (task.evaluation_criteria?.actions ?? []).forEach((action, index) => {
    const toolCall = call(`gold_${index}`, action.name, action.arguments, action.requestor);
    messages.push(callMessage([toolCall]), env.getResponse(toolCall));
  });
  const said = (task.evaluation_criteria?.communicate_info ?? []).join(". ");
  messages.push(assistantMessage({ content: `All done. ${said}` }));
  messages.push(userMessage({ content: "Thanks! ###STOP###" }));
  return messages;
}

describe("action matching (P10)", () => {
  const action = (fields: Record<string, unknown>) =>
    Action.parse({ action_id: "a", name: "update_task_status", ...fields });
  const tc = (args: Record<string, unknown>, name = "update_task_status") => call("c", name, args);

  it("compares the call's own keys when compare_args is null", () => {
    const gold = action({ arguments: { task_id: "task_1", status: "completed" } });
    expect(actionMatchesToolCall(gold, tc({ task_id: "task_1", status: "completed" }))).toBe(true);
    // omitting an argument the action has still matches
    expect(actionMatchesToolCall(gold, tc({ task_id: "task_1" }))).toBe(true);
    expect(actionMatchesToolCall(gold, tc({}))).toBe(true);
    // an extra argument fails, as does a different value or name
    expect(actionMatchesToolCall(gold, tc({ task_id: "task_1", status: "completed", x: 1 }))).toBe(false);
    expect(actionMatchesToolCall(gold, tc({ task_id: "task_2", status: "completed" }))).toBe(false);
    expect(actionMatchesToolCall(gold, tc({ task_id: "task_1" }, "create_task"))).toBe(false);
  });

  it("matches on the name alone with compare_args: [] and on the listed keys otherwise", () => {
    const nameOnly = action({
      name: "transfer_to_human_agents",
      arguments: { summary: "x" },
      compare_args: [],
    });
    expect(
      actionMatchesToolCall(nameOnly, tc({ summary: "something else" }, "transfer_to_human_agents")),
    ).toBe(true);
    const listed = action({
      arguments: { task_id: "task_1", status: "completed" },
      compare_args: ["task_id"],
    });
    expect(actionMatchesToolCall(listed, tc({ task_id: "task_1", status: "pending", extra: true }))).toBe(
      true,
    );
    expect(actionMatchesToolCall(listed, tc({ status: "completed" }))).toBe(false);
  });

  it("uses Python equality (2 == 2.0, dict key order ignored)", () => {
    const gold = action({ name: "f", arguments: { n: 2, d: { a: 1, b: [1, 2] } } });
    expect(actionMatchesToolCall(gold, call("c", "f", { n: new PyFloat(2), d: { b: [1, 2], a: 1 } }))).toBe(
      true,
    );
    expect(actionMatchesToolCall(gold, call("c", "f", { n: 2.5 }))).toBe(false);
  });

  it("ignores requestor and order, lets one call satisfy several actions, and counts errored calls", () => {
    const task = Task.parse({
      id: "t",
      user_scenario: { instructions: "x" },
      evaluation_criteria: {
        actions: [
          { action_id: "1", requestor: "assistant", name: "toggle", arguments: { on: true } },
          { action_id: "2", requestor: "user", name: "toggle", arguments: { on: true } },
          { action_id: "3", name: "lookup", arguments: { id: "a" } },
        ],
        reward_basis: ["ACTION"],
      },
    });
    const toggle = call("u1", "toggle", { on: true }, "user");
    const lookup = call("a1", "lookup", { id: "a" });
    const failed: ToolMessage = {
      role: "tool",
      id: "u1",
      content: "Error: the phone is off",
      requestor: "user",
      error: true,
      turn_idx: null,
      timestamp: null,
    };
    const trajectory: Message[] = [callMessage([lookup]), callMessage([toggle]), failed];
    const info = evaluateActions(task, trajectory, new Map([["toggle", "write" as const]]));
    expect(info.reward).toBe(1);
    expect(info.action_checks?.map((check) => [check.action_match, check.tool_type])).toEqual([
      [true, "write"],
      [true, "write"],
      [true, null],
    ]);
    expect(info.info).toBeNull();
    const missing = evaluateActions(task, [callMessage([toggle])], null);
    expect(missing.reward).toBe(0);
    expect(missing.reward_breakdown).toEqual({ ACTION: 0 });
  });
});

describe("communicate matching (P9)", () => {
  const trajectory: Message[] = [
    assistantMessage({ content: "Hi! How can I help you today?" }),
    userMessage({ content: "Refund 1000 dollars" }),
    assistantMessage({ content: "Your refund of $1,000 is on its way.", tool_calls: [call("c", "f", {})] }),
  ];

  it("lower-cases both sides but strips commas only from the agent's message", () => {
    const [plain, withComma, fromUser, greeting] = checkCommunicateInfo(trajectory, [
      "REFUND OF $1000",
      "$1,000",
      "Refund 1000 dollars",
      "how can i help",
    ]);
    expect(plain).toEqual({
      info: "REFUND OF $1000",
      met: true,
      justification:
        "Information 'REFUND OF $1000' communicated in the message:\n 'Your refund of $1,000 is on its way.'",
    });
    expect(withComma).toEqual({
      info: "$1,000",
      met: false,
      justification: "Information '$1,000' not communicated.",
    });
    // user messages are never searched; the greeting is
    expect(fromUser?.met).toBe(false);
    expect(greeting?.met).toBe(true);
  });
});

describe.skipIf(!dataDir)("evaluateSimulation on mock (skipped: TAU_DATA_DIR not set)", () => {
  const domain = dataDir ? loadDomain("mock", dataDir) : (undefined as never);
  const task = (id: string) => {
    const found = domain.tasks().find((t) => t.id === id);
    if (!found) throw new Error(`no task ${id}`);
    return deepClone(found);
  };
  const grade = (
    t: Task,
    messages: Message[],
    extra: Partial<Parameters<typeof evaluateSimulation>[0]> = {},
  ) =>
    evaluateSimulation({
      simulation: simulationOf(messages),
      task: t,
      domain,
      soloMode: false,
      judge: null,
      ...extra,
    });

  it("scores the gold trajectory of every mock task: 1.0 except the two that need more than the actions", async () => {
    const rewards = new Map<string, number>();
    for (const t of domain.tasks()) {
      const info = await grade(t, goldTrajectory(domain, t));
      rewards.set(t.id, info.reward);
    }
    expect(rewards.size).toBe(10);
    const failing = [...rewards].filter(([, reward]) => reward !== 1).map(([id]) => id);
    expect(failing.sort()).toEqual([
      "update_task_with_history_and_env_assertions",
      "update_task_with_user_tools",
    ]);
    const mean = [...rewards.values()].reduce((a, b) => a + b, 0) / rewards.size;
    expect(mean).toBeCloseTo(0.8, 12);
  });

  it("lays out the reward info of a combined basis like upstream", async () => {
    const t = task("update_task_with_user_tools");
    const info = await grade(t, goldTrajectory(domain, t));
    expect(info.reward).toBe(0);
    expect(info.reward_basis).toEqual(["DB", "ACTION", "ENV_ASSERTION"]);
    expect(info.reward_breakdown).toEqual({ DB: 1, ENV_ASSERTION: 0, ACTION: 1 });
    expect(Object.keys(info.reward_breakdown ?? {})).toEqual(["DB", "ENV_ASSERTION", "ACTION"]);
    expect(info.db_check).toEqual({ db_match: true, db_reward: 1 });
    expect(
      info.env_assertions?.map((check) => [check.env_assertion.func_name, check.met, check.reward]),
    ).toEqual([["assert_notification_status", false, 0]]);
    expect(info.action_checks?.[0]).toMatchObject({
      action_match: true,
      action_reward: 1,
      tool_type: "write",
    });
    // COMMUNICATE is not in the basis but still reported (ALL semantics)
    expect(info.communicate_checks).toBeNull();
    expect(info.info).toEqual({
      env: null,
      nl: null,
      communicate: { note: "No communicate_info to evaluate" },
      action: null,
    });

    // the user dismissing the notification passes the assertion...
    const fixed = goldTrajectory(domain, t);
    const dismiss = call("u1", "dismiss_notification", { notification_id: "notif_1" }, "user");
    fixed.splice(-2, 0, callMessage([dismiss]), {
      role: "tool",
      id: "u1",
      content: "Notification notif_1 dismissed",
      requestor: "user",
      error: false,
      turn_idx: null,
      timestamp: null,
    });
    // ...but the user DB now differs from gold, whose actions never dismiss it
    const regraded = await grade(t, fixed);
    expect(regraded.reward).toBe(0);
    expect(regraded.db_check?.db_match).toBe(false);
    expect(regraded.env_assertions?.[0]?.met).toBe(true);
  });

  it("reports diagnostics of components outside the basis (ALL)", async () => {
    const t = task("impossible_task_1");
    const messages: Message[] = [
      assistantMessage({ content: "Hi! How can I help you today?", cost: 0 }),
      userMessage({ content: "Delete everything" }),
      assistantMessage({ content: "I cannot do that." }),
      userMessage({ content: "###STOP###" }),
    ];
    const info = await grade(t, messages);
    expect(info.reward).toBe(0);
    expect(info.reward_breakdown).toEqual({ DB: 1, ACTION: 0 });
    expect(info.action_checks?.[0]).toMatchObject({
      action_match: false,
      action_reward: 0,
      tool_type: "generic",
    });
    const transferred = [
      ...messages.slice(0, 3),
      callMessage([call("t1", "transfer_to_human_agents", { summary: "wants deletion" })]),
      {
        role: "tool",
        id: "t1",
        content: "Transfer successful",
        requestor: "assistant",
        error: false,
        turn_idx: null,
        timestamp: null,
      } as ToolMessage,
      messages[3]!,
    ];
    expect((await grade(t, transferred)).reward).toBe(1);
  });

  it("scores 0 on premature termination without looking at the DB", async () => {
    const t = task("create_task_1");
    for (const reason of ["max_steps", "too_many_errors", "agent_error", "user_error", "timeout"] as const) {
      const info = await evaluateSimulation({
        simulation: simulationOf(goldTrajectory(domain, t), reason),
        task: t,
        domain,
        soloMode: false,
        judge: null,
      });
      expect(info).toEqual({
        reward: 0,
        db_check: null,
        env_assertions: null,
        action_checks: null,
        nl_assertions: null,
        communicate_checks: null,
        reward_basis: null,
        reward_breakdown: null,
        info: { note: `Simulation terminated prematurely. Termination reason: ${reason}` },
      });
    }
    await expect(
      evaluateSimulation({
        simulation: simulationOf([], "infrastructure_error"),
        task: t,
        domain,
        soloMode: false,
        judge: null,
      }),
    ).rejects.toBeInstanceOf(NotGradableError);
  });

  it("gives 1 without criteria and a DB check of 1 without actions or assertions", async () => {
    const t = task("create_task_1");
    const none = await grade({ ...t, evaluation_criteria: null }, []);
    expect(none).toMatchObject({ reward: 1, reward_basis: null, info: { note: "No evaluation criteria" } });
    const nl = task("create_task_1_nl_eval");
    const info = await grade(nl, goldTrajectory(domain, nl));
    expect(info.reward).toBe(1);
    expect(info.db_check).toEqual({ db_match: true, db_reward: 1 });
    expect(info.info?.env).toEqual({ note: "No expected actions or env assertions" });
    expect(info.reward_breakdown).toEqual({ COMMUNICATE: 1 });
  });

  it("treats actions: [] as 'the DB must stay unchanged'", async () => {
    const t = task("create_task_1");
    t.evaluation_criteria!.actions = [];
    const untouched = [assistantMessage({ content: "Hi!" }), userMessage({ content: "###STOP###" })];
    expect((await grade(t, untouched)).reward).toBe(1);
    expect((await grade(t, goldTrajectory(domain, task("create_task_1")))).reward).toBe(0);
  });

  it("skips hallucinated tools on replay: hallucinate-then-recover scores 1, hallucinate-only 0", async () => {
    const t = task("create_task_1");
    const env = domain.makeEnvironment();
    const bad = call("h1", "create_a_task", { user_id: "user_1", title: "Important Meeting" });
    const good = call("g1", "create_task", { user_id: "user_1", title: "Important Meeting" });
    const start: Message[] = [assistantMessage({ content: "Hi!" }), userMessage({ content: "Create it" })];
    const hallucinated = [...start, callMessage([bad]), env.getResponse(bad)];
    expect((hallucinated[3] as ToolMessage).content).toBe("Error: Tool 'create_a_task' not found.");
    const recovered = [
      ...hallucinated,
      callMessage([good]),
      env.getResponse(good),
      userMessage({ content: "###STOP###" }),
    ];
    expect((await grade(t, recovered)).reward).toBe(1);
    expect((await grade(t, [...hallucinated, userMessage({ content: "###STOP###" })])).reward).toBe(0);
  });

  it("replays strictly by default and leniently on request", async () => {
    const t = task("create_task_1");
    const tampered = goldTrajectory(domain, t);
    const result = tampered.find((m) => m.role === "tool") as ToolMessage;
    result.content = result.content!.replace("Important Meeting", "Other Meeting");
    await expect(grade(t, tampered)).rejects.toBeInstanceOf(ReplayMismatchError);
    const mismatches: string[] = [];
    const lenient = await grade(t, tampered, {
      strictReplay: false,
      onReplayMismatch: (error) => mismatches.push(error.toolName),
    });
    expect(lenient.reward).toBe(1);
    expect(mismatches).toEqual(["create_task"]);
  });

  it("replays only state-changing tools: a read or generic result that no longer matches is not re-run", async () => {
    const t = task("create_task_1");
    const trajectory = goldTrajectory(domain, t);
    const read = call("r1", "get_users", {});
    const transfer = call("x1", "transfer_to_human_agents", { summary: "s" });
    const stale = (id: string): ToolMessage => ({
      role: "tool",
      id,
      content: '{"recorded": "long ago"}',
      requestor: "assistant",
      error: false,
      turn_idx: null,
      timestamp: null,
    });
    trajectory.splice(2, 0, callMessage([read, transfer]), stale("r1"), stale("x1"));
    const info = await grade(t, trajectory);
    expect(info.reward).toBe(1);
  });

  it("runs env assertions on the predicted env: task passes, an appended failing one makes it 0, a raising one throws", async () => {
    const t = task("create_task_1_with_env_assertions");
    const trajectory = goldTrajectory(domain, t);
    expect((await grade(t, trajectory)).reward).toBe(1);
    const failing = deepClone(t);
    failing.evaluation_criteria!.env_assertions!.push({
      env_type: "assistant",
      func_name: "assert_task_status",
      arguments: { task_id: "task_2", expected_status: "completed" },
      assert_value: true,
      message: null,
    });
    const info = await grade(failing, trajectory);
    expect(info.reward).toBe(0);
    expect(info.env_assertions?.map((check) => check.met)).toEqual([true, false]);
    expect(info.reward_breakdown).toEqual({ DB: 1, ENV_ASSERTION: 0 });
    // an assert_value of false flips the check
    failing.evaluation_criteria!.env_assertions![1]!.assert_value = false;
    expect((await grade(failing, trajectory)).reward).toBe(1);
    const raising = deepClone(t);
    raising.evaluation_criteria!.env_assertions!.push({
      env_type: "assistant",
      func_name: "assert_task_status",
      arguments: { task_id: "task_99", expected_status: "pending" },
      assert_value: true,
      message: null,
    });
    await expect(grade(raising, trajectory)).rejects.toThrow("Task task_99 not found");
  });

  it("runs env assertions even when ENV_ASSERTION is not in the basis: diagnostics only, but a raising one still throws (P7)", async () => {
    const t = task("create_task_1_with_env_assertions");
    t.evaluation_criteria!.reward_basis = ["DB"];
    t.evaluation_criteria!.env_assertions!.push({
      env_type: "assistant",
      func_name: "assert_task_status",
      arguments: { task_id: "task_2", expected_status: "completed" },
      assert_value: true,
      message: null,
    });
    const trajectory = goldTrajectory(domain, t);
    const info = await grade(t, trajectory);
    expect(info.reward).toBe(1);
    expect(info.env_assertions?.map((check) => check.met)).toEqual([true, false]);
    expect(info.reward_breakdown).toEqual({ DB: 1 });
    t.evaluation_criteria!.env_assertions![1]!.arguments = { task_id: "task_99", expected_status: "pending" };
    await expect(grade(t, trajectory)).rejects.toThrow("Task task_99 not found");
  });

  it("builds the gold environment non-solo and runs the gold actions with no sync between them (P11)", async () => {
    const t = task("update_task_1");
    // a user-side gold action: a solo gold environment would refuse it ("User tool calls are not allowed in solo mode")
    t.evaluation_criteria!.actions!.push(
      Action.parse({
        action_id: "dismiss",
        requestor: "user",
        name: "dismiss_notification",
        arguments: { notification_id: "notif_1" },
      }),
    );
    const events: string[] = [];
    const spy: Domain = Object.create(domain);
    Object.assign(spy, {
      makeEnvironment: (options?: { soloMode?: boolean }) => {
        const env = domain.makeEnvironment(options);
        const label = options?.soloMode ? "solo" : "normal";
        events.push(`new ${label}`);
        env.syncTools = () => events.push(`sync ${label}`);
        const call = env.makeToolCall.bind(env);
        env.makeToolCall = (name, requestor, args) => {
          events.push(`call ${label} ${name}`);
          return call(name, requestor, args);
        };
        return env;
      },
    });
    // the solo agent calls the user tool by name, as an assistant call
    const live = domain.makeEnvironment({ soloMode: true });
    const calls = [
      call("a1", "update_task_status", { task_id: "task_1", status: "completed" }),
      call("a2", "dismiss_notification", { notification_id: "notif_1" }),
    ];
    const trajectory: Message[] = [];
    for (const toolCall of calls) trajectory.push(callMessage([toolCall]), live.getResponse(toolCall));
    trajectory.push(assistantMessage({ content: "###STOP###" }));
    const info = await evaluateSimulation({
      simulation: simulationOf(trajectory, "agent_stop"),
      task: t,
      domain: spy,
      soloMode: true,
      judge: null,
    });
    expect(info.db_check).toEqual({ db_match: true, db_reward: 1 });
    expect(info.reward).toBe(1);
    const start = events.indexOf("new normal");
    const end = events.findIndex((event, index) => index > start && event.startsWith("new "));
    const gold = events.slice(start, end < 0 ? undefined : end);
    expect(events.filter((event) => event === "new normal")).toHaveLength(1);
    expect(gold).toEqual([
      "new normal",
      "sync normal",
      "call normal update_task_status",
      "call normal dismiss_notification",
    ]);
  });

  it("compares the user DB too", async () => {
    const t = task("update_task_1");
    const trajectory = goldTrajectory(domain, t);
    expect((await grade(t, trajectory)).reward).toBe(1);
    const env = domain.makeEnvironment();
    const dismiss = call("u1", "dismiss_notification", { notification_id: "notif_1" }, "user");
    trajectory.splice(-1, 0, callMessage([dismiss]), env.getResponse(dismiss));
    const info = await grade(t, trajectory);
    expect(info.db_check).toEqual({ db_match: false, db_reward: 0 });
    expect(info.reward).toBe(0);
  });

  describe("NL_ASSERTION in the basis", () => {
    const nlTask = () => {
      const t = task("create_task_1_nl_eval");
      t.evaluation_criteria!.reward_basis = ["DB", "NL_ASSERTION"];
      return t;
    };
    const judgeSaying = (met: boolean[]): NlAssertionJudge & { calls: string[][] } => {
      const calls: string[][] = [];
      return {
        calls,
        async evaluate(_messages, assertions) {
          calls.push([...assertions]);
          return assertions.map((a, i) => ({
            nl_assertion: a,
            met: met[i] ?? true,
            justification: "because",
          }));
        },
      };
    };

    it("multiplies the judge's verdict in, one call for all assertions", async () => {
      const t = nlTask();
      const judge = judgeSaying([true, true]);
      const info = await grade(t, goldTrajectory(domain, t), { judge });
      expect(judge.calls).toEqual([["The task is created successfully", "The user is complimented"]]);
      expect(info.reward).toBe(1);
      // no actions and no env assertions: the env component has no breakdown of its own
      expect(info.reward_breakdown).toEqual({ NL_ASSERTION: 1 });
      expect(info.nl_assertions).toHaveLength(2);
      t.evaluation_criteria!.nl_assertions!.push("The user is not complimented");
      const failing = await grade(t, goldTrajectory(domain, t), { judge: judgeSaying([true, true, false]) });
      expect(failing.reward).toBe(0);
      expect(failing.reward_breakdown).toEqual({ NL_ASSERTION: 0 });
    });

    it("without a judge, leaves NL out of the product and says so", async () => {
      const t = nlTask();
      const info = await grade(t, goldTrajectory(domain, t));
      expect(info.reward).toBe(1);
      expect(info.nl_assertions).toBeNull();
      expect(info.reward_breakdown).toEqual({});
      expect(info.info?.not_evaluated).toEqual(["NL_ASSERTION"]);
      // no assertions: evaluated (trivially) even without a judge
      t.evaluation_criteria!.nl_assertions = [];
      const empty = await grade(t, goldTrajectory(domain, t));
      expect(empty.info?.not_evaluated).toBeUndefined();
      expect(empty.nl_assertions).toEqual([]);
      expect(empty.reward_breakdown).toEqual({ NL_ASSERTION: 1 });
    });

    it("does not call the judge when NL_ASSERTION is not in the basis", async () => {
      const t = task("create_task_1_nl_eval");
      const judge = judgeSaying([false, false]);
      const info = await grade(t, goldTrajectory(domain, t), { judge });
      expect(judge.calls).toEqual([]);
      expect(info.reward).toBe(1);
      expect(info.info?.nl).toBeNull();
    });
  });
});
