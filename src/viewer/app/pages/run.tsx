/**
 * A run's page: headline numbers, the papers' figures (pass^k against k,
 * reward by component, success against expected write actions, telecom's
 * breakdowns), terminations, cost and tokens, infrastructure errors apart,
 * and the task × trial grid.
 */
import { useMemo } from "preact/hooks";
import type { RunData, SimRow } from "../../wire.ts";
import { COLORS, ComponentChart, GroupChart, Histogram, PassKChart, TerminationChart } from "../charts.tsx";
import { Card, Kpi, Link, Loading, Problem, Tag } from "../components.tsx";
import type { DataSource } from "../data.ts";
import { FaultAuditCard } from "../faults.tsx";
import { count, interval, participant, percent, rate, terminationLabel, usd, when } from "../format.ts";
import { TaskGrid } from "../grid.tsx";
import { useLiveVersion, useResource } from "../hooks.ts";
import { describeIntervalMethod, formatLevel } from "../../../metrics/index.ts";
import { passAtKInterval, passHatKInterval, type RunModel, runModel } from "../model.ts";

const costOf = (row: SimRow) =>
  row.agentCost === null && row.userCost === null ? null : (row.agentCost ?? 0) + (row.userCost ?? 0);
const tokensOf = (row: SimRow) => {
  const { agentIn, agentOut, userIn, userOut } = row.tokens;
  const total = agentIn + agentOut + userIn + userOut;
  return total === 0 ? null : total;
};

function mean(values: number[]): number | null {
  return values.length === 0 ? null : values.reduce((sum, v) => sum + v, 0) / values.length;
}

function Header({ model }: { model: RunModel }) {
  const { summary, settings } = model.data;
  const stamp = settings.taubench;
  return (
    <section class="run-header">
      <div>
        <h1>{summary.name}</h1>
        <div class="meta">
          <Tag tone="domain">{summary.domain}</Tag>
          {summary.live && <Tag tone="live">live</Tag>}
          {summary.prompts && (
            <Tag
              tone={summary.prompts === "upstream" ? "good" : "warn"}
              title="which prompt texts the model saw (info.taubench.prompts)"
            >
              {summary.prompts} prompts
            </Tag>
          )}
          <span>
            agent <strong>{participant(settings.agent)}</strong>
          </span>
          <span>
            user <strong>{participant(settings.user)}</strong>
          </span>
          {settings.judge !== undefined && (
            <span>
              judge <strong>{settings.judge ?? "none"}</strong>
            </span>
          )}
        </div>
        <div class="meta muted small">
          <span>started {when(summary.createdAt)}</span>
          <span>
            {summary.tasks} tasks × {summary.numTrials} trials
          </span>
          <span>seed {settings.seed ?? "–"}</span>
          <span>max steps {settings.maxSteps}</span>
          {typeof stamp?.version === "string" && <span>taubench {stamp.version}</span>}
          <span class="path">{summary.path}</span>
        </div>
      </div>
    </section>
  );
}

function Headline({ model }: { model: RunModel }) {
  const { metrics, data } = model;
  const k = metrics.maxK;
  const rows = data.simulations;
  const perSim = mean(rows.map(tokensOf).filter((v): v is number => v !== null));
  return (
    <div class="kpis">
      <Kpi
        name="pass^1"
        label="pass^1"
        value={rate(metrics.passHatK[0])}
        detail={
          metrics.passHat1Interval
            ? `95% interval ${interval(metrics.passHat1Interval)}`
            : "no evaluated simulation"
        }
      />
      {k > 1 && (
        <Kpi
          name={`pass^${k}`}
          label={`pass^${k}`}
          value={rate(metrics.passHatK[k - 1])}
          detail={
            passHatKInterval(metrics, k)
              ? `95% interval ${interval(passHatKInterval(metrics, k))}`
              : `all ${k} trials succeed`
          }
        />
      )}
      <Kpi
        name="avg-reward"
        label="average reward"
        value={rate(metrics.avgReward)}
        detail={`${metrics.evaluatedSimulations} evaluated`}
      />
      <Kpi
        name="simulations"
        label="simulations"
        value={count(metrics.totalSimulations)}
        detail={data.summary.expected !== null ? `of ${count(data.summary.expected)} planned` : undefined}
      />
      <Kpi
        name="infra"
        label="infrastructure errors"
        value={String(metrics.infraErrorCount)}
        tone={metrics.infraErrorCount > 0 ? "warn" : undefined}
        detail="not scored"
      />
      <Kpi
        name="cost"
        label="cost"
        value={usd(model.cost.total)}
        detail={`${usd(model.cost.perSimulation)} per simulation`}
      />
      <Kpi
        name="tokens"
        label="tokens per simulation"
        value={perSim === null ? "n/a" : count(perSim)}
        detail="agent + user"
      />
    </div>
  );
}

