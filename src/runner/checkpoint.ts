/**
 * The crash-safe run log: one JSON line per record, appended and flushed to
 * disk before a simulation is reported. A `run` record describes the run (the
 * config fingerprint that resume checks, upstream's `info`, the tasks); each
 * finished simulation is a `simulation` record, in upstream's `model_dump`
 * layout (float fields stay floats); a `session` record holds one invocation's
 * provider usage and is rewritten (latest wins) as the session goes on.
 * A torn last line (kill -9 mid-write) is ignored and cut off before the next append.
 *
 * Records carry `version`; fixtures of every version stay in the tests.
 * Version 1 had no `session` records; its lines still load unchanged.
 */
import {
  createReadStream,
  existsSync,
  openSync,
  closeSync,
  fstatSync,
  readSync,
  ftruncateSync,
} from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import { createInterface } from "node:readline";
import { z } from "zod";
import { asFileIoError, FileFormatError, fileOperation, formatIssuePath } from "../core/errors.ts";
import { ByteSink } from "../core/byte-sink.ts";
import { jsonMemberSpan, parsePyJson, pyDumps, pyDumpsInto } from "../core/py-json.ts";
import { maskSecrets } from "../core/secrets.ts";
import { simulationToPy } from "../core/results.ts";
import { SimulationRun } from "../core/simulation.ts";
import { Task } from "../core/task.ts";
import { RunUsage, runUsageToPy } from "./llm-usage.ts";
import { ownString } from "./compact.ts";

/** The checkpoint format version this code writes (2 added `session` records; 1 still loads). */
export const CHECKPOINT_VERSION = 2;

/** The settings that change what a simulation means; resuming with different ones is refused. */
export const RunFingerprint = z.object({
  domain: z.string(),
  agent: z.string(),
  user: z.string(),
  agent_llm: z.string().nullable(),
  user_llm: z.string().nullable(),
  agent_llm_args: z.record(z.string(), z.any()),
  user_llm_args: z.record(z.string(), z.any()),
  /** `none` when NL assertions are not judged. */
  judge_llm: z.string(),
  judge_llm_args: z.record(z.string(), z.any()),
  max_steps: z.number(),
  max_errors: z.number(),
  seed: z.number(),
  solo_mode: z.boolean(),
  enforce_communication_protocol: z.boolean(),
  /** `upstream:<texts sha256>` when the models saw upstream's exact texts; absent for taubench's own wording. */
  prompts: z.string().optional(),
  // Present only when they apply (so runs of built-in participants keep their fingerprint as it was).
  agent_version: z.string().optional(),
  user_version: z.string().optional(),
  agent_options: z.record(z.string(), z.any()).optional(),
  user_options: z.record(z.string(), z.any()).optional(),
  /** sha256 of an agent (user) module file: editing the module is a different agent. */
  agent_module_sha256: z.string().optional(),
  user_module_sha256: z.string().optional(),
  /** banking_knowledge's retrieval config and its kwargs (absent in older checkpoints and other domains). */
  retrieval_config: z.string().nullable().optional(),
  retrieval_config_kwargs: z.record(z.string(), z.any()).nullable().optional(),
  /** `--no-policy` (absent when off). */
  no_policy: z.boolean().optional(),
});
export type RunFingerprint = z.infer<typeof RunFingerprint>;

/** Describes the run; written when a run starts and again when a resume adds trials or tasks. */
export const RunRecord = z.object({
  kind: z.literal("run"),
  version: z.number().int(),
  created_at: z.string(),
  fingerprint: RunFingerprint,
  num_trials: z.number().int(),
  /** Trial seeds, index = trial. */
  seeds: z.array(z.number()),
  /** Upstream's results `info` (spec §10.2), stored as written. */
  info: z.record(z.string(), z.any()),
  /** Every task of the run (normalised, as upstream embeds them). */
  tasks: z.array(Task),
  /** The command that resumes this run. */
  resume_command: z.string().nullable().default(null),
});
export type RunRecord = z.infer<typeof RunRecord>;

/** One finished simulation (an `infrastructure_error` placeholder included). */
export const SimulationRecord = z.object({
  kind: z.literal("simulation"),
  version: z.number().int(),
  simulation: SimulationRun,
});
export type SimulationRecord = z.infer<typeof SimulationRecord>;

