/**
 * The texts of banking_knowledge that reach a model besides the data folder's
 * prompt templates: the descriptions of the offered tools, the discoverable
 * tools' docstrings that `unlock_discoverable_agent_tool` and
 * `give_discoverable_user_tool` print, and the few sentences of upstream's
 * `retrieval.py` that go into policies.
 *
 * Upstream's own texts come from the data folder's extracted texts file
 * (`tau data pull`, or `tau data extract-texts --from <checkout>`; see
 * `domains/texts/`); nothing of them is in this repository. Without that file
 * the wording below, our own, is used, and {@link BankingTexts.source} says so.
 */
import type { ParamSpec } from "../../env/toolkit.ts";
import { loadUpstreamTexts, type UpstreamTexts } from "../texts/store.ts";
import { TAU2_TEXT } from "../texts/tau2.ts";
import { ToolTextsMismatchError } from "../texts/tool-wording.ts";
import { parseToolDoc, type ToolDoc } from "./docstrings.ts";

/** Where banking's texts came from. */
export type TextSource = "upstream" | "paraphrased";

/** Lookups of the texts a banking environment shows a model. */
export interface BankingTexts {
  readonly source: TextSource;
  /** The upstream texts these come from (null for our own wording). */
  readonly upstream: UpstreamTexts | null;
  /** The parsed docstring of a discoverable tool (its parameters as upstream documents them). */
  toolDoc(name: string, params: readonly ParamSpec[]): ToolDoc;
  /** The description of an offered tool. */
  description(tool: string): string;
  /** The description of an offered tool's parameter. */
  paramDescription(tool: string, param: string): string | undefined;
  /** The AllTools policy's sentence naming the dense search's provider and model. */
  denseSearchSentence(provider: "openai" | "openrouter", model: string): string;
  /** What `golden_retrieval`'s policy says when the task names no known document. */
  readonly noDocuments: string;
  /** The run-level policy recorded for `golden_retrieval`, whose real policy is per task. */
  readonly perTaskPolicy: string;
  /** The LLM reranker's question about one document (answered with a 0–10 `relevance_score`). */
  rerankerPrompt(query: string, document: string): string;
}

const DOMAIN = "banking_knowledge";

/** banking's texts from a data folder's extracted upstream texts. */
export function upstreamBankingTexts(texts: UpstreamTexts): BankingTexts {
  const fallback = paraphrasedTexts();
  const tool = (name: string) => {
    const found = texts.tool(DOMAIN, name);
    if (!found)
      throw new ToolTextsMismatchError(`${texts.path} has no texts for the ${DOMAIN} tool '${name}'`);
    return found;
  };
  const parsed = new Map<string, ToolDoc>();
  return {
    source: "upstream",
    upstream: texts,
    toolDoc: (name, params) => {
      const doc = texts.discoverableTool(DOMAIN, name);
      if (doc === undefined) return fallback.toolDoc(name, params);
      let value = parsed.get(name);
      if (!value) {
        value = parseToolDoc(doc);
        parsed.set(name, value);
      }
      return value;
    },
    description: (name) => tool(name).description,
    // A parameter the docstring does not name gets no description, as upstream's schema has none.
    paramDescription: (name, param) =>
      tool(name).params.find((p) => p.name === param)?.description ?? undefined,
    denseSearchSentence: (provider, model) =>
      texts.format(TAU2_TEXT.bankingDenseInstructions, {
        provider: texts.text(
          provider === "openai"
            ? TAU2_TEXT.bankingDenseProviderOpenai
            : TAU2_TEXT.bankingDenseProviderOpenrouter,
        ),
        model,
      }),
    noDocuments: texts.text(TAU2_TEXT.bankingNoDocuments),
    perTaskPolicy: texts.text(TAU2_TEXT.bankingPerTaskPolicy),
    // Upstream's reranker prompt lives in a file the extraction does not read
    // (knowledge/postprocessors/pointwise_llm_reranker.py); ours stands in, and a configuration that
    // reranks is therefore not upstream's wording (see the domain's `upstreamTexts`).
    rerankerPrompt: fallback.rerankerPrompt,
  };
}

