/**
 * Where a run's files go: `--save-to NAME` → `./runs/NAME/results.json`, or a
 * path ending in `.json`; the checkpoint sits beside it (`results.jsonl`).
 * Never inside the data folder (it is read-only reference data).
 */
import { isAbsolute, relative, resolve } from "node:path";
import { UsageError } from "../core/errors.ts";

/**
 * Upstream's default run name, `<YYYYMMDD_HHMMSS>_<domain>_<agent>_<agent model>_<user>_<user model>`,
 * except that a participant without a model (null: replay, scripted, dummy) contributes no model part.
 */
export function defaultRunName(
  parts: { domain: string; agent: string; agentLlm: string | null; user: string; userLlm: string | null },
  now = new Date(),
): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  const stamp = `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}_${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`;
  const participant = (name: string, model: string | null) =>
    model ? [name, model.split("/").at(-1)!] : [name];
  return [
    stamp,
    parts.domain,
    ...participant(parts.agent, parts.agentLlm),
    ...participant(parts.user, parts.userLlm),
  ].join("_");
}

/** Resolves `--save-to` to the results path; a bare name lands under `<cwd>/runs/`. */
export function resolveResultsPath(saveTo: string, options: { cwd?: string; dataDir?: string } = {}): string {
  const cwd = options.cwd ?? process.cwd();
  if (saveTo.trim() === "") throw new UsageError("--save-to must not be empty");
  let path: string;
  if (saveTo.endsWith(".json")) path = resolve(cwd, saveTo);
  else if (saveTo.endsWith(".jsonl")) path = resolve(cwd, saveTo.slice(0, -1));
  else if (/[\\/]/.test(saveTo) || saveTo === "." || saveTo === "..")
    throw new UsageError(
      `--save-to takes a run name (saved under ./runs/NAME/) or a path ending in .json, got '${saveTo}'`,
    );
  else path = resolve(cwd, "runs", saveTo, "results.json");
  if (options.dataDir) {
    const inside = relative(resolve(options.dataDir), path);
    if (inside === "" || (!inside.startsWith("..") && !isAbsolute(inside)))
      throw new UsageError(
        `Refusing to save results inside the data folder (${options.dataDir}); pick another --save-to`,
      );
  }
  return path;
}
