/**
 * Data models of the telecom domain (specs/telecom.md §1–§2): the carrier's
 * database (`db.toml`, entity lists in file order) and the user's phone plus
 * surroundings (`user_db.toml`). Every model rejects unknown keys, as
 * upstream's `BaseModelNoExtra` does.
 */
import type { CowList, DbState } from "../../env/db-state.ts";
import { type ModelTy, t } from "../../env/model.ts";

// ---------------------------------------------------------------------------
// Agent side (`TelecomDB`)

/** A rate plan. */
export const Plan = t.model(
  "Plan",
  {
    plan_id: t.str(),
    name: t.str(),
    data_limit_gb: t.float(),
    price_per_month: t.float(),
    data_refueling_price_per_gb: t.float(),
  },
  "forbid",
);

/** A device known to the carrier. */
export const Device = t.model(
  "Device",
  {
    device_id: t.str(),
    device_type: t.literal("phone", "router", "tablet", "watch", "other"),
    model: t.str(),
    imei: [t.optional(t.str()), null],
    is_esim_capable: t.bool(),
    activated: [t.bool(), false],
    activation_date: [t.optional(t.datetime()), null],
    last_esim_transfer_date: [t.optional(t.datetime()), null],
  },
  "forbid",
);

/** Statuses a line can have. */
export const LINE_STATUSES = ["Active", "Suspended", "Pending Activation", "Closed"] as const;

/** A phone line. */
export const Line = t.model(
  "Line",
  {
    line_id: t.str(),
    phone_number: t.str(),
    status: [t.literal(...LINE_STATUSES), "Pending Activation"],
    plan_id: t.str(),
    device_id: [t.optional(t.str()), null],
    data_used_gb: [t.float(), 0],
    data_refueling_gb: [t.float(), 0],
    roaming_enabled: [t.bool(), false],
    contract_end_date: [t.optional(t.date()), null],
    last_plan_change_date: [t.optional(t.date()), null],
    last_sim_replacement_date: [t.optional(t.date()), null],
    suspension_start_date: [t.optional(t.date()), null],
  },
  "forbid",
);

/** One entry of a bill. */
export const LineItem = t.model(
  "LineItem",
  { description: t.str(), amount: t.float(), date: t.date(), item_type: t.str() },
  "forbid",
);

/** A bill. */
export const Bill = t.model(
  "Bill",
  {
    bill_id: t.str(),
    customer_id: t.str(),
    period_start: t.date(),
    period_end: t.date(),
    issue_date: t.date(),
    total_due: t.float(),
    due_date: t.date(),
    line_items: [t.list(LineItem), () => []],
    status: [t.literal("Draft", "Issued", "Awaiting Payment", "Paid", "Overdue", "Disputed"), "Draft"],
  },
  "forbid",
);

const Address = t.model(
  "Address",
  { street: t.str(), city: t.str(), state: t.str(), zip_code: t.str() },
  "forbid",
);

const PaymentMethod = t.model(
  "PaymentMethod",
  {
    method_type: t.literal("Credit Card", "Debit Card", "PayPal"),
    account_number_last_4: t.str(),
    expiration_date: t.str(),
  },
  "forbid",
);

/** A customer account. */
export const Customer = t.model(
  "Customer",
  {
    customer_id: t.str(),
    full_name: t.str(),
    date_of_birth: t.str(),
    email: t.str(),
    phone_number: t.str(),
    address: Address,
    account_status: t.literal("Active", "Suspended", "Pending Verification", "Closed"),
    payment_methods: [t.list(PaymentMethod), () => []],
    line_ids: [t.list(t.str()), () => []],
    bill_ids: [t.list(t.str()), () => []],
    created_at: t.datetime(),
    last_extension_date: [t.optional(t.date()), null],
    goodwill_credit_used_this_year: [t.float(), 0],
  },
  "forbid",
);

