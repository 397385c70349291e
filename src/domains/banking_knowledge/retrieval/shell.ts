/**
 * The `shell` tool's sandbox (spec §8.7): the knowledge base exported as
 * Markdown files into a temporary folder, commands run there through
 * Anthropic's sandbox runtime (`srt`, from `@anthropic-ai/sandbox-runtime`,
 * on bubblewrap and socat under Linux) with writes denied (or allowed inside
 * the folder only), no network, and a few sensitive paths hidden. Escape
 * patterns are refused before anything runs and the output is stripped of
 * the host's user names and dates, as upstream's `SandboxManager` does.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { accessSync, constants, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir, userInfo } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { pyDumps, pyTypeName } from "../../../core/py-json.ts";
import { PyTypeError } from "../../../env/toolkit.ts";
import type { KbDocument } from "../knowledge-base.ts";

/** Raised when the sandbox cannot be used on this machine (missing binaries, unsupported system). */
export class SandboxUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SandboxRuntimeError";
  }
}

const TIMEOUT_MS = 30_000;

/** The sandbox runtime's command-line entry point inside our dependencies. */
function srtEntry(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("@anthropic-ai/sandbox-runtime/package.json")), "dist", "cli.js");
}

function onPath(binary: string): boolean {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    try {
      accessSync(join(dir, binary), constants.X_OK);
      return true;
    } catch {
      // not in this folder
    }
  }
  return false;
}

let verified = false;

/**
 * Checks once per process that the sandbox can run: the runtime package and, on Linux, `rg`,
 * `bwrap` and `socat` (on macOS `rg`); throws {@link SandboxUnavailableError} naming what to install.
 */
export function checkSandbox(): void {
  if (verified) return;
  if (process.platform !== "linux" && process.platform !== "darwin")
    throw new SandboxUnavailableError(
      `The shell tool's sandbox runs on Linux and macOS only, not on ${process.platform}`,
    );
  const missing: string[] = [];
  try {
    accessSync(srtEntry());
  } catch {
    missing.push("srt (npm package @anthropic-ai/sandbox-runtime)");
  }
  const binaries = process.platform === "linux" ? ["rg", "bwrap", "socat"] : ["rg"];
  for (const binary of binaries) if (!onPath(binary)) missing.push(binary);
  if (missing.length > 0) {
    const install =
      process.platform === "linux"
        ? "install them (Debian/Ubuntu: apt-get install ripgrep bubblewrap socat)"
        : "install them (brew install ripgrep)";
    throw new SandboxUnavailableError(
      `Cannot use the agentic-shell sandbox: required binaries are not installed: ${missing.join(", ")}; ${install}`,
    );
  }
  verified = true;
}

/** upstream `_sanitize_filename` (Python `isalnum` over code points). */
export function safeFileName(name: string): string {
  const replaced = name.replaceAll("/", "_").replaceAll("\\", "_").replaceAll("..", "_");
  let out = "";
  for (const ch of replaced) out += /[\p{L}\p{N}._-]/u.test(ch) ? ch : "_";
  return [...out].slice(0, 255).join("");
}

/** The files of the exported knowledge base: one Markdown file per document, plus `INDEX.md`. */
export function knowledgeBaseFiles(documents: readonly KbDocument[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const doc of documents) files.set(`${safeFileName(doc.id)}.md`, `# ${doc.title}\n\n${doc.content}`);
  const sorted = [...documents].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  let index = `# Knowledge Base Index\n\n**Total documents:** ${documents.length}\n\n## Documents\n\n`;
  for (const doc of sorted) index += `- **${safeFileName(doc.id)}.md** - ${doc.title}\n`;
  files.set("INDEX.md", index);
  return files;
}

/** The reason a command is refused before it runs, or null (`_has_escape_pattern`). */
export function escapePattern(command: string): string | null {
  const stripped = command.replace(/'[^']*'/g, '""').replace(/"[^"]*"/g, '""');
  if (stripped.includes("..")) return "..";
  if (/(?:^|[\s;|&])(\/[a-zA-Z])/.test(stripped)) {
    const full = /(?:^|[\s;|&])(\/[a-zA-Z][^\s;|&]*)/.exec(stripped);
    if (full) return `absolute path: ${full[1]}`;
  }
  if (stripped.trim().startsWith("/")) return "absolute path at start";
  if (stripped.includes("~")) return "~";
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell syntax, not a template
  if (stripped.includes("$HOME") || stripped.includes("${HOME}")) return "$HOME";
  return null;
}

const LS_LINE = /^([d\-lrwxst@]+\s+\d+\s+)(\S+)\s+(\S+)\s+(\d+)\s+([A-Za-z0-9_]{3}\s+\d+\s+[\d:]+)\s+(.*)$/gm;

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
}

