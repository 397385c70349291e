/**
 * `tau run`'s live progress, a consumer of the runner's events: counters fed
 * by finished simulations and LLM events, rendered as a cli-progress bar on a
 * terminal, or as a plain line every few seconds when the output is a file or
 * a pipe (CI logs).
 */
import { SingleBar } from "cli-progress";
import type { SimulationRun } from "../core/simulation.ts";
import type { LlmEvent } from "../llm/events.ts";
import { isSuccessful } from "../metrics/index.ts";
import type { RunEvent, RunEventListener } from "../runner/events.ts";

/** A point-in-time view of the counters. */
export interface ProgressSnapshot {
  done: number;
  total: number;
  /** Successes / evaluated simulations (infrastructure errors excluded); null before the first. */
  passHat1: number | null;
  infraErrors: number;
  costUsd: number;
  /** Provider calls so far, and how many of them had no known price (their cost is unknown, not 0). */
  calls: number;
  unpricedCalls: number;
  tokens: number;
  /** Simulation re-runs plus provider-call retries. */
  retries: number;
  rateLimited: number;
  running: number;
  elapsedMs: number;
  /** Null until something finished in this session. */
  etaMs: number | null;
}

/** Counts what a run has done so far. */
export class RunProgress {
  private done: number;
  private evaluated = 0;
  private successes = 0;
  private infraErrors = 0;
  private costUsd = 0;
  private calls = 0;
  private unpricedCalls = 0;
  private tokens = 0;
  private retries = 0;
  private rateLimited = 0;
  private running = 0;
  private finishedThisSession = 0;
  private readonly startedAt: number;

  /** `alreadyDone` counts simulations a resumed run found finished (they count toward done, not the rate). */
  constructor(
    readonly total: number,
    alreadyDone: readonly SimulationRun[] = [],
    private readonly now: () => number = Date.now,
  ) {
    this.startedAt = now();
    this.done = 0;
    for (const simulation of alreadyDone) this.count(simulation);
  }

  private count(simulation: SimulationRun): void {
    this.done++;
    if (simulation.termination_reason === "infrastructure_error" || !simulation.reward_info) {
      this.infraErrors++;
      return;
    }
    this.evaluated++;
    if (isSuccessful(simulation.reward_info.reward)) this.successes++;
  }

  /** A simulation started. */
  started(): void {
    this.running++;
  }

  /** A simulation was recorded. */
  finished(simulation: SimulationRun): void {
    this.running = Math.max(0, this.running - 1);
    this.finishedThisSession++;
    this.count(simulation);
  }

  /** A whole simulation is being re-run. */
  retried(): void {
    this.retries++;
  }

  /** Feeds one provider-layer event. */
  onLlmEvent(event: LlmEvent): void {
    switch (event.type) {
      case "call":
        this.calls++;
        if (event.costUsd !== null) this.costUsd += event.costUsd;
        else this.unpricedCalls++;
        this.tokens += (event.usage.prompt_tokens ?? 0) + (event.usage.completion_tokens ?? 0);
        break;
      case "retry":
        this.retries++;
        break;
      case "rate_limited":
        this.rateLimited++;
        break;
      case "error":
      case "debug":
        break;
      default: {
        const never: never = event;
        throw new Error(`unhandled LLM event ${String(never)}`);
      }
    }
  }

  /** Current counters. */
  snapshot(): ProgressSnapshot {
    const elapsedMs = this.now() - this.startedAt;
    const remaining = this.total - this.done;
    return {
      done: this.done,
      total: this.total,
      passHat1: this.evaluated === 0 ? null : this.successes / this.evaluated,
      infraErrors: this.infraErrors,
      costUsd: this.costUsd,
      calls: this.calls,
      unpricedCalls: this.unpricedCalls,
      tokens: this.tokens,
      retries: this.retries,
      rateLimited: this.rateLimited,
      running: this.running,
      elapsedMs,
      etaMs: this.finishedThisSession === 0 ? null : (elapsedMs / this.finishedThisSession) * remaining,
    };
  }
}

/** `1h02m`, `3m05s`, `42s`. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, "0")}m`;
  if (m > 0) return `${m}m${String(s).padStart(2, "0")}s`;
  return `${s}s`;
}

/** `12.3k`, `4.5M`. */
export function formatCount(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}

/** Cost so far: `$x` when every call was priced, `n/a` when none was, `$x + N unpriced` in between. */
function formatProgressCost(s: ProgressSnapshot): string {
  if (s.calls > 0 && s.unpricedCalls === s.calls) return "cost n/a";
  const cost = `$${s.costUsd.toFixed(4)}`;
  return s.unpricedCalls > 0 ? `${cost} + ${s.unpricedCalls} unpriced` : cost;
}

