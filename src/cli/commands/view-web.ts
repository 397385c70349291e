/**
 * `tau view --web [RUN…]`: the web viewer on 127.0.0.1 (until Ctrl-C), or with
 * `--export DIR` the same pages written as a static site.
 */
import { join } from "node:path";
import { DataDirError } from "../../core/errors.ts";
import { resolveDataDir } from "../../domains/data-dir.ts";
import { parsePortOption } from "../options.ts";
import { ensureApp } from "../../viewer/app-files.ts";
import { RunCatalog } from "../../viewer/catalog.ts";
import { exportSite } from "../../viewer/export.ts";
import { startViewerServer } from "../../viewer/server.ts";
import { domainLoader, writeActionCounter } from "../../viewer/trajectory.ts";

/** Options of the web viewer. */
export interface ViewWebOptions {
  port?: string;
  export?: string;
  dataDir?: string;
  /** The original τ-bench data folder (default `TAU1_DATA_DIR` or its pulled cache). */
  tau1DataDir?: string;
}

/** Runs the web viewer; resolves when it stops (Ctrl-C, or `signal`), or after an export. */
export async function viewWebCommand(
  targets: readonly string[],
  options: ViewWebOptions,
  io: { out: (line: string) => void; err: (line: string) => void; signal?: AbortSignal },
): Promise<void> {
  const port = options.port === undefined ? 0 : parsePortOption("--port", options.port);
  let data: string | { missing: string };
  try {
    data = resolveDataDir(options.dataDir);
  } catch (error) {
    if (!(error instanceof DataDirError)) throw error;
    // The viewer works without the data; only the DB differences need it.
    data = { missing: `no data folder, so no DB difference (${error.message.split(". ")[0]})` };
  }
  const load = domainLoader(data, options.tau1DataDir);
  const catalog = new RunCatalog({
    targets,
    cwd: process.cwd(),
    writeActionCounter: writeActionCounter(load),
  });
  // Most errors already name the file (with its absolute path); the others get the path shown for the run.
  for (const run of catalog.runs)
    if (run.error)
      io.err(`tau: ${run.error.includes(run.path) ? "" : `${run.identity.displayPath}: `}${run.error}`);
  const appDir = ensureApp(io.err);
  if (options.export !== undefined) {
    const summary = exportSite(catalog, appDir, options.export, load, io.err);
    const { runs, trajectories } = summary;
    io.out(
      `Wrote ${runs} run${runs === 1 ? "" : "s"} and ${trajectories} ${trajectories === 1 ? "trajectory" : "trajectories"} ` +
        `to ${summary.dir}; open ${join(summary.dir, "index.html")}`,
    );
    return;
  }
  const server = await startViewerServer({
    catalog,
    appDir,
    load,
    port,
    onError: (error) => io.err(`tau: viewer: ${(error as Error).message.split("\n")[0]}`),
  });
  const only = catalog.runs.length === 1 ? catalog.runs[0] : undefined;
  io.out(`taubench viewer: ${server.url}${only ? `#/run/${only.id}` : ""}`);
  io.out(`${catalog.runs.length} run(s); read-only, on 127.0.0.1 only. Ctrl-C stops it.`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    io.signal?.addEventListener("abort", stop, { once: true });
  });
  await server.close();
}
