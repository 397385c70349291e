import { describe, expect, it } from "vitest";
import type { Message, ToolCall } from "../core/messages.ts";
import type { SimulationRun } from "../core/simulation.ts";
import { loadDomain } from "../domains/registry.ts";
import { isTau1Domain } from "../domains/tau1/index.ts";
import { hallucinatedIdCalls, hallucinatedIds } from "./hallucinated-ids.ts";

const dataDir = process.env.TAU_DATA_DIR;

/** The conversation of these agent calls, answered by the domain's real tools. */
function conversation(domainName: string, calls: [string, Record<string, unknown>][]): Message[] {
  const env = loadDomain(domainName, dataDir!).makeEnvironment();
  const messages: Message[] = [];
  calls.forEach(([name, args], index) => {
    const call: ToolCall = { id: `call_${index}`, name, arguments: args, requestor: "assistant" };
    messages.push({ role: "assistant", content: null, tool_calls: [call] } as Message);
    messages.push(env.getResponse(call));
  });
  return messages;
}

describe.skipIf(!dataDir)(
  "hallucinated ids from the domains' real tool outputs (skipped: TAU_DATA_DIR not set)",
  () => {
    it("retail: made-up order, user, product and payment ids count; a lookup by email, an unknown tool and a found id do not", () => {
      const messages = conversation("retail", [
        ["get_order_details", { order_id: "#W0000000" }],
        ["get_user_details", { user_id: "nobody_1234" }],
        ["get_product_details", { product_id: "0000000000" }],
        ["find_user_id_by_email", { email: "nobody@example.com" }],
        ["get_order_details_typo", { order_id: "#W0000000" }],
        ["list_all_product_types", {}],
      ]);
      expect(messages.filter((m) => m.role === "tool" && m.error)).toHaveLength(5);
      expect(hallucinatedIdCalls("retail", messages)).toBe(3);
    });

    it("airline, telecom and mock: their own wording of a missing id counts", () => {
      expect(
        hallucinatedIdCalls(
          "airline",
          conversation("airline", [
            ["get_reservation_details", { reservation_id: "ZZZZZZ" }],
            ["get_user_details", { user_id: "no_such_user" }],
          ]),
        ),
      ).toBe(2);
      expect(
        hallucinatedIdCalls(
          "telecom",
          conversation("telecom", [["get_customer_by_id", { customer_id: "C9999" }]]),
        ),
      ).toBe(1);
      expect(hallucinatedIdCalls("mock", conversation("mock", [["get_users", {}]]))).toBe(0);
    });

    it("the user's own tool calls never count, and the run counter is per evaluated simulation", () => {
      const messages = conversation("retail", [["get_order_details", { order_id: "#W0000000" }]]);
      const asUser = messages.map((m) => (m.role === "tool" ? { ...m, requestor: "user" } : m)) as Message[];
      expect(hallucinatedIdCalls("retail", asUser)).toBe(0);
      const sim = (id: string, msgs: Message[], reason = "user_stop") =>
        ({ id, task_id: id, termination_reason: reason, messages: msgs }) as unknown as SimulationRun;
      expect(
        hallucinatedIds("retail", [
          sim("a", [...messages, ...messages]),
          sim("b", []),
          sim("c", messages, "infrastructure_error"),
        ]),
      ).toEqual({ calls: 2, simulations: 2, simulationsWithAny: 1, perSimulation: 1 });
    });
  },
);

const tau1DataDir = process.env.TAU1_DATA_DIR;

describe.skipIf(!tau1DataDir)(
  "hallucinated ids in the original τ-bench's domains (skipped: TAU1_DATA_DIR not set)",
  () => {
    /** Agent calls answered by τ-bench's tools, as a tau1 run records them (an output starting "Error" is an error). */
    function tau1Conversation(domainName: string, calls: [string, Record<string, unknown>][]): Message[] {
      const domain = loadDomain(domainName, tau1DataDir!);
      if (!isTau1Domain(domain)) throw new Error(`${domainName} is not a tau1 domain`);
      const data = domain.tau1.freshData();
      const messages: Message[] = [];
      calls.forEach(([name, kwargs], index) => {
        const call: ToolCall = { id: `call_${index}`, name, arguments: kwargs, requestor: "assistant" };
        messages.push({ role: "assistant", content: null, tool_calls: [call] } as Message);
        const { observation } = domain.tau1.tools.step(data, { name, kwargs });
        messages.push({
          role: "tool",
          id: call.id,
          content: observation,
          requestor: "assistant",
          error: observation.startsWith("Error"),
        } as Message);
      });
      return messages;
    }

    it("tau1-retail counts made-up order, user and product ids, not a lookup by name and zip or a wrong action", () => {
      const messages = tau1Conversation("tau1-retail", [
        ["get_order_details", { order_id: "#W0000000" }],
        ["get_user_details", { user_id: "nobody_1234" }],
        ["get_product_details", { product_id: "0000000000" }],
        ["find_user_id_by_name_zip", { first_name: "No", last_name: "Body", zip: "00000" }],
        ["cancel_pending_order", { order_id: "#W0000000", reason: "no longer needed" }],
        ["no_such_action", {}],
      ]);
      expect(messages.filter((m) => m.role === "tool" && m.error)).toHaveLength(5);
      expect(hallucinatedIdCalls("tau1-retail", messages)).toBe(4);
    });

    it("tau1-airline counts a made-up reservation and user", () => {
      const messages = tau1Conversation("tau1-airline", [
        ["get_reservation_details", { reservation_id: "ZZZZZZ" }],
        ["get_user_details", { user_id: "no_such_user" }],
        ["list_all_airports", {}],
      ]);
      expect(hallucinatedIdCalls("tau1-airline", messages)).toBe(2);
    });
  },
);
