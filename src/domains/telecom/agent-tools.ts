/**
 * The telecom agent's toolkit (`TelecomTools`, specs/telecom.md §5 and §7):
 * customer, line and bill tools over the carrier DB, plus the hidden set-up
 * and assertion helpers tasks call by name. Today is fixed at 2025-02-25.
 */
import { pyEquals, pyFixed, pyFloat, pyFloatRepr, pyStr, pyTypeName, toNumber } from "../../core/py-json.ts";
import type { DbState } from "../../env/db-state.ts";
import { modelResult, t, validate } from "../../env/model.ts";
import { type FunctionDef, param, type ToolDef, ToolError, Toolkit } from "../../env/toolkit.ts";
import { pyLower, pyNumberOperand, pySliceTo } from "../python-ops.ts";
import { transferToHumanAgents } from "../shared-tools.ts";
import {
  agentRoot,
  Bill,
  type BillRecord,
  Customer,
  type CustomerRecord,
  Device,
  Line,
  type LineRecord,
  Plan,
  type PlanRecord,
  type TelecomRoot,
} from "./models.ts";

/** The domain's fixed "today". */
export const TODAY = "2025-02-25";
/** Last day of today's month (`get_data_usage`'s cycle end). */
const CYCLE_END = "2025-02-28";

/**
 * A deterministic stand-in for upstream's `uuid.uuid4().hex[:8]` (P16): the
 * draft bill a charge creates when the customer has none gets `B` + 8 hex
 * digits drawn from a generator every environment seeds identically, so the
 * gold and predicted environments of one task create the same id. (Upstream's
 * id is random, which only never matters because no official task creates one.)
 */
export class DraftBillIds {
  private seed: number;

  constructor(seed = 0x7e1ec0) {
    this.seed = seed >>> 0;
  }

  /** The next id, e.g. `B3f2a9c01`. */
  next(): string {
    // mulberry32: small, fast and good enough for ids.
    this.seed = (this.seed + 0x6d2b79f5) >>> 0;
    let x = this.seed;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    x = (x ^ (x >>> 14)) >>> 0;
    return `B${x.toString(16).padStart(8, "0")}`;
  }
}

// ---------------------------------------------------------------------------
// Lookups (upstream's private `_get_*` helpers; messages verbatim)

function indexOrThrow<V>(
  items: { findIndex(p: (v: V) => boolean): number },
  pred: (v: V) => boolean,
  message: string,
) {
  const index = items.findIndex(pred);
  if (index < 0) throw new ToolError(message);
  return index;
}

/** Index of a customer by id. */
export function customerIndex(root: TelecomRoot, customerId: unknown): number {
  return indexOrThrow<CustomerRecord>(
    root.customers,
    (c) => c.customer_id === customerId,
    `Customer with ID ${pyStr(customerId)} not found`,
  );
}

/** A customer by id (frozen: read only). */
export function customerById(root: TelecomRoot, customerId: unknown): CustomerRecord {
  return root.customers.at(customerIndex(root, customerId))!;
}

/** Index of a line by id. */
export function lineIndex(root: TelecomRoot, lineId: unknown): number {
  return indexOrThrow<LineRecord>(
    root.lines,
    (l) => l.line_id === lineId,
    `Line with ID ${pyStr(lineId)} not found`,
  );
}

/** Index of the first line with a phone number. */
export function lineIndexByPhone(root: TelecomRoot, phoneNumber: unknown): number {
  return indexOrThrow<LineRecord>(
    root.lines,
    (l) => l.phone_number === phoneNumber,
    `Line with phone number ${pyStr(phoneNumber)} not found`,
  );
}

/** A plan by id. */
export function planById(root: TelecomRoot, planId: unknown): PlanRecord {
  const index = indexOrThrow<PlanRecord>(
    root.plans,
    (p) => p.plan_id === planId,
    `Plan with ID ${pyStr(planId)} not found`,
  );
  return root.plans.at(index)!;
}

/** Index of a bill by id. */
export function billIndex(root: TelecomRoot, billId: unknown): number {
  return indexOrThrow<BillRecord>(
    root.bills,
    (b) => b.bill_id === billId,
    `Bill with ID ${pyStr(billId)} not found`,
  );
}

/** A bill by id (frozen: read only). */
export function billById(root: TelecomRoot, billId: unknown): BillRecord {
  return root.bills.at(billIndex(root, billId))!;
}

