/**
 * The installable package: `npm pack`, then the tarball installed into an
 * empty project with production dependencies only, offline (from the npm
 * cache `npm ci` filled: the project gets a lockfile whose entries are this
 * repository's, so nothing needs the registry) and without install scripts
 * (so better-sqlite3's native part is never built). There, `npx tau` runs the
 * compiled JavaScript with no tsx and no dev dependency; a `.ts` agent module
 * loads; a consumer `.ts` file and the README's library example type-check
 * under `tsc --strict`, and the consumer runs.
 */
import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { AGENT_MODULE_TS } from "../src/cli/e2e-harness.ts";
import { REPLAY_CLOSING } from "../src/core/offline-protocol.ts";

const repo = resolve(import.meta.dirname, "..");
const dataDir = process.env.TAU_DATA_DIR;
const TIMEOUT_MS = 15 * 60_000;

/** A program written against the published API: a scripted-model agent on one mock task. */
const CONSUMER_TS = `
import { type AgentMetrics, defineAgent, LlmAgent, runEvaluation, type RunEvent } from "taubench";
import { offlineEvaluation, ScriptedLlmClient } from "taubench/testing";

const dataDir: string = process.argv[2] ?? "";
const agent = defineAgent<{ closing: string }>({
  name: "consumer_agent",
  version: "0.0.1",
  needsLlm: true,
  parseOptions: (options) => ({ closing: String(options.closing) }),
  create: (ctx) =>
    new LlmAgent({
      name: "consumer_agent",
      llm: ctx.llm!,
      tools: ctx.tools,
      toolChoice: "auto",
      systemPrompt: ctx.policy,
    }),
});
const events: RunEvent["type"][] = [];
const result = await runEvaluation(
  offlineEvaluation({
    dataDir,
    taskIds: ["create_task_1"],
    agent,
    agentOptions: { closing: ${JSON.stringify(REPLAY_CLOSING)} },
    createLlm: (model) =>
      new ScriptedLlmClient(
        [
          { toolCalls: [{ id: "c1", name: "create_task", arguments: { user_id: "user_1", title: "Important Meeting" }, requestor: "assistant" }] },
          { content: ${JSON.stringify(REPLAY_CLOSING)} },
        ],
        { model },
      ),
    onEvent: (event) => events.push(event.type),
  }),
);
const metrics: AgentMetrics = result.metrics;
console.log(JSON.stringify({
  reward: result.simulations[0]?.reward_info?.reward,
  passHat1: metrics.passHatK[0],
  implementation: result.info.agent_info.implementation,
  finishedEvents: events.filter((type) => type === "simulation_finished").length,
}));
`;

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2023"],
    types: ["node"],
    skipLibCheck: false,
    outDir: "build",
  },
  include: ["*.ts"],
  exclude: ["agent.ts", "my-agent.ts"],
};

