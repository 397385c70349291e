import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parsePyJson, pyDumps } from "../../core/py-json.ts";
import type { Task } from "../../core/task.ts";
import type { Environment } from "../../env/environment.ts";
import { replayRecord } from "../../evaluation/replay-record.ts";
import { loadDomain } from "../registry.ts";
import type { Domain } from "../types.ts";

const dataDir = process.env.TAU_DATA_DIR;
const goldenDir = dataDir ? join(dataDir, "..", "golden-sample") : "";
const FRESH_HASH = "b25c9cb211f5efcaee5dd646054a73c4a9f43f4f5acc32c10713cd9f9ac20e9c";

type Raw = any;

function call(env: Environment, name: string, args: Record<string, unknown>) {
  return env.getResponse({ id: "call_1", name, arguments: args, requestor: "assistant" });
}

function parsed(content: string | null | undefined): Raw {
  return JSON.parse(content ?? "null");
}

describe.skipIf(!dataDir)("retail domain (skipped: TAU_DATA_DIR not set)", () => {
  const domain: Domain = dataDir ? loadDomain("retail", dataDir) : (undefined as never);
  const raw: Raw = dataDir
    ? JSON.parse(readFileSync(join(dataDir, "domains", "retail", "db.json"), "utf8"))
    : undefined;

  it("hashes the fresh DB like upstream and has no user DB", () => {
    const env = domain.makeEnvironment();
    expect(env.getDbHash()).toBe(FRESH_HASH);
    expect(env.getUserDbHash()).toBeNull();
    expect(domain.hasUserTools).toBe(false);
  });

  it("refuses solo mode", () => {
    expect(() => domain.makeEnvironment({ soloMode: true })).toThrow(
      "Retail domain does not support solo mode",
    );
  });

  it("reproduces upstream's replay of the golden sample byte for byte", () => {
    const lines = readFileSync(join(goldenDir, "retail.jsonl"), "utf8").trim().split("\n");
    expect(lines.length).toBeGreaterThanOrEqual(12);
    for (const line of lines) {
      const golden = parsePyJson(line) as { id: string };
      const task = domain.tasks().find((t) => t.id === golden.id);
      expect(task, golden.id).toBeDefined();
      expect(pyDumps(replayRecord(domain, task as Task)), golden.id).toBe(pyDumps(golden));
    }
  });

  it("replays every task with exactly the 18 intended failures, each for the reason the data shows", () => {
    const tasks = domain.tasks();
    expect(tasks).toHaveLength(114);
    const failures: string[] = [];
    let changedTasks = 0;
    const toolkit = domain.makeEnvironment().tools;
    for (const task of tasks) {
      const record = replayRecord(domain, task);
      expect(record.initial_agent_db_hash).toBe(FRESH_HASH);
      expect(record.initial_user_db_hash).toBeNull();
      const succeededWrite = record.steps.some((step) => !step.error && toolkit.mutatesState(step.name));
      // A DB change happens exactly when some write succeeded.
      expect(record.final_agent_db_hash !== FRESH_HASH, task.id).toBe(succeededWrite);
      if (succeededWrite) changedTasks++;
      for (const step of record.steps) {
        if (!step.error) continue;
        failures.push(`${task.id} ${step.action_id} ${step.name}: ${step.output}`);
        const args = step.arguments as Raw;
        // Check each failure's cause against the raw data, independently of the tools.
        switch (step.output) {
          case "Error: Product not found":
            // (The spec calls these item ids; 6086499569 is neither a product nor an item id.)
            expect(raw.products[args.product_id]).toBeUndefined();
            break;
          case "Error: Order not found":
            expect(raw.orders[args.order_id]).toBeUndefined();
            break;
          case "Error: User not found":
            expect(
              Object.values(raw.users).some((u: Raw) =>
                args.email !== undefined
                  ? u.email.toLowerCase() === args.email.toLowerCase()
                  : u.name.first_name.toLowerCase() === args.first_name.toLowerCase() &&
                    u.name.last_name.toLowerCase() === args.last_name.toLowerCase() &&
                    u.address.zip === args.zip,
              ),
            ).toBe(false);
            break;
          default:
            break;
        }
      }
    }
    expect(failures).toEqual([
      "2 2_1 get_product_details: Error: Product not found",
      "3 3_1 get_product_details: Error: Product not found",
      "4 4_1 get_product_details: Error: Product not found",
      "35 35_0 find_user_id_by_email: Error: User not found",
      "37 37_0 find_user_id_by_email: Error: User not found",
      "38 38_0 find_user_id_by_email: Error: User not found",
      "39 39_0 find_user_id_by_name_zip: Error: User not found",
      "46 46_1 get_order_details: Error: Order not found",
      "46 46_2 get_order_details: Error: Order not found",
      "47 47_1 get_order_details: Error: Order not found",
      "47 47_2 get_order_details: Error: Order not found",
      "54 54_0 find_user_id_by_email: Error: User not found",
      "55 55_0 find_user_id_by_email: Error: User not found",
      "64 64_6 exchange_delivered_order_items: Error: Non-delivered order cannot be exchanged",
      "67 67_0 find_user_id_by_name_zip: Error: User not found",
      "67 67_1 find_user_id_by_name_zip: Error: User not found",
      "68 68_0 find_user_id_by_name_zip: Error: User not found",
      "105 106_0 exchange_delivered_order_items: Error: Insufficient gift card balance to pay for the price difference",
    ]);
    expect(changedTasks).toBeGreaterThan(90);
  });

  it("task 64's exchange fails on a pending order, and its modification of the same items succeeds", () => {
    // The spec attributes this failure to an earlier return; the data shows the order was pending all along.
    expect(raw.orders["#W7464385"].status).toBe("pending");
    const record = replayRecord(domain, domain.tasks().find((t) => t.id === "64") as Task);
    const modify = record.steps.find((s) => s.action_id === "64_7");
    expect(modify?.error).toBe(false);
    expect(parsed(modify?.output).status).toBe("pending (item modified)");
  });

  it("cancels a gift-card order: refund entry appended, balance credited and rounded", () => {
    const env = domain.makeEnvironment();
    const result = call(env, "cancel_pending_order", { order_id: "#W6779827", reason: "ordered by mistake" });
    expect(result.error).toBe(false);
    const order = parsed(result.content);
    expect(order.status).toBe("cancelled");
    expect(order.cancel_reason).toBe("ordered by mistake");
    expect(order.payment_history).toEqual([
      { transaction_type: "payment", amount: 4079.45, payment_method_id: "gift_card_7219486" },
      { transaction_type: "refund", amount: 4079.45, payment_method_id: "gift_card_7219486" },
    ]);
    const user = parsed(call(env, "get_user_details", { user_id: "ethan_lopez_6291" }).content);
    expect(user.payment_methods.gift_card_7219486.balance).toBe(4128.45);
    // The base DB and other episodes are untouched.
    expect(domain.makeEnvironment().getDbHash()).toBe(FRESH_HASH);
    expect(
      call(env, "cancel_pending_order", { order_id: "#W6779827", reason: "no longer needed" }).content,
    ).toBe("Error: Non-pending order cannot be cancelled");
    const other = domain.makeEnvironment();
    expect(
      call(other, "cancel_pending_order", { order_id: "#W6779827", reason: "changed my mind" }).content,
    ).toBe("Error: Invalid reason");
    expect(other.getDbHash()).toBe(FRESH_HASH);
  });

  it("modifies items with upstream's last-variant bug and an unrounded difference", () => {
    const env = domain.makeEnvironment();
    const result = call(env, "modify_pending_order_items", {
      order_id: "#W6779827",
      item_ids: ["7896397433", "3379843752"],
      new_item_ids: ["2444431651", "3709608322"],
      payment_method_id: "gift_card_7219486",
    });
    expect(result.error).toBe(false);
    expect(result.content).toContain(
      '{"transaction_type": "refund", "amount": 382.03000000000037, "payment_method_id": "gift_card_7219486"}',
    );
    const order = parsed(result.content);
    expect(order.status).toBe("pending (item modified)");
    const [first, second] = order.items;
    // Both modified items carry the last pair's variant (price 2744.7, espresso-machine options).
    expect(first).toEqual({
      name: raw.orders["#W6779827"].items[0].name,
      product_id: "7233192239",
      item_id: "2444431651",
      price: 2744.7,
      options: { pressure: "9 bar", capacity: "2L", type: "automatic" },
    });
    expect(second.item_id).toBe("3709608322");
    expect(second.price).toBe(2744.7);
    const user = parsed(call(env, "get_user_details", { user_id: "ethan_lopez_6291" }).content);
    expect(user.payment_methods.gift_card_7219486.balance).toBe(431.03);
    expect(
      call(env, "modify_pending_order_items", {
        order_id: "#W6779827",
        item_ids: ["2444431651"],
        new_item_ids: ["8068777068"],
        payment_method_id: "gift_card_7219486",
      }).content,
    ).toBe("Error: Non-pending order cannot be modified");
  });

  it("keeps Python's int 0 and float 0.0 apart for requests without items", () => {
    const exchange = call(domain.makeEnvironment(), "exchange_delivered_order_items", {
      order_id: "#W2378156",
      item_ids: [],
      new_item_ids: [],
      payment_method_id: "credit_card_9513926",
    });
    expect(exchange.content).toContain(
      '"status": "exchange requested", "fulfillments": [{"tracking_id": ["843053632392"]',
    );
    expect(exchange.content).toContain(
      '"exchange_items": [], "exchange_new_items": [], "exchange_payment_method_id": "credit_card_9513926", "exchange_price_difference": 0, ',
    );
    const modify = call(domain.makeEnvironment(), "modify_pending_order_items", {
      order_id: "#W6779827",
      item_ids: [],
      new_item_ids: [],
      payment_method_id: "credit_card_9789590",
    });
    expect(modify.content).toContain(
      '{"transaction_type": "refund", "amount": 0.0, "payment_method_id": "credit_card_9789590"}], ',
    );
  });

  it("exchanges duplicated items and sorts the requested ids", () => {
    const env = domain.makeEnvironment();
    const order = raw.orders["#W1840144"];
    const variants = Object.keys(raw.products["8560156827"].variants).filter(
      (id) => raw.products["8560156827"].variants[id].available && id !== "8590708195",
    );
    const newIds = [variants[1], variants[0]];
    const result = call(env, "exchange_delivered_order_items", {
      order_id: "#W1840144",
      item_ids: ["8590708195", "8590708195"],
      new_item_ids: newIds,
      payment_method_id: "paypal_2306935",
    });
    expect(result.error).toBe(false);
    const out = parsed(result.content);
    expect(out.exchange_items).toEqual(["8590708195", "8590708195"]);
    expect(out.exchange_new_items).toEqual([...newIds].sort());
    expect(out.items).toEqual(order.items);
    expect(out.payment_history).toEqual(order.payment_history);
    const triple = call(domain.makeEnvironment(), "exchange_delivered_order_items", {
      order_id: "#W1840144",
      item_ids: ["8590708195", "8590708195", "8590708195"],
      new_item_ids: newIds,
      payment_method_id: "paypal_2306935",
    });
    expect(triple.content).toBe("Error: Number of 8590708195 not found.");
  });

  it("changes the payment method: two entries, gift card debited, old gift card credited", () => {
    const env = domain.makeEnvironment();
    const result = call(env, "modify_pending_order_payment", {
      order_id: "#W6779827",
      payment_method_id: "credit_card_9789590",
    });
    expect(parsed(result.content).payment_history).toEqual([
      { transaction_type: "payment", amount: 4079.45, payment_method_id: "gift_card_7219486" },
      { transaction_type: "payment", amount: 4079.45, payment_method_id: "credit_card_9789590" },
      { transaction_type: "refund", amount: 4079.45, payment_method_id: "gift_card_7219486" },
    ]);
    const user = parsed(call(env, "get_user_details", { user_id: "ethan_lopez_6291" }).content);
    expect(user.payment_methods.gift_card_7219486.balance).toBe(4128.45);
    expect(
      call(env, "modify_pending_order_payment", {
        order_id: "#W6779827",
        payment_method_id: "gift_card_7219486",
      }).content,
    ).toBe("Error: There should be exactly one payment for a pending order");
    const other = domain.makeEnvironment();
    expect(
      call(other, "modify_pending_order_payment", {
        order_id: "#W8367380",
        payment_method_id: "gift_card_1994993",
      }).content,
    ).toBe("Error: Insufficient gift card balance to pay for the order");
    expect(
      call(other, "modify_pending_order_payment", {
        order_id: "#W8367380",
        payment_method_id: "credit_card_5683823",
      }).content,
    ).toBe("Error: The new payment method should be different from the current one");
  });

  it("lists product types as sorted JSON text and finds users case-insensitively", () => {
    const env = domain.makeEnvironment();
    const listing = call(env, "list_all_product_types", {}).content ?? "";
    const expected = Object.fromEntries(Object.values(raw.products).map((p: Raw) => [p.name, p.product_id]));
    expect(JSON.parse(listing)).toEqual(expected);
    expect(listing.startsWith('{"Action Camera": "3377618313", "Air Purifier": "3821016478", ')).toBe(true);
    expect(call(env, "find_user_id_by_email", { email: "Ethan.Lopez8943@EXAMPLE.com" }).content).toBe(
      "ethan_lopez_6291",
    );
    expect(
      call(env, "find_user_id_by_name_zip", { first_name: "ETHAN", last_name: "lopez", zip: "43275" })
        .content,
    ).toBe("ethan_lopez_6291");
    expect(call(env, "get_item_details", { item_id: "2444431651" }).content).toBe(
      '{"item_id": "2444431651", "options": {"weight range": "55-75 lbs", "material": "iron", "set type": "fixed"}, "available": true, "price": 534.84}',
    );
  });

  it("keeps file order for integer-like variant ids", () => {
    const env = domain.makeEnvironment();
    const product = call(env, "get_product_details", { product_id: "1656367028" }).content ?? "";
    const idsIn = (text: string) => [...text.matchAll(/"(\d+)": \{"item_id"/g)].map((m) => m[1]);
    // The file's own order, read from its text (JSON.parse would reorder integer-like keys).
    const text = readFileSync(join(dataDir as string, "domains", "retail", "db.json"), "utf8").replace(
      /\s+/g,
      " ",
    );
    const start = text.indexOf('"product_id": "1656367028"');
    const fileIds = idsIn(
      text.slice(start, text.indexOf('"product_id"', start + 30)).replace(/\{ "item_id"/g, '{"item_id"'),
    );
    expect(fileIds.length).toBeGreaterThan(5);
    expect(idsIn(product)).toEqual(fileIds);
    expect(fileIds).not.toEqual([...fileIds].sort());
  });

  it("turns bad model input into Error tool messages", () => {
    const env = domain.makeEnvironment();
    const cases: [string, Record<string, unknown>, string][] = [
      ["get_order", { order_id: "#W2378156" }, "Error: Tool 'get_order' not found."],
      [
        "get_order_details",
        {},
        "Error: RetailTools.get_order_details() missing 1 required positional argument: 'order_id'",
      ],
      [
        "get_order_details",
        { order_id: "#W2378156", user_id: "x" },
        "Error: RetailTools.get_order_details() got an unexpected keyword argument 'user_id'",
      ],
      [
        "exchange_delivered_order_items",
        { order_id: "#W2378156" },
        "Error: RetailTools.exchange_delivered_order_items() missing 3 required positional arguments: 'item_ids', 'new_item_ids', and 'payment_method_id'",
      ],
      ["get_order_details", { order_id: 2378156 }, "Error: Order not found"],
      ["get_order_details", { order_id: "W2378156" }, "Error: Order not found"],
      ["get_order_details", { order_id: ["#W2378156"] }, "Error: unhashable type: 'list'"],
      ["get_user_details", { user_id: null }, "Error: User not found"],
      ["get_product_details", { product_id: { id: "1656367028" } }, "Error: unhashable type: 'dict'"],
      ["get_item_details", { item_id: "123" }, "Error: Item not found"],
      ["find_user_id_by_email", { email: 42 }, "Error: 'int' object has no attribute 'lower'"],
      [
        "exchange_delivered_order_items",
        { order_id: "#W2378156", item_ids: 4202497723, new_item_ids: [], payment_method_id: "x" },
        "Error: 'int' object is not iterable",
      ],
      [
        "exchange_delivered_order_items",
        { order_id: "#W2378156", item_ids: ["4202497723"], new_item_ids: 7, payment_method_id: "x" },
        "Error: object of type 'int' has no len()",
      ],
      [
        "exchange_delivered_order_items",
        { order_id: "#W2378156", item_ids: ["4202497723"], new_item_ids: [], payment_method_id: "x" },
        "Error: The number of items to be exchanged should match.",
      ],
      [
        "exchange_delivered_order_items",
        {
          order_id: "#W2378156",
          item_ids: ["4202497723"],
          new_item_ids: ["3374679624"],
          payment_method_id: "paypal_0000000",
        },
        "Error: Payment method not found",
      ],
      [
        "exchange_delivered_order_items",
        {
          order_id: "#W2378156",
          item_ids: ["1151293680"],
          new_item_ids: ["9690244451"],
          payment_method_id: "credit_card_9513926",
        },
        "Error: New item 9690244451 not found or available",
      ],
      [
        "exchange_delivered_order_items",
        {
          order_id: "#W2378156",
          item_ids: ["1151293680"],
          new_item_ids: ["4202497723"],
          payment_method_id: "credit_card_9513926",
        },
        "Error: Variant not found",
      ],
      [
        "return_delivered_order_items",
        { order_id: "#W2378156", item_ids: ["4202497723"], payment_method_id: "gift_card_0000000" },
        "Error: Payment method not found",
      ],
      [
        "return_delivered_order_items",
        { order_id: "#W2378156", item_ids: ["1"], payment_method_id: "credit_card_9513926" },
        "Error: Some item not found",
      ],
      [
        "modify_pending_order_items",
        { order_id: "#W6779827", item_ids: ["1"], new_item_ids: ["2"], payment_method_id: "x" },
        "Error: 1 not found",
      ],
      [
        "modify_pending_order_items",
        { order_id: "#W6779827", item_ids: ["7896397433"], new_item_ids: [], payment_method_id: "x" },
        "Error: The number of items to be exchanged should match",
      ],
      [
        "modify_pending_order_items",
        {
          order_id: "#W6779827",
          item_ids: ["7896397433"],
          new_item_ids: ["7896397433"],
          payment_method_id: "x",
        },
        "Error: The new item id should be different from the old item id",
      ],
      [
        "modify_pending_order_address",
        {
          order_id: "#W2378156",
          address1: "a",
          address2: "",
          city: "c",
          state: "s",
          country: "USA",
          zip: "1",
        },
        "Error: Non-pending order cannot be modified",
      ],
      [
        "modify_user_address",
        {
          user_id: "ethan_lopez_6291",
          address1: "1 Main St",
          address2: "",
          city: "Columbus",
          state: "OH",
          country: "USA",
          zip: 43275,
        },
        "Error: 1 validation error for UserAddress\nzip\n  Input should be a valid string [type=string_type, input_value=43275, input_type=int]\n    For further information visit https://errors.pydantic.dev/2.12/v/string_type",
      ],
      ["calculate", { expression: "2 + x" }, "Error: Invalid characters in expression"],
      // A non-string is iterated (a dict by its keys) and checked before eval refuses it.
      ["calculate", { expression: 7 }, "Error: 'int' object is not iterable"],
      [
        "calculate",
        { expression: ["1", 2] },
        "Error: 'in <string>' requires string as left operand, not int",
      ],
      ["calculate", { expression: { x: 1 } }, "Error: Invalid characters in expression"],
      ["calculate", { expression: { "1": 1 } }, "Error: eval() arg 1 must be a string, bytes or code object"],
    ];
    for (const [name, args, expected] of cases) {
      const message = call(env, name, args);
      expect(message.content, name).toBe(expected);
      expect(message.error, name).toBe(true);
    }
    expect(env.getDbHash()).toBe(FRESH_HASH);
    expect(call(env, "calculate", { expression: "3131.1 + 4777.75 + 367.38" }).content).toBe("8276.23");
    expect(call(env, "transfer_to_human_agents", { summary: "help" }).content).toBe("Transfer successful");
  });

  it("changes addresses, accepting 'pending (item modified)' orders", () => {
    const env = domain.makeEnvironment();
    call(env, "modify_pending_order_items", {
      order_id: "#W6779827",
      item_ids: ["7896397433"],
      new_item_ids: ["8068777068"],
      payment_method_id: "credit_card_9789590",
    });
    const address = {
      address1: "1 Elm St",
      address2: "",
      city: "Austin",
      state: "TX",
      country: "USA",
      zip: "73301",
    };
    const order = call(env, "modify_pending_order_address", { order_id: "#W6779827", ...address });
    expect(order.content).toContain(
      '"address": {"address1": "1 Elm St", "address2": "", "city": "Austin", "country": "USA", "state": "TX", "zip": "73301"}',
    );
    const user = call(env, "modify_user_address", { user_id: "ethan_lopez_6291", ...address });
    expect(parsed(user.content).address).toEqual({ ...address });
    expect(call(env, "modify_user_address", { user_id: "nobody", ...address }).content).toBe(
      "Error: User not found",
    );
  });

  it("offers the tools in upstream's order with pydantic-layout schemas", () => {
    const schemas = domain.makeEnvironment().getToolSchemas();
    expect(schemas.map((s) => s.function.name)).toEqual([
      "calculate",
      "cancel_pending_order",
      "exchange_delivered_order_items",
      "find_user_id_by_name_zip",
      "find_user_id_by_email",
      "get_order_details",
      "get_product_details",
      "get_item_details",
      "get_user_details",
      "list_all_product_types",
      "modify_pending_order_address",
      "modify_pending_order_items",
      "modify_pending_order_payment",
      "modify_user_address",
      "return_delivered_order_items",
      "transfer_to_human_agents",
    ]);
    const byName = new Map(schemas.map((s) => [s.function.name, s]));
    const exchange = byName.get("exchange_delivered_order_items")!;
    expect(Object.keys(exchange)).toEqual(["type", "function"]);
    expect(Object.keys(exchange.function)).toEqual(["name", "description", "parameters"]);
    const parameters = exchange.function.parameters as Raw;
    expect(Object.keys(parameters)).toEqual(["properties", "required", "title", "type"]);
    expect(Object.keys(parameters.properties)).toEqual([
      "order_id",
      "item_ids",
      "new_item_ids",
      "payment_method_id",
    ]);
    expect(parameters.required).toEqual(["order_id", "item_ids", "new_item_ids", "payment_method_id"]);
    expect(parameters.title).toBe("parameters");
    expect(parameters.type).toBe("object");
    expect(Object.keys(parameters.properties.item_ids)).toEqual(["description", "items", "title", "type"]);
    expect(parameters.properties.item_ids.items).toEqual({ type: "string" });
    expect(parameters.properties.item_ids.title).toBe("Item Ids");
    expect(parameters.properties.order_id.title).toBe("Order Id");
    expect(exchange.function.description).toMatch(/^[^\n]+\n\n[^\n]/);
    expect(byName.get("list_all_product_types")?.function.parameters).toEqual({
      properties: {},
      title: "parameters",
      type: "object",
    });
    expect(byName.get("get_order_details")?.function.description).not.toContain("\n");
  });

  it("classifies tools as upstream does", () => {
    const tools = domain.makeEnvironment().tools;
    const kinds = Object.fromEntries(tools.tools.map((tool) => [tool.name, tool.kind]));
    expect(kinds).toEqual({
      calculate: "generic",
      cancel_pending_order: "write",
      exchange_delivered_order_items: "write",
      find_user_id_by_name_zip: "read",
      find_user_id_by_email: "read",
      get_order_details: "read",
      get_product_details: "read",
      get_item_details: "read",
      get_user_details: "read",
      list_all_product_types: "read",
      modify_pending_order_address: "write",
      modify_pending_order_items: "write",
      modify_pending_order_payment: "write",
      modify_user_address: "write",
      return_delivered_order_items: "write",
      transfer_to_human_agents: "generic",
    });
  });
});
