import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PyFloat, parsePyJson, pyDumps } from "../../core/py-json.ts";
import type { Task } from "../../core/task.ts";
import type { Environment } from "../../env/environment.ts";
import { applyInitialState } from "../../evaluation/gold.ts";
import { replayRecord } from "../../evaluation/replay-record.ts";
import { loadDomain } from "../registry.ts";
import { DraftBillIds } from "./agent-tools.ts";
import { userRoot } from "./models.ts";

const dataDir = process.env.TAU_DATA_DIR;
const goldenDir = dataDir ? join(dataDir, "..", "golden-sample") : "";
const FRESH_AGENT_HASH = "304cf5ef059852e117ea801ab9a5efc24c9713ec887679dc2e30acceb4b6742d";
const FRESH_USER_HASH = "e1f3a8637388808221228ff3f87294444e6b64caf721f5eb243a85d0a9380b28";

describe.skipIf(!dataDir)("telecom domain (skipped: TAU_DATA_DIR not set)", () => {
  const domain = dataDir ? loadDomain("telecom", dataDir) : (undefined as never);
  const taskById = (id: string): Task => {
    const task = domain.tasks().find((t) => t.id === id);
    if (!task) throw new Error(`no task ${id}`);
    return task;
  };
  const call = (
    env: Environment,
    name: string,
    args: Record<string, unknown> = {},
    requestor: "assistant" | "user" = "assistant",
  ) => env.getResponse({ id: "c1", name, arguments: args, requestor });

  it("hashes the fresh agent and user DBs like upstream", () => {
    const env = domain.makeEnvironment();
    expect(env.getDbHash()).toBe(FRESH_AGENT_HASH);
    expect(env.getUserDbHash()).toBe(FRESH_USER_HASH);
  });

  it("reproduces upstream's replay of every sampled telecom task byte for byte", () => {
    const lines = readFileSync(join(goldenDir, "telecom.jsonl"), "utf8").trim().split("\n");
    expect(lines.length).toBeGreaterThanOrEqual(25);
    for (const line of lines) {
      const golden = parsePyJson(line) as { id: string };
      expect(pyDumps(replayRecord(domain, taskById(golden.id)))).toBe(pyDumps(golden));
    }
  });

  it("follows the spec's live-path checkpoint for an overdue-bill task", () => {
    const env = domain.makeEnvironment();
    applyInitialState(env, taskById("[service_issue]airplane_mode_on|overdue_bill_suspension[PERSONA:None]"));
    const user = userRoot(env.userTools!.db);
    expect(user.device.airplane_mode).toBe(true);
    expect(user.surroundings.line_active).toBe(false);
    expect(call(env, "toggle_airplane_mode", {}, "user").content).toBe(
      "Airplane Mode is now OFF.\nStatus Bar: 📵 No Signal | 📵 Data Disabled | 🔋 80%",
    );
    expect(call(env, "send_payment_request", { customer_id: "C1001", bill_id: "B1234321" }).content).toBe(
      "Payment request sent to the customer for bill B1234321",
    );
    expect(call(env, "check_payment_request", {}, "user").content).toBe(
      "You have a payment request for bill B1234321 of 65.0 USD.",
    );
    expect(call(env, "make_payment", {}, "user").content).toBe(
      "Payment of 65.0 USD has been made for bill B1234321.",
    );
    expect(user.surroundings.payment_request).toBeNull();
    const resumed = call(env, "resume_line", { customer_id: "C1001", line_id: "L1002" }).content ?? "";
    expect(resumed).toContain('"status": "Active"');
    expect(resumed).toContain('"suspension_start_date": null');
    expect(call(env, "reboot_device", {}, "user").content).toBe(
      "Restarting network services...\nStatus Bar: 📶⁴ Excellent | 5G | 📱 Data Enabled | 🔋 80%",
    );
    for (const assertion of taskById("[service_issue]airplane_mode_on|overdue_bill_suspension[PERSONA:None]")
      .evaluation_criteria!.env_assertions!) {
      expect(env.runEnvAssertion(assertion), assertion.func_name).toBe(true);
    }
    expect(env.getUserDbHash()).toBe("65e1838b2dc6410394b9fbc80327c3625fb90ba2c4a1b2ae5ef5e2e6e19ecc32");
  });

  it("formats agent tool results as upstream (plain dicts stringify numbers, models keep them)", () => {
    const env = domain.makeEnvironment();
    expect(call(env, "get_data_usage", { customer_id: "C1001", line_id: "L1002" }).content).toBe(
      '{"line_id": "L1002", "data_used_gb": "8.7", "data_limit_gb": "15.0", "data_refueling_gb": "0.0", "cycle_end_date": "2025-02-28"}',
    );
    expect(call(env, "get_details_by_id", { id: "L1002" }).content).toBe(
      '{"line_id": "L1002", "phone_number": "555-123-2002", "status": "Active", "plan_id": "P1002", "device_id": "D1002", "data_used_gb": 8.7, "data_refueling_gb": 0.0, "roaming_enabled": true, "contract_end_date": "2026-12-31", "last_plan_change_date": "2024-12-15", "last_sim_replacement_date": "2025-01-20", "suspension_start_date": null}',
    );
    expect(call(env, "get_details_by_id", { id: "D1002" }).content).toBe(
      '{"device_id": "D1002", "device_type": "phone", "model": "Smartphone Pro Max", "imei": "234567890123456", "is_esim_capable": true, "activated": true, "activation_date": "2025-02-15 11:45:00", "last_esim_transfer_date": "2025-01-20 09:30:00"}',
    );
    expect(call(env, "get_customer_by_phone", { phone_number: "555-123-2002" }).content).toContain(
      '"bill_ids": ["B1001", "B1002", "B1003"], "created_at": "2025-01-15 10:30:00", "last_extension_date": null, "goodwill_credit_used_this_year": 25.0}',
    );
    expect(call(env, "get_customer_by_name", { full_name: "nobody", dob: "1900-01-01" }).content).toBe("[]");
    expect(call(env, "get_customer_by_name", { full_name: 7, dob: "1900-01-01" }).content).toBe(
      "Error: 'int' object has no attribute 'lower'",
    );
    expect(call(env, "get_details_by_id", { id: "X1" }).content).toBe("Error: Unknown ID format or type: X1");
    expect(call(env, "suspend_line", { customer_id: "C1001", line_id: "L9" }).content).toBe(
      "Error: TelecomTools.suspend_line() missing 1 required positional argument: 'reason'",
    );
    expect(call(env, "resume_line", { customer_id: "C1001", line_id: "L1002" }).content).toBe(
      "Error: Line must be suspended to resume",
    );
    expect(call(env, "enable_roaming", { customer_id: "C1001", line_id: "L1002" }).content).toBe(
      "Roaming was already enabled",
    );
    expect(call(env, "enable_roaming", { customer_id: "C1001", line_id: "L2001" }).content).toBe(
      "Error: Line L2001 not found for customer C1001",
    );
    expect(
      call(env, "refuel_data", { customer_id: "C1001", line_id: "L1002", gb_amount: new PyFloat(2) }).content,
    ).toBe(
      '{"message": "Successfully added 2.0 GB of data for line L1002 for $4.00", "new_data_refueling_gb": "2.0", "charge": "4.0"}',
    );
    const bills = call(env, "get_bills_for_customer", { customer_id: "C1001", limit: 1 }).content ?? "";
    expect(bills).toContain('"description": "Data refueling: 2.0 GB at $2.0/GB", "amount": 4.0');
    expect(call(env, "refuel_data", { customer_id: "C1001", line_id: "L1002", gb_amount: 0 }).content).toBe(
      "Error: Refuel amount must be positive",
    );
  });

  it("creates a draft bill with a deterministic id when the customer has none", () => {
    const refuel = () => {
      const env = domain.makeEnvironment();
      const customer = env.tools.callFunction("get_customer_by_id", { customer_id: "C1002" }) as {
        value: Map<string, unknown>;
      };
      const lineId = (customer.value.get("line_ids") as string[])[0]!;
      const out = call(env, "refuel_data", { customer_id: "C1002", line_id: lineId, gb_amount: 3 });
      return { env, out };
    };
    const first = refuel();
    expect(first.out.error).toBe(false);
    const expectedId = new DraftBillIds().next();
    expect(expectedId).toMatch(/^B[0-9a-f]{8}$/);
    const bill = call(first.env, "get_details_by_id", { id: expectedId }).content ?? "";
    expect(bill).toContain('"period_start": "2025-03-01", "period_end": "2025-03-31"');
    expect(bill).toContain('"status": "Draft"');
    // Same id and same DB in every environment: gold and predicted agree.
    expect(refuel().env.getDbHash()).toBe(first.env.getDbHash());
  });

  it("routes dual-control calls: user tools for the user, not for the agent", () => {
    const env = domain.makeEnvironment();
    expect(call(env, "toggle_data", {}, "assistant").content).toBe("Error: Tool 'toggle_data' not found.");
    expect(call(env, "toggle_data", {}, "assistant").error).toBe(true);
    const off = call(env, "toggle_data", {}, "user");
    expect(off).toMatchObject({ error: false, requestor: "user" });
    expect(off.content).toBe(
      "Mobile Data is now OFF.\nStatus Bar: 📶⁴ Excellent | 5G | 📵 Data Disabled | 🔋 80%",
    );
    expect(call(env, "get_customer_by_id", { customer_id: "C1001" }, "user").content).toBe(
      "Error: Tool 'get_customer_by_id' not found.",
    );
    // Helpers are reachable by name, never as tools.
    expect(call(env, "set_user_info", { name: "x", phone_number: "y" }, "user").content).toBe(
      "Error: Tool 'set_user_info' not found.",
    );
    expect(env.getUserToolSchemas().map((s) => s.function.name)).toHaveLength(30);
    expect(env.getToolSchemas().map((s) => s.function.name)).toEqual([
      "get_customer_by_phone",
      "get_customer_by_id",
      "get_customer_by_name",
      "get_details_by_id",
      "suspend_line",
      "resume_line",
      "get_bills_for_customer",
      "send_payment_request",
      "get_data_usage",
      "enable_roaming",
      "disable_roaming",
      "transfer_to_human_agents",
      "refuel_data",
    ]);
  });

  it("syncs surroundings after successful calls only, and fails on an unknown phone number", () => {
    const env = domain.makeEnvironment();
    env.runEnvFunctionCall({
      env_type: "user",
      func_name: "set_user_info",
      arguments: { name: "John Smith", phone_number: "555-123-2002" },
    });
    const { surroundings } = userRoot(env.userTools!.db);
    expect(surroundings.roaming_allowed).toBe(true);
    call(env, "disable_roaming", { customer_id: "C1001", line_id: "L1002" });
    expect(surroundings.roaming_allowed).toBe(false);
    env.runEnvFunctionCall({
      env_type: "assistant",
      func_name: "set_data_usage",
      arguments: { customer_id: "C1001", line_id: "L1002", data_used_gb: 15.1 },
    });
    expect(surroundings.mobile_data_usage_exceeded).toBe(true);
    expect(call(env, "run_speed_test", {}, "user").content).toBe("Speed test failed: No Connection.");
    const other = domain.makeEnvironment();
    expect(() =>
      other.runEnvFunctionCall({
        env_type: "user",
        func_name: "set_user_info",
        arguments: { name: "x", phone_number: "000" },
      }),
    ).toThrow("Line with phone number 000 not found");
  });

  it("keeps a degraded VPN for later connections within one environment only", () => {
    const env = domain.makeEnvironment();
    env.runEnvFunctionCall({ env_type: "user", func_name: "break_vpn", arguments: {} });
    expect(call(env, "check_vpn_status", {}, "user").content).toBe(
      "VPN is ON and connected. Details: {'server_address': '192.168.1.1', 'protocol': 'OpenVPN', 'server_performance': <PerformanceLevel.POOR: 'poor'>}",
    );
    call(env, "disconnect_vpn", {}, "user");
    call(env, "connect_vpn", {}, "user");
    expect(call(env, "run_speed_test", {}, "user").content).toBe(
      // 5G/good (no search has run yet) at a tenth of the speed: 22.0, still poor after reconnecting.
      "Speed Test Result: 22.00 Mbps (Fair). Connection is okay for web browsing and some standard definition streaming.",
    );
    const fresh = domain.makeEnvironment();
    call(fresh, "connect_vpn", {}, "user");
    expect(call(fresh, "check_vpn_status", {}, "user").content).toContain(
      "<PerformanceLevel.EXCELLENT: 'excellent'>",
    );
  });

  it("answers the remaining user tools with upstream's strings", () => {
    const env = domain.makeEnvironment();
    const user = (name: string, args: Record<string, unknown> = {}) => call(env, name, args, "user").content;
    expect(user("check_network_status")).toBe(
      [
        "Airplane Mode: OFF",
        "SIM Card Status: active",
        "Cellular Connection: connected",
        "Cellular Signal: good",
        "Cellular Network Type: 5G",
        "Mobile Data Enabled: Yes",
        "Data Roaming Enabled: No",
        "Wi-Fi Radio: OFF",
        "Wi-Fi Connected: No",
      ].join("\n"),
    );
    expect(user("check_app_status", { app_name: "browser" })).toBe(
      "Status for App: browser\n - Permissions Granted:\n   - storage\n   - network",
    );
    expect(user("check_app_permissions", { app_name: "messaging" })).toBe(
      "App 'messaging' has permission for: sms, storage, phone.",
    );
    expect(user("grant_app_permission", { app_name: "messaging", permission: "Camera" })).toBe(
      "Error. Permission 'camera' not tracked for app 'messaging', available permissions: ['sms', 'storage', 'phone', 'network']\nStatus Bar: 📶³ Good | 5G | 📱 Data Enabled | 🔋 80%",
    );
    expect(user("grant_app_permission", { app_name: "messaging", permission: null })).toBe(
      "Error: 'NoneType' object has no attribute 'lower'",
    );
    expect(user("set_network_mode_preference", { mode: "6g" })).toBe(
      "Failed to set network mode: '6g' is not a valid option. Please use one of: 4g_5g_preferred, 4g_only, 3g_only, 2g_only\nStatus Bar: 📶³ Good | 5G | 📱 Data Enabled | 🔋 80%",
    );
    expect(user("set_apn_settings", { apn_settings: { apn_name: "broken" } })).toBe(
      "APN settings set to: broken\nStatus Bar: 📵 No Signal | 📵 Data Disabled | 🔋 80%",
    );
    expect(user("set_apn_settings", { apn_settings: { apn_name: "x" } })).toMatch(
      /^Error: 1 validation error for APNSettings\napn_name\n {2}Input should be 'internet' or 'broken' \[type=enum,/,
    );
    expect(user("reset_apn_settings")).toBe(
      "APN settings will reset at reboot.\nStatus Bar: 📵 No Signal | 📵 Data Disabled | 🔋 80%",
    );
    expect(user("reboot_device")).toBe(
      "Resetting APN settings...\nRestarting network services...\nStatus Bar: 📶⁴ Excellent | 5G | 📱 Data Enabled | 🔋 80%",
    );
    expect(user("toggle_airplane_mode")).toBe(
      "Airplane Mode is now ON.\nStatus Bar: ✈️ Airplane Mode | 🔋 80%",
    );
    expect(user("toggle_wifi")).toBe(
      "Cannot change Wi-Fi settings while Airplane Mode is ON.\nStatus Bar: ✈️ Airplane Mode | 🔋 80%",
    );
    expect(user("check_payment_request")).toBe("No payment request has been made.");
    expect(user("make_payment")).toBe("You do not have a payment request.");
    expect(user("check_apn_settings")).toBe(
      "Current APN Name: internet\nMMSC URL (for picture messages): http://mms.carrier.com/mms/wapenc\n(These are technical settings, usually best left unchanged.)",
    );
    expect(
      env.runEnvAssertion({
        env_type: "user",
        func_name: "assert_airplane_mode_status",
        arguments: { expected_status: true },
        assert_value: true,
        message: null,
      }),
    ).toBe(true);
    expect(() =>
      env.runEnvFunctionCall({
        env_type: "user",
        func_name: "assert_service_status",
        arguments: { expected_status: "online" },
      }),
    ).toThrow("'online' is not a valid NetworkStatus");
  });

  it("routes agent calls to user tools in solo mode and refuses user calls", () => {
    const env = domain.makeEnvironment({ soloMode: true });
    expect(env.soloMode).toBe(true);
    expect(call(env, "toggle_data", {}, "assistant").content).toMatch(/^Mobile Data is now OFF\./);
    expect(call(env, "get_customer_by_id", { customer_id: "C1004" }).error).toBe(false);
    expect(call(env, "toggle_data", {}, "user").content).toBe(
      "Error: User tool calls are not allowed in solo mode",
    );
  });

  it("assembles both policy variants from the right files", () => {
    const read = (file: string) => readFileSync(join(dataDir!, "domains", "telecom", file), "utf8");
    const wrap = (main: string, tech: string) =>
      `<main_policy>\n${read(main)}\n</main_policy>\n<tech_support_policy>\n${read(tech)}\n</tech_support_policy>`;
    const workflow = loadDomain("telecom-workflow", dataDir!);
    expect(domain.policy()).toBe(wrap("main_policy.md", "tech_support_manual.md"));
    expect(domain.policy({ soloMode: true })).toBe(wrap("main_policy_solo.md", "tech_support_manual.md"));
    expect(workflow.policy()).toBe(wrap("main_policy.md", "tech_support_workflow.md"));
    expect(workflow.policy({ soloMode: true })).toBe(
      wrap("main_policy_solo.md", "tech_support_workflow_solo.md"),
    );
    const env = workflow.makeEnvironment();
    expect(env.domainName).toBe("telecom-workflow");
    expect(env.policy).toBe(workflow.policy());
    expect(workflow.tasks()).toBe(domain.tasks());
    expect(workflow.splits()?.base).toHaveLength(114);
  });
});
