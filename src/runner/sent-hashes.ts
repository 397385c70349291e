/**
 * What the participants of a run are sent, as hashes a resume can compare:
 * the data files (the domain's folder and the user-simulator guidelines, each
 * file, or a whole sub-folder such as banking's documents, as one sha256) next
 * to the prompt hashes `info.taubench` already records. A resume whose data,
 * policy, agent instructions or task definitions changed is refused with one
 * line per difference, unless `allowChanged` (`--allow-changed`) continues it
 * on purpose — then the differences are recorded in `info.taubench.allowed_changes`.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { pyDumps } from "../core/py-json.ts";
import type { Task } from "../core/task.ts";

/** `info.taubench.allowed_changes[]`: a resume that continued on purpose although what is sent changed. */
export interface AllowedChange {
  at: string;
  differences: string[];
}

/** sha256 of a file, or of a folder's files (relative paths and contents, in name order). */
function entryHash(path: string): string {
  const hash = createHash("sha256");
  const add = (current: string) => {
    if (statSync(current).isDirectory()) {
      for (const name of readdirSync(current).sort()) add(join(current, name));
    } else {
      hash.update(`${relative(path, current).split(sep).join("/")}\u0000`);
      hash.update(readFileSync(current));
      hash.update("\u0000");
    }
  };
  add(path);
  return hash.digest("hex");
}

/**
 * `{ "domains/mock/db.json": sha256, "domains/banking_knowledge/documents/": sha256, "user_simulator/…": … }`:
 * every entry of the domain's folder and of the user-simulator folder, keyed by its path in the data folder.
 */
export function dataFileHashes(dataDir: string, domainFolder: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const folder of [domainFolder, join(dataDir, "user_simulator")]) {
    if (folder === undefined || !existsSync(folder)) continue;
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      const key = relative(dataDir, path).split(sep).join("/");
      out[statSync(path).isDirectory() ? `${key}/` : key] = entryHash(path);
    }
  }
  return out;
}

/** What `info.taubench` says was sent. */
export interface SentStamp {
  prompt_hashes?: Record<string, string | null>;
  data_hashes?: Record<string, string>;
  allowed_changes?: AllowedChange[];
  /** The agent's adapter and where it lives (`--agent-url`, `--agent-a2a`), without credentials. */
  agent?: { adapter?: string; endpoint?: string };
}

const PROMPT_LABELS: Record<string, string> = {
  policy: "the policy",
  agent_instructions: "the agent's instructions",
};

const short = (hash: string | null | undefined) => (hash ? hash.slice(0, 12) : "none");

/**
 * One line per thing the participants are sent that differs between the run a checkpoint started
 * and this invocation: the policy, the agent's instructions, each data file, each task definition,
 * and the URL of an agent behind one.
 * A stamp without `data_hashes` (an older checkpoint) is compared on what it has.
 */
export function sentDifferences(
  stored: SentStamp | undefined,
  current: SentStamp | undefined,
  storedTasks: ReadonlyMap<string, Task>,
  tasks: readonly Task[],
): string[] {
  const out: string[] = [];
  const before = stored?.prompt_hashes ?? {};
  const now = current?.prompt_hashes ?? {};
  // The guideline files are compared one by one among the data files (which ones a run sends depends on its tasks).
  for (const [key, label] of Object.entries(PROMPT_LABELS))
    if (key in before && key in now && before[key] !== now[key])
      out.push(`${label} changed (sha256 ${short(before[key])}… → ${short(now[key])}…)`);
  if (stored?.data_hashes && current?.data_hashes) {
    const a = stored.data_hashes;
    const b = current.data_hashes;
    for (const path of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      if (a[path] === b[path]) continue;
      if (a[path] === undefined) out.push(`data file ${path} is new`);
      else if (b[path] === undefined) out.push(`data file ${path} is gone`);
      else out.push(`data file ${path} changed (sha256 ${short(a[path])}… → ${short(b[path])}…)`);
    }
  }
  const [urlBefore, urlNow] = [serviceUrl(stored), serviceUrl(current)];
  // Another URL may be the same service moved (another port) or another agent: the user says which.
  if (urlBefore !== null && urlNow !== null && urlBefore !== urlNow)
    out.push(`the agent's URL changed (${urlBefore} → ${urlNow})`);
  for (const task of tasks) {
    const before = storedTasks.get(task.id);
    if (before && taskText(before) !== taskText(task)) out.push(`task '${task.id}' changed`);
  }
  return out;
}

/** The URL of an agent service (`--agent-url`, `--agent-a2a`); null for other agents (`tau mcp`'s endpoint is where it served, not who). */
function serviceUrl(stamp: SentStamp | undefined): string | null {
  const agent = stamp?.agent;
  if (agent?.endpoint === undefined) return null;
  return agent.adapter === "chat-completions" || agent.adapter === "a2a" ? agent.endpoint : null;
}

/** A task as compared across a resume. */
export const taskText = (task: Task) => pyDumps(task, { sortKeys: true });
