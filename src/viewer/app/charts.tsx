/** The run page's figures (Observable Plot), each from the run model. */
import { useMemo } from "preact/hooks";
import type { ComponentOutcome } from "../../metrics/breakdowns.ts";
import type { AgentMetrics } from "../../metrics/index.ts";
import type { GroupStats, SimRow } from "../wire.ts";
import { terminationLabel } from "./format.ts";
import { passHatKInterval, type TerminationCount } from "./model.ts";
import { Plot, PlotFigure } from "./plot.tsx";

/** Colours of the page (also in styles.css). */
export const COLORS = {
  passHat: "#4f46e5",
  passAt: "#0d9488",
  success: "#16a34a",
  failure: "#dc2626",
  infra: "#d97706",
  neutral: "#94a3b8",
  bar: "#6366f1",
};

const WIDTH = 520;

/** pass^k falling and pass@k rising with k (τ-bench Fig. 4), with intervals where the metrics have them. */
export function PassKChart({ metrics }: { metrics: AgentMetrics }) {
  const options = useMemo((): Plot.PlotOptions => {
    const points = metrics.passHatK.flatMap((value, i) => [
      { k: i + 1, value, series: "pass^k", interval: passHatKInterval(metrics, i + 1) },
      { k: i + 1, value: metrics.passAtK[i]!, series: "pass@k", interval: null },
    ]);
    const bands = points.filter((point) => point.interval !== null);
    return {
      width: WIDTH,
      height: 260,
      marginLeft: 44,
      marginBottom: 40,
      x: {
        label: "k (trials that must all succeed / any succeed)",
        labelAnchor: "center",
        ticks: metrics.passHatK.map((_, i) => i + 1),
        tickFormat: "d",
        domain: [1, Math.max(2, metrics.maxK)],
      },
      y: { label: "rate", domain: [0, 1], grid: true },
      color: { domain: ["pass^k", "pass@k"], range: [COLORS.passHat, COLORS.passAt], legend: true },
      marks: [
        Plot.ruleX(bands, {
          x: "k",
          y1: (d: (typeof bands)[number]) => d.interval![0],
          y2: (d: (typeof bands)[number]) => d.interval![1],
          stroke: COLORS.passHat,
          strokeWidth: 6,
          strokeOpacity: 0.2,
        }),
        Plot.line(points, { x: "k", y: "value", stroke: "series", strokeWidth: 2.5 }),
        Plot.dot(points, {
          x: "k",
          y: "value",
          fill: "series",
          r: 4,
          tip: true,
          title: (d: (typeof points)[number]) => `${d.series} k=${d.k}: ${d.value.toFixed(3)}`,
        }),
        // At k = 1 both rates are equal: one label.
        Plot.text(
          points.filter((p) => p.k > 1 || p.series === "pass^k"),
          {
            x: "k",
            y: "value",
            text: (d: (typeof points)[number]) => d.value.toFixed(2),
            dy: -10,
            fill: "series",
            fontSize: 10,
          },
        ),
      ],
    };
  }, [metrics]);
  return <PlotFigure options={options} label="pass^k and pass@k against k" />;
}

/** Pass rate of each reward component. */
export function ComponentChart({ components }: { components: ComponentOutcome[] }) {
  const options = useMemo((): Plot.PlotOptions => {
    const rows = components.map((c) => ({ ...c, rate: c.passed / c.graded }));
    return {
      width: WIDTH,
      height: 40 + 34 * rows.length,
      marginLeft: 120,
      marginRight: 90,
      marginBottom: 40,
      x: {
        label: "passed (share of graded simulations)",
        labelAnchor: "center",
        domain: [0, 1],
        grid: true,
        tickFormat: "%",
      },
      y: { label: null, domain: rows.map((r) => r.component) },
      marks: [
        Plot.barX(rows, { x: 1, y: "component", fill: "#e2e8f0" }),
        Plot.barX(rows, {
          x: "rate",
          y: "component",
          fill: (d: (typeof rows)[number]) => (d.rate >= 0.999 ? COLORS.success : COLORS.bar),
        }),
        Plot.text(rows, {
          x: 1,
          y: "component",
          text: (d: (typeof rows)[number]) => `${d.passed} / ${d.graded}`,
          textAnchor: "start",
          dx: 6,
          fill: "#334155",
        }),
      ],
    };
  }, [components]);
  return <PlotFigure options={options} label="reward by component" />;
}

