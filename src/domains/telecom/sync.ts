/**
 * Telecom's `sync_tools` (specs/telecom.md §4): after every successful tool
 * call, env function call and set-up, the phone's surroundings are derived
 * from the carrier DB (line active, roaming allowed, data cap reached), a paid
 * payment request settles its bill, and a bill awaiting payment becomes a new
 * payment request on the phone. It never runs a network search.
 */
import type { Environment } from "../../env/environment.ts";
import {
  billsAwaitingPayment,
  customerByPhone,
  lineIndexByPhone,
  planById,
  setBillPaid,
} from "./agent-tools.ts";
import { agentRoot, userRoot } from "./models.ts";

/** The `sync` hook of a telecom {@link Environment}. */
export function syncTelecom(env: Environment): void {
  if (!env.userTools) return;
  const { surroundings } = userRoot(env.userTools.db);
  const phoneNumber = surroundings.phone_number;
  if (phoneNumber === null) return;
  const root = agentRoot(env.tools.db);
  const line = root.lines.at(lineIndexByPhone(root, phoneNumber))!;
  surroundings.line_active = line.status === "Active";
  surroundings.roaming_allowed = line.roaming_enabled;
  const plan = planById(root, line.plan_id);
  surroundings.mobile_data_usage_exceeded = line.data_used_gb >= plan.data_limit_gb + line.data_refueling_gb;
  const paid = surroundings.payment_request;
  if (paid?.paid) {
    setBillPaid(root, paid.bill_id);
    surroundings.payment_request = null;
  }
  if (surroundings.payment_request === null) {
    const awaiting = billsAwaitingPayment(root, customerByPhone(root, phoneNumber));
    const first = awaiting[0];
    if (first)
      surroundings.payment_request = { bill_id: first.bill_id, amount_due: first.total_due, paid: false };
  }
}
