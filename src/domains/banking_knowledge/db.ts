/**
 * banking_knowledge's transactional DB (spec §2.1): 23 tables of free-form
 * records, and upstream's record helpers (§3.2, §3.3): the constraint query
 * whose text every read tool prints, insert, update.
 */
import {
  type PyValue,
  PyJsonSyntaxError,
  parsePyJson,
  pyEquals,
  pyStr,
  pyTypeName,
} from "../../core/py-json.ts";
import type { CowMap, DbState } from "../../env/db-state.ts";
import { t } from "../../env/model.ts";
import { PyTypeError } from "../../env/toolkit.ts";
import { hasKey } from "../python-ops.ts";
import { compare, numberOf, str, toFloat } from "./py.ts";

/** The tables in upstream's field order (which is also the order of `model_dump`). */
export const TABLE_NAMES = [
  "users",
  "accounts",
  "debit_cards",
  "referrals",
  "credit_card_applications",
  "user_discoverable_tools",
  "user_discoverable_tool_calls",
  "verification_history",
  "credit_card_transaction_history",
  "cash_back_disputes",
  "bank_account_transaction_history",
  "credit_card_accounts",
  "agent_discoverable_tools",
  "task_config",
  "human_transfer_requests",
  "transaction_disputes",
  "credit_card_orders",
  "debit_card_orders",
  "credit_card_closure_reasons",
  "credit_card_account_flags",
  "credit_limit_increase_requests",
  "payment_history",
  "debit_card_disputes",
] as const;

/** A table's name. */
export type TableName = (typeof TABLE_NAMES)[number];

/** One record: a JSON object with its key order (values keep int vs float). */
export type BankRecord = Map<string, PyValue>;

/** A table as a DB state holds it: records by id (copy-on-write) and a note for humans. */
export interface Table {
  data: CowMap<BankRecord>;
  notes: string;
}

const DatabaseTable = {
  ...t.model("DatabaseTable", {
    data: [t.dict(t.dict(t.any())), () => new Map()],
    notes: [t.str(), ""],
  }),
  copyOnWrite: true,
} as const;

/** upstream `TransactionalDB`: unknown tables are rejected, a missing one is an empty table. */
export const TransactionalDb = t.model(
  "TransactionalDB",
  Object.fromEntries(
    TABLE_NAMES.map((name) => [name, [DatabaseTable, () => ({ data: new Map(), notes: "" })]]),
  ),
  "forbid",
);

/** A table of the DB. */
export function table(db: DbState<any>, name: TableName): Table {
  return db.field<Table>(name);
}

/** `record.get(key, fallback)`. */
export function get(record: BankRecord | undefined, key: string, fallback: PyValue = null): PyValue {
  if (record === undefined) return fallback;
  return record.has(key) ? (record.get(key) as PyValue) : fallback;
}

/** A new record from entries in order. */
export function record(entries: Record<string, unknown>): BankRecord {
  return new Map(Object.entries(entries)) as BankRecord;
}

/** upstream `add_to_db`: false when the table does not exist or the id is taken (nothing changes then). */
export function addRecord(db: DbState<any>, name: string, id: string, value: BankRecord): boolean {
  if (!(TABLE_NAMES as readonly string[]).includes(name)) return false;
  const data = table(db, name as TableName).data;
  if (data.has(id)) return false;
  data.set(id, value);
  return true;
}

/** upstream `update_record_in_db`: sets fields in place; false when the id is not a key. */
export function updateRecord(
  db: DbState<any>,
  name: TableName,
  id: unknown,
  updates: Record<string, unknown>,
): boolean {
  const data = table(db, name).data;
  if (!hasKey(data, id)) return false;
  const target = data.mutate(id);
  for (const [field, value] of Object.entries(updates)) target.set(field, value as PyValue);
  return true;
}

/** The records of a table whose fields equal the given values (`query_db(..., return_ids=True, **c)`), in table order. */
export function findRecords(
  db: DbState<any>,
  name: TableName,
  constraints: Record<string, unknown>,
): [string, BankRecord][] {
  const out: [string, BankRecord][] = [];
  const entries = Object.entries(constraints);
  for (const [id, value] of table(db, name).data) {
    if (entries.every(([key, expected]) => constraintHolds(value, key, expected))) out.push([id, value]);
  }
  return out;
}

// ---------------------------------------------------------------------------
// The constraint query and its text (`db_query.query_database_tool`)

function contains(container: unknown, item: unknown): boolean {
  if (typeof container === "string") {
    if (typeof item !== "string")
      throw new PyTypeError(`'in <string>' requires string as left operand, not ${pyTypeName(item)}`);
    return container.includes(item);
  }
  if (Array.isArray(container)) return container.some((element) => pyEquals(element, item));
  if (container instanceof Map) return hasKey(container, item);
  if (container !== null && typeof container === "object")
    return hasKey(new Map(Object.entries(container)), item);
  throw new PyTypeError(`argument of type '${pyTypeName(container)}' is not iterable`);
}

