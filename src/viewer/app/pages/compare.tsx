/** Two runs side by side: `tau compare`'s paired test and the tasks that flipped. */
import { useMemo } from "preact/hooks";
import { describeIntervalMethod, formatLevel } from "../../../metrics/index.ts";
import type { RunData, RunSummary } from "../../wire.ts";
import { PassKChart } from "../charts.tsx";
import { Card, Kpi, Link, Loading, Problem, Tag } from "../components.tsx";
import type { DataSource } from "../data.ts";
import { interval, participant, rate, signed } from "../format.ts";
import { useResource } from "../hooks.ts";
import { comparisonModel, runModel } from "../model.ts";
import { routeHash } from "../route.ts";

function Picker({
  runs,
  value,
  other,
  side,
}: {
  runs: RunSummary[];
  value: string | null;
  other: string | null;
  side: "a" | "b";
}) {
  return (
    <label class="picker">
      Run {side.toUpperCase()}
      <select
        value={value ?? ""}
        aria-label={`run ${side}`}
        onChange={(event) => {
          const id = (event.target as HTMLSelectElement).value;
          const route =
            side === "a"
              ? { page: "compare" as const, a: id, b: other }
              : { page: "compare" as const, a: other, b: id };
          location.hash = routeHash(route);
        }}
      >
        <option value="">choose a run…</option>
        {runs.map((run) => (
          <option key={run.id} value={run.id}>
            {run.name} ({run.domain})
          </option>
        ))}
      </select>
    </label>
  );
}