/** The carrier database; field order is the model's, not the TOML file's. */
export const TelecomDb: ModelTy = t.model(
  "TelecomDB",
  {
    plans: [t.list(Plan), () => []],
    customers: [t.list(Customer), () => []],
    lines: [t.list(Line), () => []],
    bills: [t.list(Bill), () => []],
    devices: [t.list(Device), () => []],
  },
  "forbid",
);

/** A plan record. */
export interface PlanRecord {
  plan_id: string;
  name: string;
  data_limit_gb: number;
  price_per_month: number;
  data_refueling_price_per_gb: number;
}

/** A device record. */
export interface DeviceRecord {
  device_id: string;
  device_type: string;
  model: string;
  imei: string | null;
  is_esim_capable: boolean;
  activated: boolean;
  activation_date: string | null;
  last_esim_transfer_date: string | null;
}

/** A line record. */
export interface LineRecord {
  line_id: string;
  phone_number: string;
  status: string;
  plan_id: string;
  device_id: string | null;
  data_used_gb: number;
  data_refueling_gb: number;
  roaming_enabled: boolean;
  contract_end_date: string | null;
  last_plan_change_date: string | null;
  last_sim_replacement_date: string | null;
  suspension_start_date: string | null;
}

/** A bill entry record. */
export interface LineItemRecord {
  description: string;
  amount: number;
  date: string;
  item_type: string;
}

/** A bill record. */
export interface BillRecord {
  bill_id: string;
  customer_id: string;
  period_start: string;
  period_end: string;
  issue_date: string;
  total_due: number;
  due_date: string;
  line_items: LineItemRecord[];
  status: string;
}

/** A customer record. */
export interface CustomerRecord {
  customer_id: string;
  full_name: string;
  date_of_birth: string;
  email: string;
  phone_number: string;
  address: { street: string; city: string; state: string; zip_code: string };
  account_status: string;
  payment_methods: { method_type: string; account_number_last_4: string; expiration_date: string }[];
  line_ids: string[];
  bill_ids: string[];
  created_at: string;
  last_extension_date: string | null;
  goodwill_credit_used_this_year: number;
}

/** The carrier database as a copy-on-write state exposes it. */
export interface TelecomRoot {
  plans: CowList<PlanRecord>;
  customers: CowList<CustomerRecord>;
  lines: CowList<LineRecord>;
  bills: CowList<BillRecord>;
  devices: CowList<DeviceRecord>;
}

/** The agent DB's fields (throws Python's AttributeError text if the DB is not a `TelecomDB`). */
export function agentRoot(db: DbState<any>): TelecomRoot {
  return db.root as TelecomRoot;
}

// ---------------------------------------------------------------------------
// User side (`TelecomUserDB`)

/** Signal strength levels, weakest first. */
export const SIGNAL_LEVELS = ["none", "poor", "fair", "good", "excellent"] as const;
/** A signal strength. */
export type SignalStrength = (typeof SIGNAL_LEVELS)[number];
/** Network technologies. */
export const TECHNOLOGIES = ["none", "2G", "3G", "4G", "5G"] as const;
/** A network technology. */
export type NetworkTechnology = (typeof TECHNOLOGIES)[number];
/** Connection statuses of the cellular modem. */
export const NETWORK_STATUSES = ["connected", "searching", "no_service", "emergency_only"] as const;
/** A connection status. */
export type NetworkStatus = (typeof NETWORK_STATUSES)[number];
/** The four network mode preferences, in upstream's enum order. */
export const NETWORK_MODE_PREFERENCES = ["4g_5g_preferred", "4g_only", "3g_only", "2g_only"] as const;
/** SIM card statuses. */
export const SIM_STATUSES = ["active", "missing", "locked_pin", "locked_puk"] as const;
/** A SIM card status. */
export type SimStatus = (typeof SIM_STATUSES)[number];
/** VPN server performance levels. */
export const PERFORMANCE_LEVELS = ["unknown", "poor", "fair", "good", "excellent"] as const;
/** App permissions, in declaration order. */
export const APP_PERMISSIONS = ["sms", "storage", "phone", "network"] as const;
/** An app permission name. */
export type AppPermission = (typeof APP_PERMISSIONS)[number];

