/**
 * Builds the web viewer's browser app (`src/viewer/app/`) into
 * `dist/viewer-app/`: one classic script and one stylesheet, no code
 * splitting, so the same files work from the `tau view --web` server and from
 * a static export opened as a local file (module scripts are refused there).
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root,
  publicDir: false,
  logLevel: "warn",
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "dist/viewer-app",
    emptyOutDir: true,
    target: "es2022",
    reportCompressedSize: false,
    lib: {
      entry: "src/viewer/app/main.tsx",
      formats: ["iife"],
      name: "TauViewer",
      fileName: () => "app.js",
      cssFileName: "app",
    },
  },
});
