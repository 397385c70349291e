/**
 * The fixed clock and the deterministic ids of banking_knowledge (spec §2.3):
 * every id is a prefix of the sha256 of a seed text built from the action's
 * inputs, so replaying an action gives the same id and a repeat collides.
 */
import { createHash } from "node:crypto";
import { pyDumps, pyTypeName } from "../../core/py-json.ts";
import { AttributeError } from "../../env/db-state.ts";
import { PyTypeError } from "../../env/toolkit.ts";
import { fixed, str } from "./py.ts";

/** Today in the bank's world, `MM/DD/YYYY`. */
export const TODAY = "11/14/2025";
/** The fixed "now" (naive): 2025-11-14 03:40:00, as a UTC timestamp in ms for date arithmetic. */
export const NOW_MS = Date.UTC(2025, 10, 14, 3, 40, 0);
/** What `get_current_time` says. */
export const CURRENT_TIME_TEXT = "The current time is 2025-11-14 03:40:00 EST.";

/** The first `length` hex characters of sha256(utf8(seed)) (`_deterministic_id`). */
export function deterministicId(seed: string, length = 16): string {
  return createHash("sha256")
    .update(seed, "utf8")
    .digest("hex")
    .slice(0, 2 * Math.floor(length / 2));
}

/** Python `":".join(parts)`: every part must already be a string. */
function joinSeed(parts: readonly unknown[]): string {
  parts.forEach((part, i) => {
    if (typeof part !== "string")
      throw new PyTypeError(`sequence item ${i}: expected str instance, ${pyTypeName(part)} found`);
  });
  return parts.join(":");
}

/** `txn_…` of a credit-card transaction (user `submit_transaction`, statement credits). */
export function transactionId(
  userId: unknown,
  cardType: unknown,
  merchant: unknown,
  amount: unknown,
  category: unknown,
): string {
  const amountText = fixed(amount, 2);
  return `txn_${deterministicId(joinSeed(["transaction", userId, cardType, merchant, amountText, category]), 12)}`;
}

/** Id of a referral submitted by the user. */
export function referralId(referrerId: unknown, accountType: unknown): string {
  return deterministicId(joinSeed(["referral", referrerId, accountType]));
}

/** Id of a credit-card application; the income is Python's float repr, the flag Python's `str()`. */
export function applicationId(
  cardType: unknown,
  customerName: unknown,
  annualIncome: unknown,
  subscription: unknown,
): string {
  return deterministicId(
    `credit_card:${str(cardType)}:${str(customerName)}:${str(annualIncome)}:${str(subscription)}`,
  );
}

/** `{user_id}_{time}` with spaces as `_` and no `:` or `-`. */
export function verificationId(userId: unknown, timeVerified: unknown): string {
  if (typeof timeVerified !== "string") throw new AttributeError(pyTypeName(timeVerified), "replace");
  const suffix = timeVerified.replaceAll(" ", "_").replaceAll(":", "").replaceAll("-", "");
  return `${str(userId)}_${suffix}`;
}

/** Id of the record saying a user discoverable tool was given. */
export function userToolGivenId(tool: string): string {
  return deterministicId(`user_discoverable_tool:${tool}`);
}

/** Id of the record of a user discoverable tool call (its arguments as sorted-key JSON). */
export function userToolCallId(tool: string, args: unknown): string {
  return deterministicId(`user_discoverable_tool_call:${tool}:${pyDumps(args, { sortKeys: true })}`);
}

/** Id of the record saying an agent discoverable tool was called. */
export function agentToolCalledId(tool: string): string {
  return deterministicId(`agent_discoverable_tool:${tool}`);
}

/** `dsp_…` of a dispute (credit card, debit card, cash back). */
export function disputeId(userId: unknown, transactionId: unknown): string {
  return `dsp_${deterministicId(`dispute:${str(userId)}:${str(transactionId)}`, 12)}`;
}

/** Id of a referral link made by the user discoverable tool. */
export function referralLinkId(userId: unknown, cardName: unknown): string {
  return deterministicId(`referral_link:${str(userId)}:${str(cardName)}`);
}

/** `ccord_…` of a replacement credit-card order. */
export function creditCardOrderId(accountId: unknown, userId: unknown, reason: unknown): string {
  return `ccord_${deterministicId(`credit_card_order:${str(accountId)}:${str(userId)}:${str(reason)}`, 12)}`;
}

/** `clsr_…` of a closure-reason record (one per account and user). */
export function closureReasonId(accountId: unknown, userId: unknown): string {
  return `clsr_${deterministicId(`closure_reason:${str(accountId)}:${str(userId)}`, 12)}`;
}

/** `ccflag_…` of a credit-card account flag. */
export function accountFlagId(accountId: unknown, flagType: unknown, expirationDate: unknown): string {
  return `ccflag_${deterministicId(`account_flag:${str(accountId)}:${str(flagType)}:${str(expirationDate)}`, 12)}`;
}

/** `cli_…` of a credit-limit request (the amount with two decimals). */
export function creditLimitRequestId(accountId: unknown, userId: unknown, amount: number): string {
  return `cli_${deterministicId(`cli_request:${str(accountId)}:${str(userId)}:${fixed(amount, 2)}`, 12)}`;
}

/** `dcord_…` of a debit-card order. */
export function debitCardOrderId(accountId: unknown, userId: unknown, deliveryOption: unknown): string {
  return `dcord_${deterministicId(`debit_card_order:${str(accountId)}:${str(userId)}:${str(deliveryOption)}`, 12)}`;
}

/** `dbc_…` of a new debit card. */
export function debitCardId(accountId: unknown, userId: unknown, issueDate: string): string {
  return `dbc_${deterministicId(`debit_card:${str(accountId)}:${str(userId)}:${issueDate}`, 12)}`;
}

/**
 * Whole days from a `%m/%d/%Y` date (midnight) to the fixed now, or undefined when the text does
 * not parse (Python `strptime` accepts one-digit months and days).
 */
export function daysSince(dateText: string, nowMs = NOW_MS): number | undefined {
  const opened = parseDate(dateText);
  if (opened === undefined) return undefined;
  return Math.floor((nowMs - opened) / 86_400_000);
}

/** Today at midnight (what `strptime(get_today_str())` gives). */
export const TODAY_MS = Date.UTC(2025, 10, 14);

/** `datetime.strptime(text, "%m/%d/%Y")` as a UTC timestamp in ms; undefined when it does not parse. */
export function parseDate(text: string): number | undefined {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text);
  if (!m) return undefined;
  return validDate(Number(m[3]), Number(m[1]), Number(m[2]), 0, 0, 0);
}

/** `datetime.strptime(text, "%m/%d/%Y %H:%M:%S")`; undefined when it does not parse. */
export function parseDateTime(text: string): number | undefined {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4}) (\d{1,2}):(\d{1,2}):(\d{1,2})$/.exec(text);
  if (!m) return undefined;
  return validDate(Number(m[3]), Number(m[1]), Number(m[2]), Number(m[4]), Number(m[5]), Number(m[6]));
}

function validDate(year: number, month: number, day: number, h: number, min: number, s: number) {
  if (month < 1 || month > 12 || day < 1 || h > 23 || min > 59 || s > 59) return undefined;
  const ms = Date.UTC(year, month - 1, day, h, min, s);
  const check = new Date(ms);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day)
    return undefined;
  return ms;
}