function applyOperator(op: string, actual: unknown, expected: unknown): boolean {
  switch (op) {
    case "ne":
      return !pyEquals(actual, expected);
    case "gt":
      return compare(actual, "gt", expected);
    case "gte":
      return compare(actual, "ge", expected);
    case "lt":
      return compare(actual, "lt", expected);
    case "lte":
      return compare(actual, "le", expected);
    case "contains":
      return actual === null || actual === undefined ? false : contains(actual, expected);
    case "startswith":
      return actual === null || actual === undefined ? false : str(actual).startsWith(str(expected));
    case "endswith":
      return actual === null || actual === undefined ? false : str(actual).endsWith(str(expected));
    case "in":
      return contains(expected, actual);
    case "nin":
      return !contains(expected, actual);
    default:
      return pyEquals(actual, expected);
  }
}

function constraintHolds(value: BankRecord, key: string, expected: unknown): boolean {
  const split = key.lastIndexOf("__");
  const field = split >= 0 ? key.slice(0, split) : key;
  const op = split >= 0 ? key.slice(split + 2) : "eq";
  try {
    return applyOperator(op, get(value, field), expected);
  } catch (error) {
    // A comparison between incompatible types counts as "no match".
    if (error instanceof PyTypeError) return false;
    throw error;
  }
}

/** The `Found N record(s)` block for records of a table (also used by the sorted transaction listing). */
export function formatRecords(name: string, records: readonly [string, BankRecord][]): string {
  const lines = [`Found ${records.length} record(s) in '${name}':\n`];
  records.forEach(([id, value], i) => {
    lines.push(`${i + 1}. Record ID: ${id}`);
    for (const [field, v] of value) lines.push(`   ${field}: ${str(v)}`);
    lines.push("");
  });
  return lines.join("\n");
}

const QUERY_KEYWORDS = ["db_name", "db", "return_ids"];

/**
 * upstream `query_database_tool(name, constraints_json)`: the formatted records matching a JSON
 * object of constraints, `No records found in '…'.`, or an error text (never throws for bad input).
 */
export function queryDatabase(db: DbState<any>, name: string, constraintsJson: string): string {
  if (!(TABLE_NAMES as readonly string[]).includes(name))
    return `Error: Database '${name}' not found. Available: ${pyStr([...TABLE_NAMES])}`;
  let constraints: PyValue;
  try {
    constraints = constraintsJson ? parsePyJson(constraintsJson, { maps: true }) : new Map();
  } catch (error) {
    if (error instanceof PyJsonSyntaxError) return `Error: Invalid JSON: ${error.message}`;
    throw error;
  }
  try {
    if (!(constraints instanceof Map))
      throw new PyTypeError(`query_db() argument after ** must be a mapping, not ${pyTypeName(constraints)}`);
    const given = new Map(constraints);
    for (const keyword of QUERY_KEYWORDS) {
      if (given.has(keyword))
        throw new PyTypeError(`query_db() got multiple values for keyword argument '${keyword}'`);
    }
    const limit = given.get("limit");
    given.delete("limit");
    const entries = [...given.entries()];
    const results: [string, BankRecord][] = [];
    for (const [id, value] of table(db, name as TableName).data) {
      if (!entries.every(([key, expected]) => constraintHolds(value, key, expected))) continue;
      results.push([id, value]);
      if (limit !== undefined && limit !== null && compare(results.length, "ge", limit)) break;
    }
    if (results.length === 0) return `No records found in '${name}'.`;
    return formatRecords(name, results);
  } catch (error) {
    return `Error querying database: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Pastes a value into a one-key JSON template without escaping, as upstream's read tools do (trap T7). */
export function pastedConstraint(field: string, value: unknown): string {
  return `{"${field}": "${str(value)}"}`;
}

/** Whether a query text reports no records (the wrappers test these two substrings). */
export function noRecords(result: string, alsoNoResults = true): boolean {
  return result.includes("No records found") || (alsoNoResults && result.includes("No results found"));
}

/** `_parse_balance`: numbers as floats, strings without `$` and `,` through `float()`, anything else 0. */
export function parseBalance(value: unknown): number {
  const n = numberOf(value);
  if (n !== undefined) return n;
  if (typeof value === "string") return toFloat(value.replaceAll("$", "").replaceAll(",", ""));
  return 0;
}

/** An account's balance: `current_holdings`, else `balance`, else 0 (`_get_account_balance`). */
export function accountBalance(account: BankRecord): number {
  return parseBalance(get(account, "current_holdings", get(account, "balance", 0)));
}
