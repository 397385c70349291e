/**
 * The structure of telecom task generation (upstream-architecture.md §8.1–8.2,
 * telecom.md §8): the atomic sub-issues (how each one breaks the phone or the
 * account, the checks proving it is broken, the tool calls that repair it),
 * the selection sets they are grouped in, and the three intents with their
 * success/failure assertions and combination rules. No prose lives here: the
 * user-facing texts are loaded from the data folder (see `texts.ts`).
 */
import { PyFloat, pyFloat } from "../../../core/py-json.ts";
import type { EnvAssertion, EnvFunctionCall } from "../../../core/task.ts";
import type { Environment } from "../../../env/environment.ts";
import { customerByPhone, lineIndexByPhone, planById } from "../agent-tools.ts";
import { agentRoot, type LineRecord, type PlanRecord, userRoot } from "../models.ts";

/** Name and phone number every generated task's user has (`set_surrounding`). */
export const TASK_USER = { name: "John Smith", phoneNumber: "555-123-2002" } as const;

/** Id of the overdue bill the suspension sub-issues create. */
export const OVERDUE_BILL_ID = "B1234321";

/** Gigabytes the user is willing to refuel (and the refuel fix buys). */
const REFUEL_GB = 2.0;

/** One step of breaking the environment: a stored set-up call, or a check that is only run. */
export type SetupItem =
  | { readonly type: "call"; readonly call: EnvFunctionCall }
  | { readonly type: "check"; readonly assertion: EnvAssertion };

