/** The runs list: one line per run, live runs updating as they go. */
import { useState } from "preact/hooks";
import type { RunSummary } from "../../wire.ts";
import { Card, Link, Loading, Problem, Tag } from "../components.tsx";
import type { DataSource } from "../data.ts";
import { count, interval, participant, rate, usd, when } from "../format.ts";
import { useLiveVersion, useResource } from "../hooks.ts";
import { routeHash } from "../route.ts";

function Progress({ run }: { run: RunSummary }) {
  const share = run.expected ? Math.min(1, run.simulations / run.expected) : null;
  return (
    <div class="progress-cell">
      <span>
        {count(run.simulations)}
        {run.expected !== null && run.expected !== run.simulations && (
          <span class="muted"> / {count(run.expected)}</span>
        )}
      </span>
      {share !== null && share < 1 && (
        <div class="progress">
          <div style={{ width: `${(100 * share).toFixed(1)}%` }} />
        </div>
      )}
    </div>
  );
}

/** The runs list page. */
export function RunsPage({ source }: { source: DataSource }) {
  const version = useLiveVersion(source, null);
  const runs = useResource(() => source.runs(), `runs ${version}`);
  const [picked, setPicked] = useState<string[]>([]);
  if (!runs.value) return runs.error ? <Problem message={runs.error} /> : <Loading what="runs" />;
  const list = [...runs.value].sort((a, b) => (b.createdAt ?? "").localeCompare(a.createdAt ?? ""));
  const toggle = (id: string) =>
    setPicked((current) =>
      current.includes(id) ? current.filter((x) => x !== id) : [...current, id].slice(-2),
    );
  return (
    <Card
      title="Runs"
      subtitle={`${list.length} run${list.length === 1 ? "" : "s"}. pass^1 is the share of tasks solved, averaged over trials; infrastructure errors are never scored.`}
      wide
    >
      <div class="toolbar">
        <span class="muted">Tick two runs to compare them.</span>
        <a
          class={`button${picked.length === 2 ? "" : " disabled"}`}
          href={
            picked.length === 2 ? routeHash({ page: "compare", a: picked[0]!, b: picked[1]! }) : undefined
          }
          aria-disabled={picked.length !== 2}
        >
          Compare {picked.length}/2
        </a>
      </div>
      <div class="table-wrap">
        <table class="runs-table" data-testid="runs-table">
          <thead>
            <tr>
              <th />
              <th>Run</th>
              <th>Domain</th>
              <th>Agent</th>
              <th>User</th>
              <th>Started</th>
              <th class="num">Simulations</th>
              <th class="num">pass^1</th>
              <th class="num">Avg reward</th>
              <th class="num">Cost</th>
              <th class="num">Infra errors</th>
            </tr>
          </thead>
          <tbody>
            {list.map((run) => (
              <tr key={run.id} data-run={run.id}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`compare ${run.name}`}
                    checked={picked.includes(run.id)}
                    onChange={() => toggle(run.id)}
                  />
                </td>
                <td class="run-name">
                  <Link to={{ page: "run", runId: run.id }} class="run-link">
                    {run.name}
                  </Link>
                  {run.live && (
                    <Tag tone="live" title="the checkpoint grew in the last two minutes">
                      live
                    </Tag>
                  )}
                  {run.prompts && <Tag title="which prompt texts the model saw">{run.prompts} prompts</Tag>}
                  <div class="muted small path">{run.path}</div>
                  {run.error && <div class="error-text small">{run.error}</div>}
                </td>
                <td>{run.domain && <Tag tone="domain">{run.domain}</Tag>}</td>
                <td class="small">{participant(run.agent)}</td>
                <td class="small">{participant(run.user)}</td>
                <td class="small nowrap">{when(run.createdAt)}</td>
                <td class="num">
                  <Progress run={run} />
                </td>
                <td class="num" data-cell="pass1">
                  <strong>{rate(run.passHat1)}</strong>
                  <div class="muted small nowrap">{interval(run.passHat1Interval)}</div>
                </td>
                <td class="num">{rate(run.avgReward)}</td>
                <td class="num">{usd(run.costUsd)}</td>
                <td class="num">
                  {run.infraErrors > 0 ? (
                    <Tag tone="infra">{run.infraErrors}</Tag>
                  ) : (
                    <span class="muted">0</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}