/** The counters after the bar (shared by both renderers). */
export function formatProgressFields(s: ProgressSnapshot): string {
  const parts = [
    `pass^1 ${s.passHat1 === null ? "-" : s.passHat1.toFixed(3)}`,
    formatProgressCost(s),
    `${formatCount(s.tokens)} tok`,
    `retries ${s.retries}`,
    `429s ${s.rateLimited}`,
  ];
  if (s.infraErrors > 0) parts.push(`infra ${s.infraErrors}`);
  parts.push(`running ${s.running}`);
  parts.push(`ETA ${s.etaMs === null ? "-" : formatDuration(s.etaMs)}`);
  return parts.join(" | ");
}

/** One plain status line, for logs. */
export function formatProgressLine(s: ProgressSnapshot): string {
  const percent = s.total === 0 ? 100 : Math.floor((100 * s.done) / s.total);
  return `[${formatDuration(s.elapsedMs)}] ${s.done}/${s.total} (${percent}%) | ${formatProgressFields(s)}`;
}

/** Draws progress until stopped. */
export interface ProgressRenderer {
  start(): void;
  /** Something changed (cheap; the renderer throttles). */
  update(): void;
  stop(): void;
}

/** Plain lines every `intervalMs`, plus one at the end. */
export class PlainProgress implements ProgressRenderer {
  private timer: NodeJS.Timeout | null = null;
  private lastLine = "";
  constructor(
    private readonly progress: RunProgress,
    private readonly write: (line: string) => void,
    private readonly intervalMs = 30_000,
  ) {}
  start(): void {
    this.print();
    this.timer = setInterval(() => this.print(), this.intervalMs);
    this.timer.unref();
  }
  update(): void {}
  private print(): void {
    const line = formatProgressLine(this.progress.snapshot());
    this.lastLine = line;
    this.write(line);
  }
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const line = formatProgressLine(this.progress.snapshot());
    if (line !== this.lastLine) this.write(line);
  }
}

/** A live bar on a terminal (stderr, so stdout stays clean for the summary). */
export class BarProgress implements ProgressRenderer {
  private readonly bar: SingleBar;
  constructor(
    private readonly progress: RunProgress,
    stream: NodeJS.WritableStream = process.stderr,
  ) {
    this.bar = new SingleBar({
      format: "{bar} {value}/{total} | {fields}",
      barsize: 24,
      hideCursor: true,
      stream,
      fps: 5,
      etaBuffer: 50,
    });
  }
  start(): void {
    const s = this.progress.snapshot();
    this.bar.start(s.total, s.done, { fields: formatProgressFields(s) });
  }
  update(): void {
    const s = this.progress.snapshot();
    this.bar.update(s.done, { fields: formatProgressFields(s) });
  }
  stop(): void {
    this.update();
    this.bar.stop();
  }
}

/** The bar on a TTY, plain lines otherwise. */
export function createProgressRenderer(
  progress: RunProgress,
  options: { isTty: boolean; write: (line: string) => void; intervalMs?: number },
): ProgressRenderer {
  return options.isTty
    ? new BarProgress(progress)
    : new PlainProgress(progress, options.write, options.intervalMs);
}

/** Settings of {@link progressListener}. */
export interface ProgressDisplayOptions {
  isTty: boolean;
  write: (line: string) => void;
  intervalMs?: number;
  /** Replaces the bar / plain-line renderer (tests). */
  createRenderer?: (progress: RunProgress) => ProgressRenderer;
}

/** The run events that drive the display: it starts with the batch and stops when the batch ends. */
export function progressListener(options: ProgressDisplayOptions): RunEventListener {
  let progress: RunProgress | null = null;
  let renderer: ProgressRenderer | null = null;
  return (event: RunEvent) => {
    switch (event.type) {
      case "run_started":
        progress = new RunProgress(event.total, event.resumed);
        renderer = options.createRenderer?.(progress) ?? createProgressRenderer(progress, options);
        renderer.start();
        break;
      case "simulation_started":
        progress?.started();
        renderer?.update();
        break;
      case "simulation_retried":
        progress?.retried();
        renderer?.update();
        break;
      case "simulation_finished":
        progress?.finished(event.simulation);
        renderer?.update();
        break;
      case "llm":
        progress?.onLlmEvent(event.event);
        break;
      case "batch_finished":
        renderer?.stop();
        break;
      case "note":
        break;
      default: {
        const never: never = event;
        throw new Error(`unhandled run event ${String(never)}`);
      }
    }
  };
}
