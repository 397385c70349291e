import { type ChildProcess, spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { cpSync, existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentExecutor, ExecutionEventBus, RequestContext } from "@a2a-js/sdk/server";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTau, TAU_BIN } from "../cli/e2e-harness.ts";
import { publishAgentReply, startA2aServer } from "../testing/a2a-server.ts";
import { startFakeProvider, type FakeProvider, type FakeRequest } from "../testing/fake-provider.ts";
import { assertRedisReachable, reportConnectionErrors } from "./queue.ts";
import { hasRedisServer, startRedis, type TestRedis } from "./redis-harness.ts";

const dataDir = process.env.TAU_DATA_DIR;
const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const redisPresent = hasRedisServer();
if (!redisPresent)
  console.log("queue tests skipped: redis-server is not installed (apt-get install redis-server)");

const TASKS = ["create_task_1", "update_task_1", "impossible_task_1"];
const TRIALS = 6;

/** Three calls per conversation: the user opens, the agent answers, the user stops. */
function scripted(request: FakeRequest) {
  const messages = request.body.messages ?? [];
  const system = String(messages[0]?.content ?? "");
  if (!system.includes("###STOP###")) return { text: "Noted, thank you." };
  return { text: messages.length <= 2 ? "Hello, I need help with my tasks." : "That is all. ###STOP###" };
}

/** An A2A agent that notes each message with one line of text, keeping the contexts it saw. */
class NotingExecutor implements AgentExecutor {
  readonly contexts = new Set<string>();

  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    this.contexts.add(context.contextId);
    publishAgentReply(context, bus, { $case: "text", value: "Noted, thank you." });
  }

  async cancelTask(): Promise<void> {}
}

/** A `tau worker` child; its stderr is kept. */
interface WorkerProcess {
  child: ChildProcess;
  stderr(): string;
  exited: Promise<number | null>;
}

function startWorker(
  url: string,
  env: Record<string, string> = {},
  /** Runs `tau` from another installation (its own package.json: another version). */
  installation?: string,
): WorkerProcess {
  const bin = installation
    ? ["--preserve-symlinks", "--preserve-symlinks-main", join(installation, "scripts", "tau-from-source.js")]
    : [TAU_BIN];
  const child = spawn(
    process.execPath,
    [...bin, "worker", "--queue", url, "--concurrency", "3", "--lock-duration", "2"],
    { env: { ...process.env, TAU_DATA_DIR: dataDir!, ...env }, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, stderr: () => stderr, exited };
}

async function stopWorker(worker: WorkerProcess): Promise<void> {
  if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill("SIGTERM");
  await worker.exited;
}

/** Simulation records of a checkpoint: how many per key, and the termination reasons. */
function checkpointSimulations(path: string) {
  const perKey = new Map<string, number>();
  const reasons: string[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line) continue;
    const record = JSON.parse(line);
    if (record.kind !== "simulation") continue;
    const { trial, task_id, seed, termination_reason } = record.simulation;
    const key = `${trial}/${task_id}/${seed}`;
    perKey.set(key, (perKey.get(key) ?? 0) + 1);
    reasons.push(termination_reason);
  }
  return { perKey, reasons };
}

/** The checkpoint holds every unit of the run exactly once, none an infrastructure error. */
function expectEveryUnitOnce(checkpointPath: string): void {
  const { perKey, reasons } = checkpointSimulations(checkpointPath);
  expect(perKey.size).toBe(TASKS.length * TRIALS);
  expect([...perKey.values()].every((count) => count === 1)).toBe(true);
  expect(reasons.filter((reason) => reason === "infrastructure_error")).toEqual([]);
}

/**
 * Another installation of this taubench that says it is `version`: its own package.json, the
 * sources and dependencies linked (node keeps the linked paths, so it reads that package.json).
 */
function otherInstallation(version: string): string {
  const folder = mkdtempSync(join(tmpdir(), "tau-other-version-"));
  for (const part of ["src", "scripts", "node_modules"]) symlinkSync(join(REPO, part), join(folder, part));
  const manifest = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8"));
  writeFileSync(join(folder, "package.json"), JSON.stringify({ ...manifest, version }));
  return folder;
}

