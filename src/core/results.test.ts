import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { FileFormatError, FileIoError } from "./errors.ts";
import { SimulationRun } from "./simulation.ts";
import { PyFloat, parsePyJson, pyDumps } from "./py-json.ts";
import { RESULTS_FORMAT_VERSION, type Results, serializeResults, simulationToPy } from "./results.ts";
import {
  gitCommitOf,
  gitCommitOfAsync,
  packageVersion,
  readResultsFile,
  resultsLayout,
  taubenchStamp,
  writeResultsDirStream,
  writeResultsFile,
  writeResultsStream,
} from "./results-file.ts";

const fixtures = fileURLToPath(new URL("./fixtures/", import.meta.url));
const upstreamFile = join(fixtures, "results-upstream.json");
const dirLayout = join(fixtures, "results-dir");

const scratch: string[] = [];
function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "taubench-results-"));
  scratch.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Writes `text` to a fresh file and returns the one-line error readResultsFile gives for it. */
function errorFor(text: string): string {
  const file = join(scratchDir(), "results.json");
  writeFileSync(file, text);
  try {
    readResultsFile(file);
  } catch (error) {
    expect(error).toBeInstanceOf(FileFormatError);
    const message = (error as Error).message;
    expect(message.startsWith(`${file}: `)).toBe(true);
    expect(message).not.toContain("\n");
    return message.slice(file.length + 2);
  }
  throw new Error("expected a FileFormatError");
}

/** The fixture as Python JSON (floats kept), to derive variants from. */
function upstreamJson(): { [key: string]: any } {
  return parsePyJson(readFileSync(upstreamFile, "utf8")) as { [key: string]: any };
}

