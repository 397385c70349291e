/**
 * Agents and users from a module file: `tau run --agent ./my-agent.ts` (also
 * `.mts`, `.js`, `.mjs`, `.cjs`; any value that looks like a path). The
 * module's default export must be a definition (`defineAgent(...)` or a plain
 * object with the same fields); it is checked like one. JavaScript modules are
 * imported by Node itself; TypeScript modules through tsx's `tsImport`, which
 * is loaded only then (so a run without a `.ts` module never loads tsx).
 * Everything that can go wrong is one line naming the file.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { extname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { defineAgent } from "../agents/define.ts";
import type { AgentDefinition } from "../agents/registry.ts";
import { DefinitionError } from "../core/definition.ts";
import { UsageError } from "../core/errors.ts";
import { defineUser } from "../users/define.ts";
import type { UserDefinition } from "../users/registry.ts";

const MODULE_EXTENSIONS = [".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"];
const TYPESCRIPT_EXTENSIONS = new Set([".ts", ".mts", ".cts"]);

/** Whether an `--agent` / `--user` value names a module file rather than a registered name. */
export function isModulePath(spec: string): boolean {
  return /[\\/]/.test(spec) || spec.startsWith(".") || MODULE_EXTENSIONS.includes(extname(spec));
}

/** Where a definition loaded from a file came from: its absolute path and the sha256 of its bytes. */
export interface ModuleSource {
  kind: "module";
  path: string;
  sha256: string;
}

/**
 * A module's error as one line: its first line, and the next one when the first only announces it
 * (esbuild's "Transform failed with 1 error:"). The stack stays on `cause`, shown with --verbose.
 */
function oneLine(error: unknown): string {
  const named = error instanceof Error && error.name !== "Error" ? `${error.name}: ` : "";
  const text = error instanceof Error ? error.message : String(error);
  const lines = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const [first = "", second] = lines;
  return named + (first.endsWith(":") && second ? `${first} ${second}` : first);
}

async function importModule(path: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(path).href;
  if (!TYPESCRIPT_EXTENSIONS.has(extname(path))) return (await import(url)) as Record<string, unknown>;
  // Only a TypeScript module pays for the TypeScript loader.
  const { tsImport } = await import("tsx/esm/api");
  return (await tsImport(url, import.meta.url)) as Record<string, unknown>;
}

/** The definition a module default-exports; `(ES module) default` or a CommonJS `module.exports`. */
function defaultExport(module: Record<string, unknown>): unknown {
  const value = module.default;
  // A CommonJS module imported from ESM: tsx/Node put module.exports on `default`.
  if (value && typeof value === "object" && "default" in value && !("create" in value))
    return (value as Record<string, unknown>).default;
  return value;
}

async function loadDefinition<D>(
  kind: "agent" | "user",
  spec: string,
  cwd: string,
  check: (value: never) => D,
): Promise<{ definition: D; source: ModuleSource }> {
  const path = resolve(cwd, spec);
  const flag = `--${kind}`;
  if (!existsSync(path)) throw new UsageError(`${flag} ${spec}: no such file (${path})`);
  if (!statSync(path).isFile()) throw new UsageError(`${flag} ${spec}: not a file (${path})`);
  if (!MODULE_EXTENSIONS.includes(extname(path)))
    throw new UsageError(
      `${flag} ${spec}: not a module (the file must end in ${MODULE_EXTENSIONS.join(", ")})`,
    );
  const sha256 = createHash("sha256").update(readFileSync(path)).digest("hex");
  let module: Record<string, unknown>;
  // A top-level await that waits on nothing (a promise nobody settles) leaves Node with an empty
  // event loop: it exits with code 13 and no word. Say which module it was.
  const stalled = () => {
    // Node 20 passes 0 to the listener and has set exitCode to 13 ("unsettled top-level await").
    if (process.exitCode !== 13) return;
    process.stderr.write(
      `tau: ${path}: the ${kind} module never finished loading (its top-level await waits on a promise that nothing settles)\n`,
    );
    process.exitCode = 2;
  };
  process.once("exit", stalled);
  try {
    module = await importModule(path);
  } catch (error) {
    // tsx compiles a `.ts` file outside an ES-module package to CommonJS, where top-level await cannot be.
    const hint = /top-level await is currently not supported with the "cjs" output format/i.test(
      String(error),
    )
      ? ' (name it .mts, or put "type": "module" in its package.json)'
      : "";
    throw new UsageError(`${path}: the ${kind} module failed to load: ${oneLine(error)}${hint}`, {
      cause: error,
    });
  } finally {
    process.off("exit", stalled);
  }
  const value = defaultExport(module);
  if (value === undefined)
    throw new UsageError(
      `${path}: no default export; export default define${kind === "agent" ? "Agent" : "User"}({ name, create, … })`,
    );
  try {
    return { definition: check(value as never), source: { kind: "module", path, sha256 } };
  } catch (error) {
    if (error instanceof DefinitionError)
      throw new UsageError(`${path}: the default export is not a valid ${kind} definition: ${error.detail}`, {
        cause: error,
      });
    throw error;
  }
}

/** Loads an agent definition from a module file (see the module comment). */
export function loadAgentModule(
  spec: string,
  cwd: string,
): Promise<{ definition: AgentDefinition; source: ModuleSource }> {
  return loadDefinition("agent", spec, cwd, (value: AgentDefinition) => defineAgent(value));
}

/** Loads a user definition from a module file. */
export function loadUserModule(
  spec: string,
  cwd: string,
): Promise<{ definition: UserDefinition; source: ModuleSource }> {
  return loadDefinition("user", spec, cwd, (value: UserDefinition) => defineUser(value));
}
