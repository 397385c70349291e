/**
 * The runs a viewer shows: the ones named on the command line, or every run
 * folder under `./runs/` (new folders there are picked up as they appear).
 * Each gets a URL-safe id; nothing outside these runs is ever read.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { UsageError } from "../core/errors.ts";
import { resolveRunPath } from "../runner/run-file.ts";
import { type RunIndex, RunIndex as Index, runName, type WriteActionCounter } from "./run-index.ts";
import type { RunUpdate } from "./wire.ts";

/** A URL-safe id from a run's name. */
export function slugOf(name: string): string {
  const slug = name
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[-.]+|-+$/g, "")
    .slice(0, 120);
  return slug === "" ? "run" : slug;
}

function isRunFolder(path: string): boolean {
  return existsSync(join(path, "results.jsonl")) || existsSync(join(path, "results.json"));
}

/** Options of {@link RunCatalog}. */
export interface CatalogOptions {
  /** Runs as the user named them (run names, folders, files); empty: every run folder under `<cwd>/runs/`. */
  targets: readonly string[];
  cwd: string;
  writeActionCounter?: WriteActionCounter | null;
}

/** The runs being viewed, by id. */
export class RunCatalog {
  private readonly byId = new Map<string, RunIndex>();
  private readonly byPath = new Map<string, RunIndex>();

  constructor(private readonly options: CatalogOptions) {
    if (options.targets.length > 0) {
      for (const target of options.targets) this.add(resolveRunPath(target, options.cwd));
    } else {
      const folder = join(options.cwd, "runs");
      if (!existsSync(folder))
        throw new UsageError(
          `No runs given and no ./runs/ folder in ${options.cwd}; name a run, folder or results file`,
        );
      this.scan();
    }
  }

  /** Adds the run folders under `./runs/` not seen yet (when no runs were named); returns the new ones. */
  private scan(): RunIndex[] {
    if (this.options.targets.length > 0) return [];
    const folder = join(this.options.cwd, "runs");
    if (!existsSync(folder)) return [];
    const added: RunIndex[] = [];
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      if (!statSync(path).isDirectory() || !isRunFolder(path)) continue;
      const file = resolveRunPath(path, this.options.cwd);
      if (!this.byPath.has(file)) added.push(this.add(file));
    }
    return added;
  }

  private add(file: string): RunIndex {
    const existing = this.byPath.get(file);
    if (existing) return existing;
    const name = runName(file);
    const base = slugOf(name);
    let id = base;
    for (let n = 2; this.byId.has(id); n++) id = `${base}-${n}`;
    const inside = relative(this.options.cwd, file);
    const displayPath =
      inside !== "" && !inside.startsWith("..") && !isAbsolute(inside) ? inside : resolve(file);
    const index = Index.open(file, { id, name, displayPath }, this.options.writeActionCounter ?? null);
    // The runs list needs every run's statistics: computed now rather than on the first request.
    index.stats();
    this.byId.set(id, index);
    this.byPath.set(file, index);
    return index;
  }

  /** Every run, in the order they were added. */
  get runs(): RunIndex[] {
    return [...this.byId.values()];
  }

  /** The run with this id, or undefined (ids are only ever looked up, never turned into paths). */
  get(id: string): RunIndex | undefined {
    return this.byId.get(id);
  }

  /** Catches up with every run's file and with new run folders; returns what changed. */
  refresh(): RunUpdate[] {
    const updates: RunUpdate[] = [];
    for (const index of this.scan()) updates.push({ id: index.id, version: index.version });
    for (const index of this.byId.values())
      if (index.refresh()) updates.push({ id: index.id, version: index.version });
    return updates;
  }
}