/** A tool call a fix consists of (becomes an expected action). */
export interface FixCall {
  readonly requestor: "assistant" | "user";
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/** Computes set-up items from the environment as the earlier steps left it. */
export type SetupStep = (env: Environment) => SetupItem[];
/** Computes fix calls from the environment after set-up. */
export type FixStep = (env: Environment) => FixCall[];
/** Computes extra success assertions from the environment after set-up. */
export type AssertionStep = (env: Environment) => EnvAssertion[];

/** An atomic issue (upstream `BaseTask`). */
export interface SubIssue {
  /** Stable name; composed tasks sort and join these. */
  readonly name: string;
  readonly setup: readonly SetupStep[];
  /** Repair steps; null when neither the agent nor the user can fix the issue (expected failure). */
  readonly fix: readonly FixStep[] | null;
  /** Success assertions added when the composed task is fixable. */
  readonly extraAssertions?: readonly AssertionStep[];
}

/** Mutually exclusive variants of one issue: a composed task holds at most one of them. */
export type SelectionSet = readonly SubIssue[];

/** Names of the three intents, in the order the task file lists them. */
export const INTENT_NAMES = ["mobile_data_issue", "service_issue", "mms_issue"] as const;
/** An intent name. */
export type IntentName = (typeof INTENT_NAMES)[number];

/** One intent (upstream `TaskManager` minus its prose). */
export interface IntentDefinition {
  readonly name: IntentName;
  readonly selectionSets: readonly SelectionSet[];
  /**
   * Which picks (one entry per selection set, null = none) make a task; when
   * absent, every non-empty pick does. Described in words for the report.
   */
  readonly validator?: { readonly rule: string; accepts(picks: readonly (SubIssue | null)[]): boolean };
  /** The env assertions of a task: success (fixable) or failure (expected failure) variant. */
  assertions(expectedSuccess: boolean): EnvAssertion[];
}

// ---------------------------------------------------------------------------
// Building blocks

function call(
  envType: "assistant" | "user",
  funcName: string,
  args: Record<string, unknown> = {},
): SetupItem {
  return { type: "call", call: { env_type: envType, func_name: funcName, arguments: args } };
}

/** An env assertion with upstream's field order. */
export function assertion(
  envType: "assistant" | "user",
  funcName: string,
  args: Record<string, unknown>,
  assertValue = true,
): EnvAssertion {
  return {
    env_type: envType,
    func_name: funcName,
    arguments: args,
    assert_value: assertValue,
    message: null,
  };
}

function check(
  envType: "assistant" | "user",
  funcName: string,
  args: Record<string, unknown> = {},
): SetupItem {
  return { type: "check", assertion: assertion(envType, funcName, args) };
}

function userFix(name: string, args: Record<string, unknown> = {}): FixCall {
  return { requestor: "user", name, arguments: args };
}

function agentFix(name: string, args: Record<string, unknown>): FixCall {
  return { requestor: "assistant", name, arguments: args };
}

/** The user's customer, line and plan as the environment currently has them (looked up by phone number). */
export function subscriber(env: Environment): {
  customerId: string;
  lineId: string;
  line: LineRecord;
  plan: PlanRecord;
  billIds: readonly string[];
} {
  if (!env.userTools) throw new Error("telecom environment without user tools");
  const phone = userRoot(env.userTools.db).surroundings.phone_number;
  const root = agentRoot(env.tools.db);
  const customer = customerByPhone(root, phone);
  const line = root.lines.at(lineIndexByPhone(root, phone))!;
  return {
    customerId: customer.customer_id,
    lineId: line.line_id,
    line,
    plan: planById(root, line.plan_id),
    billIds: customer.bill_ids,
  };
}

function customerLine(env: Environment): { customer_id: string; line_id: string } {
  const s = subscriber(env);
  return { customer_id: s.customerId, line_id: s.lineId };
}

const noService = (): SetupItem => check("user", "assert_service_status", { expected_status: "no_service" });

// ---------------------------------------------------------------------------
// Service sub-issues

const airplaneModeOn: SubIssue = {
  name: "airplane_mode_on",
  setup: [
    () => [
      call("user", "turn_airplane_mode_on"),
      check("user", "assert_airplane_mode_status", { expected_status: true }),
      noService(),
    ],
  ],
  fix: [() => [userFix("toggle_airplane_mode")]],
};

const unseatSimCard: SubIssue = {
  name: "unseat_sim_card",
  setup: [() => [call("user", "unseat_sim_card"), noService()]],
  fix: [() => [userFix("reseat_sim_card")]],
};

const lockSimCardPin: SubIssue = {
  name: "lock_sim_card_pin",
  setup: [() => [call("user", "lock_sim_card", { mode: "pin" }), noService()]],
  fix: null,
};

const breakApnSettings: SubIssue = {
  name: "break_apn_settings",
  setup: [() => [call("user", "break_apn_settings"), noService()]],
  fix: [() => [userFix("reset_apn_settings"), userFix("reboot_device")]],
};

function suspendForOverdueBill(contractEnded: boolean): SetupStep {
  return (env) => {
    const s = subscriber(env);
    return [
      call("assistant", "suspend_line_for_overdue_bill", {
        customer_id: s.customerId,
        line_id: s.lineId,
        new_bill_id: OVERDUE_BILL_ID,
        contract_ended: contractEnded,
      }),
      call("user", "simulate_network_search"),
      noService(),
      check("assistant", "assert_overdue_bill_exists", {
        customer_id: s.customerId,
        overdue_bill_id: OVERDUE_BILL_ID,
      }),
      check("assistant", "assert_line_status", {
        customer_id: s.customerId,
        line_id: s.lineId,
        expected_status: "Suspended",
      }),
    ];
  };
}

const overdueBillSuspension: SubIssue = {
  name: "overdue_bill_suspension",
  setup: [suspendForOverdueBill(false)],
  fix: [
    (env) => {
      const s = subscriber(env);
      const root = agentRoot(env.tools.db);
      // The payment request is for the customer's first overdue bill, whatever its id.
      const overdue = s.billIds.find((id) => root.bills.find((b) => b.bill_id === id)?.status === "Overdue");
      if (overdue === undefined) throw new Error("No overdue bill found");
      return [
        agentFix("send_payment_request", { customer_id: s.customerId, bill_id: overdue }),
        userFix("make_payment"),
        agentFix("resume_line", { customer_id: s.customerId, line_id: s.lineId }),
        userFix("reboot_device"),
      ];
    },
  ],
};

const contractEndSuspension: SubIssue = {
  name: "contract_end_suspension",
  setup: [suspendForOverdueBill(true)],
  fix: null,
};

/** Airplane mode (shared by all three intents). */
export const AIRPLANE_SET: SelectionSet = [airplaneModeOn];
/** SIM card not seated (service and MMS). */
export const SIM_SET: SelectionSet = [unseatSimCard];

// ---------------------------------------------------------------------------
// Mobile-data sub-issues

const setAbroad: SetupStep = () => [call("user", "set_user_location", { abroad: true })];
const roamingOff: SetupStep = () => [
  call("user", "turn_roaming_off"),
  check("user", "assert_mobile_roaming_status", { expected_status: false }),
];
const roamingOn: SetupStep = () => [
  call("user", "turn_roaming_on"),
  check("user", "assert_mobile_roaming_status", { expected_status: true }),
];
const allowRoaming: SetupStep = (env) => [call("assistant", "enable_roaming", customerLine(env))];
const disallowRoaming: SetupStep = (env) => [
  call("assistant", "disable_roaming", customerLine(env)),
  call("user", "simulate_network_search"),
  check("user", "assert_internet_speed", { expected_speed: 0, expected_desc: "No Connection" }),
];
const fixDeviceRoaming: FixStep = () => [userFix("toggle_roaming")];
const fixLineRoaming: FixStep = (env) => [agentFix("enable_roaming", customerLine(env))];

const roamingEnabledOff: SubIssue = {
  name: "user_abroad_roaming_enabled_off",
  setup: [setAbroad, roamingOff, allowRoaming],
  fix: [fixDeviceRoaming],
};
const roamingDisabledOn: SubIssue = {
  name: "user_abroad_roaming_disabled_on",
  setup: [setAbroad, roamingOn, disallowRoaming],
  fix: [fixLineRoaming],
};
const roamingDisabledOff: SubIssue = {
  name: "user_abroad_roaming_disabled_off",
  setup: [setAbroad, roamingOff, disallowRoaming],
  fix: [fixLineRoaming, fixDeviceRoaming],
};

const dataModeOff: SubIssue = {
  name: "data_mode_off",
  setup: [
    () => [
      call("user", "turn_data_off"),
      check("user", "assert_mobile_data_status", { expected_status: false }),
    ],
  ],
  fix: [() => [userFix("toggle_data")]],
};

const dataSaverModeOn: SubIssue = {
  name: "data_saver_mode_on",
  setup: [
    () => [
      call("user", "turn_data_saver_mode_on"),
      check("user", "assert_mobile_data_saver_mode_status", { expected_status: true }),
    ],
  ],
  fix: [() => [userFix("toggle_data_saver_mode")]],
};

const badNetworkPreference: SubIssue = {
  name: "bad_network_preference",
  setup: [() => [call("user", "set_network_mode_preference", { mode: "2g_only" })]],
  fix: [() => [userFix("set_network_mode_preference", { mode: "4g_5g_preferred" })]],
};

const badVpn: SubIssue = {
  name: "bad_vpn",
  setup: [() => [call("user", "break_vpn"), check("user", "assert_internet_not_excellent")]],
  fix: [() => [userFix("disconnect_vpn")]],
};

const usageExceeded = () => check("user", "assert_mobile_data_usage_exceeded", { expected_status: true });

const dataUsageExceeded: SubIssue = {
  name: "data_usage_exceeded",
  setup: [
    (env) => {
      const s = subscriber(env);
      // Python float arithmetic: the cap plus refuelled data plus 0.1 GB.
      const used = s.plan.data_limit_gb + s.line.data_refueling_gb + 0.1;
      return [
        call("assistant", "set_data_usage", {
          customer_id: s.customerId,
          line_id: s.lineId,
          data_used_gb: pyFloat(used),
        }),
        usageExceeded(),
      ];
    },
  ],
  fix: [(env) => [agentFix("refuel_data", { ...customerLine(env), gb_amount: new PyFloat(REFUEL_GB) })]],
  extraAssertions: [
    (env) => {
      // Computed before any fix runs, as upstream does: the refuel adds to the set-up amount.
      const s = subscriber(env);
      return [
        assertion("assistant", "assert_data_refueling_amount", {
          customer_id: s.customerId,
          line_id: s.lineId,
          expected_amount: pyFloat(s.line.data_refueling_gb + REFUEL_GB),
        }),
      ];
    },
  ],
};

/** Usage over the cap after the user already refuelled: the agent may not refuel again. */
export const dataUsageExceededNoRefuel: SubIssue = {
  name: "data_usage_exceeded_no_refuel",
  setup: [
    (env) => {
      const s = subscriber(env);
      return [
        call("assistant", "refuel_data", {
          customer_id: s.customerId,
          line_id: s.lineId,
          gb_amount: new PyFloat(REFUEL_GB),
        }),
        call("assistant", "set_data_usage", {
          customer_id: s.customerId,
          line_id: s.lineId,
          data_used_gb: pyFloat(s.plan.data_limit_gb + 2.1),
        }),
        usageExceeded(),
      ];
    },
  ],
  fix: null,
};

/** Roaming while abroad (three variants). */
export const ROAMING_SET: SelectionSet = [roamingEnabledOff, roamingDisabledOn, roamingDisabledOff];
/** Mobile data switched off. */
export const DATA_MODE_SET: SelectionSet = [dataModeOff];
/** Data saver on. */
export const DATA_SAVER_SET: SelectionSet = [dataSaverModeOn];
/** Network mode preference too low. */
export const NETWORK_PREFERENCE_SET: SelectionSet = [badNetworkPreference];
/** Slow VPN. */
export const VPN_SET: SelectionSet = [badVpn];
/** Data cap reached, both variants (as upstream's code has it). */
export const DATA_USAGE_SET: SelectionSet = [dataUsageExceeded, dataUsageExceededNoRefuel];

// ---------------------------------------------------------------------------
// MMS sub-issues

const badWifiCalling: SubIssue = {
  name: "bad_wifi_calling",
  // MMS over Wi-Fi must be on too, or MMS would still go over mobile data.
  setup: [() => [call("user", "set_wifi_calling", { enabled: true, mms_over_wifi: true })]],
  fix: [() => [userFix("toggle_wifi_calling")]],
};

const breakApnMmsSetting: SubIssue = {
  name: "break_apn_mms_setting",
  setup: [() => [call("user", "break_apn_mms_setting")]],
  fix: [() => [userFix("reset_apn_settings"), userFix("reboot_device")]],
};

function permissionIssue(name: string, permissions: readonly string[]): SubIssue {
  return {
    name,
    setup: [
      () =>
        permissions.map((permission) =>
          call("user", "remove_app_permission", { app_name: "messaging", permission }),
        ),
    ],
    fix: [
      () =>
        permissions.map((permission) =>
          userFix("grant_app_permission", { app_name: "messaging", permission }),
        ),
    ],
  };
}

/** Wi-Fi calling with MMS over Wi-Fi while off Wi-Fi. */
export const WIFI_CALLING_SET: SelectionSet = [badWifiCalling];
/** MMS APN settings broken. */
export const APN_MMS_SET: SelectionSet = [breakApnMmsSetting];
/** Messaging app permissions removed (three variants). */
export const APP_PERMISSION_SET: SelectionSet = [
  permissionIssue("break_app_sms_permission", ["sms"]),
  permissionIssue("break_app_storage_permission", ["storage"]),
  permissionIssue("break_app_both_permissions", ["sms", "storage"]),
];

// ---------------------------------------------------------------------------
// Intents

/** At least one pick from the selection sets at index `from` onwards. */
function someFrom(from: number, rule: string): NonNullable<IntentDefinition["validator"]> {
  return { rule, accepts: (picks) => picks.slice(from).some((pick) => pick !== null) };
}

/** The three intents with upstream's selection-set order (which fixes the product order, hence ids and personas). */
export function telecomIntents(): IntentDefinition[] {
  return [
    {
      name: "mobile_data_issue",
      selectionSets: [
        AIRPLANE_SET,
        ROAMING_SET,
        DATA_MODE_SET,
        DATA_SAVER_SET,
        NETWORK_PREFERENCE_SET,
        VPN_SET,
        DATA_USAGE_SET,
      ],
      validator: someFrom(1, "at least one sub-issue besides airplane mode"),
      assertions: (success) => [
        assertion("user", "assert_mobile_data_status", { expected_status: success }),
        assertion("user", "assert_internet_speed", {
          expected_speed: success ? 200 : 0,
          expected_desc: success ? "excellent" : null,
        }),
      ],
    },
    {
      name: "service_issue",
      selectionSets: [
        AIRPLANE_SET,
        SIM_SET,
        [lockSimCardPin],
        [breakApnSettings],
        [overdueBillSuspension, contractEndSuspension],
      ],
      assertions: (success) =>
        success
          ? [
              assertion("user", "assert_service_status", { expected_status: "connected" }),
              assertion("assistant", "assert_no_overdue_bill", { overdue_bill_id: OVERDUE_BILL_ID }),
            ]
          : [assertion("user", "assert_service_status", { expected_status: "no_service" })],
    },
    {
      name: "mms_issue",
      selectionSets: [
        AIRPLANE_SET,
        SIM_SET,
        DATA_MODE_SET,
        DATA_USAGE_SET,
        ROAMING_SET,
        NETWORK_PREFERENCE_SET,
        WIFI_CALLING_SET,
        APN_MMS_SET,
        APP_PERMISSION_SET,
      ],
      validator: someFrom(
        5,
        "at least one MMS-path sub-issue (network mode, Wi-Fi calling, MMS APN, permissions)",
      ),
      assertions: (success) => [assertion("user", "assert_can_send_mms", { expected_status: success })],
    },
  ];
}