describe("results file format", () => {
  it("reads upstream's monolithic file and writes it back byte for byte", () => {
    const bytes = readFileSync(upstreamFile, "utf8");
    const results = readResultsFile(upstreamFile);
    expect(results.simulations.map((s) => s.termination_reason)).toEqual([
      "user_stop",
      "max_steps",
      "infrastructure_error",
    ]);
    expect(results.tasks.map((t) => t.id)).toEqual(["refund_lamp_1", "resume_chat"]);
    expect(serializeResults(results)).toBe(bytes);
  });

  it("keeps float-typed fields and PyFloat tool arguments as floats", () => {
    const results = readResultsFile(upstreamFile);
    const success = results.simulations[0]!;
    const call = success.messages[2]!;
    expect(call.role).toBe("assistant");
    const quantity = call.role === "assistant" ? call.tool_calls?.[0]?.arguments.quantity : undefined;
    expect(quantity).toBeInstanceOf(PyFloat);
    const text = serializeResults(results);
    expect(text).toContain('"reward": 1.0,');
    expect(text).toContain('"quantity": 2.0');
    expect(text).toContain('"duration": 4.0,');
    expect(text).toContain('"cost": 0.0,');
    expect(text).toContain('"temperature": 0.0');
    // Non-ASCII is escaped like json.dump's default.
    expect(text).toContain("\\u2014");
  });

  it("round-trips what it writes (read(write(x)) equals x)", () => {
    const original = readResultsFile(upstreamFile);
    const stamped: Results = {
      ...original,
      info: {
        ...original.info,
        taubench: {
          format_version: RESULTS_FORMAT_VERSION,
          version: "0.1.0",
          git_commit: null,
          prompt_hash: "abc",
        },
      },
    };
    const file = join(scratchDir(), "out", "results.json");
    writeResultsFile(file, stamped);
    const again = readResultsFile(file);
    expect(again).toEqual(stamped);
    expect(readFileSync(file, "utf8")).toBe(serializeResults(stamped));
    // The stamp sits last in info, so upstream's own fields keep their positions.
    const info = JSON.parse(readFileSync(file, "utf8")).info;
    expect(Object.keys(info).at(-1)).toBe("taubench");
  });

  it("reads the dir layout and checks its index", () => {
    expect(resultsLayout(dirLayout).format).toBe("dir");
    expect(resultsLayout(join(dirLayout, "results.json")).format).toBe("dir");
    expect(resultsLayout(upstreamFile).format).toBe("json");
    const fromDir = readResultsFile(dirLayout);
    const monolithic = readResultsFile(upstreamFile);
    // Files are read in name order; the fixture's ids sort in completion order.
    expect(fromDir.simulations).toEqual(monolithic.simulations);
    expect(fromDir.simulation_index?.map((e) => e.reward)).toEqual([1, 0, null]);

    const broken = join(scratchDir(), "run");
    cpSync(dirLayout, broken, { recursive: true });
    rmSync(join(broken, "simulations", "0b5c1e0e-2222-4c1a-9d55-000000000002.json"));
    writeFileSync(
      join(broken, "simulations", "stray.json"),
      readFileSync(join(dirLayout, "simulations", "0b5c1e0e-3333-4c1a-9d55-000000000003.json")),
    );
    expect(() => readResultsFile(broken)).toThrow(
      /integrity check failed: missing simulation files: 0b5c1e0e-2222-4c1a-9d55-000000000002; simulation files not in the index: stray/,
    );
  });

  it("writes the dir layout so that it reads back equal", () => {
    const results = readResultsFile(upstreamFile);
    const dir = scratchDir();
    writeResultsFile(dir, results, { format: "dir" });
    const again = readResultsFile(dir);
    expect(again.simulations).toEqual(results.simulations);
    expect(again.simulation_index?.map((e) => e.id)).toEqual(results.simulations.map((s) => s.id));
    expect(again.info).toEqual(results.info);
  });

  it("names the file and the field for malformed input", () => {
    expect(errorFor("{not json")).toMatch(
      /^invalid JSON: Expecting property name enclosed in double quotes: line 1 column 2 \(char 1\)$/,
    );
    expect(errorFor("[]")).toBe("(root): expected a JSON object");

    const badReason = upstreamJson();
    badReason.simulations[1].termination_reason = "gave_up";
    expect(errorFor(pyDumps(badReason))).toMatch(/^simulations\[1\]\.termination_reason: Invalid option/);

    const badType = upstreamJson();
    badType.simulations[0].duration = "six";
    expect(errorFor(pyDumps(badType))).toMatch(/^simulations\[0\]\.duration: .*number/);

    const missing = upstreamJson();
    delete missing.info.environment_info.policy;
    expect(errorFor(pyDumps(missing))).toBe("info.environment_info.policy: missing required field");

    const badMessage = upstreamJson();
    badMessage.simulations[0].messages[3].role = "robot";
    expect(errorFor(pyDumps(badMessage))).toMatch(/^simulations\[0\]\.messages\[3\]/);

    // A file a newer taubench wrote is refused, not read as if its additions meant what they mean here.
    const newer = upstreamJson();
    newer.info.taubench = { format_version: RESULTS_FORMAT_VERSION + 1, version: "9.0.0" };
    expect(errorFor(pyDumps(newer))).toBe(
      `info.taubench.format_version: version ${RESULTS_FORMAT_VERSION + 1} is not supported (this taubench reads 1..${RESULTS_FORMAT_VERSION})`,
    );

    expect(() => readResultsFile(join(scratchDir(), "absent.json"))).toThrow(/absent\.json: file not found/);
  });

  it("drops unknown keys like pydantic and tolerates the dir format's format_version", () => {
    const extra = upstreamJson();
    extra.tasks[0].annotations = { note: "airline-style extra" };
    extra.format_version = 2;
    const file = join(scratchDir(), "results.json");
    writeFileSync(file, pyDumps(extra));
    const results = readResultsFile(file);
    expect("annotations" in results.tasks[0]!).toBe(false);
    expect(serializeResults(results)).toBe(readFileSync(upstreamFile, "utf8"));
  });

  it("dumps simulations built in code with upstream's field order and float fields", () => {
    const simulation = SimulationRun.parse({
      id: "s",
      task_id: "t",
      start_time: "a",
      end_time: "b",
      duration: 3,
      termination_reason: "agent_stop",
      agent_cost: 0,
      reward_info: { reward: 1, reward_breakdown: { DB: 1 } },
      messages: [
        { role: "system", content: "be nice", turn_idx: 0, timestamp: "x" },
        { role: "tool", id: "c1", content: "5", turn_idx: 1, timestamp: "y" },
      ],
      trial: 0,
      seed: 7,
    });
    expect(pyDumps(simulationToPy(simulation))).toBe(
      '{"id": "s", "task_id": "t", "timestamp": null, "start_time": "a", "end_time": "b", "duration": 3.0, ' +
        '"termination_reason": "agent_stop", "agent_cost": 0.0, "user_cost": null, "agent_usage": null, ' +
        '"reward_info": {"reward": 1.0, "db_check": null, "env_assertions": null, "action_checks": null, ' +
        '"nl_assertions": null, "communicate_checks": null, "reward_basis": null, "reward_breakdown": {"DB": 1.0}, ' +
        '"info": null}, "messages": [{"role": "system", "content": "be nice", "turn_idx": 0, "timestamp": "x"}, ' +
        '{"id": "c1", "role": "tool", "content": "5", "requestor": "assistant", "error": false, "turn_idx": 1, ' +
        '"timestamp": "y"}], "ticks": null, "trial": 0, "seed": 7, "mode": "half_duplex", "speech_environment": null, ' +
        '"review": null, "user_only_review": null, "info": null, "auth_classification": null, ' +
        '"hallucination_retries_used": 0, "hallucination_check": null, "provider_session_id": null, "policy": null, ' +
        '"effect_timeline": null}',
    );
  });

  it("stamps taubench's version and commit", () => {
    expect(packageVersion()).toMatch(/^\d+\.\d+\.\d+/);
    const stamp = taubenchStamp({ agent_prompt_sha256: "ab" });
    expect(stamp.format_version).toBe(RESULTS_FORMAT_VERSION);
    expect(stamp.version).toBe(packageVersion());
    expect(stamp.git_commit === null || /^[0-9a-f]{40}(-dirty)?$/.test(stamp.git_commit)).toBe(true);
    expect(stamp.agent_prompt_sha256).toBe("ab");
  });

  it("marks the commit -dirty when tracked files changed (untracked files do not count)", async () => {
    const repo = scratchDir();
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
        cwd: repo,
        encoding: "utf8",
      }).trim();
    expect(gitCommitOf(repo)).toBeNull();
    expect(await gitCommitOfAsync(repo)).toBeNull();
    git("init", "-q");
    writeFileSync(join(repo, "a.txt"), "one");
    git("add", "a.txt");
    git("commit", "-qm", "first");
    const head = git("rev-parse", "HEAD");
    expect(gitCommitOf(repo)).toBe(head);
    expect(await gitCommitOfAsync(repo)).toBe(head);
    writeFileSync(join(repo, "notes.txt"), "untracked");
    expect(gitCommitOf(repo)).toBe(head);
    writeFileSync(join(repo, "a.txt"), "two");
    expect(gitCommitOf(repo)).toBe(`${head}-dirty`);
    expect(await gitCommitOfAsync(repo)).toBe(`${head}-dirty`);
  });
});

