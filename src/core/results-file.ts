/**
 * Results files on disk: reading upstream's monolithic `results.json` and its
 * dir layout, writing both atomically, streaming a file of any size, and the
 * `info.taubench` stamp (package version, git commit). The schemas and the
 * byte-exact serialization are `results.ts`.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ByteSink } from "./byte-sink.ts";
import { asFileIoError, FileFormatError, fileOperation } from "./errors.ts";
import { type PyValue, pyDumps } from "./py-json.ts";
import { parseOrThrow, readPyJson } from "./read-files.ts";
import { maskSecrets } from "./secrets.ts";
import {
  buildSimulationIndex,
  RESULTS_FORMAT_VERSION,
  Results,
  resultsToPy,
  serializeResults,
  type SimulationIndexEntry,
  simulationToPy,
  type TaubenchInfo,
} from "./results.ts";
import { SimulationRun } from "./simulation.ts";
import { packageVersion } from "./version.ts";
import { makeFolder } from "./make-folder.ts";

export { packageVersion } from "./version.ts";

// ---------------------------------------------------------------------------
// Reading

/** Where the parts of a results file live; `dir` when a `simulations/` folder sits beside it. */
export interface ResultsLayout {
  format: "json" | "dir";
  metadataPath: string;
  simulationsDir: string;
}

/** Upstream's format detection: a directory, or a file with a sibling `simulations/` folder, is dir format. */
export function resultsLayout(path: string): ResultsLayout {
  if (isDirectory(path)) {
    return {
      format: "dir",
      metadataPath: join(path, "results.json"),
      simulationsDir: join(path, "simulations"),
    };
  }
  const simulationsDir = join(dirname(path), "simulations");
  return { format: isDirectory(simulationsDir) ? "dir" : "json", metadataPath: path, simulationsDir };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Reads an upstream (or taubench-written) results file in either layout.
 * Malformed input is a {@link FileFormatError} naming the file and the field.
 */
export function readResultsFile(path: string): Results {
  const layout = resultsLayout(path);
  const raw = readPyJson(layout.metadataPath);
  if (raw === null || typeof raw !== "object" || Array.isArray(raw) || raw instanceof Map) {
    throw new FileFormatError(layout.metadataPath, "(root): expected a JSON object");
  }
  if (layout.format === "json") return parseOrThrow(layout.metadataPath, Results, raw);

  const meta = { ...(raw as Record<string, PyValue>) };
  delete meta.format_version;
  const files = existsSync(layout.simulationsDir)
    ? readdirSync(layout.simulationsDir)
        .filter((name) => name.endsWith(".json"))
        .sort()
    : [];
  const simulations = files.map((name) => {
    const file = join(layout.simulationsDir, name);
    return parseOrThrow(file, SimulationRun, readPyJson(file));
  });
  const results = parseOrThrow(layout.metadataPath, Results, { ...meta, simulations: [] });
  if (results.simulation_index !== null) {
    const indexed = new Set(results.simulation_index.map((entry) => entry.id));
    const onDisk = new Set(files.map((name) => name.slice(0, -".json".length)));
    const missing = [...indexed].filter((id) => !onDisk.has(id)).sort();
    const extra = [...onDisk].filter((id) => !indexed.has(id)).sort();
    const problems = [
      ...(missing.length ? [`missing simulation files: ${missing.join(", ")}`] : []),
      ...(extra.length ? [`simulation files not in the index: ${extra.join(", ")}`] : []),
    ];
    if (problems.length) {
      throw new FileFormatError(
        layout.metadataPath,
        `dir format integrity check failed: ${problems.join("; ")}`,
      );
    }
  }
  return { ...results, simulations };
}

// ---------------------------------------------------------------------------
// Writing

function temporaryPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
}

/**
 * Moves a finished temporary file onto `path`. A failure (`path` is a folder, say) removes the
 * temporary file and is a {@link FileIoError} naming `path`.
 */
function replaceWith(temporary: string, path: string): void {
  try {
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw asFileIoError(error, path, "write");
  }
}

/** Writes a text file atomically (temporary file in the same folder, then rename). */
export function writeAtomically(path: string, text: string): void {
  fileOperation(path, "write", () => makeFolder(dirname(path)));
  const temporary = temporaryPathFor(path);
  fileOperation(temporary, "write", () => writeFileSync(temporary, maskSecrets(text), "utf8"));
  replaceWith(temporary, path);
}

/** Options of {@link writeResultsFile}. */
export interface WriteResultsOptions {
  /** `json` (default): one monolithic file; `dir`: metadata plus `simulations/<id>.json`. */
  format?: "json" | "dir";
}

/**
 * Writes a results file atomically (temporary file + rename). The dir layout
 * writes every simulation first and the metadata (with its index) last, so a
 * reader never sees an index naming a missing file.
 */