function PassKTable({ model }: { model: RunModel }) {
  const { metrics } = model;
  return (
    <table class="compact" data-testid="passk-table">
      <thead>
        <tr>
          <th>k</th>
          <th class="num">pass^k</th>
          <th class="num">{formatLevel(metrics.intervalMethod.level)} interval</th>
          <th class="num">pass@k</th>
          <th class="num">{formatLevel(metrics.intervalMethod.level)} interval</th>
        </tr>
      </thead>
      <tbody>
        {metrics.passHatK.map((value, i) => (
          <tr key={i} data-k={i + 1}>
            <td>{i + 1}</td>
            <td class="num" data-value="pass-hat">
              {rate(value)}
            </td>
            <td class="num muted">{interval(passHatKInterval(metrics, i + 1)) || "–"}</td>
            <td class="num" data-value="pass-at">
              {rate(metrics.passAtK[i])}
            </td>
            <td class="num muted">{interval(passAtKInterval(metrics, i + 1)) || "–"}</td>
          </tr>
        ))}
      </tbody>
      <caption class="muted small">Intervals: {describeIntervalMethod(metrics.intervalMethod)}.</caption>
    </table>
  );
}

function InfraErrors({ model }: { model: RunModel }) {
  const tasks = model.data.tasks;
  if (model.infra.length === 0) return <p class="muted">None: every simulation ran to an end.</p>;
  return (
    <div class="table-wrap short">
      <table class="compact" data-testid="infra-table">
        <thead>
          <tr>
            <th>task</th>
            <th>trial</th>
            <th>error</th>
          </tr>
        </thead>
        <tbody>
          {model.infra.map((row) => (
            <tr key={row.serial}>
              <td class="mono small">
                <Link
                  to={{
                    page: "trajectory",
                    runId: model.data.summary.id,
                    taskId: tasks[row.task]!.id,
                    trial: row.trial,
                  }}
                >
                  {tasks[row.task]!.id}
                </Link>
              </td>
              <td>{row.trial}</td>
              <td class="small">{row.error ?? "unknown error"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function CostTable({ rows }: { rows: SimRow[] }) {
  const sum = (pick: (row: SimRow) => number) => rows.reduce((total, row) => total + pick(row), 0);
  const n = Math.max(1, rows.length);
  const agentCosts = rows.map((r) => r.agentCost).filter((v): v is number => v !== null);
  const userCosts = rows.map((r) => r.userCost).filter((v): v is number => v !== null);
  return (
    <table class="compact">
      <thead>
        <tr>
          <th>per simulation</th>
          <th class="num">agent</th>
          <th class="num">user simulator</th>
        </tr>
      </thead>
      <tbody>
        <tr>
          <td>cost (mean)</td>
          <td class="num">{usd(mean(agentCosts))}</td>
          <td class="num">{usd(mean(userCosts))}</td>
        </tr>
        <tr>
          <td>prompt tokens (mean)</td>
          <td class="num">{count(sum((r) => r.tokens.agentIn) / n)}</td>
          <td class="num">{count(sum((r) => r.tokens.userIn) / n)}</td>
        </tr>
        <tr>
          <td>completion tokens (mean)</td>
          <td class="num">{count(sum((r) => r.tokens.agentOut) / n)}</td>
          <td class="num">{count(sum((r) => r.tokens.userOut) / n)}</td>
        </tr>
      </tbody>
    </table>
  );
}

function Breakdowns({ model }: { model: RunModel }) {
  const { metrics } = model;
  const stats = model.data.stats;
  const unknownWrites = model.data.tasks.filter((task) => task.writeActions === null).length;
  return (
    <div class="cards">
      <Card
        title="Reliability"
        subtitle="pass^k: all k trials of a task succeed; pass@k: at least one does (τ-bench Fig. 4)."
        id="reliability"
      >
        {metrics.passHatK.length > 0 ? (
          <>
            <PassKChart metrics={metrics} />
            <PassKTable model={model} />
          </>
        ) : (
          <p class="muted">No evaluated simulation yet.</p>
        )}
      </Card>
      <Card
        title="Reward by component"
        subtitle="Share of graded simulations that passed each component of their task's reward basis; the reward is their product."
        id="components"
      >
        {stats.components.length > 0 ? (
          <>
            <ComponentChart components={stats.components} />
            <p class="muted small">
              Sole cause of a failure:{" "}
              {stats.components.map((c) => `${c.component} ${c.soleCause}`).join(" · ")}
              {metrics.notEvaluatedCount > 0 &&
                ` · NL assertions not judged in ${metrics.notEvaluatedCount} simulation(s)`}
            </p>
          </>
        ) : (
          <p class="muted">No simulation recorded a reward breakdown.</p>
        )}
      </Card>
      <Card
        title="Success against expected write actions"
        subtitle={`pass^1 by how many write actions the task expects (τ-bench Fig. 6); each bar says how many tasks it holds.${unknownWrites > 0 ? ` ${unknownWrites} task(s) without a known count are left out.` : ""}`}
        id="write-actions"
      >
        {stats.byWriteActions.length > 0 ? (
          <GroupChart
            groups={stats.byWriteActions}
            xLabel="expected write actions"
            label="success against expected write actions"
            ordinal
          />
        ) : (
          <p class="muted">
            The run does not say which expected actions write (grade it, or give the data folder).
          </p>
        )}
      </Card>
      <Card
        title="Terminations"
        subtitle="How simulations ended; only user and agent stops are graded, others score 0."
        id="terminations"
      >
        <TerminationChart terminations={model.terminations} />
        <p class="muted small">
          DB hash matched in {metrics.dbMatch.match} of {metrics.dbMatch.match + metrics.dbMatch.mismatch}{" "}
          checked simulations · actions read {metrics.readActions.correct}/{metrics.readActions.total} · write{" "}
          {metrics.writeActions.correct}/{metrics.writeActions.total}
        </p>
      </Card>
      {stats.telecom && (
        <>
          <Card title="Telecom: by intent" subtitle="pass^1 per intent of the task id." id="telecom-intent">
            <GroupChart groups={stats.telecom.intent} xLabel="intent" label="telecom by intent" />
          </Card>
          <Card title="Telecom: by persona" subtitle="pass^1 per user persona." id="telecom-persona">
            <GroupChart groups={stats.telecom.persona} xLabel="persona" label="telecom by persona" />
          </Card>
          <Card
            title="Telecom: by number of sub-issues"
            subtitle="pass^1 as the composite task grows (τ²-bench)."
            id="telecom-subissues"
          >
            <GroupChart
              groups={stats.telecom.subIssues}
              xLabel="sub-issues"
              label="telecom by number of sub-issues"
              ordinal
            />
          </Card>
        </>
      )}
      <Card title="Cost and tokens per simulation" subtitle="Agent plus user simulator." id="cost">
        <Histogram
          rows={model.data.simulations}
          value={costOf}
          xLabel="cost per simulation (USD)"
          label="cost per simulation"
          color={COLORS.passAt}
        />
        <Histogram
          rows={model.data.simulations}
          value={tokensOf}
          xLabel="tokens per simulation"
          label="tokens per simulation"
          color={COLORS.bar}
        />
        <CostTable rows={model.data.simulations} />
      </Card>
      <Card
        title={`Infrastructure errors (${model.infra.length})`}
        subtitle="Provider failures after retries and the like: listed apart, never counted as failures, re-run on resume."
        id="infra"
      >
        <InfraErrors model={model} />
      </Card>
    </div>
  );
}

/** The run page. */
export function RunPage({
  source,
  runId,
  loadRun,
}: {
  source: DataSource;
  runId: string;
  loadRun: (id: string) => Promise<RunData>;
}) {
  const version = useLiveVersion(source, runId);
  const run = useResource(() => loadRun(runId), `${runId} ${version}`);
  const model = useMemo(() => (run.value ? runModel(run.value) : null), [run.value]);

  if (!model) return run.error ? <Problem message={run.error} /> : <Loading what="the run" />;
  if (model.data.summary.error)
    return <Problem message={`${model.data.summary.path}: ${model.data.summary.error}`} />;
  const terminations = model.terminations.filter((t) => t.reason !== "infrastructure_error");
  return (
    <div class="page" data-page="run" data-run={runId}>
      <Header model={model} />
      <Headline model={model} />
      <Card
        title="Tasks × trials"
        subtitle={`Click a cell to open its trajectory. ${terminations.map((t) => `${terminationLabel(t.reason)} ${t.count}`).join(" · ")}`}
        wide
        id="grid"
      >
        <TaskGrid runId={runId} rows={model.grid} trials={model.trials} />
      </Card>
      <Breakdowns model={model} />
      <FaultAuditCard faults={model.data.faults} standard={model.metrics} />
      <p class="muted small footnote">
        pass^1 {rate(model.metrics.passHatK[0])} over {model.metrics.perTask.length} tasks ·{" "}
        {percent(model.metrics.evaluatedSimulations / Math.max(1, model.metrics.totalSimulations))} of
        simulations evaluated
      </p>
    </div>
  );
}
