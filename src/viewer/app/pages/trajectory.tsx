/**
 * One simulation: the conversation (the agent's tool calls with arguments and
 * outputs on the agent's side, the user's on the user's side) and its
 * grading: which component failed, the DB difference between the gold and
 * the predicted state, and every action, communicate, env-assertion and
 * NL-assertion check with the judge's justification.
 */
import type {
  AssistantMessage,
  Message,
  ToolCall,
  ToolMessage,
  UserMessage,
} from "../../../core/messages.ts";
import type { RewardInfo, SimulationRun } from "../../../core/simulation.ts";
import type { Action } from "../../../core/task.ts";
import type { DbDifferenceRow, RunData, TrajectoryData } from "../../wire.ts";
import { callText, Card, Link, Loading, Mark, OutcomeBadge, Problem, Tag } from "../components.tsx";
import type { DataSource } from "../data.ts";
import { SimulationFaults } from "../faults.tsx";
import { count, duration, rate, terminationLabel, usd } from "../format.ts";
import { useResource } from "../hooks.ts";
import { outcomeOf } from "../model.ts";

/** An expected action that was not matched, and the calls of the same tool the conversation made. */
interface MissedAction {
  action: Action;
  calls: { call: ToolCall; differing: string[] }[];
}

/** Argument names that differ between an expected action and a call (the ones upstream compares). */
function differingArguments(action: Action, call: ToolCall): string[] {
  const keys = action.compare_args ?? Object.keys(action.arguments);
  return keys.filter((key) => JSON.stringify(call.arguments[key]) !== JSON.stringify(action.arguments[key]));
}

function missedActions(simulation: SimulationRun): MissedAction[] {
  const calls = simulation.messages.flatMap((message) =>
    message.role === "assistant" || message.role === "user" ? (message.tool_calls ?? []) : [],
  );
  return (simulation.reward_info?.action_checks ?? [])
    .filter((check) => !check.action_match)
    .map((check) => ({
      action: check.action,
      calls: calls
        .filter((call) => call.name === check.action.name && call.requestor === check.action.requestor)
        .map((call) => ({ call, differing: differingArguments(check.action, call) })),
    }));
}

/** Why a simulation failed, one line per failing part. */
function failureReasons(simulation: SimulationRun, data: TrajectoryData): string[] {
  const reward = simulation.reward_info;
  if (simulation.termination_reason === "infrastructure_error") return ["Infrastructure error: not scored."];
  const reasons: string[] = [];
  if (simulation.termination_reason !== "user_stop" && simulation.termination_reason !== "agent_stop")
    reasons.push(`Ended by ${terminationLabel(simulation.termination_reason)}: not graded, reward 0.`);
  if (!reward) return reasons;
  const breakdown = reward.reward_breakdown ?? {};
  for (const [component, value] of Object.entries(breakdown)) {
    if (value >= 1 - 1e-6) continue;
    switch (component) {
      case "DB": {
        const diff = data.dbDiff;
        const fields = diff.status === "different" ? diff.agent.length + diff.user.length : null;
        reasons.push(
          `DB: the final database differs from the gold one${fields ? ` (${fields} field${fields === 1 ? "" : "s"})` : ""}.`,
        );
        break;
      }
      case "ACTION": {
        const missed = (reward.action_checks ?? []).filter((c) => !c.action_match).length;
        reasons.push(
          `ACTION: ${missed} of ${(reward.action_checks ?? []).length} expected actions not matched.`,
        );
        break;
      }
      case "COMMUNICATE": {
        const missed = (reward.communicate_checks ?? []).filter((c) => !c.met).length;
        reasons.push(`COMMUNICATE: ${missed} required statement${missed === 1 ? "" : "s"} not made.`);
        break;
      }
      case "ENV_ASSERTION": {
        const missed = (reward.env_assertions ?? []).filter((c) => !c.met).length;
        reasons.push(
          `ENV_ASSERTION: ${missed} assertion${missed === 1 ? "" : "s"} on the final state failed.`,
        );
        break;
      }
      case "NL_ASSERTION": {
        const missed = (reward.nl_assertions ?? []).filter((c) => !c.met).length;
        reasons.push(`NL_ASSERTION: the judge found ${missed} assertion${missed === 1 ? "" : "s"} not met.`);
        break;
      }
      default:
        reasons.push(`${component}: ${value}`);
    }
  }
  return reasons;
}