/** One invocation's provider usage; rewritten as the session goes on, the latest line per `session_id` counts. */
export const SessionRecord = z.object({
  kind: z.literal("session"),
  version: z.number().int().min(2),
  session_id: z.string(),
  started_at: z.string(),
  updated_at: z.string(),
  /** Simulations recorded in this session so far. */
  simulations: z.number().int(),
  usage: RunUsage,
});
export type SessionRecord = z.infer<typeof SessionRecord>;

/** Any checkpoint line. */
export const CheckpointRecord = z.discriminatedUnion("kind", [RunRecord, SimulationRecord, SessionRecord]);
export type CheckpointRecord = z.infer<typeof CheckpointRecord>;

/** Identity of one unit of work: upstream's resume key `(trial, task_id, seed)`. */
export function simulationKey(trial: number, taskId: string, seed: number): string {
  // Flat and of its own: run maps keep one key per simulation (see compact.ts).
  return ownString(`${trial}\u0000${taskId}\u0000${seed}`);
}

/** The key of a stored simulation. */
export function keyOf(simulation: Pick<SimulationRun, "trial" | "task_id" | "seed">): string {
  return simulationKey(simulation.trial ?? 0, simulation.task_id, simulation.seed ?? 0);
}

/** The checkpoint path for a results path (`x.json` → `x.jsonl`). */
export function checkpointPathFor(resultsPath: string): string {
  return resultsPath.endsWith(".json") ? `${resultsPath}l` : `${resultsPath}.jsonl`;
}

/** What {@link readCheckpoint} yields for each line. */
export interface CheckpointLine {
  record: CheckpointRecord;
  lineNumber: number;
}

/** How this version writes a simulation line: the simulation's compact dump follows, then the closing brace. */
export const SIMULATION_LINE_HEAD = `{"kind": "simulation", "version": ${CHECKPOINT_VERSION}, "simulation": `;

/**
 * Parses a line with the transcript of a simulation this version wrote cut to `[]` (most of its
 * bytes; for readers that drop it anyway). The transcript is only checked to be JSON, by the
 * built-in parser (several times faster than the Python-compatible one, and no schema check); the
 * rest is parsed and validated as usual. A line that is not JSON gets the full parse's message.
 */
function parseWithoutTranscript(path: string, lineNumber: number, text: string): CheckpointRecord {
  if (text.startsWith(SIMULATION_LINE_HEAD)) {
    let span: [number, number] | null = null;
    try {
      span = jsonMemberSpan(text, SIMULATION_LINE_HEAD.length, "messages");
      if (span) JSON.parse(text.slice(span[0], span[1]));
    } catch {
      span = null; // a torn or broken line: the full parse below says what is wrong with it
    }
    if (span)
      return parseCheckpointLine(path, lineNumber, `${text.slice(0, span[0])}[]${text.slice(span[1])}`);
  }
  return parseCheckpointLine(path, lineNumber, text);
}

/** Parses one checkpoint line; older versions are upgraded here. */
export function parseCheckpointLine(path: string, lineNumber: number, text: string): CheckpointRecord {
  let raw: unknown;
  try {
    raw = parsePyJson(text);
  } catch (error) {
    throw new FileFormatError(path, `line ${lineNumber}: not valid JSON (${(error as Error).message})`, {
      cause: error,
    });
  }
  const kind = raw !== null && typeof raw === "object" ? (raw as { kind?: unknown }).kind : undefined;
  if (kind !== "run" && kind !== "simulation" && kind !== "session") {
    // Some other JSON Lines file (a replay output, a log): say so rather than blame a record version.
    throw new FileFormatError(
      path,
      `line ${lineNumber}: not a taubench checkpoint record (no "kind" of run, simulation or session); tau reads the results.jsonl that tau run writes`,
    );
  }
  const version = "version" in (raw as object) ? (raw as { version: unknown }).version : 0;
  if (typeof version !== "number" || version < 1 || version > CHECKPOINT_VERSION) {
    throw new FileFormatError(
      path,
      `line ${lineNumber}: checkpoint record version ${String(version)} is not supported (this taubench reads 1..${CHECKPOINT_VERSION})`,
    );
  }
  const result = CheckpointRecord.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new FileFormatError(path, `line ${lineNumber}: ${formatIssuePath(issue.path)}: ${issue.message}`);
  }
  return result.data;
}