/** pass^1 of each group of tasks as bars with their intervals (success against write actions, telecom facets). */
export function GroupChart({
  groups,
  xLabel,
  label,
  ordinal,
}: {
  groups: GroupStats[];
  xLabel: string;
  label: string;
  ordinal?: boolean;
}) {
  const options = useMemo((): Plot.PlotOptions => {
    const rows = groups.map((g) => ({
      group: g.group,
      pass1: g.passHat1 ?? 0,
      tasks: g.tasks,
      interval: g.passHat1Interval,
    }));
    const many = rows.length > 8 && !ordinal;
    return {
      width: WIDTH,
      height: many ? 40 + 26 * rows.length : 250,
      marginLeft: many ? 170 : 44,
      marginBottom: 40,
      ...(many
        ? {
            x: { label: "pass^1", labelAnchor: "center", domain: [0, 1], grid: true },
            y: { label: null, domain: rows.map((r) => r.group) },
            marks: [
              Plot.barX(rows, { x: "pass1", y: "group", fill: COLORS.bar }),
              Plot.text(rows, {
                x: "pass1",
                y: "group",
                text: (d: (typeof rows)[number]) => `${d.pass1.toFixed(2)} · ${d.tasks} tasks`,
                textAnchor: "start",
                dx: 4,
                fontSize: 10,
              }),
            ],
          }
        : {
            x: { label: xLabel, domain: rows.map((r) => r.group), padding: 0.25 },
            y: { label: "pass^1", domain: [0, 1], grid: true },
            marks: [
              Plot.barY(rows, {
                x: "group",
                y: "pass1",
                fill: COLORS.bar,
                tip: true,
                title: (d: (typeof rows)[number]) =>
                  `${xLabel} ${d.group}: pass^1 ${d.pass1.toFixed(3)} over ${d.tasks} tasks`,
              }),
              Plot.ruleX(
                rows.filter((r) => r.interval),
                {
                  x: "group",
                  y1: (d: (typeof rows)[number]) => d.interval![0],
                  y2: (d: (typeof rows)[number]) => d.interval![1],
                  stroke: "#1e1b4b",
                  strokeOpacity: 0.45,
                  strokeWidth: 1.5,
                },
              ),
              Plot.text(rows, {
                x: "group",
                y: "pass1",
                text: (d: (typeof rows)[number]) =>
                  `${d.pass1.toFixed(2)} · ${d.tasks} task${d.tasks === 1 ? "" : "s"}`,
                dy: -8,
                fontSize: 10,
                fill: "#334155",
              }),
            ],
          }),
    };
  }, [groups, xLabel, ordinal]);
  return <PlotFigure options={options} label={label} />;
}

/** How simulations ended. */
export function TerminationChart({ terminations }: { terminations: TerminationCount[] }) {
  const options = useMemo((): Plot.PlotOptions => {
    const rows = terminations.map((t) => ({ ...t, label: terminationLabel(t.reason) }));
    const tone = (reason: string) =>
      reason === "infrastructure_error"
        ? COLORS.infra
        : reason === "user_stop" || reason === "agent_stop"
          ? COLORS.bar
          : COLORS.failure;
    return {
      width: WIDTH,
      height: 40 + 30 * rows.length,
      marginLeft: 150,
      marginRight: 50,
      marginBottom: 40,
      x: { label: "simulations", labelAnchor: "center", grid: true },
      y: { label: null, domain: rows.map((r) => r.label) },
      marks: [
        Plot.barX(rows, { x: "count", y: "label", fill: (d: (typeof rows)[number]) => tone(d.reason) }),
        Plot.text(rows, {
          x: "count",
          y: "label",
          text: (d: (typeof rows)[number]) => String(d.count),
          textAnchor: "start",
          dx: 4,
        }),
      ],
    };
  }, [terminations]);
  return <PlotFigure options={options} label="terminations" />;
}

/** Distribution of a per-simulation quantity (cost, tokens) as a histogram. */
export function Histogram({
  rows,
  value,
  xLabel,
  label,
  color,
}: {
  rows: SimRow[];
  value: (row: SimRow) => number | null;
  xLabel: string;
  label: string;
  color: string;
}) {
  const options = useMemo((): Plot.PlotOptions => {
    const values = rows.map(value).filter((v): v is number => v !== null && Number.isFinite(v));
    return {
      width: WIDTH,
      height: 200,
      marginLeft: 44,
      marginBottom: 40,
      x: { label: xLabel, labelAnchor: "center" },
      y: { label: "simulations", grid: true },
      marks: [
        Plot.rectY(values, {
          ...Plot.binX({ y: "count" }, { x: (d: number) => d, thresholds: 30 }),
          fill: color,
        }),
        Plot.ruleY([0]),
      ],
    };
  }, [rows, value, xLabel, color]);
  return <PlotFigure options={options} label={label} />;
}
