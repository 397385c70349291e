/**
 * Upstream's texts in the data folder: where the texts file lives, writing it,
 * loading and checking it, and looking texts up — by key, or a tool's texts by
 * domain and tool name. Without the file taubench uses its own wording; with
 * it, the file must be the one the pinned release gives (its sha256 is known),
 * so a run that says "upstream" used exactly upstream's texts.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { DataDirError, FileFormatError, formatIssuePath, TauError } from "../../core/errors.ts";
import { extractTexts, type TextSource } from "./extract.ts";
import {
  entrySha256,
  serializeTexts,
  TEXTS_FORMAT_VERSION,
  TextsFile,
  type TextsEntry,
  type ToolTexts,
} from "./format.ts";
import { TAU2_TEXT_SOURCE } from "./tau2.ts";
import { makeFolder } from "../../core/make-folder.ts";

/** Where a source's texts file lives inside a data folder. */
export function textsPath(dataDir: string, source: TextSource = TAU2_TEXT_SOURCE): string {
  return join(dataDir, "taubench", `${source.name}-texts.json`);
}

/** The texts file's path relative to the data folder (what a pull writes next to the data files). */
export function textsRelativePath(source: TextSource = TAU2_TEXT_SOURCE): string {
  return `taubench/${source.name}-texts.json`;
}

/** A text asked for is not in the texts file (or has another kind). */
export class MissingTextError extends TauError {}

/** A template with named fields (Python `str.format` syntax, only `{name}`, `{{` and `}}`). */
export interface Template {
  readonly text: string;
  readonly fields: readonly string[];
}

/** Fills a template's fields; every field must be given, and nothing else may be. */
export function formatTemplate(template: Template, values: Readonly<Record<string, string>>): string {
  for (const name of Object.keys(values)) {
    if (!template.fields.includes(name)) throw new MissingTextError(`the template has no field {${name}}`);
  }
  return template.text.replace(/\{\{|\}\}|\{([A-Za-z_]\w*)\}/g, (match, name: string | undefined) => {
    if (name === undefined) return match[0]!;
    const value = values[name];
    if (value === undefined) throw new MissingTextError(`no value for the template field {${name}}`);
    return value;
  });
}

/** A model class's texts: its description and its fields' descriptions. */
export interface ModelTexts {
  readonly description: string | null;
  readonly fields: ReadonlyMap<string, string | null>;
}

/** A loaded texts file. */
export class UpstreamTexts {
  /** sha256 of the file's bytes (what results record). */
  readonly sha256: string;
  private readonly entries: Readonly<Record<string, TextsEntry>>;
  private readonly toolsByDomain = new Map<string, Map<string, ToolTexts>>();

  constructor(
    readonly path: string,
    readonly file: TextsFile,
    sha256: string,
  ) {
    this.sha256 = sha256;
    this.entries = file.entries;
    for (const entry of Object.values(file.entries)) {
      if (entry.kind !== "toolkit") continue;
      let tools = this.toolsByDomain.get(entry.domain);
      if (!tools) {
        tools = new Map();
        this.toolsByDomain.set(entry.domain, tools);
      }
      for (const tool of entry.tools) tools.set(tool.name, tool);
    }
  }

  /** Which release the texts are from, e.g. `tau2-bench v1.0.1`. */
  get release(): string {
    return `${this.file.source.name} ${this.file.source.release}`;
  }

  private entry<K extends TextsEntry["kind"]>(key: string, kind: K): Extract<TextsEntry, { kind: K }> {
    const entry = this.entries[key];
    if (!entry) throw new MissingTextError(`${this.path} has no text '${key}'`);
    if (entry.kind !== kind)
      throw new MissingTextError(`${this.path}: '${key}' is a ${entry.kind}, not a ${kind}`);
    return entry as Extract<TextsEntry, { kind: K }>;
  }

  /** A plain text by key. */
  text(key: string): string {
    return this.entry(key, "text").text;
  }

  /** A template by key. */
  template(key: string): Template {
    const entry = this.entry(key, "template");
    return { text: entry.text, fields: entry.fields };
  }

  /** A template by key, filled in. */
  format(key: string, values: Readonly<Record<string, string>>): string {
    return formatTemplate(this.template(key), values);
  }

  /** A single function's tool texts (e.g. the solo agent's `done`). */
  toolEntry(key: string): ToolTexts {
    return this.entry(key, "tool").tool;
  }

  /**
   * A tool's texts by domain (upstream's domain folder: `mock`, `airline`, `retail`, `telecom`,
   * `banking_knowledge`) and tool name, agent and user toolkits alike; undefined when unknown.
   */
  tool(domain: string, name: string): ToolTexts | undefined {
    return this.toolsByDomain.get(domain)?.get(name);
  }

  /** Every tool of a domain, by name. */
  tools(domain: string): ReadonlyMap<string, ToolTexts> {
    return this.toolsByDomain.get(domain) ?? new Map();
  }

  /** A pydantic model's texts (the `$defs` entries of tool schemas), by domain and class name. */
  model(domain: string, className: string): ModelTexts | undefined {
    const entry = this.entries[`model.${domain}.${className}`];
    if (entry?.kind !== "model") return undefined;
    return {
      description: entry.description,
      fields: new Map(entry.fields.map((field) => [field.name, field.description])),
    };
  }

  /** A discoverable tool's cleaned docstring (`inspect.getdoc`), by domain and name. */
  discoverableTool(domain: string, name: string): string | undefined {
    for (const entry of Object.values(this.entries)) {
      if (entry.kind !== "toolkit" || entry.domain !== domain) continue;
      const found = entry.discoverable.find((tool) => tool.name === name);
      if (found) return found.doc;
    }
    return undefined;
  }

