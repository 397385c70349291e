import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pyDumps } from "../../core/py-json.ts";
import { gradeTau1, goldData, tau1ReplayRecord } from "../../evaluation/tau1.ts";
import { loadDomain } from "../registry.ts";
import { AIRLINE_TOOLS } from "./airline-tools.ts";
import { Tau1Data } from "./data.ts";
import { RESPOND_ACTION_NAME, Tau1ToolRunner } from "./env.ts";
import { isTau1Domain, type Tau1Domain } from "./index.ts";
import { RETAIL_TOOLS } from "./retail-tools.ts";

const dataDir = process.env.TAU1_DATA_DIR;
const hasData = Boolean(dataDir && existsSync(join(dataDir, "retail")));

describe("tau1 calculate and argument errors (no data needed)", () => {
  const empty = Tau1Data.fromCollections(new Map());
  const retail = new Tau1ToolRunner(RETAIL_TOOLS);
  const calc = (expression: unknown) =>
    retail.step(empty, { name: "calculate", kwargs: { expression } }).observation;

  it.each([
    ["100", "100.0"],
    ["3 / 7", "0.43"],
    ["2.675*1", "2.67"],
    ["0.125*1", "0.12"],
    ["-7//2", "-4.0"],
    ["-0.001*1", "-0.0"],
    ["10**16", "1e+16"],
    ["123456789*123456789", "1.524157875019052e+16"],
    ["1/0", "Error: division by zero"],
    ["1.0/0", "Error: float division by zero"],
    ["0**-1", "Error: 0.0 cannot be raised to a negative power"],
    ["(-8)**0.5", "Error: float() argument must be a string or a real number, not 'complex'"],
    ["10**400", "Error: int too large to convert to float"],
    ["()", "Error: float() argument must be a string or a real number, not 'tuple'"],
    ["", "Error: invalid syntax (<string>, line 0)"],
    ["1 2", "Error: invalid syntax (<string>, line 1)"],
    ["(1", "Error: '(' was never closed (<string>, line 1)"],
    ["2 % 3", "Error: invalid characters in expression"],
  ])("calculate(%j) → %j", (expression, expected) => {
    expect(calc(expression)).toBe(expected);
  });

  it("reports non-string expressions, argument mistakes and unknown tools as upstream's env does", () => {
    expect(calc(5)).toBe("Error: 'int' object is not iterable");
    expect(calc(["1", "2"])).toBe("Error: eval() arg 1 must be a string, bytes or code object");
    const step = (name: string, kwargs: Record<string, unknown>) => retail.step(empty, { name, kwargs });
    expect(step("calculate", {}).observation).toBe(
      "Error: Calculate.invoke() missing 1 required positional argument: 'expression'",
    );
    expect(step("calculate", { expression: "1", foo: 1 }).observation).toBe(
      "Error: Calculate.invoke() got an unexpected keyword argument 'foo'",
    );
    expect(step("calculate", { expression: "1", data: 1 }).observation).toBe(
      "Error: tau_bench.envs.retail.tools.calculate.Calculate.invoke() got multiple values for keyword argument 'data'",
    );
    expect(step("modify_pending_order_items", { order_id: "#W1" }).observation).toBe(
      "Error: ModifyPendingOrderItems.invoke() missing 3 required positional arguments: 'item_ids', 'new_item_ids', and 'payment_method_id'",
    );
    expect(step("get_item_details", { item_id: "1" })).toEqual({
      observation: "Unknown action get_item_details",
      done: false,
    });
    expect(step("think", { thought: "hmm" }).observation).toBe("");
    expect(step("transfer_to_human_agents", { summary: "s" })).toEqual({
      observation: "Transfer successful",
      done: true,
    });
  });

  it("lists the tools in upstream's ALL_TOOLS order, think included", () => {
    expect(RETAIL_TOOLS.map((tool) => tool.name)).toEqual([
      "calculate",
      "cancel_pending_order",
      "exchange_delivered_order_items",
      "find_user_id_by_email",
      "find_user_id_by_name_zip",
      "get_order_details",
      "get_product_details",
      "get_user_details",
      "list_all_product_types",
      "modify_pending_order_address",
      "modify_pending_order_items",
      "modify_pending_order_payment",
      "modify_user_address",
      "return_delivered_order_items",
      "think",
      "transfer_to_human_agents",
    ]);
    expect(AIRLINE_TOOLS.map((tool) => tool.name)).toEqual([
      "book_reservation",
      "calculate",
      "cancel_reservation",
      "get_reservation_details",
      "get_user_details",
      "list_all_airports",
      "search_direct_flight",
      "search_onestop_flight",
      "send_certificate",
      "think",
      "transfer_to_human_agents",
      "update_reservation_baggages",
      "update_reservation_flights",
      "update_reservation_passengers",
    ]);
  });
});

