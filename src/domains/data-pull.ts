/**
 * `tau data pull`: downloads the pinned upstream release archive, keeps the
 * text-mode data files and checks each one against the committed sha256 list
 * before anything is written to the data folder.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { gunzipSync } from "node:zlib";
import { DataDirError } from "../core/errors.ts";
import { ARCHIVE_DATA_PREFIX, DATA_MANIFEST, DEFAULT_DATA_URL, type ManifestEntry } from "./data-manifest.ts";
import { extractTexts, TextExtractionError, type TextSource } from "./texts/extract.ts";
import { serializeTexts } from "./texts/format.ts";
import { textsRelativePath } from "./texts/store.ts";
import { TAU2_TEXT_SOURCE } from "./texts/tau2.ts";
import { makeFolder } from "../core/make-folder.ts";

/** One regular file found in a tar archive. */
export interface TarEntry {
  path: string;
  data: Buffer;
}

function readOctal(block: Buffer, offset: number, length: number): number {
  const text = block
    .subarray(offset, offset + length)
    .toString("latin1")
    .replace(/\0.*$/s, "")
    .trim();
  return text === "" ? 0 : Number.parseInt(text, 8);
}

function readString(block: Buffer, offset: number, length: number): string {
  return block
    .subarray(offset, offset + length)
    .toString("utf8")
    .replace(/\0.*$/s, "");
}

/** Parses a (ustar / pax / GNU long-name) tar archive into its regular files. */
export function parseTar(archive: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  let longName: string | undefined;
  let paxPath: string | undefined;
  while (offset + 512 <= archive.length) {
    const header = archive.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const size = readOctal(header, 124, 12);
    const type = String.fromCharCode(header[156] ?? 0x30);
    const prefix = readString(header, 345, 155);
    const name = readString(header, 0, 100);
    const body = archive.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
    if (type === "L") {
      longName = body.toString("utf8").replace(/\0.*$/s, "");
      continue;
    }
    if (type === "x") {
      const match = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString("utf8"));
      paxPath = match?.[1];
      continue;
    }
    if (type === "g") continue;
    const path = paxPath ?? longName ?? (prefix ? `${prefix}/${name}` : name);
    longName = undefined;
    paxPath = undefined;
    if (type === "0" || type === "\0") entries.push({ path, data: Buffer.from(body) });
  }
  return entries;
}

/** What to do when the release cannot be downloaded (no network, a proxy, a blocked host). */
const OFFLINE_HINT =
  "Without network access, fetch the release archive some other way and pass it with --url FILE.tar.gz, or point TAU_DATA_DIR (or --data-dir) at a copy of upstream's data/tau2 folder";

