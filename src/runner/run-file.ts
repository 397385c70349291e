/**
 * Opening a run for reading, whatever its form: our checkpoint
 * (`results.jsonl`), upstream's or our `results.json` (monolithic or dir
 * layout), a run folder, or a bare run name under `./runs/`.
 */
import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { DataDirError, UsageError } from "../core/errors.ts";
import type { Info } from "../core/results.ts";
import { readResultsFile } from "../core/results-file.ts";
import type { SimulationRun } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import type { Tau1ResultEntry } from "../core/tau1-results.ts";
import { loadDomain } from "../domains/registry.ts";
import { resolveTau1DataDir } from "../domains/tau1/data-dir.ts";
import { isTau1Domain, isTau1DomainName, type Tau1Domain } from "../domains/tau1/index.ts";
import { loadCheckpointState, readSimulationsAt } from "./checkpoint-state.ts";
import { checkpointInfo } from "./export.ts";
import { isTau1ResultsFile, readTau1ResultsFile } from "./tau1-results.ts";

/** A run as read from disk. */
export interface LoadedRun {
  /** The file that was read. */
  path: string;
  kind: "checkpoint" | "results";
  info: Info;
  tasks: Task[];
  /** The simulations that count (one per key); without transcripts when read from a checkpoint. */
  simulations: SimulationRun[];
  /** Full simulations by index into {@link simulations} (reads the checkpoint again when needed). */
  full(indices: readonly number[]): Promise<SimulationRun[]>;
  /** For a τ-bench results file: its entries as read (index = simulation index), to write them back. */
  tau1Entries?: Tau1ResultEntry[];
}

/** How to read a τ-bench results file, which does not name its environment. */
export interface LoadRunOptions {
  /** `tau1-retail` or `tau1-airline` (required for a τ-bench results file). */
  domain?: string | undefined;
  /** The τ-bench data folder (for tasks the file lacks, and the policy); optional. */
  tau1DataDir?: string | undefined;
}

/** Resolves what the user named to a file; in a run folder the checkpoint wins over its exported JSON (it is newer). */
export function resolveRunPath(target: string, cwd = process.cwd()): string {
  const candidates: string[] = [];
  const path = resolve(cwd, target);
  if (existsSync(path) && statSync(path).isDirectory()) {
    candidates.push(join(path, "results.jsonl"), join(path, "results.json"));
  } else if (target.endsWith(".json") || target.endsWith(".jsonl")) {
    candidates.push(path);
  } else {
    candidates.push(
      path,
      join(cwd, "runs", target, "results.jsonl"),
      join(cwd, "runs", target, "results.json"),
    );
  }
  const found = candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
  if (!found) throw new UsageError(`No run found at '${target}' (looked for ${candidates.join(", ")})`);
  return found;
}

/** Reads τ-bench's own results file as a run (the `--domain` names its environment). */
function loadTau1Results(path: string, options: LoadRunOptions): LoadedRun {
  const domainName = options.domain;
  if (!domainName || !isTau1DomainName(domainName))
    throw new UsageError(
      `${path} is a τ-bench results file (a JSON list), which does not say its environment: pass --domain tau1-retail or --domain tau1-airline`,
    );
  let domain: Tau1Domain | null = null;
  try {
    const loaded = loadDomain(domainName, resolveTau1DataDir(options.tau1DataDir));
    if (isTau1Domain(loaded)) domain = loaded;
  } catch (error) {
    // Without the data folder the file's own tasks and system prompt are enough to read it.
    if (!(error instanceof DataDirError)) throw error;
  }
  const results = readTau1ResultsFile(path, domainName, domain);
  return { ...resultsRun(path, results), tau1Entries: results.entries };
}

/** A run read whole from a results file. */
function resultsRun(path: string, results: Pick<LoadedRun, "info" | "tasks" | "simulations">): LoadedRun {
  return {
    path,
    kind: "results",
    info: results.info,
    tasks: results.tasks,
    simulations: results.simulations,
    async full(indices) {
      return indices.map((index) => results.simulations[index]!).filter((s) => s !== undefined);
    },
  };
}

/** Opens a run (see {@link resolveRunPath}). */
export async function loadRun(
  target: string,
  cwd = process.cwd(),
  options: LoadRunOptions = {},
): Promise<LoadedRun> {
  const path = resolveRunPath(target, cwd);
  if (!path.endsWith(".jsonl") && isTau1ResultsFile(path)) return loadTau1Results(path, options);
  if (path.endsWith(".jsonl")) {
    const state = await loadCheckpointState(path);
    const info = checkpointInfo(state, path);
    const lines = [...state.lines.values()];
    return {
      path,
      kind: "checkpoint",
      info,
      tasks: [...state.tasks.values()],
      simulations: [...state.simulations.values()],
      async full(indices) {
        const wanted = new Set(indices.map((index) => lines[index]).filter((line) => line !== undefined));
        return readSimulationsAt(path, wanted);
      },
    };
  }
  return resultsRun(path, readResultsFile(path));
}
