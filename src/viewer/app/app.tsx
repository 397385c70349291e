/** The app shell: header, hash routing, and a cache of loaded runs shared by the pages. */
import { useEffect, useMemo, useState } from "preact/hooks";
import type { RunData } from "../wire.ts";
import type { DataSource } from "./data.ts";
import { ComparePage } from "./pages/compare.tsx";
import { RunPage } from "./pages/run.tsx";
import { RunsPage } from "./pages/runs.tsx";
import { TrajectoryPage } from "./pages/trajectory.tsx";
import { parseRoute, type Route, routeHash } from "./route.ts";

/** Loads runs once per change: the trajectory and compare pages reuse what the run page loaded. */
function runLoader(source: DataSource): (id: string) => Promise<RunData> {
  const cache = new Map<string, Promise<RunData>>();
  source.subscribe((update) => cache.delete(update.id));
  return (id) => {
    let promise = cache.get(id);
    if (!promise) {
      promise = source.run(id);
      cache.set(id, promise);
      promise.catch(() => cache.delete(id));
    }
    return promise;
  };
}

function Page({
  route,
  source,
  loadRun,
}: {
  route: Route;
  source: DataSource;
  loadRun: (id: string) => Promise<RunData>;
}) {
  switch (route.page) {
    case "runs":
      return <RunsPage source={source} />;
    case "run":
      return <RunPage source={source} runId={route.runId} loadRun={loadRun} />;
    case "trajectory":
      return (
        <TrajectoryPage
          source={source}
          runId={route.runId}
          taskId={route.taskId}
          trial={route.trial}
          loadRun={loadRun}
        />
      );
    case "compare":
      return <ComparePage source={source} a={route.a} b={route.b} loadRun={loadRun} />;
    default: {
      const never: never = route;
      throw new Error(`unknown page ${String(never)}`);
    }
  }
}

/** The whole app. */
export function App({ source }: { source: DataSource }) {
  const [route, setRoute] = useState<Route>(() => parseRoute(location.hash));
  const loadRun = useMemo(() => runLoader(source), [source]);
  useEffect(() => {
    const onChange = () => {
      setRoute(parseRoute(location.hash));
      window.scrollTo(0, 0);
    };
    window.addEventListener("hashchange", onChange);
    return () => window.removeEventListener("hashchange", onChange);
  }, []);
  return (
    <div class="shell">
      <header class="topbar">
        <a class="brand" href={routeHash({ page: "runs" })}>
          <span class="logo">τ</span> taubench <span class="muted">viewer</span>
        </a>
        <nav>
          <a href={routeHash({ page: "runs" })} class={route.page === "runs" ? "active" : undefined}>
            Runs
          </a>
          <a
            href={routeHash({ page: "compare", a: null, b: null })}
            class={route.page === "compare" ? "active" : undefined}
          >
            Compare
          </a>
        </nav>
        {source.mode === "static" && <span class="mode-note small">static export</span>}
      </header>
      <main>
        <Page route={route} source={source} loadRun={loadRun} />
      </main>
    </div>
  );
}
