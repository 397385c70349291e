/**
 * The 14 base agent tools of `KnowledgeTools` (spec §4), including the three
 * that reach discoverable tools: `unlock_discoverable_agent_tool`,
 * `call_discoverable_agent_tool` and `give_discoverable_user_tool` (§5).
 */
import { type PyValue, pyDumps, pyTypeName } from "../../core/py-json.ts";
import { type ParamSpec, param, PyTypeError, type ToolDef } from "../../env/toolkit.ts";
import { AGENT_DISCOVERABLE_TOOLS } from "./agent-discoverable.ts";
import { addRecord, pastedConstraint, queryDatabase, record, updateRecord } from "./db.ts";
import { formatToolDoc } from "./docstrings.ts";
import { agentToolCalledId, CURRENT_TIME_TEXT, userToolGivenId, verificationId } from "./ids.ts";
import { inList, isDict, str, truthy } from "./py.ts";
import type { BankingTexts } from "./texts.ts";
import { type AgentToolsState, bindKeywords, loadArguments, STR } from "./toolkit-state.ts";
import { userDiscoverableTool } from "./user-tools.ts";

/** The transfer reason codes, in upstream's order (`TransferReasonLiteral`). */
export const TRANSFER_REASONS = [
  "fraud_or_security_concern",
  "account_closure_request",
  "deceased_account_holder",
  "legal_or_regulatory_matter",
  "account_ownership_dispute",
  "complex_billing_dispute",
  "abusive_customer_behavior",
  "third_party_inquiry",
  "technical_system_error",
  "unconfirmed_external_communication",
  "customer_demands_after_unavailable_offer_refusal",
  "kb_search_unsuccessful_customer_requests_transfer",
  "specialized_department_required",
  "accessibility_or_special_needs",
  "customer_frustrated_demands_human",
  "supervisor_request_service_complaint",
  "customer_requests_human_no_specific_reason",
  "request_completed_customer_wants_human_followup",
  "other",
];

const AGENT_DISCOVERABLE_BY_NAME = new Map(AGENT_DISCOVERABLE_TOOLS.map((tool) => [tool.name, tool]));

/** `name in dict` for the discoverable-tool registries: unhashable names raise. */
function discoverableNamed<T>(registry: Map<string, T>, name: unknown): T | undefined {
  if (Array.isArray(name) || isDict(name)) throw new PyTypeError(`unhashable type: '${pyTypeName(name)}'`);
  return typeof name === "string" ? registry.get(name) : undefined;
}

/** The keys `for key in value` visits for parsed arguments (dict keys, list items, characters). */
function iterated(value: PyValue): unknown[] {
  if (value instanceof Map) return [...value.keys()];
  if (Array.isArray(value)) return value;
  if (typeof value === "string") return [...value];
  throw new PyTypeError(`'${pyTypeName(value)}' object is not iterable`);
}

