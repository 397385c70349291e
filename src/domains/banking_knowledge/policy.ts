/**
 * The agent's policy per retrieval configuration (spec §8.2): the data
 * folder's prompt template with its `{{component:NAME}}` parts filled in,
 * plus the whole knowledge base (`full_kb`), the task's required documents
 * (`golden_retrieval`) or the dense-search sentence (AllTools).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { FileFormatError } from "../../core/errors.ts";
import type { Task } from "../../core/task.ts";
import { readText } from "../files.ts";
import type { KbDocument, KnowledgeBase } from "./knowledge-base.ts";
import type { RetrievalVariant } from "./retrieval/variants.ts";
import type { BankingTexts } from "./texts.ts";

const COMPONENT = /\{\{component:(\w+)\}\}/g;

const templates = new Map<string, string>();

/** A template of `prompts/` with its components substituted (one pass, no recursion); read once per process. */
export function loadTemplate(promptsDir: string, file: string): string {
  const path = join(promptsDir, file);
  let text = templates.get(path);
  if (text === undefined) {
    if (!existsSync(path)) throw new FileFormatError(path, "prompt template not found");
    text = readText(path).replace(COMPONENT, (_all, name: string) => {
      const component = join(promptsDir, "components", `${name}.md`);
      if (!existsSync(component)) throw new FileFormatError(component, "prompt component not found");
      return readText(component);
    });
    templates.set(path, text);
  }
  return text;
}

const block = (doc: KbDocument) => `## ${doc.title}\n\n${doc.content}`;
const SEPARATOR = "\n\n---\n\n";

/** The documents a task requires, looked up by title (the last of equal titles) and then by id. */
export function requiredDocuments(kb: KnowledgeBase, task: Task | null | undefined): KbDocument[] {
  const byTitle = new Map(kb.documents.map((doc) => [doc.title, doc]));
  const out: KbDocument[] = [];
  for (const reference of task?.required_documents ?? []) {
    const doc = byTitle.get(reference) ?? kb.byId.get(reference);
    if (doc) out.push(doc);
  }
  return out;
}

/** The policy of a configuration (for `golden_retrieval`, of a task). */
export function composePolicy(options: {
  promptsDir: string;
  variant: RetrievalVariant;
  kb: () => KnowledgeBase;
  texts: BankingTexts;
  task?: Task | null | undefined;
}): string {
  const { variant, texts } = options;
  let policy = loadTemplate(options.promptsDir, variant.template);
  if (variant.prompt === "full_kb" && policy.includes("{{full_knowledge_base}}")) {
    const all = options.kb().documents.map(block).join(SEPARATOR);
    policy = policy.replace(/\{\{full_knowledge_base\}\}/g, () => all);
  }
  if (variant.prompt === "golden") {
    const docs = requiredDocuments(options.kb(), options.task);
    const text = docs.length > 0 ? docs.map(block).join(SEPARATOR) : texts.noDocuments;
    policy = policy.replaceAll("{{required_documents}}", text);
  }
  const dense = variant.kbSearchDense;
  if (variant.kbSearchBm25 && dense?.embedder && dense.model)
    policy = policy.replaceAll(
      "{{all_tools_dense_instructions}}",
      texts.denseSearchSentence(dense.embedder, dense.model),
    );
  if (policy.trim() === "")
    throw new FileFormatError(
      join(options.promptsDir, variant.template),
      `Policy is empty for retrieval variant '${variant.name}'`,
    );
  return policy;
}
