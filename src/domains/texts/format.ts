/**
 * The texts file: upstream's model-facing texts as extracted from a release's
 * Python sources, kept in the data folder (`taubench/<source>-texts.json`).
 * Versioned; every entry carries its sha256, and the file names the sha256 of
 * each source file it was extracted from.
 */
import { createHash } from "node:crypto";
import { z } from "zod";

/** The `format` marker of a texts file. */
export const TEXTS_FORMAT = "taubench-upstream-texts";
/** Version of the texts file layout (bump on any change to its shape or to what a rule extracts). */
export const TEXTS_FORMAT_VERSION = 1;

/** One parameter of a tool as upstream's signature and docstring give it. */
export const ToolParamTexts = z.object({
  name: z.string(),
  /** Source text of the annotation (null when unannotated). */
  annotation: z.string().nullable(),
  /** Source text of the default (null when required). */
  default: z.string().nullable(),
  /** The Args-section description, or null when the docstring does not name the parameter. */
  description: z.string().nullable(),
});
export type ToolParamTexts = z.infer<typeof ToolParamTexts>;

/** A tool's texts: the composed description and its parameters in signature order. */
export const ToolTexts = z.object({
  name: z.string(),
  description: z.string(),
  params: z.array(ToolParamTexts),
});
export type ToolTexts = z.infer<typeof ToolTexts>;

/** One extracted entry. */
export const TextsEntry = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("text"), text: z.string() }),
  /** A Python `str.format` template whose only fields are the named ones. */
  z.object({ kind: z.literal("template"), text: z.string(), fields: z.array(z.string()) }),
  z.object({ kind: z.literal("tool"), tool: ToolTexts }),
  z.object({
    kind: z.literal("toolkit"),
    domain: z.string(),
    class: z.string(),
    tools: z.array(ToolTexts),
    /** Discoverable tools (never in `tools` lists): their cleaned docstrings. */
    discoverable: z.array(z.object({ name: z.string(), doc: z.string() })),
  }),
  z.object({
    kind: z.literal("model"),
    domain: z.string(),
    class: z.string(),
    /** `inspect.cleandoc` of the class docstring (pydantic's schema description), or null. */
    description: z.string().nullable(),
    fields: z.array(z.object({ name: z.string(), description: z.string().nullable() })),
  }),
]);
export type TextsEntry = z.infer<typeof TextsEntry>;

/** A whole texts file. */
export const TextsFile = z.object({
  format: z.literal(TEXTS_FORMAT),
  version: z.number().int(),
  source: z.object({
    name: z.string(),
    release: z.string(),
    /** sha256 of every source file read, by path. */
    files: z.record(z.string(), z.string()),
  }),
  entries: z.record(z.string(), TextsEntry),
  /** sha256 of each entry's canonical JSON, by key. */
  sha256: z.record(z.string(), z.string()),
});
export type TextsFile = z.infer<typeof TextsFile>;

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
  );
}

/** sha256 of an entry's JSON with keys sorted (independent of the order a reader builds objects in). */
export function entrySha256(entry: TextsEntry): string {
  return createHash("sha256")
    .update(JSON.stringify(canonical(entry)))
    .digest("hex");
}

/** The bytes of a texts file (deterministic: the same extraction gives the same sha256). */
export function serializeTexts(file: TextsFile): string {
  return `${JSON.stringify(canonical(file), null, 1)}\n`;
}
