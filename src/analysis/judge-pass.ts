/**
 * One pass of a judge model over a run's simulations (`tau review`, `tau
 * analyze`): the work is spread over the same per-provider scheduler the
 * runner uses (adaptive concurrency, 429s heard), each finished simulation is
 * appended to the file beside the run before it is counted, and a pass
 * started again skips the simulations already done (failures are tried
 * again). The provider usage of each invocation is recorded as a `session`,
 * and each simulation's record carries the cost of every call made for it —
 * replies that could not be used included (the calls are told apart by the
 * async context they run in, as the client is shared).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { type FileHandle, open } from "node:fs/promises";
import { dirname } from "node:path";
import { runStoppingError, UsageError } from "../core/errors.ts";
import { nowIso } from "../core/messages.ts";
import { packageVersion } from "../core/results-file.ts";
import type { ReviewFileState } from "../core/review-file.ts";
import { REVIEW_FILE_VERSION, type ReviewFileKind, type ReviewHeader } from "../core/review-records.ts";
import { maskSecrets } from "../core/secrets.ts";
import type { SimulationRun } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import type { LlmEventListener } from "../llm/events.ts";
import type { LlmClient } from "../llm/types.ts";
import { repairTornTail } from "../runner/checkpoint.ts";
import { ProviderScheduler } from "../runner/concurrency.ts";
import { LlmUsageCounter, parseRunUsage, type RunUsage, sumRunUsage } from "../runner/llm-usage.ts";
import type { LoadedRun } from "../runner/run-file.ts";
import { makeFolder } from "../core/make-folder.ts";

/** What a pass needs from the outside world (tests give a fake provider's client). */
export interface JudgePassDependencies {
  createLlm(model: string, onEvent: LlmEventListener): LlmClient;
  providerKey(model: string): string;
  /** Progress lines. */
  log?(line: string): void;
  signal?: AbortSignal;
}

/** A pass's settings. */
export interface JudgePassOptions<R> {
  run: LoadedRun;
  kind: ReviewFileKind;
  filePath: string;
  llm: string;
  llmArgs: Record<string, unknown>;
  maxConcurrency: number;
  /** Which of the run's simulations this pass covers (indices into `run.simulations`). */
  selected: number[];
  /** What was read from the file (resume). */
  state: ReviewFileState<R & { status: string }>;
  /** The judge's work on one simulation: the record to append (without kind, version, keys, cost). */
  work(
    simulation: SimulationRun,
    task: Task,
    client: LlmClient,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>>;
}

/** How a pass ended. */
export interface JudgePassOutcome {
  /** Simulations handled in this invocation. */
  done: number;
  /** Already done in the file (skipped). */
  resumed: number;
  interrupted: boolean;
  /** Provider usage of every session of the file, this one included. */
  usage: RunUsage;
}

/** Refuses to continue a file written with other settings. */
export function checkHeader(
  path: string,
  header: ReviewHeader | null,
  expected: Omit<ReviewHeader, "kind" | "version" | "created_at" | "taubench_version" | "run_path">,
): void {
  if (header === null) return;
  const differences: string[] = [];
  if (header.file_kind !== expected.file_kind)
    differences.push(`kind ${header.file_kind} → ${expected.file_kind}`);
  if (header.llm !== expected.llm) differences.push(`model ${header.llm} → ${expected.llm}`);
  if (JSON.stringify(header.llm_args) !== JSON.stringify(expected.llm_args))
    differences.push(
      `model arguments ${JSON.stringify(header.llm_args)} → ${JSON.stringify(expected.llm_args)}`,
    );
  if (differences.length > 0)
    throw new UsageError(
      `${path} was written with other settings (${differences.join("; ")}); delete it (or move it away) to start over`,
    );
}

/** Sums call costs; unknown (null) as soon as one call was unpriced. */
class CostTally {
  private total = 0;
  private unpriced = false;
  add(cost: number | null): void {
    if (cost === null) this.unpriced = true;
    else this.total += cost;
  }
  get value(): number | null {
    return this.unpriced ? null : this.total;
  }
}

/** Appends JSON lines durably, one write at a time. */
class LineWriter {
  private chain: Promise<void> = Promise.resolve();
  private constructor(private readonly handle: FileHandle) {}

  static async open(path: string): Promise<LineWriter> {
    makeFolder(dirname(path));
    repairTornTail(path);
    return new LineWriter(await open(path, "a"));
  }