export function writeResultsFile(path: string, results: Results, options: WriteResultsOptions = {}): void {
  if ((options.format ?? "json") === "json") {
    writeAtomically(path, serializeResults(results));
    return;
  }
  const layout = dirLayoutFor(path);
  for (const simulation of results.simulations) writeSimulationFile(layout.simulationsDir, simulation);
  writeDirMetadata(layout.metadataPath, results, buildSimulationIndex(results.simulations));
}

/** Where the dir layout's parts go when writing to `path` (a folder, or the metadata file beside `simulations/`). */
function dirLayoutFor(path: string): { metadataPath: string; simulationsDir: string } {
  const layout = isDirectory(path)
    ? { metadataPath: join(path, "results.json"), simulationsDir: join(path, "simulations") }
    : { metadataPath: path, simulationsDir: join(dirname(path), "simulations") };
  makeFolder(layout.simulationsDir);
  return layout;
}

function writeSimulationFile(simulationsDir: string, simulation: SimulationRun): void {
  writeAtomically(
    join(simulationsDir, `${simulation.id}.json`),
    pyDumps(simulationToPy(simulation), { indent: 2 }),
  );
}

function writeDirMetadata(metadataPath: string, head: ResultsHead, index: SimulationIndexEntry[]): void {
  const meta = new Map(
    resultsToPy({ ...head, simulations: [], simulation_index: index }) as Map<string, unknown>,
  );
  meta.delete("simulations");
  writeAtomically(metadataPath, pyDumps(meta, { indent: 2 }));
}

// ---------------------------------------------------------------------------
// Streaming: a results file of any size from simulations read one at a time

/** A results file without its simulations: what a streaming writer needs up front. */
export type ResultsHead = Omit<Results, "simulations">;

/** Simulations for a streaming writer: a list, or a generator reading them from disk. */
export type SimulationSource = Iterable<SimulationRun> | AsyncIterable<SimulationRun>;

/**
 * A simulation already laid out as an item of the monolithic file's `simulations` list (see
 * {@link simulationItemText}): what appends its UTF-8 bytes to a sink (called at once, before the
 * next item is asked for).
 */
export interface RenderedSimulation {
  writeItem(out: ByteSink): void;
}

/** What {@link writeResultsStream} takes: simulations, or some already rendered. */
export type StreamedSimulations =
  | Iterable<SimulationRun | RenderedSimulation>
  | AsyncIterable<SimulationRun | RenderedSimulation>;

/** The file is handed to the disk in pieces of about this many bytes. */
const STREAM_CHUNK_BYTES = 1 << 20;

/**
 * The text around the simulations list, cut from the dump of the whole file
 * with no simulations, so field order and formatting have one source
 * ({@link resultsToPy}): `prefix` ends at `"simulations": `, `suffix` starts
 * at the `,` after the list.
 */
function resultsFrame(head: ResultsHead): { prefix: string; suffix: string } {
  const before = new Map<string, unknown>();
  const after = new Map<string, unknown>();
  let seen = false;
  for (const [key, value] of resultsToPy({ ...head, simulations: [] }) as Map<string, unknown>) {
    if (key === "simulations") seen = true;
    else (seen ? after : before).set(key, value);
  }
  // Both halves are non-empty (timestamp before, simulation_index after), so each dumps as "{\n…\n}".
  const beforeText = pyDumps(before, { indent: 2 });
  const afterText = pyDumps(after, { indent: 2 });
  return {
    prefix: `${beforeText.slice(0, -"\n}".length)},\n  "simulations": `,
    suffix: `,${afterText.slice("{".length)}`,
  };
}

// An item of the top-level list sits two levels deep; dumping it inside two lists gives exactly
// that indentation from pyDumps itself, then the fixed brackets around it are cut off.
const NESTED_OPEN = "[\n  [\n    ";
const NESTED_CLOSE = "\n  ]\n]";

/** One simulation as it appears inside the monolithic file's `simulations` list (indented two levels). */
function simulationItemText(simulation: SimulationRun): string {
  const text = pyDumps([[simulationToPy(simulation)]], { indent: 2 });
  return text.slice(NESTED_OPEN.length, -NESTED_CLOSE.length);
}

/**
 * Writes the monolithic results file with the simulations taken one at a
 * time from `simulations`, so a run of any size is exported without holding
 * it in memory: the bytes are those of {@link serializeResults} on the whole
 * file. Atomic like {@link writeResultsFile} (temporary file + rename; a
 * failure part-way leaves the previous file). Returns the number written.
 */
