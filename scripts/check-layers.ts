/**
 * Fails when a file under src/ imports from a layer above its own
 * (DESIGN.md: imports point down only). Test files are exempt: they are
 * integration tests of their folder and may use higher layers as harness.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/** Layers from the bottom up; folders on one rank may not import each other unless listed in `peers`. */
export const LAYERS: string[][] = [
  ["core"],
  ["env"],
  ["domains"],
  ["llm"],
  ["evaluation", "metrics"],
  ["agents", "users"],
  ["orchestrator"],
  ["runner"],
  ["cli", "viewer"],
];
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

/** Returns one line per import that points up the layer stack. */
export function findViolations(srcDir: string): string[] {
  const problems: string[] = [];
  for (const file of walk(srcDir)) {
    const from = relative(srcDir, file).split(sep)[0]!;
    const fromRank = rankOf(from);
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(
      /(?:import|export)[^'"]*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g,
    )) {
      const spec = match[1] ?? match[2]!;
      const target = relative(srcDir, resolve(dirname(file), spec)).split(sep)[0]!;
      if (target === from || target.startsWith("..")) continue;
      // Tests may reach up (a domain's fidelity test replays through evaluation/); production code may not.
      if (/\.test\.tsx?$/.test(file)) continue;
      if (ALWAYS_ALLOWED.has(from)) continue;
      const toRank = rankOf(target);
      if (toRank < 0 || fromRank < 0) continue;
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
