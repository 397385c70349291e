/**
 * The task × trial grid: one row per task, one cell per trial (success,
 * failure, infrastructure error, not run). Only the rows in view are in the
 * page, so a run of any size scrolls smoothly.
 */
import { useMemo, useRef, useState } from "preact/hooks";
import { type GridRow, outcomeOf } from "./model.ts";
import { routeHash } from "./route.ts";

const ROW_PX = 28;
/** Rows drawn above and below the visible ones. */
const OVERSCAN = 12;
const VIEW_PX = 560;

type Filter = "all" | "failed" | "flaky" | "infra";
type Order = "task" | "worst" | "best";

const FILTERS: { value: Filter; label: string }[] = [
  { value: "all", label: "all tasks" },
  { value: "failed", label: "with a failure" },
  { value: "flaky", label: "flaky (some pass, some fail)" },
  { value: "infra", label: "with an infrastructure error" },
];

function keep(row: GridRow, filter: Filter): boolean {
  switch (filter) {
    case "all":
      return true;
    case "failed":
      return row.successes < row.evaluated;
    case "flaky":
      return row.successes > 0 && row.successes < row.evaluated;
    case "infra":
      return row.infra > 0;
    default: {
      const never: never = filter;
      throw new Error(`unknown filter ${String(never)}`);
    }
  }
}

const rateOf = (row: GridRow) => (row.evaluated === 0 ? -1 : row.successes / row.evaluated);

/** The grid, with a search box, a filter and an order. */
export function TaskGrid({ runId, rows, trials }: { runId: string; rows: GridRow[]; trials: number }) {
  const [query, setQuery] = useState("");
  const [filter, setFilter] = useState<Filter>("all");
  const [order, setOrder] = useState<Order>("task");
  const [scrollTop, setScrollTop] = useState(0);
  const viewport = useRef<HTMLDivElement>(null);

  const shown = useMemo(() => {
    const needle = query.trim().toLowerCase();
    const list = rows.filter(
      (row) => keep(row, filter) && (needle === "" || row.task.id.toLowerCase().includes(needle)),
    );
    if (order === "worst") list.sort((a, b) => rateOf(a) - rateOf(b) || a.taskIndex - b.taskIndex);
    if (order === "best") list.sort((a, b) => rateOf(b) - rateOf(a) || a.taskIndex - b.taskIndex);
    return list;
  }, [rows, query, filter, order]);

  const height = Math.min(VIEW_PX, Math.max(ROW_PX * 3, shown.length * ROW_PX));
  const first = Math.max(0, Math.floor(scrollTop / ROW_PX) - OVERSCAN);
  const last = Math.min(shown.length, Math.ceil((scrollTop + height) / ROW_PX) + OVERSCAN);
  const cellPx = trials > 24 ? 14 : 22;
  const longest = useMemo(() => rows.reduce((max, row) => Math.max(max, row.task.id.length), 4), [rows]);
  const labelPx = Math.min(560, Math.max(180, Math.round(longest * 7.3) + 16));
  const columns = `${labelPx}px repeat(${trials}, ${cellPx}px) 52px minmax(60px, 1fr)`;

  return (
    <div class="grid-block">
      <div class="toolbar">
        <input
          type="search"
          placeholder="Find a task id…"
          value={query}
          onInput={(event) => setQuery((event.target as HTMLInputElement).value)}
          aria-label="find a task"
        />
        <select
          value={filter}
          onChange={(event) => setFilter((event.target as HTMLSelectElement).value as Filter)}
          aria-label="filter tasks"
        >
          {FILTERS.map((f) => (
            <option key={f.value} value={f.value}>
              {f.label}
            </option>
          ))}
        </select>
        <select
          value={order}
          onChange={(event) => setOrder((event.target as HTMLSelectElement).value as Order)}
          aria-label="order tasks"
        >
          <option value="task">task order</option>
          <option value="worst">lowest success first</option>
          <option value="best">highest success first</option>
        </select>
        <span class="muted small" data-testid="grid-count">
          {shown.length} of {rows.length} tasks
        </span>
        <span class="legend small">
          <i class="cell success" /> success <i class="cell failure" /> failure <i class="cell infra" />{" "}
          infrastructure error <i class="cell empty" /> not run
        </span>
      </div>
      <div class="grid-head" style={{ gridTemplateColumns: columns }}>
        <span>task</span>
        {Array.from({ length: trials }, (_, trial) => (
          <span key={trial} class="trial-head">
            {trial}
          </span>
        ))}
        <span class="num">passed</span>
        <span />
      </div>
      <div
        class="grid-viewport"
        ref={viewport}
        style={{ height: `${height}px` }}
        onScroll={(event) => setScrollTop((event.target as HTMLDivElement).scrollTop)}
        data-testid="grid"
        data-rows={shown.length}
      >
        <div style={{ height: `${shown.length * ROW_PX}px`, position: "relative" }}>
          {shown.slice(first, last).map((row, i) => (
            <div
              key={row.taskIndex}
              class="grid-row"
              data-task={row.task.id}
              style={{ top: `${(first + i) * ROW_PX}px`, gridTemplateColumns: columns }}
            >
              <span class="task-id" title={row.task.id}>
                {row.task.id}
              </span>
              {row.cells.map((cell, trial) =>
                cell ? (
                  <a
                    key={trial}
                    class={`cell ${outcomeOf(cell)}`}
                    href={routeHash({ page: "trajectory", runId, taskId: row.task.id, trial })}
                    title={`${row.task.id} · trial ${trial} · ${outcomeOf(cell)}${cell.reward !== null ? ` · reward ${cell.reward.toFixed(2)}` : ""}`}
                    data-outcome={outcomeOf(cell)}
                    data-trial={trial}
                  >
                    <span class="sr">
                      trial {trial}: {outcomeOf(cell)}
                    </span>
                  </a>
                ) : (
                  <span key={trial} class="cell empty" data-outcome="none" data-trial={trial} />
                ),
              )}
              <span class="num small">
                {row.successes}/{row.evaluated}
              </span>
              <span class="rate-bar" aria-hidden="true">
                <span
                  style={{ width: `${row.evaluated === 0 ? 0 : (100 * row.successes) / row.evaluated}%` }}
                />
              </span>
            </div>
          ))}
        </div>
      </div>
    </div>
  );
}