describe("streaming results writer", () => {
  async function* oneAtATime(simulations: readonly SimulationRun[]): AsyncGenerator<SimulationRun> {
    for (const simulation of simulations) {
      await new Promise((resolve) => setImmediate(resolve));
      yield simulation;
    }
  }

  it("writes the bytes serializeResults writes, for none, one and several simulations", async () => {
    const results = readResultsFile(upstreamFile);
    const stamped: Results = {
      ...results,
      info: { ...results.info, taubench: { format_version: 1, version: "0.1.0", git_commit: null } },
      simulation_index: null,
    };
    for (const count of [0, 1, results.simulations.length]) {
      const whole = { ...stamped, simulations: results.simulations.slice(0, count) };
      const file = join(scratchDir(), "results.json");
      const { simulations, ...head } = whole;
      expect(await writeResultsStream(file, head, oneAtATime(simulations))).toBe(count);
      expect(readFileSync(file, "utf8")).toBe(serializeResults(whole));
    }
    // Upstream's own file, index list included, from a plain array.
    const file = join(scratchDir(), "results.json");
    const withIndex: Results = {
      ...results,
      simulation_index: [
        {
          id: "a",
          task_id: "t",
          trial: 0,
          reward: 1,
          termination_reason: null,
          agent_cost: null,
          duration: 2,
        },
      ],
    };
    const { simulations, ...head } = withIndex;
    await writeResultsStream(file, head, simulations);
    expect(readFileSync(file, "utf8")).toBe(serializeResults(withIndex));
    const { simulations: upstreamSimulations, ...upstreamHead } = results;
    await writeResultsStream(file, upstreamHead, upstreamSimulations);
    expect(readFileSync(file, "utf8")).toBe(readFileSync(upstreamFile, "utf8"));
  });

  it("leaves the previous file and no temporary file when the source fails part-way", async () => {
    const results = readResultsFile(upstreamFile);
    const folder = scratchDir();
    const file = join(folder, "results.json");
    writeFileSync(file, "previous");
    async function* failing(): AsyncGenerator<SimulationRun> {
      yield results.simulations[0]!;
      throw new Error("checkpoint vanished");
    }
    const { simulations: _all, ...head } = results;
    await expect(writeResultsStream(file, head, failing())).rejects.toThrow("checkpoint vanished");
    expect(readFileSync(file, "utf8")).toBe("previous");
    expect(readdirSync(folder)).toEqual(["results.json"]);
  });

  it("a folder where the file should go is a FileIoError naming it, and no temporary file is left", async () => {
    const results = readResultsFile(upstreamFile);
    const folder = scratchDir();
    const target = join(folder, "results.json");
    mkdirSync(target);
    const { simulations, ...head } = results;
    const streamed = await writeResultsStream(target, head, simulations).catch((error: unknown) => error);
    expect(streamed).toBeInstanceOf(FileIoError);
    expect((streamed as FileIoError).message).toBe(`cannot write ${target}: it is a folder (EISDIR)`);
    let eager: unknown;
    try {
      writeResultsFile(target, results);
    } catch (error) {
      eager = error;
    }
    expect(eager).toBeInstanceOf(FileIoError);
    expect((eager as FileIoError).message).toBe(`cannot write ${target}: it is a folder (EISDIR)`);
    expect(readdirSync(folder)).toEqual(["results.json"]);
  });

  it("writes the dir layout like writeResultsFile does", async () => {
    const results = readResultsFile(upstreamFile);
    const eager = scratchDir();
    writeResultsFile(eager, results, { format: "dir" });
    const streamed = scratchDir();
    const { simulations, ...head } = results;
    const index = await writeResultsDirStream(streamed, head, oneAtATime(simulations));
    expect(index.map((entry) => entry.id)).toEqual(simulations.map((s) => s.id));
    const names = readdirSync(join(eager, "simulations")).sort();
    expect(readdirSync(join(streamed, "simulations")).sort()).toEqual(names);
    for (const name of ["results.json", ...names.map((n) => join("simulations", n))])
      expect(readFileSync(join(streamed, name), "utf8")).toBe(readFileSync(join(eager, name), "utf8"));
  });
});