/** upstream `_sanitize_output`: `ls -l` owner, group and date made generic, home folders renamed. */
export function sanitizeOutput(output: string, user: string | null): string {
  if (!output) return output;
  let result = output.replace(
    LS_LINE,
    (_all, permissions: string, _u, _g, size: string, _date, name: string) =>
      `${permissions}kb_user  kb_group  ${size} Jan  1 00:00 ${name}`,
  );
  if (user) {
    result = result.replace(
      new RegExp(`/(?:Users|home)/${escapeRegex(user)}(?=/|\\n?(?![\\s\\S]))`, "g"),
      "/home/kb_user",
    );
  }
  return result;
}

function currentUser(): string | null {
  const fromEnv = process.env.LOGNAME || process.env.USER || process.env.LNAME || process.env.USERNAME;
  if (fromEnv) return fromEnv;
  try {
    return userInfo().username;
  } catch {
    return null;
  }
}

const created = new Set<string>();
let exitHookInstalled = false;

function removeOnExit(dir: string): void {
  created.add(dir);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const path of created) rmSync(path, { recursive: true, force: true });
  });
}

/** A command's exit code and output streams. */
export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** One exported knowledge base and the settings `srt` enforces on it. */
export class Sandbox {
  readonly root: string;
  readonly kbDir: string;
  readonly settingsPath: string;

  constructor(
    documents: readonly KbDocument[],
    readonly allowWrites: boolean,
  ) {
    checkSandbox();
    this.root = join(tmpdir(), `agentic_search_${randomUUID().slice(0, 8)}`);
    this.kbDir = join(this.root, "knowledge_base");
    this.settingsPath = join(this.root, "srt-settings.json");
    mkdirSync(this.kbDir, { recursive: true });
    removeOnExit(this.root);
    const settings = {
      network: { allowedDomains: [], deniedDomains: [] },
      filesystem: {
        denyRead: ["~/.ssh", "~/.aws", "~/.config", "~/.gnupg", "/etc/passwd", "/etc/shadow"],
        allowWrite: allowWrites ? [this.kbDir] : [],
        denyWrite: [this.settingsPath],
      },
    };
    writeFileSync(this.settingsPath, pyDumps(settings, { indent: 2 }));
    for (const [name, content] of knowledgeBaseFiles(documents))
      writeFileSync(join(this.kbDir, name), content);
  }

  /** upstream `run_command`: refuses escape patterns, else runs the command under `srt` for at most 30 s. */
  async run(command: unknown, signal?: AbortSignal): Promise<CommandResult> {
    if (typeof command !== "string")
      throw new PyTypeError(`expected string or bytes-like object, got '${pyTypeName(command)}'`);
    const pattern = escapePattern(command);
    if (pattern !== null)
      return {
        code: 1,
        stdout: "",
        stderr: `Error: Command blocked - contains '${pattern}' which could escape the sandbox`,
      };
    const raw = await runSrt(this.settingsPath, this.kbDir, command, signal);
    if (raw === "timeout") return { code: 124, stdout: "", stderr: "Command timed out after 30 seconds" };
    const user = currentUser();
    const stdout = sanitizeOutput(raw.stdout, user);
    const stderr = sanitizeOutput(raw.stderr, user);
    if (`${stdout}${stderr}`.toLowerCase().includes("sandbox dependencies are not available"))
      throw new SandboxUnavailableError(
        `The sandbox runtime reported missing system dependencies while running a command: ${`${stdout}${stderr}`.trim().slice(0, 400)}`,
      );
    return { code: raw.code, stdout, stderr };
  }

  /** Deletes the exported files. */
  dispose(): void {
    rmSync(this.root, { recursive: true, force: true });
    created.delete(this.root);
  }
}

function runSrt(
  settingsPath: string,
  cwd: string,
  command: string,
  signal?: AbortSignal,
): Promise<CommandResult | "timeout"> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [srtEntry(), "--settings", settingsPath, command], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    let timedOut = false;
    const kill = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, TIMEOUT_MS);
    const onAbort = () => kill();
    signal?.addEventListener("abort", onAbort, { once: true });
    child.on("error", (error) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      reject(new SandboxUnavailableError(`Cannot start the sandbox runtime: ${error.message}`));
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      if (signal?.aborted) return reject(signal.reason);
      if (timedOut) return resolve("timeout");
      resolve({
        code: code ?? 1,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      });
    });
  });
}

/** The `shell` tool's text for a command result (`ShellMixin.shell`). */
export function shellText(command: string, result: CommandResult): string {
  if (result.code !== 0) {
    if (result.code === 1 && command.includes("grep") && !result.stderr) return "No matches found.";
    if (result.stderr) return `Error (exit code ${result.code}): ${result.stderr}`;
    return `Command failed with exit code ${result.code}`;
  }
  return result.stdout ? result.stdout : "(no output)";
}