/** Access point settings; a fresh default is what a reset at reboot restores. */
export const ApnSettings = t.model(
  "APNSettings",
  {
    apn_name: [t.literal("internet", "broken"), "internet"],
    reset_at_reboot: [t.bool(), false],
    mms_apn: [t.optional(t.str()), "mms"],
    mmsc_url: [t.optional(t.str()), "http://mms.carrier.com/mms/wapenc"],
    mms_proxy: [t.optional(t.str()), null],
    mms_port: [t.optional(t.int()), null],
  },
  "forbid",
);

/** Details of a VPN connection. */
export const VpnDetails = t.model(
  "VpnDetails",
  {
    server_address: t.optional(t.str()),
    protocol: t.optional(t.str()),
    server_performance: t.literal(...PERFORMANCE_LEVELS),
  },
  "forbid",
);

const AppPermissions = t.model(
  "AppPermissions",
  {
    sms: [t.bool(), false],
    storage: [t.bool(), false],
    phone: [t.bool(), false],
    network: [t.bool(), false],
  },
  "forbid",
);

const AppStatus = t.model(
  "AppStatus",
  {
    app_name: t.str(),
    permissions: [AppPermissions, () => ({ sms: false, storage: false, phone: false, network: false })],
  },
  "forbid",
);

const signal = () => t.literal(...SIGNAL_LEVELS);

/** The default APN settings as a fresh record. */
export function defaultApnSettings(): ApnSettingsRecord {
  return {
    apn_name: "internet",
    reset_at_reboot: false,
    mms_apn: "mms",
    mmsc_url: "http://mms.carrier.com/mms/wapenc",
    mms_proxy: null,
    mms_port: null,
  };
}

function defaultApps(): Map<string, AppStatusRecord> {
  return new Map([
    [
      "messaging",
      { app_name: "messaging", permissions: { sms: true, storage: true, phone: true, network: false } },
    ],
    [
      "browser",
      { app_name: "browser", permissions: { sms: false, storage: true, phone: false, network: true } },
    ],
  ]);
}

/** The simulated phone. */
export const PhoneDevice = t.model(
  "MockPhoneAttributes",
  {
    sim_card_status: [t.literal(...SIM_STATUSES), "active"],
    sim_card_missing: [t.bool(), false],
    airplane_mode: [t.bool(), false],
    network_signal_strength: [signal(), "good"],
    network_technology_connected: [t.literal(...TECHNOLOGIES), "5G"],
    network_connection_status: [t.literal(...NETWORK_STATUSES), "connected"],
    battery_level: [t.int(), 80],
    data_enabled: [t.bool(), true],
    roaming_enabled: [t.bool(), false],
    network_mode_preference: [t.literal(...NETWORK_MODE_PREFERENCES), "4g_5g_preferred"],
    active_apn_settings: [ApnSettings, defaultApnSettings],
    wifi_enabled: [t.bool(), false],
    wifi_connected: [t.bool(), false],
    wifi_ssid: [t.optional(t.str()), null],
    wifi_signal_strength: [signal(), "none"],
    wifi_calling_enabled: [t.bool(), false],
    wifi_calling_mms_over_wifi: [t.bool(), false],
    data_saver_mode: [t.bool(), false],
    vpn_enabled_setting: [t.bool(), false],
    vpn_connected: [t.bool(), false],
    vpn_details: [t.optional(VpnDetails), null],
    app_statuses: [t.dict(AppStatus), defaultApps],
  },
  "forbid",
);

const PaymentRequest = t.model(
  "PaymentRequest",
  { bill_id: t.str(), amount_due: t.float(), paid: [t.bool(), false] },
  "forbid",
);

