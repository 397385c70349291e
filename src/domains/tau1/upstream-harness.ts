/**
 * Test support: runs upstream's own τ-bench tool classes (from a checkout of
 * its sources, e.g. `../shared/tau-bench-src`) under python3 on the same data
 * and action lists, so tests can compare outputs and data hashes with ours.
 * Only tests use it; nothing runs Python at run time.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pyDumps } from "../../core/py-json.ts";
import type { Tau1Action } from "./env.ts";

/** The script: a stub for `tau_bench.envs.tool`, upstream's tools, `Env.step`'s error handling and the data hash. */
const SCRIPT = `
import hashlib, importlib, json, sys, types
src, data_dir, domain = sys.argv[1:4]
sys.path.insert(0, src)
stub = types.ModuleType("tau_bench.envs.tool")
class Tool:
    pass
stub.Tool = Tool
sys.modules["tau_bench.envs.tool"] = stub
tools = importlib.import_module("tau_bench.envs." + domain + ".tools")
by_name = {tool.get_info()["function"]["name"]: tool for tool in tools.ALL_TOOLS}
names = {"retail": ["orders", "products", "users"], "airline": ["flights", "reservations", "users"]}[domain]
raw = {name: open(data_dir + "/" + domain + "/" + name + ".json", "rb").read() for name in names}
def hashable(value):
    if isinstance(value, dict):
        return tuple(sorted((k, hashable(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(hashable(v) for v in value)
    return value
def data_hash(data):
    return hashlib.sha256(str(hashable(data)).encode("utf-8")).hexdigest()
out = []
for episode in json.load(sys.stdin):
    data = {name: json.loads(raw[name]) for name in names}
    steps = []
    for action in episode:
        tool = by_name.get(action["name"])
        if tool is None:
            obs = "Unknown action " + action["name"]
        else:
            try:
                obs = tool.invoke(data=data, **action["kwargs"])
            except Exception as e:
                obs = "Error: " + str(e)
        steps.append(obs)
    out.append({"outputs": steps, "hash": data_hash(data)})
sys.stdout.write(json.dumps(out))
`;

/** What upstream's tools gave for one action list. */
export interface UpstreamEpisode {
  /** Each action's observation; `null` where a tool returned `None`. */
  outputs: (string | null)[];
  /** The data hash after the last action. */
  hash: string;
}

/** The upstream source folder for tests: `TAU1_SRC_DIR`, else null. */
export function upstreamSourceDir(): string | null {
  const dir = process.env.TAU1_SRC_DIR;
  return dir && existsSync(join(dir, "tau_bench", "envs", "retail", "tools")) ? dir : null;
}

/** Runs the episodes (each a list of actions on fresh data) through upstream's tools. */
export function runUpstreamTools(
  sourceDir: string,
  dataDir: string,
  domain: "retail" | "airline",
  episodes: readonly (readonly Tau1Action[])[],
): UpstreamEpisode[] {
  const result = spawnSync("python3", ["-c", SCRIPT, sourceDir, dataDir, domain], {
    input: pyDumps(episodes),
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  if (result.error) throw new Error(`python3 could not be started: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`python3 failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as UpstreamEpisode[];
}