/** The texts for a data folder: upstream's when it has the extracted texts, else our own wording. */
export function loadBankingTexts(dataDir: string): BankingTexts {
  const upstream = loadUpstreamTexts(dataDir);
  return upstream ? upstreamBankingTexts(upstream) : paraphrasedTexts();
}

function typeName(param: ParamSpec): string {
  const type = param.schema.type;
  return typeof type === "string" ? type : "string";
}

/** Our own wording for every text (used when upstream's source is not available). */
export function paraphrasedTexts(): BankingTexts {
  return {
    source: "paraphrased",
    upstream: null,
    toolDoc: (name, params) => {
      const entry = DISCOVERABLE_DOCS[name];
      const parameters: ToolDoc["parameters"] = new Map();
      for (const param of params) {
        parameters.set(param.name, {
          type: typeName(param),
          description: entry?.[1][param.name] ?? param.name.replaceAll("_", " "),
          required: param.default === undefined,
        });
      }
      return { description: entry?.[0] ?? name, parameters };
    },
    description: (tool) => OFFERED_TOOLS[tool]?.[0] ?? tool,
    paramDescription: (tool, param) => OFFERED_TOOLS[tool]?.[1][param],
    denseSearchSentence: (provider, model) =>
      `\`KB_search_dense\` finds documents by embedding similarity, using ${provider === "openai" ? "OpenAI's" : "OpenRouter's"} \`${model}\` model.`,
    noDocuments: "(no documents)",
    rerankerPrompt: (query, document) =>
      "Rate how useful the document below is for answering the query, from 0 (no help at all) to 10 " +
      "(it fully answers it). A document that only touches the same topic without helping to answer " +
      `counts as not useful.\n\nQuery:\n${query}\n\nDocument:\n${document}`,
    perTaskPolicy: "(each simulation has its own policy: see its 'policy' field)",
  };
}

type Texts = readonly [description: string, params: Record<string, string>];