/** Index of a customer's line: the customer must own it (`_get_target_line`). */
export function targetLineIndex(root: TelecomRoot, customerId: unknown, lineId: unknown): number {
  const customer = customerById(root, customerId);
  if (!customer.line_ids.some((id) => id === lineId)) {
    throw new ToolError(`Line ${pyStr(lineId)} not found for customer ${pyStr(customerId)}`);
  }
  return lineIndex(root, lineId);
}

/** `get_customer_by_phone`: primary number first, then each of the customer's lines. */
export function customerByPhone(root: TelecomRoot, phoneNumber: unknown): CustomerRecord {
  for (const customer of root.customers) {
    if (customer.phone_number === phoneNumber) return customer;
    for (const lineId of customer.line_ids) {
      if (root.lines.at(lineIndex(root, lineId))!.phone_number === phoneNumber) return customer;
    }
  }
  throw new ToolError(`Customer with phone number ${pyStr(phoneNumber)} not found`);
}

/** The customer's bills with status `Awaiting Payment`, in `bill_ids` order. */
export function billsAwaitingPayment(root: TelecomRoot, customer: CustomerRecord): BillRecord[] {
  return customer.bill_ids
    .map((id) => billById(root, id))
    .filter((bill) => bill.status === "Awaiting Payment");
}

/** Marks a bill paid (`_set_bill_to_paid`). */
export function setBillPaid(root: TelecomRoot, billId: unknown): void {
  root.bills.mutate(billIndex(root, billId)).status = "Paid";
}

function pyStartsWith(value: unknown, prefix: string): boolean {
  if (typeof value !== "string")
    throw new ToolError(`'${pyTypeName(value)}' object has no attribute 'startswith'`);
  return value.startsWith(prefix);
}

/** Adds a charge (or credit) to the customer's draft bill, creating one if needed (`_apply_one_time_charge`). */
function applyOneTimeCharge(
  root: TelecomRoot,
  ids: DraftBillIds,
  customerId: unknown,
  amount: number,
  description: string,
): void {
  const customerAt = customerIndex(root, customerId);
  const customer = root.customers.at(customerAt)!;
  let draftAt = -1;
  for (const id of customer.bill_ids) {
    const index = billIndex(root, id);
    if (root.bills.at(index)!.status === "Draft") {
      draftAt = index;
      break;
    }
  }
  if (draftAt < 0) {
    const newId = ids.next();
    root.bills.push(
      validate<BillRecord>(Bill, {
        bill_id: newId,
        customer_id: customerId,
        period_start: "2025-03-01",
        period_end: "2025-03-31",
        issue_date: "2025-03-01",
        total_due: 0,
        due_date: "2025-03-15",
        status: "Draft",
      }),
    );
    draftAt = root.bills.length - 1;
    root.customers.mutate(customerAt).bill_ids.push(newId);
  }
  const bill = root.bills.mutate(draftAt);
  bill.line_items.push({ description, amount, date: TODAY, item_type: amount < 0 ? "Credit" : "Charge" });
  bill.total_due += amount;
}

const str = { type: "string" };
const customerIdParam = param("customer_id", str, "ID of the customer who owns the line.");
const lineIdParam = param("line_id", str, "ID of the line.");

/** State the agent toolkit keeps outside its DB, one per environment. */
export interface AgentToolsState {
  readonly draftBillIds: DraftBillIds;
}

const root = (d: DbState<any>) => agentRoot(d);

