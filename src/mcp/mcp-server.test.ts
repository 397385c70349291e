/**
 * `tau mcp` with the MCP SDK's own Client: over stdio (the client spawns
 * `tau mcp`) and over Streamable HTTP (`tau mcp --http`), a scripted client
 * plays the agent of airline task 11 against the LLM user simulator (on the
 * fake provider) and gets the grading back; `tau view` reads what was written.
 * In process, a float-typed argument sent as `2` by a JavaScript client is
 * recorded and executed as `2.0`.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTauSync, TAU_BIN, USER_MODULE_MJS } from "../cli/e2e-harness.ts";
import {
  AIRLINE_CLOSING,
  AIRLINE_SCRIPT_TASK,
  type AirlineScriptVariant,
  airlineScriptCalls,
  airlineUserReply,
} from "../testing/airline-script.ts";
import { type FakeProvider, startFakeProvider } from "../testing/fake-provider.ts";
import { offlineRunConfig, OFFLINE_RUN_DEPENDENCIES } from "../testing/run-config.ts";
import { serveEpisode } from "./serve.ts";
import { EPISODE_TOOLS } from "./server.ts";

const dataDir = process.env.TAU_DATA_DIR;

/** The text of a tool result. */
function textOf(result: Awaited<ReturnType<Client["callTool"]>>): string {
  const [first] = result.content as { type: string; text: string }[];
  return first?.text ?? "";
}

/** The scripted agent: the airline script's calls, the closing line, then the customer stops. */
async function playAirline(client: Client, variant: AirlineScriptVariant) {
  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name);
  expect(names).toEqual(
    expect.arrayContaining(["update_reservation_flights", ...Object.values(EPISODE_TOOLS)]),
  );
  // The same JSON schema the LLM agents are sent (upstream's layout).
  const update = tools.find((tool) => tool.name === "update_reservation_flights")!;
  expect(update.inputSchema).toMatchObject({ title: "parameters", type: "object" });
  const start = textOf(await client.callTool({ name: EPISODE_TOOLS.start, arguments: {} }));
  expect(start).toContain("<policy>");
  expect(start).toContain("GV1N64");
  for (const call of airlineScriptCalls(variant)) {
    const result = await client.callTool({ name: call.name, arguments: call.arguments });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('"reservation_id": "GV1N64"');
  }
  const last = await client.callTool({ name: EPISODE_TOOLS.say, arguments: { message: AIRLINE_CLOSING } });
  expect(textOf(last)).toMatch(/^The customer ended the conversation\./);
  return last.structuredContent as Record<string, any>;
}