export async function writeResultsStream(
  path: string,
  head: ResultsHead,
  simulations: StreamedSimulations,
): Promise<number> {
  fileOperation(path, "write", () => makeFolder(dirname(path)));
  const { prefix, suffix } = resultsFrame(head);
  const temporary = temporaryPathFor(path);
  const handle = await fileOperation(temporary, "write", () => open(temporary, "w"));
  let count = 0;
  try {
    // Secrets are masked per piece; a piece is a whole value, so no key is cut in two.
    const pending = new ByteSink(STREAM_CHUNK_BYTES + (1 << 16));
    pending.text(maskSecrets(prefix));
    for await (const simulation of simulations) {
      pending.text(count === 0 ? "[\n    " : ",\n    ");
      const writeItem = (simulation as Partial<RenderedSimulation>).writeItem;
      const start = pending.length;
      if (writeItem === undefined) pending.text(simulationItemText(simulation as SimulationRun));
      else writeItem(pending);
      // A rendered line may hold a secret known now, not when it was written.
      pending.maskSecretsFrom(start);
      count++;
      if (pending.length >= STREAM_CHUNK_BYTES) {
        await handle.write(pending.bytes);
        pending.clear();
      }
    }
    pending.text(`${count === 0 ? "[]" : "\n  ]"}${maskSecrets(suffix)}`);
    await handle.write(pending.bytes);
    await handle.close();
  } catch (error) {
    await handle.close().catch(() => {
      // Already closed or unusable; the temporary file is removed below either way.
    });
    rmSync(temporary, { force: true });
    throw asFileIoError(error, path, "write");
  }
  replaceWith(temporary, path);
  return count;
}

/**
 * Writes the dir layout with the simulations taken one at a time (each file
 * as it comes, the metadata with its index last, as {@link writeResultsFile}
 * does). Returns the index, which is all it keeps per simulation.
 */
export async function writeResultsDirStream(
  path: string,
  head: ResultsHead,
  simulations: SimulationSource,
): Promise<SimulationIndexEntry[]> {
  const layout = dirLayoutFor(path);
  const index: SimulationIndexEntry[] = [];
  for await (const simulation of simulations) {
    writeSimulationFile(layout.simulationsDir, simulation);
    index.push(...buildSimulationIndex([simulation]));
  }
  writeDirMetadata(layout.metadataPath, head, index);
  return index;
}

/**
 * The commit checked out in `dir`, with `-dirty` when tracked files have
 * uncommitted changes (as `git describe --dirty` marks it; untracked files do
 * not count); null outside a git checkout.
 */
export function gitCommitOf(dir: string | URL): string | null {
  const git = (args: string[]) =>
    execFileSync("git", args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  try {
    const commit = git(["rev-parse", "HEAD"]);
    const changes = git(["status", "--porcelain", "--untracked-files=no"]);
    return changes === "" ? commit : `${commit}-dirty`;
  } catch {
    return null;
  }
}

/** The commit of the taubench checkout the code runs from (see {@link gitCommitOf}), read once per process. */
export function sourceGitCommit(): string | null {
  if (cachedCommit === undefined) {
    const root = new URL("../../", import.meta.url);
    // An installed package has no .git of its own; git would report the project it is installed in.
    cachedCommit = existsSync(new URL(".git", root)) ? gitCommitOf(root) : null;
  }
  return cachedCommit;
}
let cachedCommit: string | null | undefined;

/**
 * {@link sourceGitCommit} with its two git commands run side by side in child processes, so the
 * caller goes on meanwhile (a run plans while git looks); fills the same once-per-process cache.
 */
export async function loadSourceGitCommit(): Promise<string | null> {
  if (cachedCommit !== undefined) return cachedCommit;
  const root = new URL("../../", import.meta.url);
  const commit = existsSync(new URL(".git", root)) ? await gitCommitOfAsync(root) : null;
  cachedCommit ??= commit;
  return cachedCommit;
}

/** {@link gitCommitOf} with both git commands running at once, without blocking. */
export async function gitCommitOfAsync(dir: string | URL): Promise<string | null> {
  const git = (args: string[]) =>
    new Promise<string>((resolve, reject) => {
      execFile("git", args, { cwd: dir, encoding: "utf8" }, (error, stdout) =>
        error ? reject(error) : resolve(stdout.trim()),
      );
    });
  const [commit, changes] = await Promise.allSettled([
    git(["rev-parse", "HEAD"]),
    git(["status", "--porcelain", "--untracked-files=no"]),
  ]);
  if (commit.status === "rejected" || changes.status === "rejected") return null;
  return changes.value === "" ? commit.value : `${commit.value}-dirty`;
}

/** The `info.taubench` stamp: format version, package version, commit, plus whatever the runner adds (prompt hashes, …). */
export function taubenchStamp(extra: Record<string, unknown> = {}): TaubenchInfo {
  return {
    format_version: RESULTS_FORMAT_VERSION,
    version: packageVersion(),
    git_commit: sourceGitCommit(),
    ...extra,
  };
}