/** Every package name that an installed package lists as a dependency, optional or peer. */
function productionNeeds(modules: string): Set<string> {
  const needs = new Set<string>();
  const visit = (folder: string) => {
    for (const entry of readdirSync(folder)) {
      if (entry.startsWith(".")) continue;
      const path = join(folder, entry);
      if (entry.startsWith("@")) {
        visit(path);
        continue;
      }
      const manifest = join(path, "package.json");
      if (!existsSync(manifest)) continue;
      const json = JSON.parse(readFileSync(manifest, "utf8")) as Record<string, Record<string, string>>;
      for (const field of ["dependencies", "optionalDependencies", "peerDependencies"])
        for (const name of Object.keys(json[field] ?? {})) needs.add(name);
      const nested = join(path, "node_modules");
      if (existsSync(nested)) visit(nested);
    }
  };
  visit(modules);
  return needs;
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Run {
  const clean: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && !/_API_KEY$|_BASE_URL$|^TAU_/.test(key)) clean[key] = value;
  const result: SpawnSyncReturns<string> = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    env: { ...clean, ...env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A lockfile for `project` that installs `tarball` with exactly the production packages this repository's lockfile pins. */
function consumerLockfile(tarball: string, pkg: Record<string, any>): Record<string, unknown> {
  const lock = JSON.parse(readFileSync(join(repo, "package-lock.json"), "utf8")) as {
    packages: Record<string, Record<string, unknown>>;
  };
  const integrity = `sha512-${createHash("sha512").update(readFileSync(tarball)).digest("base64")}`;
  const spec = `file:${tarball}`;
  const packages: Record<string, unknown> = {
    "": { name: "consumer", dependencies: { taubench: spec } },
    "node_modules/taubench": {
      version: pkg.version,
      resolved: spec,
      integrity,
      license: pkg.license,
      dependencies: pkg.dependencies,
      optionalDependencies: pkg.optionalDependencies,
      bin: pkg.bin,
      engines: pkg.engines,
    },
  };
  for (const [path, entry] of Object.entries(lock.packages))
    if (path !== "" && !entry.dev && !entry.link) packages[path] = entry;
  return { name: "consumer", lockfileVersion: 3, requires: true, packages };
}

/** The first ```ts block of the README's section titled `heading`. */
function readmeBlock(heading: string): string {
  const readme = readFileSync(join(repo, "README.md"), "utf8");
  const start = readme.indexOf(heading);
  if (start < 0) throw new Error(`README has no section '${heading}'`);
  const match = /```ts\n([\s\S]*?)```/.exec(readme.slice(start));
  if (!match) throw new Error(`README has no \`\`\`ts block under '${heading}'`);
  return match[1]!;
}

describe("the npm package", () => {
  let project = "";
  let pkg: Record<string, any> = {};
  const tau = (args: string[], env: Record<string, string> = {}) =>
    run("npx", ["--offline", "tau", ...args], project, env);

  beforeAll(() => {
    const folder = mkdtempSync(join(tmpdir(), "tau-pack-"));
    // `npm pack` runs `prepare`, which builds dist/ from the sources.
    const packed = run("npm", ["pack", "--json", "--pack-destination", folder], repo);
    expect(packed.status, packed.stderr).toBe(0);
    const tarball = join(folder, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
    pkg = JSON.parse(readFileSync(join(repo, "package.json"), "utf8"));
    project = join(folder, "project");
    mkdirSync(project);
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({
        name: "consumer",
        private: true,
        type: "module",
        dependencies: { taubench: `file:${tarball}` },
      }),
    );
    writeFileSync(
      join(project, "package-lock.json"),
      JSON.stringify(consumerLockfile(tarball, pkg), null, 2),
    );
    const installed = run("npm", ["ci", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], project);
    expect(installed.status, installed.stderr).toBe(0);
  }, TIMEOUT_MS);

  it("installs the compiled package with its production dependencies only", () => {
    const installed = join(project, "node_modules", "taubench");
    expect(existsSync(join(installed, "dist", "index.js"))).toBe(true);
    expect(existsSync(join(installed, "dist", "index.d.ts"))).toBe(true);
    expect(existsSync(join(installed, "src"))).toBe(false);
    // A dev dependency may be installed only because a production dependency needs it
    // (express, for the MCP SDK's HTTP transport).
    const needed = productionNeeds(join(project, "node_modules"));
    for (const dev of Object.keys(pkg.devDependencies).filter((name) => !needed.has(name)))
      expect(existsSync(join(project, "node_modules", dev)), dev).toBe(false);
    expect(existsSync(join(project, "node_modules", "vitest"))).toBe(false);
    expect(existsSync(join(project, "node_modules", "typescript"))).toBe(false);
    const version = tau(["--version"]);
    expect(version.status, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(pkg.version);
  });

  it.skipIf(!dataDir)(
    "npx tau run --agent replay --user scripted works with no tsx and no built better-sqlite3",
    () => {
      const tsx = join(project, "node_modules", "tsx");
      renameSync(tsx, `${tsx}.away`);
      try {
        const offline = tau([
          "run",
          "--domain",
          "mock",
          "--agent",
          "replay",
          "--user",
          "scripted",
          "--data-dir",
          dataDir!,
          "--save-to",
          "offline",
        ]);
        expect(offline.status, offline.stderr).toBe(0);
        expect(offline.stdout).toMatch(/pass\^k\s+k=1\n\s+0\.800/);
        // The response cache is the one thing that needs the native module: one line, exit 2.
        const cached = tau(
          [
            "run",
            "--domain",
            "mock",
            "--task-ids",
            "create_task_1",
            "--data-dir",
            dataDir!,
            "--llm-cache",
            "cache",
          ],
          { OPENAI_API_KEY: "" },
        );
        expect(cached.status).toBe(2);
        expect(cached.stderr.trim()).toBe(
          "tau: The LLM response cache (--llm-cache) needs the better-sqlite3 package, which did not load (its native part is not built); install or rebuild it (npm rebuild better-sqlite3) or run without --llm-cache",
        );
      } finally {
        renameSync(`${tsx}.away`, tsx);
      }
    },
    TIMEOUT_MS,
  );

  it.skipIf(!dataDir)(
    "loads a .ts agent module from the compiled CLI (through tsx, on demand)",
    () => {
      writeFileSync(join(project, "agent.ts"), AGENT_MODULE_TS);
      const result = tau([
        "run",
        "--domain",
        "mock",
        "--task-ids",
        "create_task_1",
        "--user",
        "scripted",
        "--data-dir",
        dataDir!,
        "--agent",
        "./agent.ts",
        "--agent-options",
        JSON.stringify({ closing: REPLAY_CLOSING }),
        "--save-to",
        "module",
      ]);
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toContain("agent module_replay, user scripted");
      expect(result.stdout).toMatch(/Average reward {2}1\.0000/);
    },
    TIMEOUT_MS,
  );

  it(
    "a consumer .ts file and the README examples type-check under tsc --strict, and the consumer runs",
    () => {
      writeFileSync(join(project, "consumer.ts"), CONSUMER_TS);
      writeFileSync(join(project, "readme-example.ts"), readmeBlock("### Use it as a library"));
      // "Evaluate your own agent": an AI SDK model as an agent module, three lines. The AI SDK's
      // own types need the DOM lib (HeadersInit), as its docs say; checked in a project of its own.
      writeFileSync(join(project, "my-agent.ts"), readmeBlock("## Evaluate your own agent"));
      const aiSdkConfig = {
        ...TSCONFIG,
        compilerOptions: { ...TSCONFIG.compilerOptions, lib: ["ES2023", "DOM"], noEmit: true },
        include: ["my-agent.ts"],
        exclude: [],
      };
      writeFileSync(join(project, "tsconfig.ai-sdk.json"), JSON.stringify(aiSdkConfig, null, 2));
      writeFileSync(join(project, "tsconfig.json"), JSON.stringify(TSCONFIG, null, 2));
      // The consumer's own dev tools: TypeScript and Node's types (this repository's copies).
      for (const types of ["@types/node", "undici-types"])
        cpSync(join(repo, "node_modules", types), join(project, "node_modules", types), { recursive: true });
      const tsc = run(
        process.execPath,
        [join(repo, "node_modules", "typescript", "bin", "tsc"), "-p", "."],
        project,
      );
      expect(tsc.status, tsc.stdout + tsc.stderr).toBe(0);
      const aiSdkTsc = run(
        process.execPath,
        [join(repo, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.ai-sdk.json"],
        project,
      );
      expect(aiSdkTsc.status, aiSdkTsc.stdout + aiSdkTsc.stderr).toBe(0);
      if (!dataDir) return;
      const consumer = run(process.execPath, [join("build", "consumer.js"), dataDir], project);
      expect(consumer.status, consumer.stderr).toBe(0);
      expect(JSON.parse(consumer.stdout.trim().split("\n").at(-1)!)).toEqual({
        reward: 1,
        passHat1: 1,
        implementation: "consumer_agent",
        finishedEvents: 1,
      });
    },
    TIMEOUT_MS,
  );
});
