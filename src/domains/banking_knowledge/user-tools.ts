/**
 * The user simulator's toolkit (`KnowledgeUserTools`, spec §6) and the four
 * user discoverable tools (§5.2) the agent can hand over.
 */
import { isPyDict, type PyValue, pyDumps, pyStr, pyTypeName } from "../../core/py-json.ts";
import type { DbState } from "../../env/db-state.ts";
import { param, PyTypeError, type ToolDef } from "../../env/toolkit.ts";
import { hasKey } from "../python-ops.ts";
import {
  accountBalance,
  addRecord,
  get,
  noRecords,
  pastedConstraint,
  queryDatabase,
  record,
  table,
} from "./db.ts";
import {
  applicationId,
  deterministicId,
  disputeId,
  referralId,
  referralLinkId,
  TODAY,
  transactionId,
  userToolCallId,
} from "./ids.ts";
import { asFloat, fixed, floatText, inList, multiply, str, toFloat, toInt, truthy } from "./py.ts";
import type { BankingTexts } from "./texts.ts";
import {
  BOOL,
  bindKeywords,
  discoverable,
  loadArguments,
  NUM,
  type ParamShape,
  params,
  STR,
  type UserToolsState,
} from "./toolkit-state.ts";

const json2 = (value: unknown) => pyDumps(value, { indent: 2 });

/** `_check_tool_given`: the error text when the agent has not given the tool. */
function notGiven(db: DbState<any>, name: string): string | null {
  const result = queryDatabase(db, "user_discoverable_tools", pastedConstraint("tool_name", name));
  if (!noRecords(result, false)) return null;
  return `Error: Tool '${name}' has not been given to you by the agent. The agent must first use \`give_discoverable_user_tool\` to give this tool to you.`;
}

/** `_log_user_tool_call`: one record per tool and argument set (a repeat is a no-op). */
function logCall(db: DbState<any>, name: string, args: Map<string, PyValue>): void {
  addRecord(
    db,
    "user_discoverable_tool_calls",
    userToolCallId(name, args),
    record({ tool_name: name, arguments: args, called_at: TODAY, status: "CALLED" }),
  );
}

type Run = (db: DbState<any>, a: Record<string, unknown>, args: Map<string, PyValue>) => string;

/** A user discoverable tool: it checks it was given and logs the call before its own logic. */
const userTool = (name: string, kind: "read" | "write", shapes: readonly ParamShape[], run: Run) =>
  discoverable<UserToolsState>("KnowledgeUserTools", name, kind, shapes, (db, a) => {
    const error = notGiven(db, name);
    if (error) return error;
    const args = new Map(shapes.map(([key]) => [key, a[key] as PyValue]));
    logCall(db, name, args);
    return run(db, a, args);
  });