/** The 14 base tools, described with the given texts. */
export function baseAgentTools(texts: BankingTexts): ToolDef<AgentToolsState>[] {
  const described = (
    name: string,
    kind: ToolDef["kind"],
    params: ParamSpec[],
    run: ToolDef<AgentToolsState>["run"],
    mutatesState?: boolean,
  ): ToolDef<AgentToolsState> => ({
    name,
    kind,
    owner: "KnowledgeTools",
    description: texts.description(name),
    params: params.map((p) => {
      const description = texts.paramDescription(name, p.name);
      return description === undefined ? p : { ...p, description };
    }),
    run,
    ...(mutatesState === undefined ? {} : { mutatesState }),
  });
  const lookup = (name: string, table: Parameters<typeof queryDatabase>[1], field: string, arg: string) =>
    described(name, "read", [param(arg, STR)], ({ db }, a) =>
      queryDatabase(db, table, pastedConstraint(field, a[arg])),
    );
  return [
    described(
      "transfer_to_human_agents",
      "generic",
      [
        param("summary", STR),
        param("reason", { enum: TRANSFER_REASONS, type: "string" }, undefined, { default: "other" }),
      ],
      (_ctx, a) => {
        if (!inList(a.reason, TRANSFER_REASONS))
          return `Error: Invalid transfer reason '${str(a.reason)}'. Must be one of: ${TRANSFER_REASONS.join(", ")}`;
        return `Transfer successful (reason: ${str(a.reason)}). A human agent will assist you shortly.`;
      },
    ),
    described("get_current_time", "read", [], () => CURRENT_TIME_TEXT),
    lookup("get_user_information_by_id", "users", "user_id", "user_id"),
    lookup("get_user_information_by_name", "users", "name", "customer_name"),
    lookup("get_user_information_by_email", "users", "email", "email"),
    described("change_user_email", "write", [param("user_id", STR), param("new_email", STR)], ({ db }, a) => {
      if (!updateRecord(db, "users", a.user_id, { email: a.new_email }))
        return `Error: User with ID '${str(a.user_id)}' not found.`;
      return `Email updated successfully.\n  - User ID: ${str(a.user_id)}\n  - New Email: ${str(a.new_email)}`;
    }),
    lookup("get_referrals_by_user", "referrals", "referrer_id", "user_id"),
    lookup("get_credit_card_transactions_by_user", "credit_card_transaction_history", "user_id", "user_id"),
    lookup("get_credit_card_accounts_by_user", "credit_card_accounts", "user_id", "user_id"),
    described(
      "log_verification",
      "write",
      ["name", "user_id", "address", "email", "phone_number", "date_of_birth", "time_verified"].map((n) =>
        param(n, STR),
      ),
      ({ db }, a) => {
        const id = verificationId(a.user_id, a.time_verified);
        const verification = record({
          name: a.name,
          user_id: a.user_id,
          address: a.address,
          email: a.email,
          phone_number: a.phone_number,
          date_of_birth: a.date_of_birth,
          time_verified: a.time_verified,
        });
        if (!addRecord(db, "verification_history", id, verification))
          return "Failed to log verification: Record may already exist.";
        return `Verification logged successfully.\n  - User: ${str(a.name)} (ID: ${str(a.user_id)})\n  - Verified at: ${str(a.time_verified)}`;
      },
    ),
    described(
      "give_discoverable_user_tool",
      "generic",
      [param("discoverable_tool_name", STR), param("arguments", STR, undefined, { default: "{}" })],
      ({ db, state }, a) => {
        const name = a.discoverable_tool_name;
        if (typeof name !== "string")
          throw new PyTypeError(`attribute name must be string, not '${pyTypeName(name)}'`);
        const tool = userDiscoverableTool(name);
        if (!tool) return `Error: Unknown discoverable tool '${name}'.`;
        const loaded = loadArguments(a.arguments, false);
        if (!loaded.ok) return `Error: Invalid JSON in arguments: ${loaded.error}`;
        // The signature checked is the function's own, so `self` counts as a parameter.
        const known = new Set(["self", ...tool.params.map((p) => p.name)]);
        for (const key of iterated(loaded.value)) {
          if (Array.isArray(key) || isDict(key))
            throw new PyTypeError(`unhashable type: '${pyTypeName(key)}'`);
          if (typeof key !== "string" || !known.has(key)) return `Error: Unexpected parameter: ${str(key)}`;
        }
        const doc = state.texts.toolDoc(name, tool.params);
        addRecord(
          db,
          "user_discoverable_tools",
          userToolGivenId(name),
          record({ tool_name: name, status: "GIVEN" }),
        );
        const shown = truthy(loaded.value) ? pyDumps(loaded.value, { indent: 2 }) : "(no arguments)";
        return (
          `Tool given to user: ${name}\nDescription: ${doc.description}\nArguments: ${shown}\n\n` +
          "The user can now execute this action by calling `call_discoverable_user_tool` " +
          `with discoverable_tool_name='${name}' and the same arguments.`
        );
      },
      true,
    ),
    described(
      "unlock_discoverable_agent_tool",
      "generic",
      [param("agent_tool_name", STR)],
      ({ state }, a) => {
        const tool = discoverableNamed(AGENT_DISCOVERABLE_BY_NAME, a.agent_tool_name);
        if (!tool)
          return `Error: Unknown agent tool '${str(a.agent_tool_name)}'. This tool is not available.`;
        const doc = state.texts.toolDoc(tool.name, tool.params);
        state.unlocked.add(tool.name);
        return (
          `Tool unlocked: ${tool.name}\nDescription: ${doc.description}\n\n${formatToolDoc(tool.name, doc)}\n\n` +
          "You can now use this tool by calling `call_discoverable_agent_tool` with " +
          `agent_tool_name='${tool.name}' and the required arguments.`
        );
      },
      true,
    ),
    described(
      "call_discoverable_agent_tool",
      "write",
      [param("agent_tool_name", STR), param("arguments", STR, undefined, { default: "{}" })],
      (ctx, a) => {
        const tool = discoverableNamed(AGENT_DISCOVERABLE_BY_NAME, a.agent_tool_name);
        if (!tool)
          return `Error: Unknown agent tool '${str(a.agent_tool_name)}'. This tool is not available.`;
        if (!ctx.state.unlocked.has(tool.name))
          return `Error: Tool '${tool.name}' has not been unlocked. You must first use \`unlock_discoverable_agent_tool\` to unlock this tool before calling it.`;
        const loaded = loadArguments(a.arguments, true);
        if (!loaded.ok) return `Error: Invalid JSON in arguments: ${loaded.error}`;
        let result: unknown;
        try {
          result = tool.run(ctx, bindKeywords("KnowledgeTools", tool, loaded.value));
        } catch (error) {
          if (error instanceof PyTypeError) return `Error: Invalid arguments: ${error.message}`;
          throw error;
        }
        if (tool.kind === "write" || ctx.state.allowlist.has(tool.name)) {
          addRecord(
            ctx.db,
            "agent_discoverable_tools",
            agentToolCalledId(tool.name),
            record({ tool_name: tool.name, status: "CALLED" }),
          );
        }
        return result;
      },
    ),
    // The "nothing called" branch upstream tests for never matches (trap T8).
    described(
      "list_discoverable_agent_tools",
      "read",
      [],
      ({ db }) => `Your called agent tools:\n${queryDatabase(db, "agent_discoverable_tools", "{}")}`,
    ),
  ];
}
