/**
 * `tau data pull --tau1`: downloads upstream's repository archive at the
 * pinned commit, copies the data files, converts the Python task lists, rules
 * and tool descriptions to JSON (./convert.ts), checks every resulting file
 * against the committed sha256 list and only then installs the folder.
 */
import { DataDirError } from "../../core/errors.ts";
import {
  assertReplaceable,
  checksumProblems,
  fetchArchive,
  installFolder,
  type PullResult,
  unpackArchive,
} from "../data-pull.ts";
import {
  ConversionError,
  convertRules,
  convertTasks,
  convertToolsInfo,
  extractTau1Text,
  type TAU1_TEXT_SOURCES,
} from "./convert.ts";
import { DEFAULT_TAU1_URL, TAU1_MANIFEST, type Tau1ManifestEntry } from "./manifest.ts";

/** Options of {@link pullTau1Data}. */
export interface Tau1PullOptions {
  dest: string;
  /** An http(s) URL or a local `.tar.gz` of upstream's repository (default: the pinned commit's archive). */
  url?: string;
  manifest?: readonly Tau1ManifestEntry[];
  signal?: AbortSignal;
}

/**
 * Builds the data folder's files from an archive's files (paths below its
 * top-level folder). Missing sources and conversion failures are reported
 * per file; the checksums are checked by the caller.
 */
export function buildTau1Files(
  archive: ReadonlyMap<string, Buffer>,
  manifest: readonly Tau1ManifestEntry[] = TAU1_MANIFEST,
): { files: Map<string, Buffer>; problems: string[] } {
  const files = new Map<string, Buffer>();
  const problems: string[] = [];
  const text = (path: string) => {
    const data = archive.get(path);
    if (!data) throw new ConversionError(path, "missing from the archive");
    return data.toString("utf8");
  };
  for (const entry of manifest) {
    try {
      switch (entry.kind) {
        case "copy": {
          const data = archive.get(entry.from);
          if (!data) throw new ConversionError(entry.from, "missing from the archive");
          files.set(entry.path, data);
          break;
        }
        case "tasks":
          files.set(
            entry.path,
            Buffer.from(convertTasks(entry.from, text(entry.from), entry.variable ?? ""), "utf8"),
          );
          break;
        case "rules":
          files.set(entry.path, Buffer.from(convertRules(entry.from, text(entry.from)), "utf8"));
          break;
        case "text":
          files.set(
            entry.path,
            Buffer.from(
              extractTau1Text(entry.variable as keyof typeof TAU1_TEXT_SOURCES, entry.from, text(entry.from)),
              "utf8",
            ),
          );
          break;
        case "tools":
          files.set(
            entry.path,
            Buffer.from(
              convertToolsInfo(entry.from, (name) => text(`${entry.from}/${name}`)),
              "utf8",
            ),
          );
          break;
        default: {
          const never: never = entry.kind;
          throw new Error(`unknown file kind ${String(never)}`);
        }
      }
    } catch (error) {
      if (!(error instanceof ConversionError)) throw error;
      problems.push(`${entry.path}: ${error.message}`);
    }
  }
  return { files, problems };
}

/** Downloads, converts and verifies the original τ-bench data; writes nothing unless every file matches. */
export async function pullTau1Data(options: Tau1PullOptions): Promise<PullResult> {
  const manifest = options.manifest ?? TAU1_MANIFEST;
  assertReplaceable(options.dest, manifest);
  const url = options.url ?? DEFAULT_TAU1_URL;
  const archive = unpackArchive(await fetchArchive(url, options.signal), url);
  const built = buildTau1Files(archive, manifest);
  const problems = [
    ...built.problems,
    ...checksumProblems(
      manifest.filter((entry) => built.files.has(entry.path)),
      built.files,
    ),
  ];
  if (problems.length > 0) {
    throw new DataDirError(
      `The archive at ${url} does not give the pinned τ-bench data (${problems.length} problem${problems.length === 1 ? "" : "s"}): ${problems.join("; ")}. Nothing was written.`,
    );
  }
  const files = manifest.map((entry) => ({ path: entry.path, data: built.files.get(entry.path)! }));
  return { dest: options.dest, files: files.length, bytes: installFolder(options.dest, files) };
}
