/**
 * This invocation's provider usage as a `session` record of the checkpoint:
 * saved now and then while the batch runs (a kill -9 loses little) and once
 * at the end; the latest record per session id counts.
 */
import { randomUUID } from "node:crypto";
import { nowIso } from "../core/messages.ts";
import { CHECKPOINT_VERSION, type CheckpointRecord } from "./checkpoint.ts";
import { LlmUsageCounter } from "./llm-usage.ts";

/** Where session records go (the checkpoint writer). */
export interface SessionSink {
  append(record: CheckpointRecord): Promise<void>;
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

  /** Appends the session record when something changed since the last save (nothing before {@link startSaving}). */
  async save(): Promise<void> {
    const mark = `${this.counter.version}/${this.recorded}`;
    if (!this.active || this.sink === null || mark === this.savedMark) return;
    this.savedMark = mark;
    await this.sink.append({
      kind: "session",
      version: CHECKPOINT_VERSION,
      session_id: this.id,
      started_at: this.startedAt,
      updated_at: nowIso(),
      simulations: this.recorded,
      usage: this.counter.snapshot(),
    });
  }

  /** Saves into `sink` from now on: every `intervalMs` until {@link stopSaving}, and on {@link save}. */
  startSaving(sink: SessionSink, intervalMs: number): void {
    this.sink = sink;
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
  }
}
