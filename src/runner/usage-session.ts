/**
 * This invocation's provider usage as a `session` record of the checkpoint:
 * written with every batch of simulation records, now and then while nothing
 * finishes, and once at the end; the latest record per session id counts.
 */
import { randomUUID } from "node:crypto";
import { nowIso } from "../core/messages.ts";
import { CHECKPOINT_VERSION, type CheckpointRecord } from "./checkpoint.ts";
import { LlmUsageCounter } from "./llm-usage.ts";

/** Where session records go (the checkpoint writer). */
export interface SessionSink {
  append(record: CheckpointRecord): Promise<void>;
  /** Called with each batch of appends; what it returns is written in the same write. */
  setTrailer(trailer: (() => CheckpointRecord | null) | null): void;
}

/** Counts one session's usage and saves it. */
export class UsageSession {
  /** Fed with every provider event of the session (and with simulation re-runs). */
  readonly counter = new LlmUsageCounter();
  private readonly id = randomUUID();
  private readonly startedAt = nowIso();
  private recorded = 0;
  private savedMark = "";
  private timer: NodeJS.Timeout | null = null;
  private sink: SessionSink | null = null;

  /** `active` false: a session that runs nothing writes no record. */
  constructor(private readonly active: boolean) {}

  /** A simulation of this session was recorded. */
  simulationRecorded(): void {
    this.recorded++;
  }

  /** The session record when something changed since the last one was taken, else null (also before {@link startSaving}). */
  take(): CheckpointRecord | null {
    const mark = `${this.counter.version}/${this.recorded}`;
    if (!this.active || this.sink === null || mark === this.savedMark) return null;
    this.savedMark = mark;
    return {
      kind: "session",
      version: CHECKPOINT_VERSION,
      session_id: this.id,
      started_at: this.startedAt,
      updated_at: nowIso(),
      simulations: this.recorded,
      usage: this.counter.snapshot(),
    };
  }

  /** Appends the session record when something changed since the last one was taken. */
  async save(): Promise<void> {
    const record = this.take();
    if (record) await this.sink?.append(record);
  }

  /** Saves into `sink` from now on: every `intervalMs` until {@link stopSaving}, and on {@link save}. */
  startSaving(sink: SessionSink, intervalMs: number): void {
    this.sink = sink;
    // The record rides along every batch of appends: what a durable simulation cost is durable
    // with it, and a kill -9 loses only the usage of simulations still in flight.
    sink.setTrailer(() => this.take());
    this.timer = setInterval(() => {
      this.save().catch(() => {
        // A failed periodic save is retried by the final one, which does report errors.
      });
    }, intervalMs);
    this.timer.unref();
  }

  stopSaving(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.sink?.setTrailer(null);
  }
}