  append(record: Record<string, unknown>): Promise<void> {
    const line = `${maskSecrets(JSON.stringify(record))}\n`;
    const next = this.chain.then(async () => {
      await this.handle.appendFile(line, "utf8");
      await this.handle.datasync();
    });
    this.chain = next.catch(() => {});
    return next;
  }

  async close(): Promise<void> {
    await this.chain;
    await this.handle.close();
  }
}

/** Runs a pass (see the module comment). */
export async function runJudgePass<R>(
  options: JudgePassOptions<R>,
  deps: JudgePassDependencies,
): Promise<JudgePassOutcome> {
  const { run, state } = options;
  const log = deps.log ?? (() => {});
  checkHeader(options.filePath, state.header, {
    file_kind: options.kind,
    llm: options.llm,
    llm_args: options.llmArgs,
  });
  const tasks = new Map(run.tasks.map((task) => [task.id, task]));
  const todo = options.selected.filter((index) => {
    const simulation = run.simulations[index]!;
    return state.simulations.get(simulation.id)?.status !== "reviewed";
  });
  const resumed = options.selected.length - todo.length;
  const previousUsage = [...state.sessions.values()]
    .map((session) => parseRunUsage(session.usage))
    .filter((usage): usage is RunUsage => usage !== null);
  if (resumed > 0) log(`Resuming ${options.filePath}: ${resumed} simulation(s) already done`);
  if (todo.length === 0) return { done: 0, resumed, interrupted: false, usage: sumRunUsage(previousUsage) };

  const scheduler = new ProviderScheduler({ maxConcurrency: options.maxConcurrency }, deps.providerKey);
  const usage = new LlmUsageCounter();
  const costScope = new AsyncLocalStorage<CostTally>();
  const client = scheduler.wrap(
    deps.createLlm(options.llm, (event) => {
      usage.onLlmEvent(event);
      if (event.type === "call") costScope.getStore()?.add(event.costUsd);
      if (event.type === "rate_limited") scheduler.rateLimited(event.model);
    }),
  );
  const writer = await LineWriter.open(options.filePath);
  const session = { id: randomUUID(), startedAt: nowIso() };
  const controller = new AbortController();
  const onAbort = () => controller.abort(deps.signal?.reason);
  deps.signal?.addEventListener("abort", onAbort, { once: true });
  let stoppedBy: unknown = null;
  let done = 0;
  try {
    if (state.header === null)
      await writer.append({
        kind: "header",
        version: REVIEW_FILE_VERSION,
        file_kind: options.kind,
        llm: options.llm,
        llm_args: options.llmArgs,
        run_path: run.path,
        created_at: nowIso(),
        taubench_version: packageVersion(),
      });
    const simulations = await run.full(todo);
    let next = 0;
    const worker = async () => {
      while (!controller.signal.aborted && next < simulations.length) {
        const simulation = simulations[next++]!;
        const task = tasks.get(simulation.task_id);
        if (!task) {
          log(`skipped ${simulation.id}: task ${simulation.task_id} is not in the run's task list`);
          continue;
        }
        try {
          const costs = new CostTally();
          const fields = await costScope.run(costs, () =>
            options.work(simulation, task, client, controller.signal),
          );
          await writer.append({
            kind: "simulation",
            version: REVIEW_FILE_VERSION,
            simulation_id: simulation.id,
            task_id: simulation.task_id,
            trial: simulation.trial ?? 0,
            reward: simulation.reward_info?.reward ?? null,
            finished_at: nowIso(),
            ...fields,
            cost_usd: costs.value,
          });
          done++;
          if (done % 10 === 0 || done === simulations.length) log(`${done}/${simulations.length} done`);
        } catch (error) {
          if (controller.signal.aborted) return;
          // A rejected key or the like would fail every simulation: stop, keep what is written.
          stoppedBy = error;
          controller.abort(error);
          return;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(options.maxConcurrency, simulations.length) }, worker));
  } finally {
    deps.signal?.removeEventListener("abort", onAbort);
    await writer.append({
      kind: "session",
      version: REVIEW_FILE_VERSION,
      session_id: session.id,
      started_at: session.startedAt,
      usage: usage.snapshot(),
    });
    await writer.close();
  }
  if (stoppedBy !== null) {
    const stopping = runStoppingError(stoppedBy);
    throw stopping ?? stoppedBy;
  }
  return {
    done,
    resumed,
    interrupted: deps.signal?.aborted ?? false,
    usage: sumRunUsage([...previousUsage, usage.snapshot()]),
  };
}
