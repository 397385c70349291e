/**
 * The viewer's index of one run: a slim row per simulation that counts and
 * where its full record lies (a byte range of the checkpoint or of a
 * monolithic results file, or a file of the dir layout). Transcripts are read
 * again on demand, one at a time; nothing else of them is kept. A checkpoint
 * is followed: {@link RunIndex.refresh} reads only the bytes appended since.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { FileFormatError } from "../core/errors.ts";
import { parsePyJson } from "../core/py-json.ts";
import { parseOrThrow, readPyJson, readText } from "../core/read-files.ts";
import { readRunAnalysis, readRunReview, reviewFilePath } from "../core/review-file.ts";
import {
  REVIEW_FILE_NAMES,
  reviewFileKind,
  type SimulationAnalysisRecord,
  type SimulationReviewRecord,
} from "../core/review-records.ts";
import { type Info, Results } from "../core/results.ts";
import { resultsLayout } from "../core/results-file.ts";
import { SimulationRun } from "../core/simulation.ts";
import { analysisBreakdown, faultAudit } from "../metrics/fault-audit.ts";
import type { Task } from "../core/task.ts";
import { keyOf, parseCheckpointLine, type RunRecord, type SessionRecord } from "../runner/checkpoint.ts";
import { keepWinner } from "../runner/checkpoint-state.ts";
import { ownString } from "../runner/compact.ts";
import { checkpointInfo } from "../runner/export.ts";
import { readLinesFrom, readRange } from "./byte-lines.ts";
import { scanObjectFile } from "./json-scan.ts";
import { parseJsonText, parseSlimSimulation, rowOf, type SlimParsed, slimOfRaw } from "./rows.ts";
import { runStats } from "./stats.ts";
import {
  type RunData,
  type RunFaults,
  type RunSettings,
  type RunStats,
  type RunSummary,
  type SimRow,
  simulationOfRow,
  type TaskRow,
  VIEWER_DATA_VERSION,
} from "./wire.ts";

/** Where a simulation's full record lies. */
type Location =
  | { kind: "line"; offset: number; length: number; line: number }
  | { kind: "range"; offset: number; length: number }
  | { kind: "file"; path: string };

interface Entry {
  row: SimRow;
  /** For the winner rule ({@link keepWinner}). */
  termination_reason: SimRow["termination"];
  /** The simulation's id: a read checks it found the same record. */
  id: string;
  location: Location;
}

/** A checkpoint that grew within this many milliseconds counts as live. */
const LIVE_WINDOW_MS = 120_000;

/** What names a run in the viewer. */
export interface RunIdentity {
  id: string;
  name: string;
  /** The path shown to the user. */
  displayPath: string;
}

/** Knows each task's expected write actions when the grading did not record tool types (needs the data folder). */
export type WriteActionCounter = (domain: string, task: Task) => number | null;

/** taubench stamp entries longer than this (as JSON) are left out of the run page's settings. */
const SETTING_CHARS = 4096;

/** One run, indexed. */
export class RunIndex {
  readonly format: RunSummary["format"];
  /** Bumped on every change of the index. */
  version = 0;
  info: Info | null = null;
  createdAt: string | null = null;
  error: string | null = null;
  private numTrials = 0;
  private tasks: Task[] = [];
  private taskIndex = new Map<string, number>();
  private entries = new Map<string, Entry>();
  private bySerial = new Map<number, Entry>();
  private nextSerial = 0;
  // Checkpoint following.
  private offset = 0;
  private lineNumber = 0;
  private inode = -1;
  private run: RunRecord | null = null;
  private sessions = new Map<string, SessionRecord>();
  private mtimeMs = 0;
  private summaryCache: RunSummary | null = null;
  private dataCache: { version: number; json: string } | null = null;
  private statsCache: { version: number; stats: RunStats } | null = null;
  /** The review and analysis files beside the run, read again when their size or time changes. */
  private reviewSignature = "";
  private reviews: {
    review: ReadonlyMap<string, SimulationReviewRecord>;
    analysis: ReadonlyMap<string, SimulationAnalysisRecord>;
    faults: RunFaults;
    version: number;
  } | null = null;

  private constructor(
    readonly path: string,
    readonly identity: RunIdentity,
    private readonly writeActionCounter: WriteActionCounter | null,
  ) {
    this.format = path.endsWith(".jsonl")
      ? "checkpoint"
      : resultsLayout(path).format === "dir"
        ? "results-dir"
        : "results";
  }