/** Offered tools: agent tools, retrieval tools and user tools. */
const OFFERED_TOOLS: Record<string, Texts> = {
  transfer_to_human_agents: [
    "Hand the conversation over to a human agent. Look up the right reason code in the knowledge base before you call this.",
    {
      summary: "What the customer needs and what has been tried so far.",
      reason: "The reason code of the transfer.",
    },
  ],
  get_current_time: [
    "Returns the current date and time, for example to record when a customer was verified.",
    {},
  ],
  get_user_information_by_id: [
    "Looks up a customer's record (name, address, e-mail, phone number, date of birth) by user id.",
    { user_id: "The customer's user id." },
  ],
  get_user_information_by_name: [
    "Looks up a customer's record by full name (the match is case sensitive).",
    { customer_name: "The customer's full name." },
  ],
  get_user_information_by_email: [
    "Looks up a customer's record by e-mail address.",
    { email: "The customer's e-mail address." },
  ],
  change_user_email: [
    "Changes the e-mail address on a customer's record.",
    { user_id: "The customer's user id.", new_email: "The address to store." },
  ],
  get_referrals_by_user: [
    "Lists the referrals a customer has made.",
    { user_id: "The user id of the customer who referred others." },
  ],
  get_credit_card_transactions_by_user: [
    "Lists a customer's credit-card transactions.",
    { user_id: "The customer's user id." },
  ],
  get_credit_card_accounts_by_user: [
    "Lists a customer's credit-card accounts with card type, opening date, balance and reward points.",
    { user_id: "The customer's user id." },
  ],
  log_verification: [
    "Records that a customer's identity was verified. Verify two of date of birth, e-mail, phone number and address first, then log the full record.",
    {
      name: "The customer's full name.",
      user_id: "The customer's user id.",
      address: "The customer's address.",
      email: "The customer's e-mail address.",
      phone_number: "The customer's phone number.",
      date_of_birth: "The customer's date of birth, MM/DD/YYYY.",
      time_verified: 'When the verification happened, e.g. "2025-11-14 03:40:00 EST".',
    },
  ],
  give_discoverable_user_tool: [
    "Hands a tool named in the knowledge base to the customer so they can perform that action themselves.",
    {
      discoverable_tool_name: "The tool's name as the knowledge base gives it.",
      arguments: "The tool's arguments as a JSON object in a string.",
    },
  ],
  unlock_discoverable_agent_tool: [
    "Unlocks an internal tool whose name you found in the knowledge base and shows how to call it.",
    { agent_tool_name: "The tool's name as the knowledge base gives it." },
  ],
  call_discoverable_agent_tool: [
    "Calls an internal tool you unlocked before.",
    {
      agent_tool_name: "The name of the unlocked tool.",
      arguments: "The tool's arguments as a JSON object in a string.",
    },
  ],
  list_discoverable_agent_tools: ["Lists the internal tools you have called so far.", {}],
  KB_search: [
    "Searches the knowledge base and returns the best matching documents.",
    { query: "What to search for." },
  ],
  grep: [
    "Finds the knowledge-base documents that match a regular expression, ranked by number of matches, with their full text.",
    { pattern: "The regular expression, e.g. 'annual.*fee'." },
  ],
  KB_search_bm25: [
    "Searches the knowledge base by keywords (BM25) and returns the best matching documents.",
    { query: "What to search for.", k: "How many documents to return at most." },
  ],
  KB_search_dense: [
    "Searches the knowledge base by meaning (embedding similarity) and returns the closest documents.",
    { query: "What to search for.", k: "How many documents to return at most." },
  ],
  shell: [
    "Runs a shell command in the folder that holds the knowledge base as files (ls, cat, grep, head, find, wc …).",
    { command: "The command line to run, e.g. \"grep -ril 'late fee' .\"." },
  ],
  apply_for_credit_card: [
    "Submits your application for a credit card.",
    {
      card_type: "The card you apply for.",
      customer_name: "Your full legal name.",
      annual_income: "Your yearly income in USD.",
      rho_bank_subscription: "Whether you have a Rho-Bank+ subscription.",
    },
  ],
  submit_referral: [
    "Refers someone to open an account with the bank.",
    { user_id: "Your user id.", account_type: "The kind of account you refer them to." },
  ],
  call_discoverable_user_tool: [
    "Performs an action the agent gave you as a tool.",
    {
      discoverable_tool_name: "The tool's name as the agent gave it.",
      arguments: "The tool's arguments as a JSON object in a string.",
    },
  ],
  list_discoverable_user_tools: ["Lists the tools the agent has given you.", {}],
  request_human_agent_transfer: ["Asks to talk to a human agent; every request is recorded.", {}],
  submit_transaction: [
    "Records a purchase made with your credit card.",
    {
      user_id: "Your user id.",
      credit_card_type: "The card you paid with.",
      merchant_name: "Where you bought it.",
      amount: "The amount in USD.",
      category: "The purchase category, e.g. Travel or Groceries.",
    },
  ],
};