/** The user discoverable tools, in upstream's order. */
export const USER_DISCOVERABLE_TOOLS: readonly ToolDef<UserToolsState>[] = [
  userTool(
    "submit_cash_back_dispute_0589",
    "write",
    [
      ["user_id", STR],
      ["transaction_id", STR],
    ],
    (db, a, args) => {
      const id = disputeId(a.user_id, a.transaction_id);
      const config = table(db, "task_config").data;
      let auto: PyValue = false;
      if (config.size > 0) {
        const settings = config.has("dispute_settings") ? config.get("dispute_settings")! : new Map();
        auto = get(settings, "auto_resolve_disputes", false);
      }
      const resolved = truthy(auto);
      const dispute = record({
        dispute_id: id,
        user_id: a.user_id,
        transaction_id: a.transaction_id,
        submitted_at: TODAY,
        status: resolved ? "RESOLVED" : "SUBMITTED",
        ...(resolved ? { resolution: "APPROVED" } : {}),
      });
      const added = addRecord(db, "cash_back_disputes", id, dispute);
      const head = `Cash back dispute submitted successfully. Your case has been queued for review.\n\nExecuted: submit_cash_back_dispute_0589\nArguments: ${json2(args)}\n`;
      if (!added) return `${head}Note: Dispute may have already been submitted for this transaction.`;
      return `${head}Dispute ID: ${id}\n${
        resolved
          ? "Status: RESOLVED - The dispute has been reviewed and approved. The transaction rewards need to be updated."
          : "Status: SUBMITTED - Your dispute has been queued for review."
      }`;
    },
  ),
  userTool(
    "get_referral_link",
    "write",
    [
      ["user_id", STR],
      ["card_name", STR],
    ],
    (db, a, args) => {
      const id = referralLinkId(a.user_id, a.card_name);
      const added = addRecord(
        db,
        "referrals",
        id,
        record({
          referral_id: id,
          referrer_id: a.user_id,
          referred_account_type: a.card_name,
          referral_status: "NO_PROGRESS",
          date: TODAY,
        }),
      );
      const head = `Referral link generated successfully. Share this link with the person you want to refer.\n\nExecuted: get_referral_link\nArguments: ${json2(args)}\n`;
      return added
        ? `${head}Referral ID: ${id}\nReferral link: https://rhobank.com/refer/${id}`
        : `${head}Note: A referral link for this card may have already been generated.`;
    },
  ),
  userTool("get_card_last_4_digits", "read", [["credit_card_account_id", STR]], (db, a, args) => {
    const result = queryDatabase(
      db,
      "credit_card_accounts",
      pastedConstraint("account_id", a.credit_card_account_id),
    );
    if (noRecords(result)) return `Error: Credit card account '${str(a.credit_card_account_id)}' not found.`;
    const hex = deterministicId(`card_last4:${str(a.credit_card_account_id)}`, 64);
    const last4 = [...hex]
      .filter((c) => c >= "0" && c <= "9")
      .slice(0, 4)
      .join("")
      .padEnd(4, "0");
    return `Card information retrieved successfully.\n\nExecuted: get_card_last_4_digits\nArguments: ${json2(args)}\nLast 4 digits of card: ${last4}`;
  }),
  userTool(
    "deposit_check_3847",
    "write",
    [
      ["account_id", STR],
      ["check_amount", NUM],
    ],
    (db, a, args) => {
      let amount: number;
      try {
        amount = toFloat(a.check_amount);
      } catch (error) {
        if (error instanceof PyTypeError || (error as Error).name === "ValueError")
          return `Error: Invalid check amount '${str(a.check_amount)}'. Must be a number.`;
        throw error;
      }
      if (amount <= 0) return "Error: Check amount must be positive.";
      const accounts = table(db, "accounts").data;
      if (!hasKey(accounts, a.account_id)) return `Error: Account '${str(a.account_id)}' not found.`;
      const account = accounts.get(a.account_id)!;
      if (!inList(get(account, "status"), ["ACTIVE", "OPEN"]))
        return `Error: Account '${str(a.account_id)}' is not active.`;
      const previous = accountBalance(account);
      const next = previous + amount;
      accounts.mutate(a.account_id).set("current_holdings", `$${fixed(next, 2)}`);
      return (
        "Check deposited successfully. Funds will be available according to your account's deposit policy.\n\n" +
        `Executed: deposit_check_3847\nArguments: ${json2(args)}\nCheck deposit processed!\n` +
        `  - Account: ${str(a.account_id)}\n  - Check Amount: $${fixed(amount, 2)}\n` +
        `  - Previous Balance: $${fixed(previous, 2)}\n  - New Balance: $${fixed(next, 2)}`
      );
    },
  ),
];

const USER_TOOL_BY_NAME = new Map(USER_DISCOVERABLE_TOOLS.map((tool) => [tool.name, tool]));

/** A user discoverable tool by name (the agent's `give_discoverable_user_tool` needs their signatures). */
export function userDiscoverableTool(name: unknown): ToolDef<UserToolsState> | undefined {
  return typeof name === "string" ? USER_TOOL_BY_NAME.get(name) : undefined;
}

const CARD_TYPES = [
  "Bronze Rewards Card",
  "Business Bronze Rewards Card",
  "Business Gold Rewards Card",
  "Business Platinum Rewards Card",
  "Business Silver Rewards Card",
  "Crypto-Cash Back",
  "Diamond Elite Card",
  "EcoCard",
  "Gold Rewards Card",
  "Green Rewards Card",
  "Platinum Rewards Card",
  "Silver Rewards Card",
  "Silver Zoom Card",
];