  /**
   * Indexes the run at `path` (a checkpoint or a results file, as
   * `resolveRunPath` finds it). A file that cannot be read still gives an
   * index, with {@link error} saying why (the runs list shows it).
   */
  static open(
    path: string,
    identity: RunIdentity,
    writeActionCounter: WriteActionCounter | null = null,
  ): RunIndex {
    const index = new RunIndex(path, identity, writeActionCounter);
    index.rebuild();
    index.reviewSignature = index.reviewFilesSignature();
    return index;
  }

  get id(): string {
    return this.identity.id;
  }

  /** Simulations that count. */
  get size(): number {
    return this.entries.size;
  }

  private reset(): void {
    this.info = null;
    this.createdAt = null;
    this.error = null;
    this.tasks = [];
    this.taskIndex = new Map();
    this.entries = new Map();
    this.bySerial = new Map();
    this.offset = 0;
    this.lineNumber = 0;
    this.run = null;
    this.sessions = new Map();
  }

  private rebuild(): void {
    this.reset();
    try {
      const stat = statSync(this.path);
      this.inode = stat.ino;
      this.mtimeMs = stat.mtimeMs;
      if (this.format === "checkpoint") this.readCheckpoint();
      else if (this.format === "results-dir") this.readDirLayout();
      else this.readMonolithic();
    } catch (error) {
      this.error = error instanceof Error ? error.message : String(error);
    }
    this.changed();
  }

  private changed(): void {
    this.version++;
    this.summaryCache = null;
  }

  /**
   * Catches up with the file: a checkpoint that grew is read from where the
   * last read stopped; a file that shrank or was replaced, or a results file
   * that changed, is indexed again. Returns whether anything changed.
   */
  refresh(): boolean {
    const run = this.refreshRun();
    const signature = this.reviewFilesSignature();
    if (signature === this.reviewSignature) return run;
    this.reviewSignature = signature;
    this.changed();
    return true;
  }