/**
 * Streams a checkpoint's records in file order. A last line without its
 * newline that does not parse is a torn write and is skipped; `onTorn` hears of it.
 */
export async function* readCheckpoint(
  path: string,
  onTorn?: (lineNumber: number) => void,
  options: { withoutTranscripts?: boolean } = {},
): AsyncGenerator<CheckpointLine> {
  const parse = options.withoutTranscripts ? parseWithoutTranscript : parseCheckpointLine;
  const endsWithNewline = lastByte(path) === 0x0a;
  const lines = createInterface({ input: createReadStream(path, { encoding: "utf8" }), crlfDelay: Infinity });
  let pending: { text: string; lineNumber: number } | null = null;
  let lineNumber = 0;
  for await (const text of lines) {
    lineNumber++;
    if (pending)
      yield {
        record: parse(path, pending.lineNumber, pending.text),
        lineNumber: pending.lineNumber,
      };
    pending = text.trim() === "" ? null : { text, lineNumber };
  }
  if (pending) {
    try {
      yield {
        record: parse(path, pending.lineNumber, pending.text),
        lineNumber: pending.lineNumber,
      };
    } catch (error) {
      if (endsWithNewline || !(error instanceof FileFormatError)) throw error;
      onTorn?.(pending.lineNumber);
    }
  }
}

function lastByte(path: string): number | null {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return null;
    const buffer = Buffer.alloc(1);
    readSync(fd, buffer, 0, 1, size - 1);
    return buffer[0]!;
  } finally {
    closeSync(fd);
  }
}

/** Cuts a torn tail (bytes after the last newline) so the next append starts on a fresh line. */
export function repairTornTail(path: string): number {
  if (!existsSync(path)) return 0;
  const fd = openSync(path, "r+");
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return 0;
    const chunk = 64 * 1024;
    let end = size;
    const buffer = Buffer.alloc(chunk);
    while (end > 0) {
      const start = Math.max(0, end - chunk);
      const read = readSync(fd, buffer, 0, end - start, start);
      const index = buffer.subarray(0, read).lastIndexOf(0x0a);
      if (index >= 0) {
        const keep = start + index + 1;
        if (keep < size) ftruncateSync(fd, keep);
        return size - keep;
      }
      end = start;
    }
    ftruncateSync(fd, 0);
    return size;
  } finally {
    closeSync(fd);
  }
}

const ENCODED_LINE = Symbol("checkpoint line");

/**
 * `simulation` carrying its checkpoint line, already made by {@link formatCheckpointLine} (a local
 * worker's, passed through): {@link CheckpointWriter.append} writes that line instead of encoding
 * the simulation again, so `simulation` may be a slim copy. The line must be of this very simulation,
 * its trial and seed included. Copies made with spread keep it.
 */
export function withEncodedLine<T extends SimulationRun>(simulation: T, line: string): T {
  return Object.assign(simulation, { [ENCODED_LINE]: line });
}

function encodedLineOf(simulation: SimulationRun): string | undefined {
  return (simulation as { [ENCODED_LINE]?: string })[ENCODED_LINE];
}

/** The write buffer a checkpoint starts with, and the largest one it keeps between writes. */
const WRITE_BUFFER_BYTES = 256 * 1024;
const MAX_KEPT_WRITE_BUFFER_BYTES = 8 * 1024 * 1024;

/**
 * Appends records with group commit: concurrent appends share one write and
 * one `fdatasync`; the returned promise resolves once the line is on disk.
 */
export class CheckpointWriter {
  private handle: FileHandle | null = null;
  /** The appends the next write carries: their lines are in {@link pending}, in order. */
  private waiting: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  private flushing: Promise<void> | null = null;
  private trailer: (() => CheckpointRecord | null) | null = null;
  /**
   * Lines are encoded straight into the bytes of the next write, and the two buffers swap at each
   * write (writes do not overlap): no string or buffer of a line's own is made.
   */
  private pending = new ByteSink(WRITE_BUFFER_BYTES);
  private spare = new ByteSink(WRITE_BUFFER_BYTES);

  private constructor(readonly path: string) {}