  /** The discoverable tools of one toolkit class, in source order (name and cleaned docstring). */
  discoverableTools(domain: string, className: string): readonly { name: string; doc: string }[] {
    const entry = this.entries[`toolkit.${domain}.${className}`];
    return entry?.kind === "toolkit" ? entry.discoverable : [];
  }
}

const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest("hex");

/** How to get the exact texts, for error messages and the run's note. */
export const TEXTS_HOW_TO = "run `tau data pull`, or `tau data extract-texts --from <tau2-bench checkout>`";

/** Parses and checks a texts file's bytes (format, version, each entry's sha256, the source's pin). */
export function parseTextsFile(
  path: string,
  data: Buffer,
  source: TextSource = TAU2_TEXT_SOURCE,
): UpstreamTexts {
  let raw: unknown;
  try {
    raw = JSON.parse(data.toString("utf8"));
  } catch (error) {
    throw new FileFormatError(path, `not JSON (${(error as Error).message}); ${TEXTS_HOW_TO} again`, {
      cause: error,
    });
  }
  const version = (raw as { version?: unknown } | null)?.version;
  if (typeof version === "number" && version !== TEXTS_FORMAT_VERSION)
    throw new FileFormatError(
      path,
      `texts format version ${version}, this taubench reads version ${TEXTS_FORMAT_VERSION}; ${TEXTS_HOW_TO} again`,
    );
  const parsed = TextsFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new FileFormatError(
      path,
      `${formatIssuePath(issue.path)}: ${issue.message}; ${TEXTS_HOW_TO} again`,
    );
  }
  const file = parsed.data;
  for (const [key, entry] of Object.entries(file.entries)) {
    if (file.sha256[key] !== entrySha256(entry))
      throw new FileFormatError(
        path,
        `the text '${key}' does not match its sha256 (was the file edited?); ${TEXTS_HOW_TO} again`,
      );
  }
  const digest = sha256(data);
  if (source.textsSha256 !== null && digest !== source.textsSha256)
    throw new FileFormatError(
      path,
      `not the texts of ${source.name} ${source.release} this taubench expects (sha256 ${digest.slice(0, 12)}…, expected ${source.textsSha256.slice(0, 12)}…); ${TEXTS_HOW_TO} again`,
    );
  return new UpstreamTexts(path, file, digest);
}

const cache = new Map<string, { stamp: string; texts: UpstreamTexts }>();

/**
 * The upstream texts of a data folder, or null when it has none (then taubench
 * uses its own wording). A file that is there but broken is an error, never
 * silently ignored.
 */
export function loadUpstreamTexts(
  dataDir: string,
  source: TextSource = TAU2_TEXT_SOURCE,
): UpstreamTexts | null {
  const path = textsPath(dataDir, source);
  if (!existsSync(path)) return null;
  const stat = statSync(path);
  const stamp = `${stat.size}:${stat.mtimeMs}`;
  const cached = cache.get(path);
  if (cached?.stamp === stamp) return cached.texts;
  const texts = parseTextsFile(path, readFileSync(path), source);
  cache.set(path, { stamp, texts });
  return texts;
}

/** Writes a texts file into a data folder (atomically: a reader never sees half a file). */
export function writeTextsFile(
  dataDir: string,
  file: TextsFile,
  source: TextSource = TAU2_TEXT_SOURCE,
): string {
  const path = textsPath(dataDir, source);
  try {
    makeFolder(dirname(path));
    const partial = `${path}.partial-${process.pid}`;
    writeFileSync(partial, serializeTexts(file));
    renameSync(partial, path);
  } catch (error) {
    throw new DataDirError(`Cannot write ${path}: ${(error as Error).message}`, { cause: error });
  }
  return path;
}

/** What an extraction wrote. */
export interface ExtractedTexts {
  path: string;
  entries: number;
  sha256: string;
}

/**
 * Extracts a source's texts from an upstream checkout (the folder holding
 * `src/tau2/`) into a data folder: for users whose data folder is upstream's
 * own `data/tau2` rather than a `tau data pull`.
 */
export function extractTextsFromCheckout(
  checkoutDir: string,
  dataDir: string,
  source: TextSource = TAU2_TEXT_SOURCE,
): ExtractedTexts {
  if (!existsSync(checkoutDir) || !statSync(checkoutDir).isDirectory())
    throw new DataDirError(`${checkoutDir} is not a folder (expected a ${source.name} checkout)`);
  const first = source.files[0];
  if (first && !existsSync(join(checkoutDir, first.path)))
    throw new DataDirError(
      `${checkoutDir} is not a ${source.name} checkout: it has no ${first.path} (pass the folder that holds src/)`,
    );
  const file = extractTexts(
    source,
    (path) => (existsSync(join(checkoutDir, path)) ? readFileSync(join(checkoutDir, path)) : undefined),
    checkoutDir,
  );
  const bytes = serializeTexts(file);
  const digest = sha256(bytes);
  if (source.textsSha256 !== null && digest !== source.textsSha256)
    throw new DataDirError(
      `The texts extracted from ${checkoutDir} are not the pinned ones (sha256 ${digest.slice(0, 12)}…, expected ${source.textsSha256.slice(0, 12)}…); nothing was written`,
    );
  const path = writeTextsFile(dataDir, file, source);
  return { path, entries: Object.keys(file.entries).length, sha256: digest };
}