/** Reward rate in percent per card and category (`default` for every other category). */
const REWARDS: Record<string, Record<string, number>> = {
  "Bronze Rewards Card": { default: 1.0 },
  "Silver Rewards Card": { Travel: 4.0, Software: 4.0, default: 1.0 },
  "Gold Rewards Card": { default: 2.5 },
  "Platinum Rewards Card": { default: 10.0 },
  "Business Bronze Rewards Card": { default: 1.0 },
  "Business Silver Rewards Card": { Travel: 10.0, Software: 10.0, default: 1.0 },
  "Green Rewards Card": { Sustainable: 3.0, default: 1.0 },
  "Business Gold Rewards Card": { Operations: 2.5, default: 1.0 },
  "Business Platinum Rewards Card": { Travel: 4.0, Software: 4.0, Media: 4.0, default: 1.5 },
  "Silver Zoom Card": { Transportation: 3.0, default: 1.0 },
  "Diamond Elite Card": { default: 5.0 },
  EcoCard: { Green: 5.0, default: 1.0 },
  "Crypto-Cash Back": { default: 2.0 },
};

/** Python `key in d` / `d.get(key)` for a string-keyed dict: unhashable keys raise. */
function dictKey(key: unknown): string | undefined {
  if (Array.isArray(key) || isPyDict(key)) throw new PyTypeError(`unhashable type: '${pyTypeName(key)}'`);
  return typeof key === "string" ? key : undefined;
}

/** `call_discoverable_user_tool`: `key not in value` as Python evaluates it for the parsed arguments. */
function lacks(value: PyValue, key: string): boolean {
  if (value instanceof Map) return !value.has(key);
  if (Array.isArray(value)) return !value.includes(key);
  if (typeof value === "string") return !value.includes(key);
  throw new PyTypeError(`argument of type '${pyTypeName(value)}' is not iterable`);
}

/** `for key in value` of the parsed arguments. */
function keysOf(value: PyValue): unknown[] {
  if (value instanceof Map) return [...value.keys()];
  if (Array.isArray(value)) return value;
  if (typeof value === "string") return [...value];
  throw new PyTypeError(`'${pyTypeName(value)}' object is not iterable`);
}