  /** Opens (creating) the file for appending, first cutting any torn tail. */
  static async open(path: string): Promise<CheckpointWriter> {
    const isNew = !existsSync(path);
    fileOperation(path, "repair the torn last line of", () => repairTornTail(path));
    const writer = new CheckpointWriter(path);
    writer.handle = await fileOperation(path, "open for appending", () => open(path, "a"));
    if (isNew) {
      // Make the new file's directory entry durable too, not only its contents.
      const directory = await open(dirname(path), "r");
      try {
        await directory.sync();
      } catch {
        // Some filesystems refuse fsync on a directory; the data itself is still synced per append.
      } finally {
        await directory.close();
      }
    }
    return writer;
  }

  /**
   * A record to write after every batch of appends, in the same write and sync (null: nothing
   * new). The runner's session usage rides along this way, so what a durable simulation cost is
   * durable with it: a kill -9 loses only the usage of simulations still in flight.
   */
  setTrailer(trailer: (() => CheckpointRecord | null) | null): void {
    this.trailer = trailer;
  }

  /** Appends one record; resolves when it is durable. */
  append(record: CheckpointRecord): Promise<void> {
    writeCheckpointLine(record, this.pending);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (!this.flushing) this.flushing = this.flush();
    });
  }

  private async flush(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting;
      this.waiting = [];
      const lines = this.pending;
      this.pending = this.spare;
      this.spare = lines;
      try {
        if (!this.handle) throw new Error(`checkpoint ${this.path} is closed`);
        const trailer = this.trailer?.() ?? null;
        if (trailer) writeCheckpointLine(trailer, lines);
        const bytes = lines.bytes;
        for (let offset = 0; offset < bytes.length; ) {
          const { bytesWritten } = await this.handle.write(bytes, offset, bytes.length - offset, null);
          offset += bytesWritten;
        }
        await this.handle.datasync();
        for (const item of batch) item.resolve();
      } catch (error) {
        const failure = asFileIoError(error, this.path, "append to");
        for (const item of batch) item.reject(failure);
      } finally {
        lines.clear();
        // A burst of appends grew it: it is not kept that large.
        if (lines.capacity > MAX_KEPT_WRITE_BUFFER_BYTES) this.spare = new ByteSink(WRITE_BUFFER_BYTES);
      }
    }
    this.flushing = null;
  }

  /** Waits for pending appends and closes the file. */
  async close(): Promise<void> {
    if (this.flushing) await this.flushing;
    await this.handle?.close();
    this.handle = null;
  }
}

/** Serializes a record as its checkpoint line (without the newline, known secrets masked); exported for fixtures and tools. */
export function formatCheckpointLine(record: CheckpointRecord): string {
  return maskSecrets(checkpointLineText(record));
}

/**
 * {@link formatCheckpointLine} and its newline appended to `out` as bytes (what the writer does
 * for every record): a simulation's line is encoded into `out` directly, or copied from the line
 * it carries. A line that holds a known secret goes through the text path, which masks it.
 */
function writeCheckpointLine(record: CheckpointRecord, out: ByteSink): void {
  const start = out.length;
  try {
    const encoded = record.kind === "simulation" ? encodedLineOf(record.simulation) : undefined;
    if (encoded !== undefined) out.text(encoded);
    else pyDumpsInto(checkpointLineValue(record), out);
  } catch (error) {
    out.truncate(start);
    throw error;
  }
  out.maskSecretsFrom(start);
  out.byte(0x0a);
}

function checkpointLineText(record: CheckpointRecord): string {
  return pyDumps(checkpointLineValue(record));
}

/** What a record's line is the compact dump of. */
function checkpointLineValue(record: CheckpointRecord): unknown {
  switch (record.kind) {
    case "run":
      return record;
    case "simulation":
      // Upstream's layout with float fields boxed, so `reward: 1.0` does not come back as `1`.
      return new Map<string, unknown>([
        ["kind", record.kind],
        ["version", record.version],
        ["simulation", simulationToPy(record.simulation)],
      ]);
    case "session":
      return { ...record, usage: runUsageToPy(record.usage) };
    default: {
      const never: never = record;
      throw new Error(`unhandled checkpoint record ${String(never)}`);
    }
  }
}