/** Fetches the archive bytes from an http(s) URL or reads a local file. */
export async function fetchArchive(url: string, signal?: AbortSignal): Promise<Buffer> {
  if (!/^https?:\/\//.test(url)) {
    try {
      return readFileSync(url.replace(/^file:\/\//, ""));
    } catch (error) {
      throw new DataDirError(`Cannot read archive ${url}: ${(error as Error).message}`, { cause: error });
    }
  }
  let response: Response;
  try {
    response = await fetch(url, { redirect: "follow", ...(signal ? { signal } : {}) });
  } catch (error) {
    // Node's fetch says only "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND, bad port) is its cause,
    // and it belongs before the hint.
    const cause = (error as Error).cause;
    const reason = cause instanceof Error ? ` (${cause.message.split("\n")[0]})` : "";
    throw new DataDirError(`Cannot download ${url}: ${(error as Error).message}${reason}. ${OFFLINE_HINT}`, {
      cause: error,
    });
  }
  if (!response.ok)
    throw new DataDirError(`Cannot download ${url}: HTTP ${response.status}. ${OFFLINE_HINT}`);
  return Buffer.from(await response.arrayBuffer());
}

/** What a pull did. */
export interface PullResult {
  dest: string;
  files: number;
  bytes: number;
  /** The texts file extracted from the archive's sources (null when the pull was told not to; τ-bench's pull has its texts among its files). */
  texts?: { path: string; entries: number; sha256: string } | null;
}

/** Options of {@link pullData}. */
export interface PullOptions {
  dest: string;
  url?: string;
  manifest?: readonly ManifestEntry[];
  /** Whose texts to extract from the archive's Python sources (default tau2-bench's; null: none). */
  textSource?: TextSource | null;
  signal?: AbortSignal;
}

/**
 * Downloads and verifies the data, and extracts upstream's model-facing texts
 * from the archive's Python sources into `taubench/` of the data folder. Files
 * are written to a temporary folder and moved into place only when every file
 * is present with the right sha256 and every text was found.
 */
export async function pullData(options: PullOptions): Promise<PullResult> {
  const manifest = options.manifest ?? DATA_MANIFEST;
  const textSource = options.textSource === undefined ? TAU2_TEXT_SOURCE : options.textSource;
  const textsPath = textsRelativePath(textSource ?? TAU2_TEXT_SOURCE);
  assertReplaceable(options.dest, [...manifest, { path: textsPath }]);
  const url = options.url ?? DEFAULT_DATA_URL;
  const byPath = new Map<string, Buffer>();
  const sources = new Map<string, Buffer>();
  for (const [inner, data] of unpackArchive(await fetchArchive(url, options.signal), url)) {
    // Keep data/tau2/... (below the archive's top-level folder, e.g. `tau2-bench-1.0.1/`) and the sources.
    if (inner.startsWith(ARCHIVE_DATA_PREFIX)) byPath.set(inner.slice(ARCHIVE_DATA_PREFIX.length), data);
    else if (inner.endsWith(".py")) sources.set(inner, data);
  }
  const problems = checksumProblems(manifest, byPath);
  if (problems.length > 0) {
    throw new DataDirError(
      `The archive at ${url} does not match the pinned data (${problems.length} problem${problems.length === 1 ? "" : "s"}): ${problems.join("; ")}. Nothing was written.`,
    );
  }
  let texts: string | null = null;
  try {
    texts = textSource ? serializeTexts(extractTexts(textSource, (path) => sources.get(path), url)) : null;
  } catch (error) {
    if (error instanceof TextExtractionError)
      throw new DataDirError(`${error.message}. Nothing was written.`, { cause: error });
    throw error;
  }
  const textsSha = texts === null ? null : createHash("sha256").update(texts).digest("hex");
  if (textSource?.textsSha256 && textsSha !== textSource.textsSha256)
    throw new DataDirError(
      `The texts extracted from ${url} are not the pinned ones (sha256 ${textsSha?.slice(0, 12)}…, expected ${textSource.textsSha256.slice(0, 12)}…). Nothing was written.`,
    );
  const files = manifest.map((file) => ({ path: file.path, data: byPath.get(file.path)! }));
  if (texts !== null) files.push({ path: textsPath, data: Buffer.from(texts, "utf8") });
  const bytes = installFolder(options.dest, files);
  return {
    dest: options.dest,
    files: manifest.length,
    bytes,
    texts:
      texts !== null && textsSha !== null
        ? {
            path: join(options.dest, textsPath),
            entries: Object.keys(JSON.parse(texts).entries).length,
            sha256: textsSha,
          }
        : null,
  };
}

/** One line per manifest file that is missing from `files` or has other bytes than pinned. */
export function checksumProblems(
  manifest: readonly Pick<ManifestEntry, "path" | "sha256">[],
  files: ReadonlyMap<string, Buffer>,
): string[] {
  const problems: string[] = [];
  for (const file of manifest) {
    const data = files.get(file.path);
    if (!data) {
      problems.push(`${file.path}: missing from the archive`);
      continue;
    }
    const sha = createHash("sha256").update(data).digest("hex");
    if (sha !== file.sha256) {
      const lfs = data.subarray(0, 40).toString("latin1").startsWith("version https://git-lfs");
      problems.push(
        `${file.path}: checksum mismatch (got ${sha.slice(0, 12)}…, expected ${file.sha256.slice(0, 12)}…${lfs ? "; the archive holds a Git LFS pointer, not the file" : ""})`,
      );
    }
  }
  return problems;
}

/**
 * The regular files of a (gzipped) tar archive by path, the archive's single
 * top-level folder (`<repo>-<ref>/`) removed.
 */
export function unpackArchive(raw: Buffer, url: string): Map<string, Buffer> {
  let tar: Buffer;
  try {
    // A plain tar is accepted too (its `ustar` magic sits at byte 257); anything else is not an archive.
    if (raw[0] === 0x1f && raw[1] === 0x8b) tar = gunzipSync(raw);
    else if (raw.subarray(257, 262).toString("latin1") === "ustar") tar = raw;
    else
      throw new DataDirError(`${url} is not a gzip archive (nor a tar file); expected the release .tar.gz`);
  } catch (error) {
    if (error instanceof DataDirError) throw error;
    throw new DataDirError(`${url} is not a valid gzip archive: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const out = new Map<string, Buffer>();
  for (const entry of parseTar(tar)) out.set(entry.path.replace(/^[^/]+\//, ""), entry.data);
  return out;
}

/**
 * Writes verified files into a staging folder and then moves it into place
 * as `dest` (replacing an earlier pull). Returns the bytes written.
 */
export function installFolder(dest: string, files: readonly { path: string; data: Buffer }[]): number {
  const staging = `${dest}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  let bytes = 0;
  for (const file of files) {
    const target = join(staging, file.path);
    makeFolder(dirname(target));
    writeFileSync(target, file.data);
    bytes += file.data.length;
  }
  makeFolder(dirname(dest));
  rmSync(dest, { recursive: true, force: true });
  renameSync(staging, dest);
  return bytes;
}

function filesBelow(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesBelow(path));
    else out.push(path);
  }
  return out;
}

/**
 * The pull replaces `dest` as a whole, so it must hold nothing but data files
 * (an earlier pull, or a copy of upstream's data folder): anything else is a
 * folder the user did not mean to lose.
 */
export function assertReplaceable(dest: string, manifest: readonly Pick<ManifestEntry, "path">[]): void {
  if (!existsSync(dest)) return;
  if (!statSync(dest).isDirectory())
    throw new DataDirError(`${dest} exists and is not a folder; choose another --dest`);
  const known = new Set(manifest.map((file) => file.path));
  const foreign = filesBelow(dest)
    .map((path) => relative(dest, path).split("\\").join("/"))
    .filter((path) => !known.has(path));
  if (foreign.length > 0) {
    throw new DataDirError(
      `${dest} already holds files that are not benchmark data (${foreign.slice(0, 3).join(", ")}${foreign.length > 3 ? ", …" : ""}); the pull replaces its --dest folder as a whole, so choose an empty or new folder`,
    );
  }
}

/** What {@link verifyData} found: per manifest file, nothing (fine), missing, or a checksum mismatch. */
export interface VerifyResult {
  dir: string;
  exists: boolean;
  checked: number;
  missing: string[];
  mismatched: string[];
}

/** Checks a data folder against the pinned sha256 list (`tau data verify`). */
export function verifyData(dir: string, manifest: readonly ManifestEntry[] = DATA_MANIFEST): VerifyResult {
  const result: VerifyResult = { dir, exists: existsSync(dir), checked: 0, missing: [], mismatched: [] };
  if (!result.exists) return result;
  for (const file of manifest) {
    const path = join(dir, file.path);
    if (!existsSync(path)) {
      result.missing.push(file.path);
      continue;
    }
    result.checked++;
    const sha = createHash("sha256").update(readFileSync(path)).digest("hex");
    if (sha !== file.sha256) result.mismatched.push(file.path);
  }
  return result;
}