  private refreshRun(): boolean {
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(this.path);
    } catch {
      if (this.error !== null) return false;
      this.reset();
      this.error = `${this.path} is gone`;
      this.changed();
      return true;
    }
    const same = stat.ino === this.inode && stat.mtimeMs === this.mtimeMs;
    const appendOnly = this.format === "checkpoint" && this.error === null && stat.ino === this.inode;
    if (!appendOnly || stat.size < this.offset) {
      if (same) return false;
      this.rebuild();
      return true;
    }
    this.mtimeMs = stat.mtimeMs;
    if (stat.size === this.offset) return false;
    const before = this.version;
    try {
      this.readCheckpoint();
    } catch (error) {
      this.error = error instanceof Error ? error.message : String(error);
      this.changed();
    }
    return this.version !== before;
  }

  // -------------------------------------------------------------------------
  // Reading

  private taskSlot(taskId: string): number {
    let slot = this.taskIndex.get(taskId);
    if (slot === undefined) {
      slot = this.tasks.length;
      this.taskIndex.set(ownString(taskId), slot);
      // A simulation of a task the run does not list (should not happen): a bare placeholder.
      this.tasks.push({ id: ownString(taskId) } as Task);
    }
    return slot;
  }

  private setTask(task: Task): void {
    const slot = this.taskIndex.get(task.id);
    if (slot === undefined) {
      this.taskIndex.set(ownString(task.id), this.tasks.length);
      this.tasks.push(task);
    } else this.tasks[slot] = task;
  }

  private file(parsed: SlimParsed, location: Location): boolean {
    const simulation = parsed.simulation;
    const serial = this.nextSerial++;
    const entry: Entry = {
      row: rowOf(parsed, serial, this.taskSlot(simulation.task_id)),
      termination_reason: ownString(simulation.termination_reason) as SimRow["termination"],
      id: ownString(simulation.id),
      location,
    };
    const key = keyOf(simulation);
    const previous = this.entries.get(key);
    if (!keepWinner(this.entries, key, entry)) return false;
    if (previous) this.bySerial.delete(previous.row.serial);
    this.bySerial.set(serial, entry);
    return true;
  }

  private readCheckpoint(): void {
    let changed = false;
    const handle = (text: string, offset: number, length: number, lineNumber: number): boolean => {
      if (text.trim() === "") return true;
      let raw: unknown;
      try {
        raw = parseJsonText(text);
      } catch {
        return false;
      }
      const kind = raw !== null && typeof raw === "object" ? (raw as { kind?: unknown }).kind : undefined;
      if (kind === "simulation") {
        const version = (raw as { version?: unknown }).version;
        if (typeof version !== "number" || version < 1)
          throw new FileFormatError(
            this.path,
            `line ${lineNumber}: checkpoint record version ${String(version)} is not supported`,
          );
        const parsed = slimOfRaw(
          (raw as { simulation?: unknown }).simulation,
          `${this.path}: line ${lineNumber}: simulation`,
        );
        if (this.file(parsed, { kind: "line", offset, length, line: lineNumber })) changed = true;
        return true;
      }
      const record = parseCheckpointLine(this.path, lineNumber, text);
      if (record.kind === "run") {
        this.run = record;
        this.createdAt ??= ownString(record.created_at);
        this.numTrials = record.num_trials;
        for (const task of record.tasks) this.setTask(task);
        this.info = checkpointInfo({ run: this.run, sessions: this.sessions }, this.path);
      } else if (record.kind === "session") {
        this.sessions.set(record.session_id, record);
        if (this.run) this.info = checkpointInfo({ run: this.run, sessions: this.sessions }, this.path);
      }
      changed = true;
      return true;
    };
    const read = readLinesFrom(this.path, this.offset, (line) => {
      this.lineNumber++;
      if (!handle(line.text, line.offset, line.length, this.lineNumber))
        throw new FileFormatError(this.path, `line ${this.lineNumber}: not valid JSON`);
    });
    this.offset = read.end;
    // A last line without its newline counts when it parses (as readCheckpoint does); else it is still being written.
    if (read.tail && handle(read.tail.text, read.tail.offset, read.tail.length, this.lineNumber + 1)) {
      this.lineNumber++;
      this.offset = read.tail.offset + read.tail.length;
    }
    if (!this.run && this.offset > 0)
      throw new FileFormatError(this.path, "no run record (is this a taubench checkpoint?)");
    if (changed) this.changed();
  }

  private readHead(raw: unknown, where: string): void {
    const results = parseOrThrow(where, Results, raw);
    this.info = results.info;
    this.numTrials = results.info.num_trials;
    this.createdAt = results.timestamp;
    for (const task of results.tasks) this.setTask(task);
  }

  private readDirLayout(): void {
    const layout = resultsLayout(this.path);
    const meta = readPyJson(layout.metadataPath);
    if (meta === null || typeof meta !== "object" || Array.isArray(meta))
      throw new FileFormatError(layout.metadataPath, "(root): expected a JSON object");
    const { format_version: _version, ...rest } = meta as Record<string, unknown>;
    this.readHead({ ...rest, simulations: [] }, layout.metadataPath);
    const names = existsSync(layout.simulationsDir)
      ? readdirSync(layout.simulationsDir)
          .filter((name) => name.endsWith(".json"))
          .sort()
      : [];
    for (const name of names) {
      const file = join(layout.simulationsDir, name);
      this.file(parseSlimSimulation(readText(file), file), { kind: "file", path: file });
    }
  }

  private readMonolithic(): void {
    const layout = scanObjectFile(this.path, "simulations");
    const head: Record<string, unknown> = { simulations: [] };
    for (const [key, range] of layout.members) {
      if (key === "simulations") continue;
      head[key] = parsePyJson(readRange(this.path, range.start, range.end - range.start));
    }
    this.readHead(head, this.path);
    layout.items.forEach((range, i) => {
      const text = readRange(this.path, range.start, range.end - range.start);
      this.file(parseSlimSimulation(text, `${this.path}: simulations[${i}]`), {
        kind: "range",
        offset: range.start,
        length: range.end - range.start,
      });
    });
  }

  /** The full simulation behind a row (transcript included), read from disk now; undefined for an unknown serial. */
  readSimulation(serial: number): SimulationRun | undefined {
    const entry = this.bySerial.get(serial);
    if (!entry) return undefined;
    const location = entry.location;
    let simulation: SimulationRun;
    switch (location.kind) {
      case "line": {
        const record = parseCheckpointLine(
          this.path,
          location.line,
          readRange(this.path, location.offset, location.length),
        );
        if (record.kind !== "simulation")
          throw new FileFormatError(this.path, `line ${location.line} is no longer a simulation`);
        simulation = record.simulation;
        break;
      }
      case "range": {
        const where = `${this.path}: bytes ${location.offset}..${location.offset + location.length}`;
        simulation = parseOrThrow(
          where,
          SimulationRun,
          parsePyJson(readRange(this.path, location.offset, location.length)),
        );
        break;
      }
      case "file":
        simulation = parseOrThrow(location.path, SimulationRun, readPyJson(location.path));
        break;
      default: {
        const never: never = location;
        throw new Error(`unknown location ${String(never)}`);
      }
    }
    if (simulation.id !== entry.id)
      throw new FileFormatError(
        this.path,
        `changed since it was indexed (expected simulation ${entry.id}, found ${simulation.id})`,
      );
    return simulation;
  }

  /** The task with this id as the run embeds it. */
  task(taskId: string): Task | undefined {
    const slot = this.taskIndex.get(taskId);
    return slot === undefined ? undefined : this.tasks[slot];
  }

  /** The task of a row. */
  taskOfSerial(serial: number): Task | undefined {
    const entry = this.bySerial.get(serial);
    return entry ? this.tasks[entry.row.task] : undefined;
  }

  // -------------------------------------------------------------------------
  // Reviews (`tau review`, `tau analyze`)

  private reviewFilesSignature(): string {
    return (["review_full", "review_user", "analysis"] as const)
      .map((kind) => {
        try {
          const stat = statSync(reviewFilePath(this.path, kind));
          return `${stat.size}:${stat.mtimeMs}`;
        } catch {
          return "-";
        }
      })
      .join(" ");
  }

  /** The review and analysis records, read once per version of the run and of the files. */
  private reviewState(): NonNullable<RunIndex["reviews"]> {
    if (this.reviews?.version === this.version) return this.reviews;
    let faults: RunFaults = { review: null, analysis: null, error: null };
    let review: NonNullable<RunIndex["reviews"]>["review"] = new Map();
    let analysis: NonNullable<RunIndex["reviews"]>["analysis"] = new Map();
    try {
      const found = readRunReview(this.path);
      const analysed = readRunAnalysis(this.path);
      // The audit's simulations carry their ids: the review's records are keyed by them.
      const simulations = [...this.entries.values()].map((entry) => ({
        ...simulationOfRow(entry.row, this.tasks[entry.row.task]!.id),
        id: entry.id,
      }));
      if (found) review = found.state.simulations;
      if (analysed) analysis = analysed.simulations;
      faults = {
        review: found && {
          file: REVIEW_FILE_NAMES[reviewFileKind(found.mode)],
          audit: faultAudit(found.mode, simulations, found.state.simulations, { numTrials: this.numTrials }),
        },
        analysis: analysed && {
          file: REVIEW_FILE_NAMES.analysis,
          breakdown: analysisBreakdown([...analysed.simulations.values()]),
        },
        error: null,
      };
    } catch (error) {
      faults = {
        review: null,
        analysis: null,
        error: error instanceof Error ? error.message : String(error),
      };
    }
    this.reviews = { review, analysis, faults, version: this.version };
    return this.reviews;
  }

  /** What `tau review` and `tau analyze` found for the run. */
  faults(): RunFaults {
    return this.reviewState().faults;
  }

  /** One simulation's review and analysis records (null when it has none). */
  reviewsOf(simulationId: string): {
    review: SimulationReviewRecord | null;
    analysis: SimulationAnalysisRecord | null;
  } {
    const state = this.reviewState();
    return {
      review: state.review.get(simulationId) ?? null,
      analysis: state.analysis.get(simulationId) ?? null,
    };
  }

  // -------------------------------------------------------------------------
  // Views

  private rows(): SimRow[] {
    return [...this.entries.values()].map((entry) => entry.row);
  }

  /** The simulations as `computeMetrics` reads them (rebuilt from the rows, as the browser does). */
  metricsInput(): SimulationRun[] {
    return this.rows().map((row) => simulationOfRow(row, this.tasks[row.task]!.id));
  }

  /** The runs list's line for this run. */
  summary(now = Date.now()): RunSummary {
    if (this.summaryCache && this.format !== "checkpoint") return this.summaryCache;
    const info = this.info;
    const live = this.format === "checkpoint" && this.error === null && now - this.mtimeMs < LIVE_WINDOW_MS;
    if (this.summaryCache) return { ...this.summaryCache, live };
    const metrics = info ? this.stats().metrics : null;
    let cost: number | null = null;
    for (const row of this.rows()) {
      for (const value of [row.agentCost, row.userCost]) if (value !== null) cost = (cost ?? 0) + value;
    }
    const prompts = info?.taubench?.prompts;
    this.summaryCache = {
      id: this.identity.id,
      name: this.identity.name,
      path: this.identity.displayPath,
      format: this.format,
      domain: info?.environment_info.domain_name ?? "",
      agent: { implementation: info?.agent_info.implementation ?? "", llm: info?.agent_info.llm ?? null },
      user: { implementation: info?.user_info.implementation ?? "", llm: info?.user_info.llm ?? null },
      createdAt: this.createdAt,
      numTrials: this.numTrials,
      tasks: this.tasks.length,
      simulations: this.entries.size,
      expected: info ? this.tasks.length * this.numTrials : null,
      passHat1: metrics?.passHatK[0] ?? null,
      passHat1Interval: metrics?.passHat1Interval ?? null,
      avgReward: metrics?.avgReward ?? null,
      costUsd: cost,
      infraErrors: metrics?.infraErrorCount ?? 0,
      live,
      updatedAt: new Date(this.mtimeMs).toISOString(),
      version: this.version,
      prompts: typeof prompts === "string" ? prompts : null,
      error: this.error,
    };
    return this.summaryCache;
  }

  private settings(): RunSettings {
    const info = this.info;
    const taubench = info?.taubench;
    let stamp: Record<string, unknown> | null = null;
    if (taubench) {
      stamp = {};
      for (const [key, value] of Object.entries(taubench))
        if (JSON.stringify(value ?? null).length <= SETTING_CHARS) stamp[key] = value;
    }
    const judge = taubench?.judge_llm;
    return {
      agent: {
        implementation: info?.agent_info.implementation ?? "",
        llm: info?.agent_info.llm ?? null,
        args: info?.agent_info.llm_args ?? null,
      },
      user: {
        implementation: info?.user_info.implementation ?? "",
        llm: info?.user_info.llm ?? null,
        args: info?.user_info.llm_args ?? null,
      },
      ...(typeof judge === "string" || judge === null ? { judge } : {}),
      seed: info?.seed ?? null,
      maxSteps: info?.max_steps ?? 0,
      maxErrors: info?.max_errors ?? 0,
      gitCommit: info?.git_commit ?? "",
      taubench: stamp,
    };
  }

  private taskRows(rows: readonly SimRow[]): TaskRow[] {
    // What the grading recorded: every graded simulation lists each expected action with its tool type.
    const recorded = new Map<number, number>();
    for (const row of rows) {
      if (row.readActions[1] + row.writeActions[1] === 0) continue;
      recorded.set(row.task, Math.max(recorded.get(row.task) ?? 0, row.writeActions[1]));
    }
    const domain = this.info?.environment_info.domain_name ?? "";
    return this.tasks.map((task, slot) => {
      const actions = task.evaluation_criteria?.actions;
      let writeActions: number | null = recorded.get(slot) ?? null;
      if (writeActions === null && task.evaluation_criteria !== undefined) {
        if (!actions || actions.length === 0) writeActions = 0;
        else writeActions = this.writeActionCounter?.(domain, task) ?? null;
      }
      return { id: task.id, writeActions, rewardBasis: task.evaluation_criteria?.reward_basis ?? null };
    });
  }

  /** {@link data} as JSON, kept until the index changes (a 10,000-simulation run is a few MB). */
  dataJson(): string {
    if (this.dataCache?.version !== this.version)
      this.dataCache = { version: this.version, json: JSON.stringify(this.data()) };
    return this.dataCache.json;
  }

  /** The run's statistics, computed once per version (see `stats.ts`). */
  stats(): RunStats {
    if (this.statsCache?.version !== this.version)
      this.statsCache = {
        version: this.version,
        stats: runStats(this.metricsInput(), this.taskRows(this.rows()), this.numTrials),
      };
    return this.statsCache.stats;
  }

  /** Everything the run page loads. */
  data(): RunData {
    const rows = this.rows();
    return {
      dataVersion: VIEWER_DATA_VERSION,
      summary: this.summary(),
      settings: this.settings(),
      tasks: this.taskRows(rows),
      simulations: rows,
      stats: this.stats(),
      faults: this.faults(),
    };
  }
}

/** The display name of a run file: its folder's name for `results.json(l)`, else the file name. */
export function runName(path: string): string {
  const file = basename(path);
  if (file === "results.jsonl" || file === "results.json") return basename(join(path, ".."));
  return file.replace(/\.jsonl?$/, "");
}