/** Discoverable tools: what `unlock`/`give` show when upstream's docstrings are not available. */
const DISCOVERABLE_DOCS: Record<string, Texts> = {
  example_agent_tool_0000: ["A placeholder internal tool that does nothing.", {}],
  update_transaction_rewards_3847: [
    "Corrects the rewards recorded on a credit-card transaction.",
    {
      transaction_id: "The transaction to correct.",
      new_rewards_earned: "The corrected value, e.g. '250 points'.",
    },
  ],
  initial_transfer_to_human_agent_0218: [
    "Starts a transfer to a human agent as part of a special transfer procedure.",
    {},
  ],
  initial_transfer_to_human_agent_1822: [
    "Starts a transfer to a human agent as part of a special transfer procedure.",
    {},
  ],
  emergency_credit_bureau_incident_transfer_1114: [
    "Logs a case from the 11/14 credit-bureau reporting incident for priority handling before a transfer.",
    {},
  ],
  file_credit_card_transaction_dispute_4829: [
    "Opens a formal dispute of a credit-card transaction.",
    {
      transaction_id: "The disputed transaction.",
      card_action: "keep_active or cancel_and_reissue (recorded only; no card is ordered).",
      card_last_4_digits: "The card's last four digits.",
      full_name: "The cardholder's legal name.",
      user_id: "The customer's user id.",
      phone: "Contact phone number.",
      email: "Contact e-mail address.",
      address: "Contact mailing address.",
      contacted_merchant: "Whether the customer tried the merchant first.",
      purchase_date: "Purchase date, MM/DD/YYYY.",
      issue_noticed_date: "When the problem was noticed, MM/DD/YYYY.",
      dispute_reason:
        "One of unauthorized_fraudulent_charge, duplicate_charge, incorrect_amount, goods_services_not_received, goods_services_not_as_described, canceled_subscription_still_charging, refund_never_processed.",
      resolution_requested: "full_refund or partial_refund.",
      eligible_for_provisional_credit: "Whether provisional credit applies.",
      partial_refund_amount: "The amount asked for, with partial_refund only.",
    },
  ],
  file_debit_card_transaction_dispute_6281: [
    "Opens a formal Regulation E dispute of a debit-card transaction.",
    {
      transaction_id: "The disputed transaction.",
      account_id: "The checking account of the card.",
      card_id: "The debit card.",
      user_id: "The customer's user id.",
      dispute_category:
        "One of unauthorized_transaction, atm_cash_discrepancy, atm_deposit_not_credited, duplicate_charge, incorrect_amount, goods_services_not_received, recurring_charge_after_cancellation, card_present_fraud, card_not_present_fraud.",
      transaction_date: "Transaction date, MM/DD/YYYY.",
      discovery_date: "When the customer noticed, MM/DD/YYYY.",
      disputed_amount: "The disputed amount in USD.",
      transaction_type:
        "One of pin_purchase, signature_purchase, online_purchase, atm_withdrawal, atm_deposit, recurring_payment, person_to_person.",
      card_in_possession: "Whether the customer still has the card.",
      pin_compromised: "One of yes_shared, yes_observed, no, unknown.",
      contacted_merchant: "Whether the customer tried the merchant first.",
      police_report_filed: "Whether a police report was filed.",
      written_statement_provided: "Whether the customer gave a written statement.",
      provisional_credit_eligible: "Whether provisional credit applies.",
      customer_max_liability_amount: "The customer's maximum liability in USD (-1 for unlimited).",
      card_action: "One of keep_active, freeze_pending_investigation, close_and_reissue.",
    },
  ],
  set_debit_card_recurring_block_7382: [
    "Blocks or allows recurring charges on a debit card.",
    { card_id: "The debit card.", block_recurring: "True to block recurring charges, False to allow them." },
  ],
  get_debit_dispute_status_7483: [
    "Lists a customer's debit-card disputes.",
    { user_id: "The customer's user id." },
  ],
  get_atm_deposit_images_8473: [
    "Shows the scanned images of an ATM deposit.",
    { transaction_id: "The ATM deposit transaction." },
  ],
  order_replacement_credit_card_7291: [
    "Orders a replacement credit card; the old card is cancelled.",
    {
      credit_card_account_id: "The card account to replace.",
      user_id: "The customer's user id.",
      shipping_address: "Where to send the card.",
      reason: "One of fraud_suspected, lost, stolen, damaged, expired, other.",
      expedited_shipping: "Whether to ship expedited.",
    },
  ],
  get_user_dispute_history_7291: [
    "Lists a customer's credit-card transaction disputes.",
    { user_id: "The customer's user id." },
  ],
  get_pending_replacement_orders_5765: [
    "Lists the replacement orders of a credit-card account.",
    { credit_card_account_id: "The card account." },
  ],
  log_credit_card_closure_reason_4521: [
    "Records why a customer wants to close a credit-card account.",
    {
      credit_card_account_id: "The card account.",
      user_id: "The customer's user id.",
      closure_reason:
        "One of annual_fee, not_using_card, found_better_card, unhappy_with_rewards, simplifying_finances, negative_experience, other.",
    },
  ],
  get_closure_reason_history_8293: [
    "Lists the recorded closure reasons of a credit-card account.",
    { credit_card_account_id: "The card account." },
  ],
  apply_statement_credit_8472: [
    "Credits an amount to a credit-card statement.",
    {
      user_id: "The customer's user id.",
      credit_card_account_id: "The card account.",
      amount: "The credit in USD.",
      reason:
        "One of goodwill_adjustment, promotional_credit, annual_fee_reversal, late_fee_reversal, interest_charge_reversal, dispute_resolution, price_match, retention_offer, error_correction, other.",
    },
  ],
  apply_credit_card_account_flag_6147: [
    "Puts a flag (fee waiver, promotional APR, rewards bonus …) on a credit-card account until a date.",
    {
      credit_card_account_id: "The card account.",
      user_id: "The customer's user id.",
      flag_type: "One of annual_fee_waived, promotional_apr, rewards_bonus, other.",
      expiration_date: "When the flag ends, MM/DD/YYYY.",
      reason: "One of retention_offer, loyalty_benefit, promotional, error_correction, other.",
    },
  ],
  close_credit_card_account_7834: [
    "Closes a credit-card account for good.",
    { credit_card_account_id: "The card account.", user_id: "The customer's user id." },
  ],
  pay_credit_card_from_checking_9182: [
    "Pays a credit-card balance from the customer's checking account.",
    {
      user_id: "The customer's user id.",
      checking_account_id: "The checking account to pay from.",
      credit_card_account_id: "The card account to pay.",
      amount: "The payment in USD.",
    },
  ],
  submit_credit_limit_increase_request_7392: [
    "Files a request to raise a card's credit limit.",
    {
      credit_card_account_id: "The card account.",
      user_id: "The customer's user id.",
      requested_increase_amount: "The increase in whole dollars.",
    },
  ],
  get_credit_limit_increase_history_4829: [
    "Lists the credit-limit requests of a card account.",
    { credit_card_account_id: "The card account." },
  ],
  get_payment_history_6183: [
    "Shows the recent payments of a card account.",
    { credit_card_account_id: "The card account.", months: "How many months to show." },
  ],
  approve_credit_limit_increase_5847: [
    "Approves and applies a new credit limit.",
    {
      credit_card_account_id: "The card account.",
      user_id: "The customer's user id.",
      new_credit_limit: "The new total limit in whole dollars.",
    },
  ],
  deny_credit_limit_increase_5848: [
    "Denies a credit-limit request.",
    {
      credit_card_account_id: "The card account.",
      user_id: "The customer's user id.",
      denial_reason:
        "One of insufficient_account_age, cooldown_period_active, pending_disputes, pending_replacement_card, past_due_balance, high_utilization, insufficient_payment_history, requested_amount_exceeds_limit, other.",
    },
  ],
  open_bank_account_4821: [
    "Opens a new bank account.",
    {
      user_id: "The customer's user id.",
      account_type: "One of checking, savings, business_checking, business_savings.",
      account_class: "The account product's full name.",
    },
  ],
  close_bank_account_7392: [
    "Closes a checking or savings account.",
    {
      account_id: "The account to close.",
      reason: "Why it is closed.",
      waive_early_closure_fee: "Whether to waive an early-closure fee.",
    },
  ],
  get_all_user_accounts_by_user_id_3847: [
    "Lists all bank and credit-card accounts of a customer.",
    { user_id: "The customer's user id." },
  ],
  transfer_funds_between_bank_accounts_7291: [
    "Moves money between two bank accounts.",
    {
      source_account_id: "The account to take the money from.",
      destination_account_id: "The account to put it in.",
      amount: "The amount in USD.",
    },
  ],
  apply_checking_account_credit_5829: [
    "Credits money to a checking account.",
    {
      account_id: "The checking account.",
      amount: "The credit in USD (more than 0).",
      credit_type: "rebate_credit or fee_refund.",
    },
  ],
  apply_savings_account_credit_6831: [
    "Credits money to a savings account.",
    {
      account_id: "The savings account.",
      amount: "The credit in USD (more than 0).",
      credit_type: "interest_correction, fee_refund or goodwill_credit.",
    },
  ],
  submit_interest_discrepancy_report_7294: [
    "Reports a wrong interest payment to the back-office team.",
    {
      account_id: "The savings account.",
      user_id: "The customer's user id.",
      expected_apy: "The APY that should have applied, in percent.",
      actual_apy: "The APY that was applied, in percent.",
      amount_difference: "The missing interest in USD.",
    },
  ],
  get_bank_account_transactions_9173: [
    "Lists a bank account's transactions, newest first.",
    { account_id: "The bank account." },
  ],
  order_debit_card_5739: [
    "Orders a new debit card for a checking account.",
    {
      account_id: "The checking account.",
      user_id: "The customer's user id.",
      delivery_option: "STANDARD, EXPEDITED or RUSH.",
      delivery_fee: "The delivery fee in USD.",
      card_design: "CLASSIC, PREMIUM or CUSTOM.",
      design_fee: "The design fee in USD.",
      shipping_address: "Where to send the card.",
      excess_replacement_fee: "A fee for too many replacements, if one applies.",
    },
  ],
  activate_debit_card_8291: [
    "Activates a first debit card of an account.",
    {
      card_id: "The card.",
      last_4_digits: "The card's last four digits.",
      expiration_date: "The expiration date on the card.",
      cvv: "The three-digit security code.",
      pin: "The four-digit PIN the customer chose.",
    },
  ],
  activate_debit_card_8292: [
    "Activates a debit card that replaces a lost, stolen or compromised one.",
    {
      card_id: "The card.",
      last_4_digits: "The card's last four digits.",
      expiration_date: "The expiration date on the card.",
      cvv: "The three-digit security code.",
      pin: "The four-digit PIN the customer chose.",
    },
  ],
  activate_debit_card_8293: [
    "Activates a reissued debit card (expired, damaged, upgraded or reissued by the bank).",
    {
      card_id: "The card.",
      last_4_digits: "The card's last four digits.",
      expiration_date: "The expiration date on the card.",
      cvv: "The three-digit security code.",
      pin: "The four-digit PIN the customer chose.",
    },
  ],
  close_debit_card_4721: [
    "Closes a debit card for good.",
    {
      card_id: "The card.",
      reason: "lost, stolen, fraud_suspected, damaged, no_longer_needed or account_closing.",
    },
  ],
  freeze_debit_card_3892: ["Freezes a debit card until it is unfrozen.", { card_id: "The card." }],
  unfreeze_debit_card_3893: ["Unfreezes a frozen debit card.", { card_id: "The card." }],
  clear_debit_card_fraud_alert_4892: [
    "Clears a fraud alert or a velocity block on a debit card.",
    { card_id: "The card.", reason: "customer_verified (fraud alert) or velocity_clear (velocity block)." },
  ],
  reset_debit_card_pin_6284: [
    "Sets a new PIN when the customer forgot the old one.",
    {
      card_id: "The card.",
      last_4_digits: "The card's last four digits.",
      new_pin: "The new four-digit PIN.",
    },
  ],
  change_debit_card_pin_6285: [
    "Changes the PIN when the customer knows the current one.",
    { card_id: "The card.", current_pin: "The current PIN.", new_pin: "The new four-digit PIN." },
  ],
  get_debit_cards_by_account_id_7823: [
    "Lists the debit cards of a checking account.",
    { account_id: "The checking account." },
  ],
  request_temporary_debit_card_limit_increase_8374: [
    "Raises a debit card's daily ATM or purchase limit for 24 hours.",
    {
      card_id: "The card.",
      limit_type: "atm or purchase.",
      new_limit: "The temporary limit in whole dollars.",
    },
  ],
  submit_cash_back_dispute_0589: [
    "Disputes the cash back of a transaction.",
    { user_id: "Your user id.", transaction_id: "The transaction with the wrong cash back." },
  ],
  get_referral_link: [
    "Creates a referral link for a credit card.",
    { user_id: "Your user id.", card_name: "The card to refer someone to." },
  ],
  get_card_last_4_digits: [
    "Shows the last four digits of a credit card.",
    { credit_card_account_id: "The card account." },
  ],
  deposit_check_3847: [
    "Deposits a check through the mobile app.",
    { account_id: "The account to deposit into.", check_amount: "The check amount in USD." },
  ],
};