function Comparison({ a, b }: { a: RunData; b: RunData }) {
  const model = useMemo(() => comparisonModel(runModel(a), runModel(b)), [a, b]);
  const { comparison } = model;
  const name = (run: RunData) => `${run.summary.name} — ${participant(run.settings.agent)}`;
  const decided = comparison?.decision === "better" || comparison?.decision === "worse";
  const level = comparison ? formatLevel(comparison.intervalMethod.level) : "";
  return (
    <>
      <div class="kpis">
        <Kpi
          name="pass1-a"
          label="pass^1 A"
          value={rate(model.metricsA.passHatK[0])}
          detail={interval(model.metricsA.passHat1Interval)}
        />
        <Kpi
          name="pass1-b"
          label="pass^1 B"
          value={rate(model.metricsB.passHatK[0])}
          detail={interval(model.metricsB.passHat1Interval)}
        />
        {comparison && comparison.meanDifference !== null && (
          <Kpi
            name="difference"
            label="B − A (paired)"
            value={signed(comparison.meanDifference)}
            detail={`${level} interval ${interval(comparison.interval)} · p = ${comparison.pValue.toFixed(3)}`}
            tone={
              comparison.decision === "better" ? "good" : comparison.decision === "worse" ? "bad" : undefined
            }
          />
        )}
        {comparison?.minimumDetectableDifference != null && (
          <Kpi
            name="mdd"
            label="detectable difference"
            value={rate(comparison.minimumDetectableDifference)}
            detail={`at ${Math.round(comparison.power * 100)}% power, alpha ${comparison.alpha}`}
          />
        )}
      </div>
      <Card title={`Domain ${model.domainA}`} wide>
        <p class="small">
          <strong>A</strong> {name(a)}
          <br />
          <strong>B</strong> {name(b)}
        </p>
        {comparison === null ? (
          <Problem
            message={`The runs are on different domains (${model.domainA} vs ${model.domainB}); there is nothing to pair.`}
          />
        ) : comparison.meanDifference === null ? (
          <Problem message="No task was evaluated in both runs, so they cannot be compared." />
        ) : (
          <>
            <p data-testid="verdict" class={`verdict${decided ? " better" : ""}`}>
              {decided
                ? `${comparison.decision === "better" ? "B" : "A"} is better on ${model.domainA} by ${Math.abs(comparison.meanDifference).toFixed(3)} pass^1; unlikely to be chance (p < ${comparison.alpha}).`
                : comparison.meanDifference === 0
                  ? `No difference on ${model.domainA}.`
                  : `No clear difference on ${model.domainA}: ${comparison.meanDifference > 0 ? "B" : "A"} is ahead by ${Math.abs(comparison.meanDifference).toFixed(3)}, within chance (p = ${comparison.pValue.toFixed(2)}). More tasks or trials would tell.`}
            </p>
            <p class="muted small">
              Paired over {comparison.tasks.length} shared task(s): {comparison.testMethod},{" "}
              {describeIntervalMethod(comparison.intervalMethod)} for the interval, as `tau compare`.
              {comparison.trialsForEffect?.trials != null &&
                ` Detecting a difference of ${comparison.effect} would take about ${comparison.trialsForEffect.trials} trials per task.`}
              {comparison.onlyInA.length + comparison.onlyInB.length > 0 &&
                ` Left out: ${comparison.onlyInA.length} task(s) only in A, ${comparison.onlyInB.length} only in B.`}
            </p>
          </>
        )}
      </Card>
      <div class="cards">
        <Card title="A: pass^k and pass@k">
          <PassKChart metrics={model.metricsA} />
        </Card>
        <Card title="B: pass^k and pass@k">
          <PassKChart metrics={model.metricsB} />
        </Card>
      </div>
      {comparison && (
        <Card
          title={`Tasks that flipped (${model.flipped.length})`}
          subtitle="Tasks whose success rate differs between the runs, largest change first."
          wide
        >
          {model.flipped.length === 0 ? (
            <p class="muted">Every shared task has the same success rate in both runs.</p>
          ) : (
            <div class="table-wrap">
              <table class="compact" data-testid="flipped-table">
                <thead>
                  <tr>
                    <th>task</th>
                    <th class="num">A</th>
                    <th class="num">B</th>
                    <th class="num">B − A</th>
                  </tr>
                </thead>
                <tbody>
                  {model.flipped.map((task) => (
                    <tr key={task.taskId} data-task={task.taskId}>
                      <td class="mono small">
                        {task.taskId}{" "}
                        <Link
                          to={{ page: "trajectory", runId: a.summary.id, taskId: task.taskId, trial: 0 }}
                          class="small"
                        >
                          A
                        </Link>{" "}
                        <Link
                          to={{ page: "trajectory", runId: b.summary.id, taskId: task.taskId, trial: 0 }}
                          class="small"
                        >
                          B
                        </Link>
                      </td>
                      <td class="num">
                        {task.a.successes}/{task.a.trials}
                      </td>
                      <td class="num">
                        {task.b.successes}/{task.b.trials}
                      </td>
                      <td class="num">
                        <Tag tone={task.difference > 0 ? "good" : "bad"}>{signed(task.difference)}</Tag>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Card>
      )}
    </>
  );
}

/** The compare page. */
export function ComparePage({
  source,
  a,
  b,
  loadRun,
}: {
  source: DataSource;
  a: string | null;
  b: string | null;
  loadRun: (id: string) => Promise<RunData>;
}) {
  const runs = useResource(() => source.runs(), "runs");
  const dataA = useResource(() => (a ? loadRun(a) : Promise.reject(new Error("choose run A"))), `a ${a}`);
  const dataB = useResource(() => (b ? loadRun(b) : Promise.reject(new Error("choose run B"))), `b ${b}`);
  if (!runs.value) return runs.error ? <Problem message={runs.error} /> : <Loading what="runs" />;
  const ready =
    a && b && dataA.value && dataB.value && dataA.value.summary.id === a && dataB.value.summary.id === b;
  return (
    <div class="page" data-page="compare">
      <section class="run-header">
        <div>
          <h1>Compare two runs</h1>
          <div class="meta">
            <Picker runs={runs.value} value={a} other={b} side="a" />
            <Picker runs={runs.value} value={b} other={a} side="b" />
          </div>
        </div>
      </section>
      {ready ? (
        <Comparison a={dataA.value!} b={dataB.value!} />
      ) : a && b ? (
        dataA.error && a ? (
          <Problem message={dataA.error} />
        ) : dataB.error ? (
          <Problem message={dataB.error} />
        ) : (
          <Loading what="both runs" />
        )
      ) : (
        <p class="muted">Choose two runs of the same domain.</p>
      )}
    </div>
  );
}
