import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parsePyJson, pyDumps } from "../../core/py-json.ts";
import { replayRecord } from "../../evaluation/replay-record.ts";
import { loadDomain } from "../registry.ts";

const dataDir = process.env.TAU_DATA_DIR;
const goldenDir = dataDir ? join(dataDir, "..", "golden-sample") : "";

describe.skipIf(!dataDir)("mock domain (skipped: TAU_DATA_DIR not set)", () => {
  const domain = dataDir ? loadDomain("mock", dataDir) : (undefined as never);

  it("hashes the fresh DBs like upstream", () => {
    const env = domain.makeEnvironment();
    expect(env.getDbHash()).toBe("107f83a70b7bf4f616e283b0b0b8451346fe7681173398d4498a1ec15c5fdfc6");
    expect(env.getUserDbHash()).toBe("4cf3d22eed6962ba202c8738421d8a2286d2b5a0cad1372922c928be09ccbfac");
  });

  it("reproduces upstream's replay of every mock task byte for byte", () => {
    const lines = readFileSync(join(goldenDir, "mock.jsonl"), "utf8").trim().split("\n");
    expect(lines).toHaveLength(10);
    for (const line of lines) {
      const golden = parsePyJson(line) as { id: string };
      const task = domain.tasks().find((t) => t.id === golden.id);
      expect(task, golden.id).toBeDefined();
      expect(pyDumps(replayRecord(domain, task!))).toBe(pyDumps(golden));
    }
  });

  it("matches the spec's hash checkpoints after single writes", () => {
    const env = domain.makeEnvironment();
    env.makeToolCall("create_task", "assistant", { user_id: "user_1", title: "Important Meeting" });
    expect(env.getDbHash()).toBe("3b82583d5c026d816c5a32430fb3ab8d42b72ec2b91cd5cafaab817e0e05b00c");
    const other = domain.makeEnvironment();
    other.makeToolCall("update_task_status", "assistant", { task_id: "task_1", status: "completed" });
    expect(other.getDbHash()).toBe("b1f6b69753e521e81879e1da10df1e641e6d749b9eb2b69669f643d179e2e548");
    // forks are independent
    expect(domain.makeEnvironment().getDbHash()).toBe(
      "107f83a70b7bf4f616e283b0b0b8451346fe7681173398d4498a1ec15c5fdfc6",
    );
  });

  it("returns upstream's error texts for bad calls", () => {
    const env = domain.makeEnvironment();
    const call = (
      name: string,
      args: Record<string, unknown>,
      requestor: "assistant" | "user" = "assistant",
    ) => env.getResponse({ id: "c1", name, arguments: args, requestor });
    expect(call("tool4", {}).content).toBe("Error: Tool 'tool4' not found.");
    expect(call("create_task", { user_id: "user_1" }).content).toBe(
      "Error: MockTools.create_task() missing 1 required positional argument: 'title'",
    );
    expect(call("create_task", {}).content).toBe(
      "Error: MockTools.create_task() missing 2 required positional arguments: 'user_id' and 'title'",
    );
    expect(call("get_users", { x: 1 }).content).toBe(
      "Error: MockTools.get_users() got an unexpected keyword argument 'x'",
    );
    expect(call("create_task", { user_id: "nobody", title: "x" }).content).toBe(
      "Error: User nobody not found",
    );
    expect(call("check_notifications", {}).content).toBe("Error: Tool 'check_notifications' not found.");
    const inbox = call("check_notifications", {}, "user");
    expect(inbox.error).toBe(false);
    expect(inbox.content).toBe(
      '[{"notification_id": "notif_1", "message": "Task \'Test task\' has been assigned to you.", "status": "unread", "task_id": "task_1"}]',
    );
  });
});
