/**
 * Routes are in the URL's hash, so every page has a link that works from the
 * server, from a static host, and from a local file alike:
 * `#/`, `#/run/ID`, `#/run/ID/task/TASK/trial/N`, `#/compare/A/B`.
 */

/** A page of the app. */
export type Route =
  | { page: "runs" }
  | { page: "run"; runId: string }
  | { page: "trajectory"; runId: string; taskId: string; trial: number }
  | { page: "compare"; a: string | null; b: string | null };

/** Parses a location hash (`#/run/x`); anything unknown is the runs list. */
export function parseRoute(hash: string): Route {
  const parts = hash
    .replace(/^#\/?/, "")
    .split("/")
    .filter((part) => part !== "")
    .map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    });
  if (parts[0] === "run" && parts[1] !== undefined) {
    if (parts[2] === "task" && parts[3] !== undefined && parts[4] === "trial" && /^\d+$/.test(parts[5] ?? ""))
      return { page: "trajectory", runId: parts[1], taskId: parts[3], trial: Number(parts[5]) };
    return { page: "run", runId: parts[1] };
  }
  if (parts[0] === "compare") return { page: "compare", a: parts[1] ?? null, b: parts[2] ?? null };
  return { page: "runs" };
}

/** The hash of a route (the inverse of {@link parseRoute}). */
export function routeHash(route: Route): string {
  const e = encodeURIComponent;
  switch (route.page) {
    case "runs":
      return "#/";
    case "run":
      return `#/run/${e(route.runId)}`;
    case "trajectory":
      return `#/run/${e(route.runId)}/task/${e(route.taskId)}/trial/${route.trial}`;
    case "compare":
      return `#/compare${route.a ? `/${e(route.a)}` : ""}${route.a && route.b ? `/${e(route.b)}` : ""}`;
    default: {
      const never: never = route;
      throw new Error(`unknown route ${String(never)}`);
    }
  }
}