describe.skipIf(!dataDir)("tau mcp on airline (skipped: TAU_DATA_DIR not set)", () => {
  let fake: FakeProvider;
  let cwd: string;
  let env: Record<string, string>;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    fake = await startFakeProvider({ handler: airlineUserReply });
    cwd = mkdtempSync(join(tmpdir(), "tau-mcp-"));
    env = {
      PATH: process.env.PATH ?? "",
      OPENAI_API_KEY: "sk-user",
      OPENAI_BASE_URL: fake.openaiBaseUrl,
      TAU_DATA_DIR: dataDir!,
    };
  });
  afterAll(async () => {
    for (const child of children) child.kill();
    await fake?.close();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  const args = (saveTo: string) => [
    TAU_BIN,
    "mcp",
    "--domain",
    "airline",
    "--task",
    AIRLINE_SCRIPT_TASK,
    "--user-llm",
    "openai/gpt-4.1",
    "--save-to",
    saveTo,
  ];

  it("over stdio: a client that closes stdin before the end gets one line, exit 1, no lock left, and the same command serves again", () => {
    const path = join(cwd, "gone.json");
    const gone = spawnSync(process.execPath, args(path), {
      cwd,
      env,
      input: "",
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(gone.status).toBe(1);
    expect(gone.stderr).toContain(
      `tau: the MCP client closed the connection (stdin ended) before the episode ended; nothing was graded. The same tau mcp command serves the task again (${path} holds no simulation)`,
    );
    expect(readdirSync(cwd).filter((name) => name.startsWith("gone."))).toEqual(["gone.json", "gone.jsonl"]);
    const again = spawnSync(process.execPath, args(path), {
      cwd,
      env,
      input: "",
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(again.stderr).toContain("closed the connection (stdin ended)");
    expect(again.stderr).not.toContain("different settings");
  });

  it("over stdio with a user module: the module plays the customer and is recorded", async () => {
    writeFileSync(join(cwd, "my-user.mjs"), USER_MODULE_MJS);
    const path = join(cwd, "module-user.json");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        TAU_BIN,
        "mcp",
        "--domain",
        "mock",
        "--task",
        "create_task_1",
        "--user",
        "./my-user.mjs",
        "--save-to",
        path,
      ],
      env,
      cwd,
      stderr: "pipe",
    });
    const client = new Client({ name: "scripted-agent", version: "1.0.0" });
    await client.connect(transport);
    const start = textOf(await client.callTool({ name: EPISODE_TOOLS.start, arguments: {} }));
    expect(start).toContain("undefined "); // the module's greeting option, which tau mcp does not take
    const last = await client.callTool({
      name: EPISODE_TOOLS.say,
      arguments: { message: "All done, goodbye." },
    });
    await client.close();
    expect(last.structuredContent).toMatchObject({ episode_over: true, termination_reason: "user_stop" });
    const results = JSON.parse(readFileSync(path, "utf8"));
    expect(results.info.user_info.implementation).toBe("module_user");
    expect(results.info.taubench.user.module.path).toBe(join(cwd, "my-user.mjs"));
  });

  it("over stdio: the right write is graded 1.0, written where tau view reads it", async () => {
    const path = join(cwd, "stdio.json");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: args(path),
      env,
      cwd,
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: "scripted-agent", version: "1.0.0" });
    await client.connect(transport);
    const report = await playAirline(client, "right");
    await client.close();
    expect(report, stderr).toMatchObject({
      episode_over: true,
      termination_reason: "user_stop",
      reward: 1,
      db_match: true,
    });
    expect(report.results_file).toBe(path);

    const results = JSON.parse(readFileSync(path, "utf8"));
    expect(results.info.agent_info.implementation).toBe("mcp_client");
    expect(results.info.taubench.agent).toMatchObject({ adapter: "mcp", endpoint: "stdio" });
    expect(results.simulations[0].id).toBe(report.simulation_id);
    expect(results.simulations[0].reward_info.reward).toBe(1);
    const view = runTauSync(["view", path], { cwd });
    expect(view.status, view.stderr).toBe(0);
    expect(view.stdout).toContain("airline");
  });

  it("over Streamable HTTP on 127.0.0.1: a wrong write is graded 0.0", async () => {
    const path = join(cwd, "http.json");
    const child = spawn(process.execPath, [...args(path), "--http"], { cwd, env });
    children.push(child);
    let stderr = "";
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
        const match = /MCP endpoint: (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
        if (match) resolve(match[1]!);
      });
      child.on("exit", () => reject(new Error(`tau mcp exited: ${stderr}`)));
    });
    const client = new Client({ name: "scripted-agent", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const report = await playAirline(client, "wrong");
    expect(report).toMatchObject({ termination_reason: "user_stop", reward: 0, db_match: false });
    // Once the grading is out the server is done: it exits by itself.
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code, stderr).toBe(0);
    await client.close().catch(() => {});
    expect(JSON.parse(readFileSync(path, "utf8")).info.taubench.agent).toMatchObject({
      adapter: "mcp",
      endpoint: url,
    });
  });
});

describe.skipIf(!dataDir)("tau mcp number arguments (skipped: TAU_DATA_DIR not set)", () => {
  it("refuses an unknown task with one line before serving anything", () => {
    const cwd = mkdtempSync(join(tmpdir(), "tau-mcp-bad-"));
    const run = runTauSync(
      ["mcp", "--domain", "airline", "--task", "9999", "--user", "scripted", "--data-dir", dataDir!],
      {
        cwd,
      },
    );
    expect(run.status).toBe(2);
    expect(run.stderr.trim()).toBe("tau: Unknown task id for domain 'airline': 9999");
    expect(run.stdout).toBe("");
    rmSync(cwd, { recursive: true, force: true });
  });

  it("records and executes an integral value of a float-typed parameter as a float (2 → 2.0)", async () => {
    const [taskId] = JSON.parse(
      readFileSync(join(dataDir!, "domains", "telecom", "split_tasks.json"), "utf8"),
    ).base;
    const config = offlineRunConfig(dataDir!, { domain: "telecom", taskIds: [taskId], split: null });
    const served = await serveEpisode({
      config,
      deps: OFFLINE_RUN_DEPENDENCIES,
      transport: { kind: "http", port: 0 },
      log: () => {},
    });
    const client = new Client({ name: "scripted-agent", version: "1.0.0" });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(served.endpoint)));
      await client.callTool({ name: EPISODE_TOOLS.start, arguments: {} });
      // JSON.stringify writes 2: the server cannot see whether the caller meant 2 or 2.0.
      const refuel = await client.callTool({
        name: "refuel_data",
        arguments: { customer_id: "C1001", line_id: "L1002", gb_amount: 2 },
      });
      expect(textOf(refuel)).toContain("Successfully added 2.0 GB of data for line L1002 for $4.00");
      const report = (await client.callTool({ name: EPISODE_TOOLS.end, arguments: {} }))
        .structuredContent as any;
      expect(report.termination_reason).toBe("agent_stop");
      await served.done;
      // Written as Python writes a float: the results file says 2.0.
      const text = readFileSync(report.results_file, "utf8");
      expect(text).toContain('"gb_amount": 2.0');
      const again = await client.callTool({ name: "refuel_data", arguments: {} });
      expect(textOf(again)).toMatch(/^The episode is already over\./);
    } finally {
      await client.close().catch(() => {});
      await served.close();
    }
  });
});
