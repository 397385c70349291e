/**
 * `tau view --web --export DIR`: the viewer's pages as a self-contained
 * static site. The data are written as small scripts that hand their payload
 * to the app, so the site works from any static host and from a local file
 * (browsers refuse `fetch` and module scripts there, not classic scripts).
 */
import { copyFileSync, existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileOperation, UsageError } from "../core/errors.ts";
import { APP_FILES, pageHtml } from "./app-files.ts";
import type { RunCatalog } from "./catalog.ts";
import { type DomainLoader, trajectoryData } from "./trajectory.ts";
import { STATIC_CALLBACK, staticKeys, staticPaths, VIEWER_DATA_VERSION } from "./wire.ts";
import { makeFolder } from "../core/make-folder.ts";

/** The file that marks a folder as a viewer export (so a later export may replace it). */
const MARKER = "tau-viewer-export.json";

/** What {@link exportSite} wrote. */
export interface ExportSummary {
  dir: string;
  runs: number;
  trajectories: number;
}

function payload(key: string, data: unknown): string {
  return `${STATIC_CALLBACK}(${JSON.stringify(key)}, ${JSON.stringify(data)});\n`;
}

function write(dir: string, relative: string, text: string): void {
  const path = join(dir, relative);
  fileOperation(path, "write", () => {
    makeFolder(join(path, ".."));
    writeFileSync(path, text, "utf8");
  });
}

/**
 * Writes the site into `dir`: refuses a folder that holds anything but an
 * earlier export (which it replaces). Every trajectory of every run is
 * written, each with its DB difference.
 */
export function exportSite(
  catalog: RunCatalog,
  appDir: string,
  dir: string,
  load: DomainLoader,
  log: (line: string) => void = () => {},
): ExportSummary {
  if (existsSync(dir)) {
    const entries = readdirSync(dir);
    if (entries.length > 0 && !entries.includes(MARKER))
      throw new UsageError(
        `Refusing to export into ${dir}: it is not empty and not an earlier viewer export`,
      );
    for (const entry of entries) rmSync(join(dir, entry), { recursive: true, force: true });
  }
  fileOperation(join(dir, "assets"), "write", () => {
    makeFolder(join(dir, "assets"));
    for (const name of APP_FILES) copyFileSync(join(appDir, name), join(dir, "assets", name));
  });
  write(dir, "index.html", pageHtml("static"));
  const runs = catalog.runs;
  write(
    dir,
    staticPaths.runs(),
    payload(
      staticKeys.runs(),
      runs.map((run) => ({ ...run.summary(), live: false })),
    ),
  );
  let trajectories = 0;
  for (const run of runs) {
    const data = run.data();
    write(
      dir,
      staticPaths.run(run.id),
      payload(staticKeys.run(run.id), { ...data, summary: { ...data.summary, live: false } }),
    );
    for (const row of data.simulations) {
      const trajectory = trajectoryData(run, row.serial, load);
      if (!trajectory) continue;
      write(
        dir,
        staticPaths.trajectory(run.id, row.serial),
        payload(staticKeys.trajectory(run.id, row.serial), trajectory),
      );
      trajectories++;
    }
    log(`exported ${run.identity.name}: ${data.simulations.length} simulations`);
  }
  write(
    dir,
    MARKER,
    `${JSON.stringify({ viewer_data_version: VIEWER_DATA_VERSION, runs: runs.length, trajectories })}\n`,
  );
  return { dir, runs: runs.length, trajectories };
}
