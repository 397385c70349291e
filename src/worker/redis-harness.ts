/**
 * A real `redis-server` (the Debian package) for the queue tests: started on
 * 127.0.0.1 on a free port with its own folder and append-only persistence,
 * restartable on the same port and data, stopped at the end. Tests skip with
 * one line when the binary is absent.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Whether `redis-server` is on the PATH. */
export function hasRedisServer(): boolean {
  return spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;
}

/** A port nobody listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** A running test Redis. */
export interface TestRedis {
  url: string;
  /** Stops it (SIGTERM: it writes its append-only file) and starts it again on the same port and folder. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

function startProcess(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(
    "redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--dir",
      dir,
      "--appendonly",
      "yes",
      "--appendfsync",
      "always",
      "--save",
      "",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
      if (output.includes("Ready to accept connections")) resolve(child);
    });
    child.once("exit", (code) => reject(new Error(`redis-server exited (${code}): ${output.slice(-400)}`)));
  });
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/** Starts a Redis of its own for a test. */
export async function startRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), "tau-redis-"));
  const port = await freePort();
  let child = await startProcess(port, dir);
  return {
    url: `redis://127.0.0.1:${port}/0`,
    async restart() {
      await stopProcess(child);
      child = await startProcess(port, dir);
    },
    async stop() {
      await stopProcess(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