/** The user's environment, derived from the carrier DB by `sync_tools`. */
export const Surroundings = t.model(
  "UserSurroundings",
  {
    name: [t.optional(t.str()), null],
    phone_number: [t.optional(t.str()), null],
    is_abroad: [t.bool(), false],
    roaming_allowed: [t.bool(), false],
    signal_strength: [t.dict(signal()), () => defaultSurroundings().signal_strength],
    mobile_data_usage_exceeded: [t.bool(), false],
    line_active: [t.bool(), true],
    payment_request: [t.optional(PaymentRequest), null],
  },
  "forbid",
);

/** Fresh surroundings with the model defaults (defaults are not validated, so this is a full record). */
export function defaultSurroundings(): SurroundingsRecord {
  return {
    name: null,
    phone_number: null,
    is_abroad: false,
    roaming_allowed: false,
    signal_strength: new Map<string, SignalStrength>([
      ["2G", "poor"],
      ["3G", "fair"],
      ["4G", "good"],
      ["5G", "excellent"],
    ]),
    mobile_data_usage_exceeded: false,
    line_active: true,
    payment_request: null,
  };
}

/** The user DB: the TOML only has `device`; `surroundings` takes its defaults. */
export const TelecomUserDb: ModelTy = t.model(
  "TelecomUserDB",
  { device: PhoneDevice, surroundings: [Surroundings, defaultSurroundings] },
  "forbid",
);

/** APN settings record. */
export interface ApnSettingsRecord {
  apn_name: string;
  reset_at_reboot: boolean;
  mms_apn: string | null;
  mmsc_url: string | null;
  mms_proxy: string | null;
  mms_port: number | null;
}

/** VPN details record. */
export interface VpnDetailsRecord {
  server_address: string | null;
  protocol: string | null;
  server_performance: string;
}

/** An installed app and its permissions. */
export interface AppStatusRecord {
  app_name: string;
  permissions: Record<AppPermission, boolean>;
}

/** The phone's state. */
export interface PhoneDeviceRecord {
  sim_card_status: SimStatus;
  sim_card_missing: boolean;
  airplane_mode: boolean;
  network_signal_strength: SignalStrength;
  network_technology_connected: NetworkTechnology;
  network_connection_status: NetworkStatus;
  battery_level: number;
  data_enabled: boolean;
  roaming_enabled: boolean;
  network_mode_preference: string;
  active_apn_settings: ApnSettingsRecord;
  wifi_enabled: boolean;
  wifi_connected: boolean;
  wifi_ssid: string | null;
  wifi_signal_strength: SignalStrength;
  wifi_calling_enabled: boolean;
  wifi_calling_mms_over_wifi: boolean;
  data_saver_mode: boolean;
  vpn_enabled_setting: boolean;
  vpn_connected: boolean;
  vpn_details: VpnDetailsRecord | null;
  app_statuses: Map<string, AppStatusRecord>;
}

/** A pending payment request shown on the phone. */
export interface PaymentRequestRecord {
  bill_id: string;
  amount_due: number;
  paid: boolean;
}

/** The user's surroundings. */
export interface SurroundingsRecord {
  name: string | null;
  phone_number: string | null;
  is_abroad: boolean;
  roaming_allowed: boolean;
  signal_strength: Map<string, SignalStrength>;
  mobile_data_usage_exceeded: boolean;
  line_active: boolean;
  payment_request: PaymentRequestRecord | null;
}

/** The user DB's fields. */
export interface TelecomUserRoot {
  device: PhoneDeviceRecord;
  surroundings: SurroundingsRecord;
}

/** The user DB's fields (throws Python's AttributeError text if the DB is not a `TelecomUserDB`). */
export function userRoot(db: DbState<any>): TelecomUserRoot {
  return db.root as TelecomUserRoot;
}