const until = async (condition: () => boolean, timeoutMs: number) => {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe.skipIf(!dataDir || !redisPresent)(
  "tau run --queue + tau worker on a real redis-server (skipped: TAU_DATA_DIR or redis-server missing)",
  () => {
    let redis: TestRedis;
    let fake: FakeProvider;
    beforeAll(async () => {
      redis = await startRedis();
      fake = await startFakeProvider({ handler: scripted, latencyMs: 150, record: false });
    });
    afterAll(async () => {
      await fake?.close();
      await redis?.stop();
    });

    const coordinatorArgs = (saveTo: string) => [
      "run",
      "--domain",
      "mock",
      "--task-ids",
      ...TASKS,
      "--num-trials",
      String(TRIALS),
      "--agent-llm",
      "local/fake",
      "--user-llm",
      "local/fake",
      "--judge",
      "none",
      "--llm-base-url",
      fake.openaiBaseUrl,
      "--max-concurrency",
      "6",
      "--retry-delay",
      "0",
      "--queue",
      redis.url,
      "--save-to",
      saveTo,
      // The provider's call count is the point of the resume test: no pre-flight calls in it.
      "--no-preflight",
    ];
    const coordinator = (saveTo: string) =>
      runTau(coordinatorArgs(saveTo), {
        cwd: mkdtempSync(join(tmpdir(), "tau-queue-")),
        env: { TAU_DATA_DIR: dataDir! },
      });

    it("two workers, one killed with SIGKILL mid-run: its jobs are retried, every unit recorded once", async () => {
      const folder = mkdtempSync(join(tmpdir(), "tau-queue-run-"));
      const resultsPath = join(folder, "results.json");
      const doomed = startWorker(redis.url);
      const survivor = startWorker(redis.url);
      try {
        const run = coordinator(resultsPath);
        // Kill the first worker once it is busy (it has served the run and calls are flowing).
        await until(() => doomed.stderr().includes("serving run") && fake.callCount >= 12, 120_000);
        doomed.child.kill("SIGKILL");
        const result = await run;
        expect(result.stderr).not.toMatch(/Error|refused/);
        expect(result.status).toBe(0);
        expectEveryUnitOnce(join(folder, "results.jsonl"));
        const results = JSON.parse(readFileSync(resultsPath, "utf8"));
        expect(results.simulations).toHaveLength(TASKS.length * TRIALS);
        expect(survivor.stderr()).toContain("serving run");
        // The survivor found the killed worker's jobs stalled and took them over.
        expect(survivor.stderr()).toMatch(/job \S+ lost its worker; it runs again/);
        expect(await doomed.exited).toBeNull();
      } finally {
        await stopWorker(doomed);
        await stopWorker(survivor);
      }
    }, 240_000);

    it("a 429 at one worker halves the fleet's limit: both workers together keep half the calls in flight", async () => {
      const folder = mkdtempSync(join(tmpdir(), "tau-queue-run-"));
      // Each worker takes 3 of the run's 6 simulations: both are needed to fill --max-concurrency.
      const workers = [startWorker(redis.url), startWorker(redis.url)];
      const held: (() => void)[] = [];
      let phase: "warm" | "settle" | "hold" | "done" = "warm";
      let mostHeld = 0;
      // Both workers print this once the halved limit is in Redis (it comes over Redis's pub/sub).
      const decreased = () =>
        workers.every((worker) => /the fleet's limit for it is now 3/.test(worker.stderr()));
      fake.setHandler(async (request) => {
        // Once calls of both workers are in flight (more than one worker's 3), one of them gets a 429.
        if (phase === "warm" && fake.inFlight >= 4) {
          phase = "settle";
          return { kind: "error", status: 429, retryAfterMs: 0, message: "fake provider: rate limited" };
        }
        // Until the decrease is in Redis, calls still get leases under the old limit: answer those once it is,
        // so that what is held afterwards is only what the halved limit admits.
        if (phase === "settle") {
          await until(decreased, 60_000);
          if (phase === "settle") phase = "hold";
          return scripted(request);
        }
        // From then on every call is held: no call ends, so the limit cannot grow back meanwhile.
        if (phase === "hold")
          await new Promise<void>((resolve) => {
            held.push(resolve);
            mostHeld = Math.max(mostHeld, held.length);
          });
        return { ...scripted(request), ...(phase === "warm" ? { delayMs: 200 } : {}) };
      });
      const redisClient = new Redis(redis.url, { maxRetriesPerRequest: null });
      try {
        const run = coordinator(join(folder, "results.json"));
        // The calls begun before the 429 end; what is in flight now is only what the fleet's limit lets through.
        // (Or more than 3 held: the limit did not hold, and the assertions below say so at once.)
        await until(
          () => (phase === "hold" && held.length === 3 && fake.inFlight === 3) || held.length > 3,
          120_000,
        );
        // Six simulations want a call, three per worker; for a while, not one more call may start.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        expect(mostHeld).toBe(3);
        expect(fake.inFlight).toBe(3);
        // This run's limit: the one that was halved (the earlier runs' are still there).
        const stateKeys = (await redisClient.keys("taubench:fleet:*")).filter(
          (key) => !key.endsWith(":leases"),
        );
        const decreases = await Promise.all(stateKeys.map((key) => redisClient.hget(key, "decreases")));
        const stateKey = stateKeys.filter((_, index) => decreases[index] === "1");
        expect(stateKey).toHaveLength(1);
        expect(await redisClient.hget(stateKey[0]!, "limit")).toBe("3");
        expect(await redisClient.zcard(`${stateKey[0]}:leases`)).toBe(3);
        phase = "done";
        for (const release of held.splice(0)) release();
        const result = await run;
        expect(result.status, result.stderr).toBe(0);
        expectEveryUnitOnce(join(folder, "results.jsonl"));
        for (const worker of workers) {
          expect(worker.stderr()).toContain("serving run");
          // Both hear of the decrease, whichever of them saw the 429.
          expect(worker.stderr()).toMatch(
            /a 429 from \S+ \(seen by worker \S+\); the fleet's limit for it is now 3/,
          );
        }
        expect(fake.maxInFlight).toBeLessThanOrEqual(6);
      } finally {
        fake.setHandler(scripted);
        for (const release of held.splice(0)) release();
        redisClient.disconnect();
        for (const worker of workers) await stopWorker(worker);
      }
    }, 240_000);

    it("an --agent-url agent runs on the workers: each calls the URL itself, with its own key", async () => {
      const folder = mkdtempSync(join(tmpdir(), "tau-queue-run-"));
      const agentKeys = new Set<string>();
      fake.setHandler((request) => {
        agentKeys.add(`${request.model} ${request.headers.authorization}`);
        return scripted(request);
      });
      const workers = [
        startWorker(redis.url, { TAU_AGENT_API_KEY: "worker-key" }),
        startWorker(redis.url, { TAU_AGENT_API_KEY: "worker-key" }),
      ];
      try {
        const args = coordinatorArgs(join(folder, "results.json"));
        args.splice(args.indexOf("--agent-llm"), 2, "--agent-url", fake.openaiBaseUrl);
        const result = await runTau(args, {
          cwd: folder,
          env: { TAU_DATA_DIR: dataDir!, TAU_AGENT_API_KEY: "coordinator-key" },
        });
        expect(result.status, result.stderr).toBe(0);
        expectEveryUnitOnce(join(folder, "results.jsonl"));
        const results = JSON.parse(readFileSync(join(folder, "results.json"), "utf8"));
        expect(results.info.agent_info.implementation).toBe("chat_completions_agent");
        // The agent's calls came from the workers (their key), none from the coordinator.
        expect([...agentKeys].sort()).toEqual(["fake undefined", "taubench-agent Bearer worker-key"]);
        for (const worker of workers) expect(worker.stderr()).toContain("serving run");
      } finally {
        fake.setHandler(scripted);
        for (const worker of workers) await stopWorker(worker);
      }
    }, 240_000);

    it("an --agent-a2a agent runs on the workers: one A2A context per simulation", async () => {
      const folder = mkdtempSync(join(tmpdir(), "tau-queue-run-"));
      const executor = new NotingExecutor();
      const agent = await startA2aServer(executor);
      const workers = [startWorker(redis.url), startWorker(redis.url)];
      try {
        const args = coordinatorArgs(join(folder, "results.json"));
        args.splice(args.indexOf("--agent-llm"), 2, "--agent-a2a", agent.url);
        const result = await runTau(args, { cwd: folder, env: { TAU_DATA_DIR: dataDir! } });
        expect(result.status, result.stderr).toBe(0);
        expectEveryUnitOnce(join(folder, "results.jsonl"));
        const results = JSON.parse(readFileSync(join(folder, "results.json"), "utf8"));
        expect(results.info.agent_info.implementation).toBe("a2a_agent");
        const ids = results.simulations.map((simulation: { id: string }) => simulation.id).sort();
        expect([...executor.contexts].sort()).toEqual(ids);
        for (const worker of workers) expect(worker.stderr()).toContain("serving run");
      } finally {
        for (const worker of workers) await stopWorker(worker);
        await agent.close();
      }
    }, 240_000);

    it("a coordinator killed with SIGKILL and resumed reads the jobs finished meanwhile: no unit runs twice", async () => {
      const folder = mkdtempSync(join(tmpdir(), "tau-queue-run-"));
      const worker = startWorker(redis.url);
      const before = fake.callCount;
      try {
        const first = spawn(process.execPath, [TAU_BIN, ...coordinatorArgs(join(folder, "results.json"))], {
          cwd: folder,
          env: { ...process.env, TAU_DATA_DIR: dataDir! },
          stdio: "ignore",
        });
        await until(() => fake.callCount >= before + 15, 120_000);
        first.kill("SIGKILL");
        await new Promise((resolve) => first.once("exit", resolve));
        const resumed = await coordinator(join(folder, "results.json"));
        expect(resumed.status).toBe(0);
        expect(resumed.stderr).toContain("Resuming");
        expectEveryUnitOnce(join(folder, "results.jsonl"));
        // Three calls per simulation and not one more: nothing the first coordinator had queued ran twice.
        expect(fake.callCount - before).toBe(3 * TASKS.length * TRIALS);
      } finally {
        await stopWorker(worker);
      }
    }, 240_000);

    it("workers of another taubench version or with other data are refused with one line; Redis restarted mid-run, the run still completes", async () => {
      // Other data: the mock domain with one task changed.
      const otherData = mkdtempSync(join(tmpdir(), "tau-other-data-"));
      cpSync(join(dataDir!, "domains", "mock"), join(otherData, "domains", "mock"), { recursive: true });
      cpSync(join(dataDir!, "user_simulator"), join(otherData, "user_simulator"), { recursive: true });
      const tasksPath = join(otherData, "domains", "mock", "tasks.json");
      const tasks = JSON.parse(readFileSync(tasksPath, "utf8"));
      tasks.find((task: { id: string }) => task.id === "create_task_1").description.purpose = "changed here";
      writeFileSync(tasksPath, JSON.stringify(tasks));
      const version = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).version;

      const folder = mkdtempSync(join(tmpdir(), "tau-queue-run-"));
      const stranger = startWorker(redis.url, { TAU_DATA_DIR: otherData });
      const older = startWorker(redis.url, {}, otherInstallation("0.0.1-other"));
      let good: WorkerProcess | null = null;
      try {
        const run = coordinator(join(folder, "results.json"));
        const refusals = async (worker: WorkerProcess) => {
          expect(await worker.exited).toBe(2);
          return worker
            .stderr()
            .split("\n")
            .filter((line) => line.includes("refused"));
        };
        const [dataRefusal, versionRefusal] = [await refusals(stranger), await refusals(older)];
        expect(dataRefusal).toHaveLength(1);
        expect(dataRefusal[0]).toMatch(
          /^worker refused run \w+: the data in .* differs from the coordinator's/,
        );
        expect(versionRefusal).toEqual([
          expect.stringMatching(
            new RegExp(
              `^worker refused run \\w+: taubench 0\\.0\\.1-other here, ${version.replaceAll(".", "\\.")} on the coordinator \\(install the same version on every machine\\) \\(worker \\S+\\)$`,
            ),
          ),
        ]);
        const before = fake.callCount;
        good = startWorker(redis.url);
        await until(() => fake.callCount >= before + 15, 120_000);
        await redis.restart();
        const result = await run;
        expect(result.status).toBe(0);
        // The coordinator prints each refusal too.
        expect(result.stderr).toContain("the data in");
        expect(result.stderr).toContain("taubench 0.0.1-other here");
        expectEveryUnitOnce(join(folder, "results.jsonl"));
        expect(good.stderr()).toContain("serving run");
      } finally {
        await stopWorker(stranger);
        await stopWorker(older);
        if (good) await stopWorker(good);
      }
    }, 240_000);
  },
);

/** A port on 127.0.0.1 that nothing listens on (bound once, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("a --queue where no Redis answers", () => {
  it("assertRedisReachable fails at once with the URL and the reason", async () => {
    const url = `redis://127.0.0.1:${await closedPort()}/0`;
    await expect(assertRedisReachable(url, 2000)).rejects.toThrow(
      `--queue: cannot reach Redis at ${url}: connect ECONNREFUSED`,
    );
  });

  it("tau worker says so in one line and exits instead of waiting forever", async () => {
    const port = await closedPort();
    const url = `redis://127.0.0.1:${port}/0`;
    const result = await runTau(["worker", "--queue", url], {
      cwd: mkdtempSync(join(tmpdir(), "tau-queue-")),
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe(
      `tau: --queue: cannot reach Redis at ${url}: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
  }, 30_000);

  it.skipIf(!dataDir)(
    "tau run --queue says so in one line, writes nothing and exits 4 (skipped: TAU_DATA_DIR missing)",
    async () => {
      const url = `redis://127.0.0.1:${await closedPort()}/0`;
      const cwd = mkdtempSync(join(tmpdir(), "tau-queue-"));
      const args = [
        "run",
        "--domain",
        "mock",
        "--agent",
        "replay",
        "--user",
        "scripted",
        "--queue",
        url,
        "--save-to",
        "q",
      ];
      const result = await runTau(args, { cwd, env: { TAU_DATA_DIR: dataDir! } });
      // The run evaluated nothing, as when a model endpoint fails its pre-flight call.
      expect(result.status).toBe(4);
      expect(result.stderr).toContain(`tau: --queue: cannot reach Redis at ${url}: connect ECONNREFUSED`);
      expect(result.stderr).not.toMatch(/^\s+at /m);
      expect(existsSync(join(cwd, "runs", "q", "results.jsonl"))).toBe(false);
    },
    30_000,
  );

  it("reportConnectionErrors logs each message once per quiet period, from any of the emitters", () => {
    const queue = new EventEmitter();
    const client = new EventEmitter();
    const lines: string[] = [];
    reportConnectionErrors([queue, client], "redis://127.0.0.1:1/0", (line) => lines.push(line), 60_000);
    for (let attempt = 0; attempt < 5; attempt++) {
      queue.emit("error", new Error("connect ECONNREFUSED 127.0.0.1:1"));
      client.emit("error", new Error("connect ECONNREFUSED 127.0.0.1:1"));
    }
    client.emit("error", new Error("Connection is closed."));
    expect(lines).toEqual([
      "queue redis://127.0.0.1:1/0: connect ECONNREFUSED 127.0.0.1:1",
      "queue redis://127.0.0.1:1/0: Connection is closed.",
    ]);
  });
});