/** The tools the user simulator is offered, with their descriptions. */
export function offeredUserTools(texts: BankingTexts): ToolDef<UserToolsState>[] {
  const describe = (
    tool: Omit<ToolDef<UserToolsState>, "description" | "owner">,
  ): ToolDef<UserToolsState> => ({
    ...tool,
    owner: "KnowledgeUserTools",
    description: texts.description(tool.name),
    params: tool.params.map((p) => {
      const description = texts.paramDescription(tool.name, p.name);
      return description === undefined ? p : { ...p, description };
    }),
  });
  return [
    describe({
      name: "apply_for_credit_card",
      kind: "write",
      params: params([
        ["card_type", STR],
        ["customer_name", STR],
        ["annual_income", NUM],
        ["rho_bank_subscription", BOOL, false],
      ]),
      run: ({ db }, a) => {
        if (!inList(a.card_type, CARD_TYPES))
          return `Error: Invalid card_type '${str(a.card_type)}'. Must be one of: ${pyStr(CARD_TYPES)}`;
        let income: number;
        try {
          income = toFloat(a.annual_income);
        } catch (error) {
          if (error instanceof PyTypeError || (error as Error).name === "ValueError")
            return "Error: Invalid annual_income. Must be a number.";
          throw error;
        }
        const id = applicationId(a.card_type, a.customer_name, asFloat(income), a.rho_bank_subscription);
        const added = addRecord(
          db,
          "credit_card_applications",
          id,
          record({
            application_id: id,
            card_type: a.card_type,
            customer_name: a.customer_name,
            annual_income: asFloat(income),
            rho_bank_subscription: a.rho_bank_subscription,
            status: "PENDING",
            date: TODAY,
          }),
        );
        if (!added) return `Failed to submit application: Record ID '${id}' may already exist.`;
        return "Credit card application submitted:\nYour application has been successfully submitted. You will receive a decision within 5-7 business days via email.";
      },
    }),
    describe({
      name: "submit_referral",
      kind: "write",
      params: params([
        ["user_id", STR],
        ["account_type", STR],
      ]),
      run: ({ db }, a) => {
        const id = referralId(a.user_id, a.account_type);
        const added = addRecord(
          db,
          "referrals",
          id,
          record({
            referral_id: id,
            referrer_id: a.user_id,
            referred_account_type: a.account_type,
            referral_status: "NO_PROGRESS",
            date: TODAY,
          }),
        );
        if (!added) return `Failed to submit referral: Record ID '${id}' may already exist.`;
        return (
          `Referral request submitted successfully!\n  - Referral ID: ${id}\n  - Referrer ID: ${str(a.user_id)}\n` +
          `  - Account Type: ${str(a.account_type)}\n  - Status: NO_PROGRESS\n  - Date: ${TODAY}\n\n` +
          "Share your referral ID with the person you're referring. They will need to use this when applying for their account."
        );
      },
    }),
    describe({
      name: "call_discoverable_user_tool",
      kind: "write",
      params: [param("discoverable_tool_name", STR), param("arguments", STR, undefined, { default: "{}" })],
      run: (ctx, a) => {
        const name = a.discoverable_tool_name;
        dictKey(name);
        const tool = userDiscoverableTool(name);
        if (!tool) return `Error: Unknown discoverable tool '${str(name)}'.`;
        const loaded = loadArguments(a.arguments, true);
        if (!loaded.ok) return `Error: Invalid JSON in arguments: ${loaded.error}`;
        for (const p of tool.params) {
          if (p.default === undefined && lacks(loaded.value, p.name))
            return `Error: Missing required parameter: ${p.name}`;
        }
        const known = new Set(tool.params.map((p) => p.name));
        for (const key of keysOf(loaded.value)) {
          if (!known.has(dictKey(key) ?? "")) return `Error: Unexpected parameter: ${str(key)}`;
        }
        try {
          return tool.run(ctx, bindKeywords("KnowledgeUserTools", tool, loaded.value));
        } catch (error) {
          if (error instanceof PyTypeError)
            return `Error: Invalid arguments for tool '${tool.name}': ${error.message}`;
          throw error;
        }
      },
    }),
    describe({
      name: "list_discoverable_user_tools",
      kind: "read",
      params: [],
      // The "nothing given" branch upstream tests for never matches (trap T8).
      run: ({ db }) =>
        `Tools given to you by the agent:\n${queryDatabase(db, "user_discoverable_tools", "{}")}`,
    }),
    describe({
      name: "request_human_agent_transfer",
      kind: "write",
      params: [],
      run: ({ db }) => {
        const existing = queryDatabase(db, "human_transfer_requests", "{}");
        const n = noRecords(existing) ? 1 : existing.split("request_id").length;
        const id = `transfer_request_${n}`;
        addRecord(
          db,
          "human_transfer_requests",
          id,
          record({ request_id: id, request_number: n, requested_at: TODAY, status: "PENDING" }),
        );
        return `Transfer request #${n} submitted.\nThe agent will process your request.`;
      },
    }),
    describe({
      name: "submit_transaction",
      kind: "write",
      params: params([
        ["user_id", STR],
        ["credit_card_type", STR],
        ["merchant_name", STR],
        ["amount", NUM],
        ["category", STR],
      ]),
      run: ({ db }, a) => {
        const cardType = dictKey(a.credit_card_type);
        if (cardType === undefined || !Object.hasOwn(REWARDS, cardType))
          return `Error: Unknown credit card type '${str(a.credit_card_type)}'. Available types: ${pyStr(Object.keys(REWARDS))}`;
        const id = transactionId(a.user_id, a.credit_card_type, a.merchant_name, a.amount, a.category);
        const rates = REWARDS[cardType]!;
        const category = dictKey(a.category);
        const rate =
          category !== undefined && Object.hasOwn(rates, category) ? rates[category]! : rates.default!;
        const points = toInt(multiply(a.amount, rate));
        const added = addRecord(
          db,
          "credit_card_transaction_history",
          id,
          record({
            transaction_id: id,
            user_id: a.user_id,
            credit_card_type: a.credit_card_type,
            merchant_name: a.merchant_name,
            transaction_amount: `$${fixed(a.amount, 2)}`,
            transaction_date: TODAY,
            category: a.category,
            status: "COMPLETED",
            rewards_earned: `${points} points`,
          }),
        );
        if (!added) return `Failed to submit transaction: Record ID '${id}' may already exist.`;
        return (
          `Transaction submitted successfully!\n  - Transaction ID: ${id}\n  - User ID: ${str(a.user_id)}\n` +
          `  - Card Type: ${str(a.credit_card_type)}\n  - Merchant: ${str(a.merchant_name)}\n` +
          `  - Amount: $${fixed(a.amount, 2)}\n  - Category: ${str(a.category)}\n  - Date: ${TODAY}\n` +
          `  - Rewards Earned: ${points} points (${floatText(rate)}% cashback rate)\n`
        );
      },
    }),
  ];
}
