import { describe, expect, it } from "vitest";
import { loadDomain } from "../domains/registry.ts";
import { toolMessage } from "./commands/tool.ts";
import { runTauSync } from "./e2e-harness.ts";

const dataDir = process.env.TAU_DATA_DIR;

describe.skipIf(!dataDir)("tau tool (skipped: TAU_DATA_DIR not set)", () => {
  it("prints the tool message of a call on a task's initial state", () => {
    const result = runTauSync([
      "tool",
      "--domain",
      "banking_knowledge",
      "--task",
      "task_026",
      "get_user_information_by_name",
      '{"customer_name": "Amara Okonkwo"}',
    ]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Found 1 record\(s\) in 'users':\n\n1\. Record ID: 755bcb4d5d\n/);
  });

  it("answers as the environment would, and refuses unknown tools, tasks and bad arguments in one line", async () => {
    const domain = loadDomain("airline", dataDir!);
    const raised = await toolMessage({
      domain,
      name: "get_user_details",
      argumentsJson: '{"user_id": "nobody"}',
    });
    expect([raised.error, raised.content]).toEqual([true, "Error: User nobody not found"]);
    await expect(toolMessage({ domain, name: "fly" })).rejects.toThrow(
      /^No agent tool 'fly' in domain 'airline'/,
    );
    await expect(toolMessage({ domain, name: "calculate", taskId: "x" })).rejects.toThrow(
      "Unknown task id for domain 'airline': x",
    );
    await expect(toolMessage({ domain, name: "calculate", argumentsJson: "[1]" })).rejects.toThrow(
      "The tool arguments must be a JSON object, got [1]",
    );
    const user = await toolMessage({
      domain: loadDomain("banking_knowledge", dataDir!),
      name: "request_human_agent_transfer",
      asUser: true,
    });
    expect(user.content).toBe("Transfer request #1 submitted.\nThe agent will process your request.");
  });
});

describe("tau tool on an original τ-bench domain", () => {
  it("is one usage line, exit 2, before any data folder is looked for", () => {
    const result = runTauSync(["tool", "--domain", "tau1-retail", "--data-dir", "/nonexistent", "calculate"]);
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe(
      "tau: tau tool supports the τ²-bench domains only; tau1-retail is an original τ-bench domain (tau run, tau replay and tau tasks take it)",
    );
  });
});
