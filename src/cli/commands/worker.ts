/**
 * `tau worker --queue redis://…`: executes the units that `tau run --queue`
 * coordinators enqueue (docs/scale.md). Start any number, on any machine with
 * the same taubench version and data; Ctrl-C finishes the jobs in hand, then
 * leaves. A run it must refuse stops it with one line (exit 2). A run's
 * `--max-concurrency` and per-provider limits are the fleet's, kept in Redis.
 */
import type { Command } from "commander";
import { resolveDataDir } from "../../domains/data-dir.ts";
import { parseIntegerOption, parseNumberOption } from "../options.ts";

interface WorkerCommandOptions {
  queue: string;
  concurrency: string;
  dataDir?: string;
  lockDuration: string;
}

/** Registers `tau worker`. */
export function registerWorkerCommand(program: Command): void {
  program
    .command("worker")
    .description("execute the simulations of `tau run --queue` coordinators (BullMQ on Redis)")
    .requiredOption("--queue <redis-url>", "the Redis the coordinators enqueue on (redis://HOST:PORT/DB)")
    .option(
      "--concurrency <n>",
      "simulations this worker takes at once (the run's --max-concurrency caps the whole fleet, and its calls share the fleet's per-provider limits)",
      "50",
    )
    .option(
      "--data-dir <dir>",
      "this machine's data folder (default: TAU_DATA_DIR, else the coordinator's path)",
    )
    .option(
      "--lock-duration <seconds>",
      "how long a job stays this worker's without a heartbeat (a killed worker's jobs move on after it)",
      "30",
    )
    .action(async (options: WorkerCommandOptions) => {
      const { runQueueWorker } = await import("../../worker/queue.ts");
      const controller = new AbortController();
      const onSignal = () => {
        console.error("Stopping: finishing the simulations in hand (Ctrl-C again to quit now)");
        if (controller.signal.aborted) process.exit(130);
        controller.abort();
      };
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
      const dataDir =
        options.dataDir !== undefined || process.env.TAU_DATA_DIR
          ? resolveDataDir(options.dataDir)
          : undefined;
      const refusal = await runQueueWorker({
        url: options.queue,
        concurrency: parseIntegerOption("--concurrency", options.concurrency, 1),
        dataDir,
        lockDurationMs: parseNumberOption("--lock-duration", options.lockDuration, { positive: true }) * 1000,
        log: (line) => console.error(line),
        signal: controller.signal,
      });
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      process.exitCode = refusal === null ? 0 : 2;
    });
}
