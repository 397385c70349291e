/**
 * The built browser app (`dist/viewer-app/`, shipped in the package) and the
 * HTML page that loads it. In a clone the app is built on first use, and
 * again when its sources are newer than the build.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TauError } from "../core/errors.ts";
import { makeFolder } from "../core/make-folder.ts";

// Two levels below the package root, both as source (src/viewer/) and compiled (dist/viewer/).
const packageRoot = fileURLToPath(new URL("../../", import.meta.url));

/** Where the built app lives. */
export const APP_DIR = join(packageRoot, "dist", "viewer-app");

/** The files the app needs, by the name the page asks for. */
export const APP_FILES = ["app.js", "app.css"] as const;

/** The page of the viewer; `mode` tells the app where its data comes from. */
export function pageHtml(mode: "server" | "static"): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>taubench viewer</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="assets/app.css">
</head>
<body>
<div id="app"></div>
<script>window.TAU_VIEWER_MODE = ${JSON.stringify(mode)};</script>
<script src="assets/app.js"></script>
</body>
</html>
`;
}

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of readdirSync(path)) {
    if (name === "node_modules" || name.endsWith(".test.ts")) continue;
    newest = Math.max(newest, newestMtime(join(path, name)));
  }
  return newest;
}

/** The sources the app is built from (the app and the pure modules it imports). */
const SOURCES = ["src/viewer/app", "src/viewer/wire.ts", "src/metrics", "src/core", "viewer.vite.config.ts"];

/**
 * Makes sure the built app is there and returns its folder. In a clone
 * (the Vite config is present) a missing or stale build is rebuilt; an
 * installed package ships it built.
 */
export function ensureApp(log: (line: string) => void = () => {}): string {
  const built = APP_FILES.every((name) => existsSync(join(APP_DIR, name)));
  const config = join(packageRoot, "viewer.vite.config.ts");
  if (!existsSync(config)) {
    if (built) return APP_DIR;
    throw new TauError(
      `The web viewer's app is missing from ${APP_DIR} (a broken install? reinstall taubench)`,
    );
  }
  const sources = SOURCES.map((part) => join(packageRoot, part)).filter((path) => existsSync(path));
  if (built && statSync(join(APP_DIR, "app.js")).mtimeMs >= Math.max(...sources.map(newestMtime)))
    return APP_DIR;
  const vite = join(packageRoot, "node_modules", "vite", "bin", "vite.js");
  if (!existsSync(vite)) {
    if (built) return APP_DIR;
    throw new TauError(
      "The web viewer's app is not built and Vite is not installed: run `npm ci`, then `npm run build:viewer`",
    );
  }
  log("building the web viewer's app (npm run build:viewer)…");
  // Built beside the app and moved in file by file (a rename is atomic), so a page being served,
  // or another process building at the same time, never sees half a build.
  makeFolder(APP_DIR);
  const staging = mkdtempSync(join(APP_DIR, "..", ".viewer-app-"));
  try {
    const result = spawnSync(process.execPath, [vite, "build", "--config", config, "--outDir", staging], {
      cwd: packageRoot,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    if (result.status !== 0)
      throw new TauError(
        `Building the web viewer's app failed: ${(result.stderr || result.stdout).trim().split("\n")[0]}`,
      );
    for (const name of APP_FILES) renameSync(join(staging, name), join(APP_DIR, name));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return APP_DIR;
}
