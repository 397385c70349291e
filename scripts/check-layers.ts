/**
 * Fails when a file under src/ imports from a layer above its own
 * (DESIGN.md: imports point down only), and when src/ holds a folder that is
 * not placed in a layer: a new folder is placed here on purpose, never skipped.
 * Test files are exempt from the direction rule: they are integration tests of
 * their folder and may use higher layers as harness.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/** Layers from the bottom up; folders on one rank may not import each other. */
export const LAYERS: string[][] = [
  ["core"],
  ["env"],
  ["domains"],
  ["llm"],
  ["evaluation", "metrics"],
  ["agents", "users"],
  ["orchestrator"],
  ["runner"],
  ["worker"],
  ["analysis", "mcp", "viewer"],
  ["cli"],
];
/** Folders that may import any layer: the public fakes. */
const ALWAYS_ALLOWED = new Set(["testing"]);

function rankOf(folder: string): number {
  return LAYERS.findIndex((rank) => rank.includes(folder));
}

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (/\.tsx?$/.test(name)) yield path;
  }
}

/** Top-level folders of `srcDir` that are neither in {@link LAYERS} nor always allowed. */
export function unplacedFolders(srcDir: string): string[] {
  return readdirSync(srcDir)
    .filter((name) => statSync(join(srcDir, name)).isDirectory())
    .filter((name) => rankOf(name) < 0 && !ALWAYS_ALLOWED.has(name))
    .sort();
}

/**
 * Returns one line per problem: an import that points up the layer stack, a
 * production import of the package's front door (`src/index.ts`, which sits
 * above every layer), and every folder that has no layer.
 */
export function findViolations(srcDir: string): string[] {
  const problems = unplacedFolders(srcDir).map(
    (folder) => `src/${folder}: folder is not in a layer (add it to LAYERS in scripts/check-layers.ts)`,
  );
  for (const file of walk(srcDir)) {
    const parts = relative(srcDir, file).split(sep);
    // Files at the root of src/ (the curated index.ts) are the front door: they may import anything.
    if (parts.length === 1) continue;
    const from = parts[0]!;
    const fromRank = rankOf(from);
    if (fromRank < 0 && !ALWAYS_ALLOWED.has(from)) continue; // reported above as an unplaced folder
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(
      /(?:import|export)[^'"]*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g,
    )) {
      const spec = match[1] ?? match[2]!;
      const targetParts = relative(srcDir, resolve(dirname(file), spec)).split(sep);
      const target = targetParts[0]!;
      if (target === from || target.startsWith("..")) continue;
      // Tests may reach up (a domain's fidelity test replays through evaluation/); production code may not.
      if (/\.test\.tsx?$/.test(file)) continue;
      if (ALWAYS_ALLOWED.has(from)) continue;
      if (targetParts.length === 1) {
        problems.push(`${relative(process.cwd(), file)}: ${from} imports the package index (${spec})`);
        continue;
      }
      const toRank = rankOf(target);
      if (toRank < 0) continue; // reported above as an unplaced folder
      if (toRank > fromRank || (toRank === fromRank && target !== from)) {
        problems.push(`${relative(process.cwd(), file)}: ${from} imports ${target} (${spec})`);
      }
    }
  }
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const problems = findViolations(resolve(import.meta.dirname, "..", "src"));
  if (problems.length > 0) {
    console.error(`Layer violations (imports must point down, see DESIGN.md):\n${problems.join("\n")}`);
    process.exit(1);
  }
  console.log("layers ok");
}