describe.skipIf(!hasData)("tau1 domains on the τ-bench data (skipped: TAU1_DATA_DIR not set)", () => {
  const domain = (name: string): Tau1Domain => {
    const loaded = loadDomain(name, dataDir!);
    if (!isTau1Domain(loaded)) throw new Error(`${name} is not a tau1 domain`);
    return loaded;
  };

  it("has upstream's splits, task counts and initial data hashes", () => {
    const retail = domain("tau1-retail");
    const airline = domain("tau1-airline");
    expect(["test", "train", "dev"].map((split) => retail.tau1.tasksOf(split).length)).toEqual([
      115, 500, 20,
    ]);
    expect(airline.tau1.tasksOf("test")).toHaveLength(50);
    expect(() => airline.tau1.tasksOf("train")).toThrow(/Unknown task split 'train'.*Known splits: test/);
    expect(retail.tau1.freshData().hash()).toBe(
      "5a4b2cb59f4d12dea7e4adff24a7f8fada510ead49372ea4a729a82bbb5f49b5",
    );
    expect(airline.tau1.freshData().hash()).toBe(
      "4587e6b48ad2b2c4f3e1fecb40aabec7bb2286513273b8f8cec3f5865222f290",
    );
    expect(retail.tau1.toolsInfoSource()).toBe("upstream");
    expect(retail.tau1.toolsInfo().map((info) => info.function.name)).toEqual(
      RETAIL_TOOLS.map((tool) => tool.name),
    );
  });

  it.each([
    ["tau1-retail", "retail_test"],
    ["tau1-airline", "airline_test"],
  ])("%s replays the golden-sample tasks byte for byte", (name, file) => {
    const d = domain(name);
    const golden = readFileSync(join(dataDir!, "..", "golden-sample-v1", `${file}.jsonl`), "utf8")
      .trim()
      .split("\n");
    for (const line of golden) {
      const id = (JSON.parse(line) as { id: number }).id;
      const task = d.tau1.tasksOf("test")[id]!;
      expect(pyDumps(tau1ReplayRecord(d, task), { ensureAscii: false })).toBe(line);
    }
  });

  it("replays every task of every split (44 expected error steps) and grades each gold trajectory 1.0", () => {
    let errors = 0;
    let graded = 0;
    for (const name of ["tau1-retail", "tau1-airline"]) {
      const d = domain(name);
      for (const split of d.tau1.splitNames) {
        for (const task of d.tau1.tasksOf(split)) {
          const record = d.tau1.record(task);
          const replay = tau1ReplayRecord(d, task);
          errors += replay.steps.filter((step) => step.error).length;
          // The agent's gold trajectory: the task's actions, then one reply per expected output.
          const data = d.tau1.freshData();
          const actions = [
            ...record.actions,
            ...record.outputs.map((output) => ({ name: RESPOND_ACTION_NAME, kwargs: { content: output } })),
          ];
          for (const action of record.actions) d.tau1.tools.step(data, action);
          const grade = gradeTau1(d, record, data, actions);
          expect({ name, split, id: task.id, reward: grade.reward }).toEqual({
            name,
            split,
            id: task.id,
            reward: 1,
          });
          expect(grade.goldDataHash).toBe(replay.final_data_hash);
          graded++;
        }
      }
    }
    expect(graded).toBe(115 + 500 + 20 + 50);
    expect(errors).toBe(44);
  });

  it("grades a wrong end state 0 and keeps only the outputs part of info when the task has outputs", () => {
    const d = domain("tau1-retail");
    const withOutputs = d.tau1.tasksOf("test").find((task) => d.tau1.record(task).outputs.length > 0)!;
    const record = d.tau1.record(withOutputs);
    const said = record.outputs.map((output) => ({ name: RESPOND_ACTION_NAME, kwargs: { content: output } }));
    // Nothing done, everything said: the database is wrong, r_outputs is 1.0, the reward 0.
    const fresh = d.tau1.freshData();
    const grade = gradeTau1(d, record, fresh, said);
    const writes = record.actions.some(
      (action) => goldData(d, { ...record, actions: [action] }).data.hash() !== fresh.hash(),
    );
    expect(writes).toBe(true);
    expect(grade.reward).toBe(0);
    expect(grade.info).toEqual({
      r_outputs: 1,
      outputs: new Map(record.outputs.map((output) => [output, true])),
    });
    // Said with different case and commas inside the agent's text: still found.
    const noisy = record.outputs.map((output) => ({
      name: RESPOND_ACTION_NAME,
      kwargs: { content: `So, ${output.toUpperCase().split("").join("")}, right` },
    }));
    const data = d.tau1.freshData();
    for (const action of record.actions) d.tau1.tools.step(data, action);
    expect(gradeTau1(d, record, data, noisy).reward).toBe(1);
    expect(gradeTau1(d, record, data, []).reward).toBe(0);
  });
});