function ToolOutput({ result }: { result: ToolMessage | undefined }) {
  if (!result) return <div class="tool-output missing">no result recorded</div>;
  const text = result.content ?? "";
  let pretty = text;
  try {
    pretty = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // Not JSON: shown as it is.
  }
  const long = pretty.length > 600 || pretty.split("\n").length > 14;
  return long ? (
    <details class={`tool-output${result.error ? " error" : ""}`}>
      <summary>
        {result.error ? "error · " : ""}
        {pretty.slice(0, 160).replaceAll("\n", " ")}… <span class="muted">({count(text.length)} chars)</span>
      </summary>
      <pre>{pretty}</pre>
    </details>
  ) : (
    <pre class={`tool-output${result.error ? " error" : ""}`}>{pretty}</pre>
  );
}

function ToolCallCard({
  call,
  result,
  missed,
}: {
  call: ToolCall;
  result: ToolMessage | undefined;
  missed: MissedAction | undefined;
}) {
  const differing = missed?.calls.find((c) => c.call === call)?.differing ?? [];
  return (
    <div
      class={`tool-call${result?.error ? " failed" : ""}${missed ? " mismatch" : ""}`}
      data-tool={call.name}
      data-tool-error={result?.error ? "true" : undefined}
      data-mismatch={missed ? missed.action.action_id : undefined}
    >
      <div class="tool-call-head">
        <span class="tool-icon">ƒ</span>
        <code>{call.name}</code>
        {result?.error && <Tag tone="bad">error</Tag>}
        {missed && (
          <Tag tone="bad" title={`expected action ${missed.action.action_id}`}>
            {differing.length > 0
              ? `differs from expected: ${differing.join(", ")}`
              : "expected action not matched"}
          </Tag>
        )}
      </div>
      {Object.keys(call.arguments).length > 0 && (
        <table class="args">
          <tbody>
            {Object.entries(call.arguments).map(([key, value]) => (
              <tr key={key} class={differing.includes(key) ? "differs" : undefined}>
                <th>{key}</th>
                <td>
                  <code>{JSON.stringify(value)}</code>
                  {differing.includes(key) && missed && (
                    <span class="expected">
                      {" "}
                      expected <code>{JSON.stringify(missed.action.arguments[key])}</code>
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ToolOutput result={result} />
    </div>
  );
}

function Conversation({ simulation }: { simulation: SimulationRun }) {
  const results = new Map<string, ToolMessage>();
  for (const message of simulation.messages)
    if (message.role === "tool") results.set(`${message.requestor}\u0000${message.id}`, message);
  const missed = missedActions(simulation);
  const missedFor = (call: ToolCall) => missed.find((m) => m.calls.some((c) => c.call === call));
  const claimed = new Set<ToolMessage>();
  const items = simulation.messages.map((message: Message, index) => {
    switch (message.role) {
      case "assistant":
      case "user": {
        const participant = message as AssistantMessage | UserMessage;
        const side = message.role === "assistant" ? "agent" : "user";
        return (
          <div key={index} class={`turn ${side}`} data-role={message.role}>
            <div class="who">
              {side === "agent" ? "Agent" : "User"}
              {participant.turn_idx !== null && <span class="muted"> · turn {participant.turn_idx}</span>}
              {participant.cost ? <span class="muted"> · {usd(participant.cost)}</span> : null}
            </div>
            {participant.content && <div class="bubble">{participant.content}</div>}
            {(participant.tool_calls ?? []).map((call, i) => {
              const result = results.get(`${call.requestor}\u0000${call.id}`);
              if (result) claimed.add(result);
              return <ToolCallCard key={i} call={call} result={result} missed={missedFor(call)} />;
            })}
          </div>
        );
      }
      case "tool":
        return null;
      case "system":
        return (
          <div key={index} class="turn system">
            <div class="bubble">{message.content}</div>
          </div>
        );
      default: {
        const never: never = message;
        throw new Error(`unknown message ${String(never)}`);
      }
    }
  });
  const orphans = simulation.messages.filter((m): m is ToolMessage => m.role === "tool" && !claimed.has(m));
  return (
    <div class="conversation" data-testid="conversation">
      <div class="lanes muted small">
        <span>Agent (and its tool calls)</span>
        <span>User (and the user's tool calls)</span>
      </div>
      {items}
      {orphans.map((message, i) => (
        <div key={`orphan-${i}`} class={`turn ${message.requestor === "user" ? "user" : "agent"}`}>
          <div class="who muted">tool result without its call</div>
          <ToolOutput result={message} />
        </div>
      ))}
      {simulation.messages.length === 0 && <p class="muted">No messages were recorded.</p>}
    </div>
  );
}

function pathText(path: (string | number)[]): string {
  return path.map((part) => (typeof part === "number" ? `[${part}]` : part)).join(" › ");
}

function DiffTable({ rows, label }: { rows: DbDifferenceRow[]; label: string }) {
  if (rows.length === 0) return null;
  return (
    <>
      <h4>{label}</h4>
      <table class="diff" data-testid="db-diff">
        <thead>
          <tr>
            <th>field</th>
            <th>gold</th>
            <th>predicted</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={i} class={row.kind}>
              <td class="mono small">{pathText(row.path)}</td>
              <td class="mono small">{row.gold ?? <span class="muted">(absent)</span>}</td>
              <td class="mono small">{row.predicted ?? <span class="muted">(absent)</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function DbSection({ data, reward }: { data: TrajectoryData; reward: RewardInfo | null }) {
  const diff = data.dbDiff;
  const inReward = reward?.reward_basis?.includes("DB") ?? false;
  return (
    <div class="check-group" data-check="db">
      <h3>
        Database {reward?.db_check ? <Mark ok={reward.db_check.db_match} /> : null}
        {!inReward && <span class="muted small"> (not part of this task's reward)</span>}
      </h3>
      {diff.status === "match" && <p class="muted">The final database equals the gold one (same hash).</p>}
      {diff.status === "unavailable" && <p class="muted">No field-level difference: {diff.reason}.</p>}
      {diff.status === "different" && (
        <>
          <p class="muted small">
            Gold: the task's expected actions on a fresh environment. Predicted: this conversation's tool
            calls replayed.
          </p>
          <DiffTable rows={diff.agent} label="Agent database" />
          <DiffTable rows={diff.user} label="User database" />
          {diff.truncated && <p class="muted small">The list stops here; there are more differences.</p>}
          {diff.agent.length + diff.user.length === 0 && (
            <p class="muted">No field differs, but the replay did not reproduce every output:</p>
          )}
          {diff.replayMismatches.length > 0 && (
            <ul class="small">
              {diff.replayMismatches.map((line, i) => (
                <li key={i}>{line}</li>
              ))}
            </ul>
          )}
        </>
      )}
    </div>
  );
}

function Grading({ data }: { data: TrajectoryData }) {
  const simulation = data.simulation;
  const reward = simulation.reward_info;
  const reasons = failureReasons(simulation, data);
  const missed = missedActions(simulation);
  const note = reward?.info?.note;
  return (
    <div class="grading" data-testid="grading">
      {reasons.length > 0 && (
        <div class="why" data-testid="why">
          <h3>Why it failed</h3>
          <ul>
            {reasons.map((reason, i) => (
              <li key={i}>{reason}</li>
            ))}
          </ul>
        </div>
      )}
      {reward?.reward_breakdown && (
        <div class="components">
          {Object.entries(reward.reward_breakdown).map(([component, value]) => (
            <span
              key={component}
              class={`component ${value >= 1 - 1e-6 ? "ok" : "no"}`}
              data-component={component}
            >
              {component} {value >= 1 - 1e-6 ? "✓" : "✗"}
            </span>
          ))}
        </div>
      )}
      {typeof note === "string" && <p class="muted small">{note}</p>}
      <SimulationFaults review={data.review} analysis={data.analysis} />
      <DbSection data={data} reward={reward} />
      {(reward?.action_checks?.length ?? 0) > 0 && (
        <div class="check-group" data-check="actions">
          <h3>Expected actions</h3>
          <ol class="checks">
            {reward!.action_checks!.map((check, i) => {
              const miss = missed.find((m) => m.action === check.action);
              return (
                <li key={i} class={check.action_match ? "ok" : "no"} data-action={check.action.action_id}>
                  <Mark ok={check.action_match} />{" "}
                  <code>{callText(check.action.name, check.action.arguments)}</code>
                  {check.tool_type && <span class="muted small"> {check.tool_type}</span>}
                  {check.action.requestor === "user" && <Tag>user</Tag>}
                  {miss && (
                    <div class="small miss">
                      {miss.calls.length === 0
                        ? "never called"
                        : miss.calls
                            .map((c) =>
                              c.differing.length > 0
                                ? `called with different ${c.differing.join(", ")}`
                                : "called, but not matched",
                            )
                            .join("; ")}
                    </div>
                  )}
                </li>
              );
            })}
          </ol>
        </div>
      )}
      {(reward?.env_assertions?.length ?? 0) > 0 && (
        <div class="check-group" data-check="env">
          <h3>Env assertions</h3>
          <ul class="checks">
            {reward!.env_assertions!.map((check, i) => (
              <li key={i} class={check.met ? "ok" : "no"}>
                <Mark ok={check.met} />{" "}
                <code>{callText(check.env_assertion.func_name, check.env_assertion.arguments)}</code>
                <span class="muted small">
                  {" "}
                  on the {check.env_assertion.env_type === "user" ? "user's" : "agent's"} side, expected{" "}
                  {String(check.env_assertion.assert_value)}
                </span>
                {check.env_assertion.message && <div class="small">{check.env_assertion.message}</div>}
              </li>
            ))}
          </ul>
        </div>
      )}
      {(reward?.communicate_checks?.length ?? 0) > 0 && (
        <div class="check-group" data-check="communicate">
          <h3>Communicate</h3>
          <ul class="checks">
            {reward!.communicate_checks!.map((check, i) => (
              <li key={i} class={check.met ? "ok" : "no"}>
                <Mark ok={check.met} /> “{check.info}”
                {check.justification && <div class="small muted">{check.justification}</div>}
              </li>
            ))}
          </ul>
        </div>
      )}
      {(reward?.nl_assertions?.length ?? 0) > 0 && (
        <div class="check-group" data-check="nl">
          <h3>NL assertions (judged)</h3>
          <ul class="checks">
            {reward!.nl_assertions!.map((check, i) => (
              <li key={i} class={check.met ? "ok" : "no"}>
                <Mark ok={check.met} /> {check.nl_assertion}
                {check.justification && <div class="small justification">{check.justification}</div>}
              </li>
            ))}
          </ul>
        </div>
      )}
      {data.gold && data.gold.length > 0 && (
        <details class="check-group">
          <summary>
            <h3>Gold actions and their outputs</h3>
          </summary>
          <ol class="checks">
            {data.gold.map((step) => (
              <li key={step.actionId}>
                <code>{callText(step.name, step.arguments)}</code>
                {step.requestor === "user" && <Tag>user</Tag>}
                <pre class={`tool-output${step.error ? " error" : ""}`}>{step.output.slice(0, 600)}</pre>
              </li>
            ))}
          </ol>
        </details>
      )}
      {data.task && (
        <details class="check-group">
          <summary>
            <h3>Task</h3>
          </summary>
          {data.task.description?.purpose && <p>{data.task.description.purpose}</p>}
          <pre class="json small">
            {typeof data.task.user_scenario.instructions === "string"
              ? data.task.user_scenario.instructions
              : JSON.stringify(data.task.user_scenario.instructions, null, 2)}
          </pre>
        </details>
      )}
    </div>
  );
}

function TrialPills({ run, taskId, trial }: { run: RunData | undefined; taskId: string; trial: number }) {
  if (!run) return null;
  const taskIndex = run.tasks.findIndex((task) => task.id === taskId);
  const rows = run.simulations.filter((row) => row.task === taskIndex).sort((a, b) => a.trial - b.trial);
  return (
    <nav class="trials" aria-label="trials of this task">
      {rows.map((row) => (
        <Link
          key={row.trial}
          to={{ page: "trajectory", runId: run.summary.id, taskId, trial: row.trial }}
          class={`pill ${outcomeOf(row)}${row.trial === trial ? " current" : ""}`}
        >
          trial {row.trial}
        </Link>
      ))}
    </nav>
  );
}

/** The trajectory page. */
export function TrajectoryPage({
  source,
  runId,
  taskId,
  trial,
  loadRun,
}: {
  source: DataSource;
  runId: string;
  taskId: string;
  trial: number;
  loadRun: (id: string) => Promise<RunData>;
}) {
  const run = useResource(() => loadRun(runId), `run ${runId}`);
  const row = run.value
    ? run.value.simulations.find((r) => r.trial === trial && run.value!.tasks[r.task]?.id === taskId)
    : undefined;
  const trajectory = useResource(
    () =>
      row
        ? source.trajectory(runId, row.serial)
        : Promise.reject(new Error(`No trial ${trial} of task ${taskId} in this run`)),
    `${runId} ${row?.serial ?? "none"} ${run.value ? "ready" : "waiting"}`,
  );
  if (!run.value) return run.error ? <Problem message={run.error} /> : <Loading what="the run" />;
  if (!row) return <Problem message={`No trial ${trial} of task ${taskId} in this run.`} />;
  const data = trajectory.value;
  if (!data || data.serial !== row.serial)
    return trajectory.error ? <Problem message={trajectory.error} /> : <Loading what="the trajectory" />;
  const simulation = data.simulation;
  const outcome = outcomeOf(row);
  return (
    <div class="page" data-page="trajectory" data-outcome={outcome}>
      <section class="run-header">
        <div>
          <div class="crumbs small">
            <Link to={{ page: "run", runId }}>{run.value.summary.name}</Link> › task
          </div>
          <h1 class="mono">{taskId}</h1>
          <div class="meta">
            <OutcomeBadge outcome={outcome} />
            <span>
              reward <strong>{simulation.reward_info ? rate(simulation.reward_info.reward) : "–"}</strong>
            </span>
            <span>trial {trial}</span>
            <span>seed {simulation.seed ?? "–"}</span>
            <span>{terminationLabel(simulation.termination_reason)}</span>
            <span>{duration(simulation.duration)}</span>
            <span>
              agent {usd(simulation.agent_cost)} · user {usd(simulation.user_cost)}
            </span>
            <span>
              {count(row.tokens.agentIn + row.tokens.agentOut + row.tokens.userIn + row.tokens.userOut)}{" "}
              tokens
            </span>
          </div>
          {row.error && <div class="error-text">{row.error}</div>}
        </div>
        <TrialPills run={run.value} taskId={taskId} trial={trial} />
      </section>
      <div class="trajectory-layout">
        <Card title={`Conversation (${simulation.messages.length} messages)`}>
          <Conversation simulation={simulation} />
        </Card>
        <Card title="Grading">
          <Grading data={data} />
        </Card>
      </div>
    </div>
  );
}