/** The agent's tools, built once per process; per-environment state arrives in the call context. */
const agentTools: readonly ToolDef<AgentToolsState>[] = [
  {
    name: "get_customer_by_phone",
    kind: "read",
    description:
      "Looks up a customer by their primary contact number or by the number of one of their lines.",
    params: [param("phone_number", str, "The phone number to look up.")],
    run: ({ db }, a) => modelResult(Customer, customerByPhone(root(db), a.phone_number)),
  },
  {
    name: "get_customer_by_id",
    kind: "read",
    description: "Fetches a customer by their customer ID.",
    params: [param("customer_id", str, "The customer's ID.")],
    run: ({ db }, a) => modelResult(Customer, customerById(root(db), a.customer_id)),
  },
  {
    name: "get_customer_by_name",
    kind: "read",
    description:
      "Searches customers by full name and date of birth. Several customers can match a similar name; " +
      "the date of birth tells them apart.",
    params: [
      param("full_name", str, "The customer's full name."),
      param("dob", str, "Date of birth, formatted YYYY-MM-DD."),
    ],
    run: ({ db }, a) => {
      const wanted = pyLower(a.full_name);
      const matches = root(db)
        .customers.toArray()
        .filter((c) => c.full_name.toLowerCase() === wanted && c.date_of_birth === a.dob);
      return modelResult(t.list(Customer), matches);
    },
  },
  {
    name: "get_details_by_id",
    kind: "read",
    description:
      "Returns the record behind an ID, which must be the ID of a customer, line, device, bill or plan.",
    params: [param("id", str, "The ID to look up.")],
    run: ({ db }, a) => {
      const r = root(db);
      const id = a.id;
      if (pyStartsWith(id, "L")) return modelResult(Line, r.lines.at(lineIndex(r, id)));
      if (pyStartsWith(id, "D")) {
        const index = indexOrThrow<{ device_id: string }>(
          r.devices,
          (d) => d.device_id === id,
          `Device with ID ${pyStr(id)} not found`,
        );
        return modelResult(Device, r.devices.at(index));
      }
      if (pyStartsWith(id, "B")) return modelResult(Bill, billById(r, id));
      if (pyStartsWith(id, "C")) return modelResult(Customer, customerById(r, id));
      if (pyStartsWith(id, "P")) return modelResult(Plan, planById(r, id));
      throw new ToolError(`Unknown ID format or type: ${pyStr(id)}`);
    },
  },
  {
    name: "suspend_line",
    kind: "write",
    description: "Suspends an active line for up to 6 months and records the date the suspension started.",
    params: [
      customerIdParam,
      param("line_id", str, "ID of the line to suspend."),
      param("reason", str, "Why the line is suspended."),
    ],
    run: ({ db }, a) => {
      const r = root(db);
      const index = targetLineIndex(r, a.customer_id, a.line_id);
      if (r.lines.at(index)!.status !== "Active") throw new ToolError("Line must be active to suspend");
      const line = r.lines.mutate(index);
      line.status = "Suspended";
      line.suspension_start_date = TODAY;
      return {
        message: "Line suspended successfully. $5/month holding fee will apply.",
        line: modelResult(Line, line),
      };
    },
  },
  {
    name: "resume_line",
    kind: "write",
    description: "Reactivates a suspended (or pending) line and clears its suspension date.",
    params: [customerIdParam, param("line_id", str, "ID of the line to resume.")],
    run: ({ db }, a) => {
      const r = root(db);
      const index = targetLineIndex(r, a.customer_id, a.line_id);
      const status = r.lines.at(index)!.status;
      if (status !== "Suspended" && status !== "Pending Activation") {
        throw new ToolError("Line must be suspended to resume");
      }
      const line = r.lines.mutate(index);
      line.status = "Active";
      line.suspension_start_date = null;
      return { message: "Line resumed successfully", line: modelResult(Line, line) };
    },
  },
  {
    name: "get_bills_for_customer",
    kind: "read",
    description: "Lists a customer's bills, newest issue date first.",
    params: [
      param("customer_id", str, "The customer's ID."),
      param("limit", { type: "integer" }, "How many bills to return at most.", { default: 12 }),
    ],
    run: ({ db }, a) => {
      const r = root(db);
      const bills = customerById(r, a.customer_id).bill_ids.map((id) => billById(r, id));
      // Array#sort is stable, like Python's sorted(reverse=True): equal dates keep their order.
      bills.sort((x, y) => (x.issue_date < y.issue_date ? 1 : x.issue_date > y.issue_date ? -1 : 0));
      return modelResult(t.list(Bill), pySliceTo(bills, a.limit));
    },
  },
  {
    name: "send_payment_request",
    kind: "write",
    description:
      "Asks the customer to pay one of their bills; the bill becomes 'Awaiting Payment'. It does not " +
      "check whether the bill is already paid, so check the bill's status first.",
    params: [customerIdParam, param("bill_id", str, "ID of the bill to be paid.")],
    run: ({ db }, a) => {
      const r = root(db);
      const customer = customerById(r, a.customer_id);
      if (billsAwaitingPayment(r, customer).length > 0) {
        throw new ToolError("A bill is already awaiting payment for this customer");
      }
      if (!customer.bill_ids.some((id) => id === a.bill_id)) {
        throw new ToolError(`Bill ${pyStr(a.bill_id)} not found for customer ${pyStr(a.customer_id)}`);
      }
      const bill = r.bills.mutate(billIndex(r, a.bill_id));
      bill.status = "Awaiting Payment";
      return `Payment request sent to the customer for bill ${bill.bill_id}`;
    },
  },
  {
    name: "get_data_usage",
    kind: "read",
    description:
      "Shows a line's data usage in the current billing cycle: data used, the plan's limit, extra data " +
      "bought (refuelled) and the cycle's end date.",
    params: [customerIdParam, param("line_id", str, "ID of the line to check.")],
    run: ({ db }, a) => {
      const r = root(db);
      const line = r.lines.at(targetLineIndex(r, a.customer_id, a.line_id))!;
      const plan = planById(r, line.plan_id);
      // A plain dict: the serializer turns these numbers into strings, as upstream's does.
      return {
        line_id: a.line_id,
        data_used_gb: pyFloat(line.data_used_gb),
        data_limit_gb: pyFloat(plan.data_limit_gb),
        data_refueling_gb: pyFloat(line.data_refueling_gb),
        cycle_end_date: CYCLE_END,
      };
    },
  },
  {
    name: "enable_roaming",
    kind: "write",
    description: "Turns on international roaming for a line.",
    params: [customerIdParam, param("line_id", str, "ID of the line to enable roaming on.")],
    run: ({ db }, a) => setRoaming(root(db), a.customer_id, a.line_id, true),
  },
  {
    name: "disable_roaming",
    kind: "write",
    description: "Turns off international roaming for a line.",
    params: [customerIdParam, param("line_id", str, "ID of the line to disable roaming on.")],
    run: ({ db }, a) => setRoaming(root(db), a.customer_id, a.line_id, false),
  },
  transferToHumanAgents,
  {
    name: "refuel_data",
    kind: "write",
    description:
      "Adds extra data to a line and charges it to the customer's next bill at the plan's refuelling price.",
    params: [
      customerIdParam,
      param("line_id", str, "ID of the line to add data to."),
      param("gb_amount", { type: "number" }, "How many gigabytes to add."),
    ],
    run: ({ db, state }, a) => {
      const r = root(db);
      const index = targetLineIndex(r, a.customer_id, a.line_id);
      const gb = a.gb_amount;
      if (pyNumberOperand(gb, "<=", "int") <= 0) throw new ToolError("Refuel amount must be positive");
      const plan = planById(r, r.lines.at(index)!.plan_id);
      const price = plan.data_refueling_price_per_gb;
      const charge = toNumber(gb) * price;
      const line = r.lines.mutate(index);
      line.data_refueling_gb += toNumber(gb);
      applyOneTimeCharge(
        r,
        state.draftBillIds,
        a.customer_id,
        charge,
        `Data refueling: ${pyStr(gb)} GB at $${pyFloatRepr(price)}/GB`,
      );
      return {
        message: `Successfully added ${pyStr(gb)} GB of data for line ${pyStr(a.line_id)} for $${pyFixed(charge, 2)}`,
        new_data_refueling_gb: pyFloat(line.data_refueling_gb),
        charge: pyFloat(charge),
      };
    },
  },
];

