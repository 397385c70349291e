import { copyFileSync, cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { computeMetrics } from "../metrics/index.ts";
import { loadRun } from "../runner/run-file.ts";
import { RunCatalog } from "./catalog.ts";
import { startViewerServer, type ViewerServer } from "./server.ts";
import { appendSimulationCopy } from "./test-runs.ts";
import { domainLoader } from "./trajectory.ts";
import type { RunData, RunSummary, TrajectoryData } from "./wire.ts";

const fixture = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** A raw request: the path is sent exactly as given (no URL normalisation), with any Host header. */
function raw(port: number, path: string, options: { method?: string; host?: string } = {}) {
  return new Promise<{ status: number; body: string; type: string | undefined }>((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: options.method ?? "GET",
        headers: { host: options.host ?? `127.0.0.1:${port}` },
      },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          body += chunk;
        });
        response.on("end", () =>
          resolve({ status: response.statusCode!, body, type: response.headers["content-type"] }),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

let root: string;
let server: ViewerServer;
let catalog: RunCatalog;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "tau-viewer-server-"));
  mkdirSync(join(root, "runs", "ours"), { recursive: true });
  copyFileSync(
    fixture("../runner/fixtures/checkpoint-v2.jsonl"),
    join(root, "runs", "ours", "results.jsonl"),
  );
  mkdirSync(join(root, "runs", "upstream"));
  copyFileSync(
    fixture("../core/fixtures/results-upstream.json"),
    join(root, "runs", "upstream", "results.json"),
  );
  cpSync(fixture("../core/fixtures/results-dir"), join(root, "runs", "upstream-dir"), { recursive: true });
  // Files a request must never reach.
  writeFileSync(join(root, "secret.txt"), "top secret\n");
  const app = join(root, "app");
  mkdirSync(app);
  writeFileSync(join(app, "app.js"), "console.log('app');\n");
  writeFileSync(join(app, "app.css"), "body {}\n");
  catalog = new RunCatalog({ targets: [], cwd: root });
  server = await startViewerServer({
    catalog,
    appDir: app,
    load: domainLoader({ missing: "no data in this test" }),
    followIntervalMs: 0,
  });
});

afterAll(async () => {
  await server?.close();
});

describe("the viewer server", () => {
  it("listens on 127.0.0.1 only and serves the page and the app", async () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/`);
    const page = await raw(server.port, "/");
    expect(page.status).toBe(200);
    expect(page.body).toContain('<script src="assets/app.js"></script>');
    expect(page.body).toContain('TAU_VIEWER_MODE = "server"');
    expect((await raw(server.port, "/assets/app.js")).body).toBe("console.log('app');\n");
  });

  it("lists every run under ./runs/ with the numbers computeMetrics gives", async () => {
    const runs = JSON.parse((await raw(server.port, "/api/runs")).body) as RunSummary[];
    expect(runs.map((run) => [run.id, run.format])).toEqual([
      ["ours", "checkpoint"],
      ["upstream", "results"],
      ["upstream-dir", "results-dir"],
    ]);
    for (const summary of runs) {
      const run = await loadRun(join(root, summary.path));
      const metrics = computeMetrics(run.simulations, { numTrials: run.info.num_trials });
      expect(summary.passHat1).toBe(metrics.passHatK[0]);
      expect(summary.passHat1Interval).toEqual(metrics.passHat1Interval);
      expect(summary.simulations).toBe(run.simulations.length);
      expect(summary.infraErrors).toBe(metrics.infraErrorCount);
      expect(summary.agent.implementation).toBe(run.info.agent_info.implementation);
    }
  });

  it("serves a run and one trajectory at a time", async () => {
    const data = JSON.parse((await raw(server.port, "/api/runs/upstream")).body) as RunData;
    const run = await loadRun(join(root, "runs", "upstream", "results.json"));
    expect(data.simulations).toHaveLength(run.simulations.length);
    const row = data.simulations[1]!;
    const trajectory = JSON.parse(
      (await raw(server.port, `/api/runs/upstream/sims/${row.serial}`)).body,
    ) as TrajectoryData;
    expect(trajectory.simulation.id).toBe(run.simulations[1]!.id);
    expect(trajectory.simulation.messages.length).toBe(run.simulations[1]!.messages.length);
    expect(trajectory.dbDiff).toEqual({ status: "unavailable", reason: "no data in this test" });
    expect((await raw(server.port, "/api/runs/upstream/sims/999")).status).toBe(404);
    expect((await raw(server.port, "/api/runs/nope")).status).toBe(404);
  });

  it("refuses paths outside the runs it was given: '..' traversal, encoded or not, and absolute paths", async () => {
    const attempts = [
      "/../secret.txt",
      "/assets/../secret.txt",
      "/assets/..%2f..%2fsecret.txt",
      "/assets/%2e%2e/%2e%2e/secret.txt",
      "/api/runs/..%2F..%2Fsecret.txt",
      "/api/runs/..%2Fupstream",
      "/api/runs/%2Fetc%2Fpasswd",
      `/api/runs/${encodeURIComponent(join(root, "secret.txt"))}`,
      "/api/runs/upstream/sims/..%2F..%2F..%2Fsecret.txt",
      "/api/runs/upstream/../../secret.txt",
      "//etc/passwd",
      "/etc/passwd",
      `${join(root, "secret.txt")}`,
      "/runs/ours/results.jsonl",
      "/api/runs/%E0%A4%A",
    ];
    for (const path of attempts) {
      const reply = await raw(server.port, path);
      expect(reply.status, path).toBe(404);
      expect(reply.body, path).not.toContain("top secret");
      expect(reply.body, path).not.toContain("root:");
    }
    // An absolute-form request target (what a proxy sends) is refused as well.
    const absolute = await raw(server.port, `http://127.0.0.1:${server.port}/etc/passwd`);
    expect(absolute.status).toBe(404);
  });

  it("is read-only and answers only to its own host name", async () => {
    expect((await raw(server.port, "/api/runs", { method: "POST" })).status).toBe(405);
    expect((await raw(server.port, "/api/runs", { method: "DELETE" })).status).toBe(405);
    // A page on another site that resolves its name to 127.0.0.1 (DNS rebinding) gets nothing.
    expect((await raw(server.port, "/api/runs", { host: "evil.example:80" })).status).toBe(403);
    expect((await raw(server.port, "/api/runs", { host: `localhost:${server.port}` })).status).toBe(200);
  });

  it("follows a growing checkpoint and pushes an event to open pages", async () => {
    const events: string[] = [];
    const stream = request({ host: "127.0.0.1", port: server.port, path: "/api/events" });
    const opened = new Promise<void>((resolve) => {
      stream.on("response", (response) => {
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          events.push(chunk);
          resolve();
        });
      });
    });
    stream.end();
    await opened;
    const checkpoint = join(root, "runs", "ours", "results.jsonl");
    const before = catalog.get("ours")!.size;
    appendSimulationCopy(checkpoint, { id: "new", trial: 7 });
    const updates = server.poll();
    expect(updates.map((update) => update.id)).toEqual(["ours"]);
    expect(catalog.get("ours")!.size).toBe(before + 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(events.join("")).toContain(`event: run\ndata: {"id":"ours","version":${updates[0]!.version}}`);
    stream.destroy();
    const runs = JSON.parse((await raw(server.port, "/api/runs")).body) as RunSummary[];
    expect(runs.find((run) => run.id === "ours")!.simulations).toBe(before + 1);
  });
});
