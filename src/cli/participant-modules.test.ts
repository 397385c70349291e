/**
 * `tau run --agent FILE` / `--user FILE` end to end through the real CLI: a
 * TypeScript agent module and a JavaScript user module run a mock task to
 * reward 1.0 and are recorded with their sha256; the stored resume command
 * reproduces the invocation (options included) through a shell; each way a
 * module can be broken is one line naming the file, exit 2.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { REPLAY_CLOSING } from "../core/offline-protocol.ts";
import { readResultsFile } from "../core/results-file.ts";
import { loadCheckpointState } from "../runner/checkpoint-state.ts";
import { AGENT_MODULE_TS, runTauSync, TAU_BIN, USER_MODULE_MJS } from "./e2e-harness.ts";

const dataDir = process.env.TAU_DATA_DIR;

const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

describe.skipIf(!dataDir)("agent and user modules (skipped: TAU_DATA_DIR not set)", () => {
  const base = ["run", "--domain", "mock", "--task-ids", "create_task_1", "--data-dir", dataDir!];

  it("runs a .ts agent and a .mjs user with options, records them, and resumes from the stored command", () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-modules-"));
    writeFileSync(join(cwd, "my-agent.ts"), AGENT_MODULE_TS);
    writeFileSync(join(cwd, "my-user.mjs"), USER_MODULE_MJS);
    const agentOptions = JSON.stringify({ closing: REPLAY_CLOSING, "it's": "quoted" });
    const args = [
      ...base,
      "--agent",
      "./my-agent.ts",
      "--agent-options",
      agentOptions,
      "--user",
      "my-user.mjs",
      "--user-options",
      '{"greeting": "Hello there!"}',
      "--save-to",
      "mods",
    ];
    const run = runTauSync(args, { cwd });
    expect(run.stderr).not.toContain("tau:");
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("agent module_replay, user module_user");
    const resultsPath = join(cwd, "runs", "mods", "results.json");
    const results = readResultsFile(resultsPath);
    expect(results.simulations.map((s) => s.reward_info?.reward)).toEqual([1]);
    expect(results.info.agent_info.implementation).toBe("module_replay");
    expect(results.info.taubench?.agent).toEqual({
      name: "module_replay",
      version: "1.0.0",
      source: "module",
      options: JSON.parse(agentOptions),
      module: { path: join(cwd, "my-agent.ts"), sha256: sha256(join(cwd, "my-agent.ts")) },
    });
    expect(results.info.taubench?.user).toMatchObject({
      name: "module_user",
      version: null,
      options: { greeting: "Hello there!" },
      module: { path: join(cwd, "my-user.mjs"), sha256: sha256(join(cwd, "my-user.mjs")) },
    });
    // The user module's first words reached the conversation.
    expect(results.simulations[0]!.messages.some((m) => m.content?.startsWith("Hello there! "))).toBe(true);

    // The resume command, run by a shell, is the same invocation: nothing is left to run.
    const checkpoint = `${resultsPath}l`;
    return loadCheckpointState(checkpoint).then((state) => {
      const resume = state.run!.resume_command!;
      expect(resume).toContain(`--agent-options '{"closing":"All requested actions`);
      expect(resume).toContain(`"it'\\''s":"quoted"}'`);
      const shell = spawnSync("sh", ["-c", `tau() { "${process.execPath}" "${TAU_BIN}" "$@"; }; ${resume}`], {
        cwd,
        encoding: "utf8",
      });
      expect(shell.status, shell.stderr).toBe(0);
      expect(shell.stderr).toContain("1 finished simulation kept");

      // An edited module is another agent: the run refuses to resume with it.
      writeFileSync(join(cwd, "my-agent.ts"), `${AGENT_MODULE_TS}\n// edited\n`);
      const edited = runTauSync(args, { cwd });
      expect(edited.status).toBe(2);
      expect(edited.stderr).toMatch(
        /^tau: .*different settings \(agent_module_sha256: "[0-9a-f]{64}" → "[0-9a-f]{64}"\)/,
      );
    });
  });

  it("an InfrastructureError a .ts module throws from its own copy of taubench is an infrastructure error, not the agent's", () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-modules-infra-"));
    // tsx loads what the module imports again, so this class is not the runner's own.
    const errors = JSON.stringify(fileURLToPath(new URL("../core/errors.ts", import.meta.url)));
    writeFileSync(
      join(cwd, "outage.ts"),
      `import { InfrastructureError } from ${errors};
export default {
  name: "outage", version: "1", description: "its backend is down", needsLlm: false,
  create: () => ({
    name: "outage", initState: () => ({}), isStop: () => false,
    generate: async () => { throw new InfrastructureError("backend down"); },
  }),
};
`,
    );
    const run = runTauSync(
      [...base, "--agent", "./outage.ts", "--user", "scripted", "--max-retries", "0", "--save-to", "o"],
      { cwd },
    );
    expect(run.stdout).toContain("(0 evaluated, 1 infrastructure errors)");
    expect(run.stdout).not.toContain("agent_error");
    expect(run.status).toBe(4);
  });

  it("a create() that returns no agent (a Promise, an object without a method) stops the run with one line, nothing scored", () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-modules-shape-"));
    writeFileSync(
      join(cwd, "later.mjs"),
      `export default { name: "later", create: async () => ({ initState: () => ({}), generate: async () => ({}), isStop: () => false }) };\n`,
    );
    writeFileSync(
      join(cwd, "half.mjs"),
      `export default { name: "half", create: () => ({ generate: async () => ({}) }) };\n`,
    );
    const tasks = ["--task-ids", "create_task_1", "update_task_1"];
    const later = runTauSync(
      [...base, ...tasks, "--agent", "./later.mjs", "--user", "scripted", "--save-to", "l"],
      {
        cwd,
      },
    );
    expect(later.stderr).toContain(
      "tau: agent 'later': create() returned a Promise (create must return the participant itself: do asynchronous work in generate); an agent needs the methods initState, generate, isStop",
    );
    expect(later.stderr).toContain("Stopped the run: this error would repeat for every simulation.");
    expect(later.status).toBe(4);
    const half = runTauSync(
      [...base, ...tasks, "--agent", "./half.mjs", "--user", "scripted", "--save-to", "h"],
      {
        cwd,
      },
    );
    expect(half.stderr).toContain(
      "tau: agent 'half': create() returned an object without initState, isStop; an agent needs the methods initState, generate, isStop",
    );
    expect(half.status).toBe(4);
    // Nothing was scored as the agent's failure.
    const checkpoint = readFileSync(join(cwd, "runs", "h", "results.jsonl"), "utf8");
    expect(checkpoint).not.toContain("agent_error");
  });

  it("an agent whose generate returns the message itself fails as the agent's error, and the summary says why", () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-modules-direct-"));
    writeFileSync(
      join(cwd, "direct.mjs"),
      `export default { name: "direct", create: () => ({ initState: () => ({}), isStop: () => false, generate: async () => ({ role: "assistant", content: "hi" }) }) };\n`,
    );
    const run = runTauSync([...base, "--agent", "./direct.mjs", "--user", "scripted", "--save-to", "d"], {
      cwd,
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("Termination  agent_error 1");
    expect(run.stdout).toContain(
      "Agent and user errors (scored 0): 1\n  1× direct: generate returned a message; it must return { message, state } (agent; first: create_task_1 trial 0)",
    );
  });

  it("a 2.0 a .ts module builds with its own copy of taubench reaches the tool as a float, and the task's floats are its floats", () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-modules-float-"));
    const pyJson = JSON.stringify(fileURLToPath(new URL("../core/py-json.ts", import.meta.url)));
    // What an AI SDK adapter in the module does with arguments `{"gb_amount": 2.0}`: its own PyFloat.
    writeFileSync(
      join(cwd, "refuel.ts"),
      `import { PyFloat } from ${pyJson};
export default {
  name: "refuel", version: "1", description: "refuels 2.0 GB", needsLlm: false,
  create: (ctx: { task: { evaluation_criteria: { actions: { name: string; arguments: Record<string, unknown> }[] } } }) => {
    const expected = ctx.task.evaluation_criteria.actions.find((a) => a.name === "refuel_data")!.arguments;
    if (!(expected.gb_amount instanceof PyFloat)) throw new Error("the task's 2.0 is not a PyFloat here");
    return {
      name: "refuel", initState: () => 0, isStop: () => false,
      generate: async (_input: unknown, step: number) => ({
        message: step === 0
          ? { role: "assistant", tool_calls: [{ id: "c0", name: "refuel_data", requestor: "assistant",
              arguments: { customer_id: "C1001", line_id: "L1002", gb_amount: new PyFloat(2) } }] }
          : { role: "assistant", content: "Done, goodbye." },
        state: step + 1,
      }),
    };
  },
};
`,
    );
    const task = "[mobile_data_issue]data_usage_exceeded[PERSONA:Easy]";
    const run = runTauSync(
      [
        "run",
        "--domain",
        "telecom",
        "--split",
        "full",
        "--task-ids",
        task,
        "--data-dir",
        dataDir!,
        "--agent",
        "./refuel.ts",
        "--user",
        "scripted",
        "--max-steps",
        "6",
        "--save-to",
        "f",
      ],
      { cwd },
    );
    expect(run.status, run.stderr).toBe(0);
    const results = readResultsFile(join(cwd, "runs", "f", "results.json"));
    const messages = results.simulations[0]!.messages;
    expect(messages.find((m) => m.role === "tool")?.content).toContain("Successfully added 2.0 GB of data");
    const raw = readFileSync(join(cwd, "runs", "f", "results.json"), "utf8");
    expect(raw).toMatch(/"gb_amount": 2\.0\b/);
    expect(raw).not.toContain('"gb_amount": {');
  });

  it("a generate that never settles stops the run with one line naming the agent and task, keeps the run, and the fixed module runs with the same command", () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-modules-hang-"));
    const agent = (generate: string) =>
      `export default { name: "hang", create: () => ({ initState: () => 0, isStop: (m) => (m.content ?? "").includes("###STOP###"), generate: ${generate} }) };\n`;
    writeFileSync(join(cwd, "hang.mjs"), agent("() => new Promise(() => {})"));
    const args = [...base, "--agent", "./hang.mjs", "--user", "scripted", "--save-to", "h"];
    const hung = runTauSync(args, { cwd });
    expect(hung.status).toBe(1);
    expect(hung.stderr).toContain(
      "tau: the run stalled: the agent 'hang' generate() for task create_task_1 returned a promise that never settles, and nothing left running can settle it (./hang.mjs)",
    );
    expect(hung.stderr).toContain("Stopped the run: 0 simulation(s) finished in this session are saved.");
    expect(readdirSync(join(cwd, "runs", "h")).sort()).toEqual(["results.json", "results.jsonl"]);

    // The module is fixed: it is another agent (its sha256 changed), and as nothing finished, the same command runs it.
    writeFileSync(
      join(cwd, "hang.mjs"),
      agent(
        'async (_input, n) => ({ message: { role: "assistant", content: "Done. ###STOP###" }, state: n + 1 })',
      ),
    );
    const fixed = runTauSync(args, { cwd });
    expect(fixed.status, fixed.stderr).toBe(0);
    expect(fixed.stderr).toContain(
      "holds no evaluated simulation, so the run starts again with the new settings (agent_module_sha256:",
    );
    expect(
      readResultsFile(join(cwd, "runs", "h", "results.json")).simulations.map((s) => s.termination_reason),
    ).toEqual(["agent_stop"]);
  });

  it.each([
    [
      "a timer",
      'setTimeout(() => { throw new TypeError("boom in a timer"); }, 5); return new Promise(() => {});',
      "TypeError: boom in a timer",
    ],
    [
      "a promise nobody awaited",
      'Promise.reject(new RangeError("nobody awaited me")); return new Promise(() => {});',
      "RangeError: nobody awaited me",
    ],
  ])(
    "an exception from %s in an agent module stops the run with one line naming where it was thrown",
    (_what, body, error) => {
      const cwd = mkdtempSync(join(tmpdir(), "tau-modules-escape-"));
      writeFileSync(
        join(cwd, "stray.mjs"),
        `export default { name: "stray", create: () => ({ initState: () => 0, isStop: () => false, generate: async () => {\n ${body} } }) };\n`,
      );
      const run = runTauSync([...base, "--agent", "./stray.mjs", "--user", "scripted", "--save-to", "s"], {
        cwd,
      });
      expect(run.status).toBe(1);
      const lines = run.stderr.split("\n").filter((line) => line.startsWith("tau: "));
      expect(lines).toEqual([
        `tau: ${error} (at ${pathToFileURL(join(cwd, "stray.mjs")).href}:2:${lines[0]?.match(/:2:(\d+)\)/)?.[1]}) — thrown where no simulation could catch it: a timer, a callback or a promise nobody awaited; this run's participant module: ./stray.mjs`,
      ]);
      expect(run.stderr).not.toMatch(/^\s+at /m);
      expect(run.stderr).toContain("Stopped the run: 0 simulation(s) finished in this session are saved.");
      expect(readdirSync(join(cwd, "runs", "s")).sort()).toEqual(["results.json", "results.jsonl"]);
    },
  );

  const broken: [string, string, string | null, RegExp][] = [
    ["a missing file", "./nope.ts", null, /^tau: --agent \.\/nope\.ts: no such file \(\/.*\/nope\.ts\)$/],
    [
      "a module that throws on import",
      "./throws.mjs",
      'throw new Error("no config found");\n',
      /^tau: \/.*\/throws\.mjs: the agent module failed to load: no config found$/,
    ],
    [
      "a TypeScript module that does not compile",
      "./syntax.ts",
      "export default { name: 'x', create( };\n",
      /^tau: \/.*\/syntax\.ts: the agent module failed to load: TransformError: .*syntax\.ts:1:\d+: ERROR: .+$/,
    ],
    [
      "a module without a default export",
      "./named.mjs",
      "export const agent = {};\n",
      /^tau: \/.*\/named\.mjs: no default export; export default defineAgent\(\{ name, create, … \}\)$/,
    ],
    [
      "a default export that is not a definition",
      "./invalid.js",
      "export default { name: 'half_done', needsLLM: true };\n",
      /^tau: \/.*\/invalid\.js: the default export is not a valid agent definition: 'half_done': create must be a function \(got undefined\)$/,
    ],
    [
      "a module whose top-level await never settles",
      "./stalls.mjs",
      "await new Promise(() => {});\nexport default {};\n",
      /^tau: \/.*\/stalls\.mjs: the agent module never finished loading \(its top-level await waits on a promise that nothing settles\)$/,
    ],
  ];
  it.each(broken)("%s is one line naming the file, exit 2", (_what, spec, source, message) => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-modules-bad-"));
    if (source !== null) writeFileSync(join(cwd, spec), source);
    writeFileSync(join(cwd, "package.json"), '{"type": "module"}\n');
    const run = runTauSync([...base, "--agent", spec, "--user", "scripted"], { cwd });
    expect(run.status).toBe(2);
    expect(run.stderr.trim()).toMatch(message);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
  });
});
