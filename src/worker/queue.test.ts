import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTau, TAU_BIN } from "../cli/e2e-harness.ts";
import { startFakeProvider, type FakeProvider, type FakeRequest } from "../testing/fake-provider.ts";
import { hasRedisServer, startRedis, type TestRedis } from "./redis-harness.ts";

const dataDir = process.env.TAU_DATA_DIR;
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

/** A `tau worker` child; its stderr is kept. */
interface WorkerProcess {
  child: ChildProcess;
  stderr(): string;
  exited: Promise<number | null>;
}

function startWorker(url: string, env: Record<string, string> = {}): WorkerProcess {
  const child = spawn(
    process.execPath,
    [TAU_BIN, "worker", "--queue", url, "--concurrency", "3", "--lock-duration", "2"],
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

    it("a worker with other data is refused with one line; Redis restarted mid-run, the run still completes", async () => {
      // Other data: the mock domain with one task changed.
      const otherData = mkdtempSync(join(tmpdir(), "tau-other-data-"));
      cpSync(join(dataDir!, "domains", "mock"), join(otherData, "domains", "mock"), { recursive: true });
      cpSync(join(dataDir!, "user_simulator"), join(otherData, "user_simulator"), { recursive: true });
      const tasksPath = join(otherData, "domains", "mock", "tasks.json");
      const tasks = JSON.parse(readFileSync(tasksPath, "utf8"));
      tasks.find((task: { id: string }) => task.id === "create_task_1").description.purpose = "changed here";
      writeFileSync(tasksPath, JSON.stringify(tasks));

      const folder = mkdtempSync(join(tmpdir(), "tau-queue-run-"));
      const stranger = startWorker(redis.url, { TAU_DATA_DIR: otherData });
      let good: WorkerProcess | null = null;
      try {
        const run = coordinator(join(folder, "results.json"));
        expect(await stranger.exited).toBe(2);
        const refusal = stranger
          .stderr()
          .split("\n")
          .filter((line) => line.includes("refused"));
        expect(refusal).toHaveLength(1);
        expect(refusal[0]).toMatch(/^worker refused run \w+: the data in .* differs from the coordinator's/);
        const before = fake.callCount;
        good = startWorker(redis.url);
        await until(() => fake.callCount >= before + 15, 120_000);
        await redis.restart();
        const result = await run;
        expect(result.status).toBe(0);
        expect(result.stderr).toContain("worker refused run");
        expectEveryUnitOnce(join(folder, "results.jsonl"));
      } finally {
        await stopWorker(stranger);
        if (good) await stopWorker(good);
      }
    }, 240_000);
  },
);