/** The agent tools as declared here (taubench's own descriptions). */
export const telecomAgentTools = agentTools;

/** Builds the agent toolkit of one environment (cheap: the tool definitions are shared). */
export function makeAgentToolkit(
  db: DbState<any>,
  ids: DraftBillIds,
  tools: readonly ToolDef<AgentToolsState>[] = agentTools,
): Toolkit<AgentToolsState> {
  return new Toolkit("TelecomTools", tools, agentHelpers, db, { draftBillIds: ids });
}

function setRoaming(root: TelecomRoot, customerId: unknown, lineId: unknown, enabled: boolean): string {
  const index = targetLineIndex(root, customerId, lineId);
  const word = enabled ? "enabled" : "disabled";
  if (root.lines.at(index)!.roaming_enabled === enabled) return `Roaming was already ${word}`;
  root.lines.mutate(index).roaming_enabled = enabled;
  return `Roaming ${word} successfully`;
}

/** Hidden helpers: set-up functions and assertions used by tasks (never offered to the LLM). */
const agentHelpers: readonly FunctionDef<AgentToolsState>[] = [
  {
    name: "get_available_plan_ids",
    params: [],
    run: ({ db }) =>
      agentRoot(db)
        .plans.toArray()
        .map((plan) => plan.plan_id),
  },
  {
    name: "set_data_usage",
    params: [customerIdParam, lineIdParam, param("data_used_gb", { type: "number" })],
    run: ({ db }, a) => {
      const r = agentRoot(db);
      // Upstream stores the value as given; our float field keeps it as a float (an int argument
      // would hash as `15.0` here but `15` upstream — no task passes one).
      r.lines.mutate(targetLineIndex(r, a.customer_id, a.line_id)).data_used_gb = toNumber(a.data_used_gb);
      return `Data usage set to ${pyStr(a.data_used_gb)} GB for line ${pyStr(a.line_id)}`;
    },
  },
  {
    name: "suspend_line_for_overdue_bill",
    params: [
      customerIdParam,
      lineIdParam,
      param("new_bill_id", str),
      param("contract_ended", { type: "boolean" }),
    ],
    run: ({ db }, a) => {
      const r = agentRoot(db);
      const index = lineIndex(r, a.line_id);
      const current = r.lines.at(index)!;
      if (current.status !== "Active") throw new ToolError("Line must be active to suspend for unpaid bill");
      const amount = planById(r, current.plan_id).price_per_month;
      if (amount <= 0) throw new ToolError("Amount must be positive for overdue bill");
      const customerAt = customerIndex(r, a.customer_id);
      const customer = r.customers.at(customerAt)!;
      if (customer.bill_ids.some((id) => billById(r, id).status === "Overdue")) {
        throw new ToolError("Customer already has an overdue bill");
      }
      r.bills.push(
        validate<BillRecord>(Bill, {
          bill_id: a.new_bill_id,
          customer_id: a.customer_id,
          period_start: "2025-01-01",
          period_end: "2025-01-31",
          issue_date: "2025-01-01",
          total_due: amount,
          due_date: "2025-01-15",
          line_items: [
            {
              description: `Charge for line ${current.line_id}`,
              amount,
              date: TODAY,
              item_type: amount > 0 ? "Charge" : "Credit",
            },
          ],
          status: "Overdue",
        }),
      );
      r.customers.mutate(customerAt).bill_ids.push(a.new_bill_id as string);
      const line = r.lines.mutate(index);
      line.status = "Suspended";
      line.suspension_start_date = TODAY;
      if (a.contract_ended) line.contract_end_date = "2025-01-31";
      return `Line ${pyStr(a.line_id)} suspended for unpaid bill ${pyStr(a.new_bill_id)}. Contract ended: ${pyStr(a.contract_ended)}`;
    },
  },
  {
    name: "assert_data_refueling_amount",
    params: [customerIdParam, lineIdParam, param("expected_amount", { type: "number" })],
    run: ({ db }, a) => {
      const r = agentRoot(db);
      const line = r.lines.at(targetLineIndex(r, a.customer_id, a.line_id))!;
      return Math.abs(line.data_refueling_gb - toNumber(a.expected_amount)) < 1e-6;
    },
  },
  {
    name: "assert_line_status",
    params: [customerIdParam, lineIdParam, param("expected_status", str)],
    run: ({ db }, a) => {
      const r = agentRoot(db);
      return pyEquals(r.lines.at(targetLineIndex(r, a.customer_id, a.line_id))!.status, a.expected_status);
    },
  },
  {
    name: "assert_overdue_bill_exists",
    params: [customerIdParam, param("overdue_bill_id", str)],
    run: ({ db }, a) => {
      const r = agentRoot(db);
      const customer = customerById(r, a.customer_id);
      const id = pyStr(a.overdue_bill_id);
      if (!customer.bill_ids.some((b) => b === a.overdue_bill_id))
        throw new ToolError(`Overdue bill ${id} not found`);
      if (billById(r, a.overdue_bill_id).status !== "Overdue")
        throw new ToolError(`Overdue bill ${id} is not overdue`);
      return true;
    },
  },
  {
    name: "assert_no_overdue_bill",
    params: [param("overdue_bill_id", str)],
    run: ({ db }, a) => {
      const bill = agentRoot(db).bills.find((b) => b.bill_id === a.overdue_bill_id);
      return bill === undefined || bill.status === "Paid";
    },
  },
];
