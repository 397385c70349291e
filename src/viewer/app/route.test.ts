import { describe, expect, it } from "vitest";
import { parseRoute, type Route, routeHash } from "./route.ts";

describe("hash routes", () => {
  it("gives every page a link that parses back to it, task ids with brackets and bars included", () => {
    const routes: Route[] = [
      { page: "runs" },
      { page: "run", runId: "2026_airline" },
      { page: "trajectory", runId: "r", taskId: "[mms_issue]a|b[PERSONA:Hard]", trial: 3 },
      { page: "compare", a: "x", b: "y" },
      { page: "compare", a: null, b: null },
    ];
    for (const route of routes) expect(parseRoute(routeHash(route))).toEqual(route);
  });

  it("reads anything unknown as the runs list", () => {
    expect(parseRoute("")).toEqual({ page: "runs" });
    expect(parseRoute("#/nowhere")).toEqual({ page: "runs" });
    expect(parseRoute("#/run/x/task/t/trial/zero")).toEqual({ page: "run", runId: "x" });
  });
});
