/**
 * The telecom user's toolkit (`TelecomUserTools`, specs/telecom.md §6–§7):
 * the tools the simulated user operates on their phone, which return
 * human-readable strings, plus the hidden set-up and assertion helpers that
 * tasks call by name.
 */
import { pyEquals, pyFixed, pyFloatRepr, pyRepr, pyStr, pyTypeName, toNumber } from "../../core/py-json.ts";
import type { DbState } from "../../env/db-state.ts";
import { ModelValidationError, validate } from "../../env/model.ts";
import { type FunctionDef, param, type ToolDef, ToolError, Toolkit } from "../../env/toolkit.ts";
import { pyLower } from "../python-ops.ts";
import {
  canSendMms,
  effectiveSimStatus,
  mobileDataWorking,
  runSpeedTest,
  simulateNetworkSearch,
  statusBar,
} from "./device.ts";
import {
  APP_PERMISSIONS,
  type AppPermission,
  ApnSettings,
  type ApnSettingsRecord,
  defaultApnSettings,
  NETWORK_MODE_PREFERENCES,
  NETWORK_STATUSES,
  type PhoneDeviceRecord,
  type SurroundingsRecord,
  type TelecomUserRoot,
  userRoot,
  type VpnDetailsRecord,
} from "./models.ts";

/**
 * State a user toolkit keeps outside its DB, one per environment. Upstream
 * stores a reference to one shared default VPN-details object when a VPN
 * connects; `break_vpn` degrades that object, so every later connection in the
 * same environment is poor too (specs/telecom.md §2). Upstream shares it
 * process-wide; we keep it per environment so episodes stay independent.
 */
export interface UserToolsState {
  defaultVpnDetails: VpnDetailsRecord;
}

/** A fresh per-environment state for the user toolkit. */
export function newUserToolsState(): UserToolsState {
  return {
    defaultVpnDetails: {
      server_address: "192.168.1.1",
      protocol: "OpenVPN",
      server_performance: "excellent",
    },
  };
}

const phone = (db: DbState<any>): TelecomUserRoot => userRoot(db);
const withStatusBar = (device: PhoneDeviceRecord, text: string) =>
  `${text}\nStatus Bar: ${statusBar(device)}`;
const onOff = (on: boolean) => (on ? "ON" : "OFF");
const yesNo = (on: boolean) => (on ? "Yes" : "No");

function search(root: TelecomUserRoot): void {
  simulateNetworkSearch(root.device, root.surroundings);
}

/** Airplane-mode toggle (§6.1); returns the new state. */
function toggleAirplaneMode(root: TelecomUserRoot): boolean {
  const { device } = root;
  const wasOn = device.airplane_mode;
  device.airplane_mode = !wasOn;
  if (wasOn) {
    device.network_connection_status = "searching";
    if (device.wifi_enabled) disconnectWifi(device);
  } else {
    disconnectWifi(device);
    if (device.vpn_connected) disconnectVpn(device);
  }
  search(root);
  return device.airplane_mode;
}

function disconnectWifi(device: PhoneDeviceRecord): void {
  device.wifi_connected = false;
  device.wifi_ssid = null;
  device.wifi_signal_strength = "none";
}

function disconnectVpn(device: PhoneDeviceRecord): boolean {
  if (!device.vpn_connected) return false;
  device.vpn_connected = false;
  device.vpn_details = null;
  return true;
}

function toggleData(root: TelecomUserRoot): boolean {
  root.device.data_enabled = !root.device.data_enabled;
  search(root);
  return root.device.data_enabled;
}

function toggleRoaming(root: TelecomUserRoot): boolean {
  root.device.roaming_enabled = !root.device.roaming_enabled;
  search(root);
  return root.device.roaming_enabled;
}

function toggleDataSaver(root: TelecomUserRoot): boolean {
  root.device.data_saver_mode = !root.device.data_saver_mode;
  return root.device.data_saver_mode;
}

function grantedPermissions(permissions: Record<AppPermission, boolean>): string[] {
  return APP_PERMISSIONS.filter((name) => permissions[name]);
}

/** `repr()` of a VpnDetails dump: a dict whose enum value shows as `<PerformanceLevel.X: 'x'>`. */
function vpnDetailsRepr(details: VpnDetailsRecord): string {
  const level = details.server_performance;
  return (
    `{'server_address': ${pyRepr(details.server_address)}, 'protocol': ${pyRepr(details.protocol)}, ` +
    `'server_performance': <PerformanceLevel.${level.toUpperCase()}: '${level}'>}`
  );
}

/** Validates APN settings given as an object; pydantic reports a bad `apn_name` as an `enum` error. */
function apnSettingsFrom(value: unknown): ApnSettingsRecord {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    // Upstream would store the non-dict value and then fail reading its `apn_name`.
    throw new ToolError(`'${pyTypeName(value)}' object has no attribute 'apn_name'`);
  }
  try {
    return validate<ApnSettingsRecord>(ApnSettings, value);
  } catch (error) {
    if (!(error instanceof ModelValidationError)) throw error;
    const issues = error.issues.map((issue) =>
      issue.type === "literal_error" ? { ...issue, type: "enum" } : issue,
    );
    throw new ModelValidationError(error.modelName, issues);
  }
}

const NETWORK_MODE_SCHEMA = {
  enum: [...NETWORK_MODE_PREFERENCES],
  title: "NetworkModePreference",
  type: "string",
};

const APN_SETTINGS_SCHEMA = {
  additionalProperties: false,
  properties: {
    apn_name: { $ref: "#/$defs/APNNames", default: "internet" },
    reset_at_reboot: { default: false, title: "Reset At Reboot", type: "boolean" },
    mms_apn: { anyOf: [{ type: "string" }, { type: "null" }], default: "mms", title: "Mms Apn" },
    mmsc_url: {
      anyOf: [{ type: "string" }, { type: "null" }],
      default: "http://mms.carrier.com/mms/wapenc",
      title: "Mmsc Url",
    },
    mms_proxy: { anyOf: [{ type: "string" }, { type: "null" }], default: null, title: "Mms Proxy" },
    mms_port: { anyOf: [{ type: "integer" }, { type: "null" }], default: null, title: "Mms Port" },
  },
  title: "APNSettings",
  type: "object",
};

/** The user's tools, built once per process; per-environment state arrives in the call context. */
const userTools: readonly ToolDef<UserToolsState>[] = [
  {
    name: "check_status_bar",
    kind: "read",
    description:
      "Shows the icons currently visible in the status bar at the top of your phone's screen: signal " +
      "strength, mobile data state (on, off, data saver), Wi-Fi, VPN and battery level.",
    params: [],
    run: ({ db }) => `Status Bar: ${statusBar(phone(db).device)}`,
  },
  {
    name: "check_network_status",
    kind: "read",
    description:
      "Shows how your phone is connected to the cellular network and to Wi-Fi: airplane mode, SIM, " +
      "signal strength, network type, and whether mobile data and data roaming are switched on.",
    params: [],
    run: ({ db }) => {
      const { device } = phone(db);
      const lines = [
        `Airplane Mode: ${onOff(device.airplane_mode)}`,
        `SIM Card Status: ${effectiveSimStatus(device)}`,
        `Cellular Connection: ${device.network_connection_status}`,
        `Cellular Signal: ${device.network_signal_strength}`,
        `Cellular Network Type: ${device.network_technology_connected}`,
        `Mobile Data Enabled: ${yesNo(device.data_enabled)}`,
        `Data Roaming Enabled: ${yesNo(device.roaming_enabled)}`,
        `Wi-Fi Radio: ${onOff(device.wifi_enabled)}`,
        `Wi-Fi Connected: ${yesNo(device.wifi_connected)}`,
      ];
      if (device.wifi_connected) lines.push(`Connected Wi-Fi Network: ${pyStr(device.wifi_ssid)}`);
      return lines.join("\n");
    },
  },
  {
    name: "check_network_mode_preference",
    kind: "read",
    description: "Shows which kind of cellular network your phone is set to prefer.",
    params: [],
    run: ({ db }) => `Network Mode Preference: ${phone(db).device.network_mode_preference}`,
  },
  {
    name: "set_network_mode_preference",
    kind: "write",
    description:
      "Changes which cellular network type your phone prefers (for example 5G, 4G/LTE, 3G or 2G). " +
      "Faster networks give faster data but can use more battery.",
    params: [param("mode", { anyOf: [{ $ref: "#/$defs/NetworkModePreference" }, { type: "string" }] })],
    defs: { NetworkModePreference: NETWORK_MODE_SCHEMA },
    run: ({ db }, a) => {
      const root = phone(db);
      const mode = a.mode;
      if (typeof mode !== "string") {
        // Upstream stores the value unchecked, searches (its fallback picks 4G), then fails
        // reading `.value`; the odd value itself cannot live in our typed DB.
        const saved = root.device.network_mode_preference;
        root.device.network_mode_preference = "";
        search(root);
        root.device.network_mode_preference = saved;
        throw new ToolError(`'${pyTypeName(mode)}' object has no attribute 'value'`);
      }
      if (!(NETWORK_MODE_PREFERENCES as readonly string[]).includes(mode)) {
        return withStatusBar(
          root.device,
          `Failed to set network mode: '${mode}' is not a valid option. Please use one of: ${NETWORK_MODE_PREFERENCES.join(", ")}`,
        );
      }
      root.device.network_mode_preference = mode;
      search(root);
      return withStatusBar(root.device, `Preferred Network Mode set to: ${mode}`);
    },
  },
  {
    name: "run_speed_test",
    kind: "read",
    description:
      "Measures the current download speed of your internet connection and says what it is good enough for.",
    params: [],
    run: ({ db }) => {
      const { device, surroundings } = phone(db);
      const { speedMbps, description } = runSpeedTest(device, surroundings);
      if (speedMbps === null) return `Speed test failed: ${description}.`;
      return `Speed Test Result: ${pyFixed(speedMbps, 2)} Mbps (${description}). ${SPEED_ADVICE[description] ?? ""}`;
    },
  },
  {
    name: "toggle_airplane_mode",
    kind: "write",
    description:
      "Switches Airplane Mode on or off. While it is on, all wireless connections (cellular, Wi-Fi, " +
      "Bluetooth) are cut.",
    params: [],
    run: ({ db }) => {
      const root = phone(db);
      const on = toggleAirplaneMode(root);
      return withStatusBar(root.device, `Airplane Mode is now ${onOff(on)}.`);
    },
  },
  {
    name: "check_sim_status",
    kind: "read",
    description:
      "Shows whether your SIM card works, and if not, whether it is missing or locked with a PIN or PUK code.",
    params: [],
    run: ({ db }) => SIM_STATUS_TEXT[effectiveSimStatus(phone(db).device)],
  },
  {
    name: "reseat_sim_card",
    kind: "write",
    description: "Takes the SIM card out and puts it back in, which can fix a card that is not recognised.",
    params: [],
    run: ({ db }) => {
      const root = phone(db);
      root.device.sim_card_missing = false;
      search(root);
      return withStatusBar(root.device, "SIM card re-seated successfully.");
    },
  },
  {
    name: "toggle_data",
    kind: "write",
    description:
      "Switches mobile data on or off; it decides whether the phone may use the cellular network for " +
      "internet when there is no Wi-Fi.",
    params: [],
    run: ({ db }) => {
      const root = phone(db);
      return withStatusBar(root.device, `Mobile Data is now ${onOff(toggleData(root))}.`);
    },
  },
  {
    name: "toggle_roaming",
    kind: "write",
    description:
      "Switches data roaming on or off; when on, the phone may use data networks outside your carrier's " +
      "own coverage area.",
    params: [],
    run: ({ db }) => {
      const root = phone(db);
      return withStatusBar(root.device, `Data Roaming is now ${onOff(toggleRoaming(root))}.`);
    },
  },
  {
    name: "check_data_restriction_status",
    kind: "read",
    description: "Shows whether a data-limiting feature (Data Saver mode) is active.",
    params: [],
    run: ({ db }) =>
      phone(db).device.data_saver_mode
        ? "Data Saver mode is ON (limits data usage)."
        : "Data Saver mode is OFF.",
  },
  {
    name: "toggle_data_saver_mode",
    kind: "write",
    description: "Switches Data Saver mode on or off. Data Saver uses less data and can make data slower.",
    params: [],
    run: ({ db }) => {
      const root = phone(db);
      return withStatusBar(root.device, `Data Saver Mode is now ${onOff(toggleDataSaver(root))}.`);
    },
  },
  {
    name: "check_apn_settings",
    kind: "read",
    description:
      "Shows the technical APN settings the phone uses for your carrier's data network: the APN name " +
      "and the MMSC URL used for picture messages.",
    params: [],
    run: ({ db }) => {
      const settings = phone(db).device.active_apn_settings;
      return (
        `Current APN Name: ${settings.apn_name || "Not Set"}\n` +
        `MMSC URL (for picture messages): ${settings.mmsc_url || "Not Set"}\n` +
        "(These are technical settings, usually best left unchanged.)"
      );
    },
  },
  {
    name: "set_apn_settings",
    kind: "write",
    description: "Replaces the phone's APN settings.",
    params: [
      param("apn_settings", {
        anyOf: [{ $ref: "#/$defs/APNSettings" }, { additionalProperties: true, type: "object" }],
      }),
    ],
    defs: {
      APNNames: { enum: ["internet", "broken"], title: "APNNames", type: "string" },
      APNSettings: APN_SETTINGS_SCHEMA,
    },
    run: ({ db }, a) => {
      const settings = apnSettingsFrom(a.apn_settings);
      const root = phone(db);
      root.device.active_apn_settings = settings;
      search(root);
      return withStatusBar(root.device, `APN settings set to: ${settings.apn_name}`);
    },
  },
  {
    name: "reset_apn_settings",
    kind: "write",
    description: "Resets the APN settings to the carrier defaults.",
    params: [],
    run: ({ db }) => {
      const root = phone(db);
      // Upstream only schedules the reset; the next reboot applies it.
      root.device.active_apn_settings.reset_at_reboot = true;
      search(root);
      return withStatusBar(root.device, "APN settings will reset at reboot.");
    },
  },
  {
    name: "check_wifi_status",
    kind: "read",
    description:
      "Shows whether Wi-Fi is on, which network it is connected to (if any) and the signal strength.",
    params: [],
    run: ({ db }) => {
      const { device } = phone(db);
      if (!device.wifi_enabled) return "Wi-Fi is turned OFF.";
      if (device.wifi_connected) {
        return `Wi-Fi is ON and connected to '${pyStr(device.wifi_ssid)}'. Signal strength: ${device.wifi_signal_strength}.`;
      }
      return "Wi-Fi is ON but not connected to any network.";
    },
  },
  {
    name: "toggle_wifi",
    kind: "write",
    description:
      "Switches the Wi-Fi radio on or off; it decides whether the phone can find and join wireless networks.",
    params: [],
    run: ({ db }) => {
      const { device } = phone(db);
      if (device.airplane_mode) {
        return withStatusBar(device, "Cannot change Wi-Fi settings while Airplane Mode is ON.");
      }
      device.wifi_enabled = !device.wifi_enabled;
      if (!device.wifi_enabled) disconnectWifi(device);
      return withStatusBar(device, `Wi-Fi is now ${onOff(device.wifi_enabled)}.`);
    },
  },
  {
    name: "check_wifi_calling_status",
    kind: "read",
    description:
      "Shows whether Wi-Fi Calling is on. Wi-Fi Calling routes calls over a Wi-Fi network instead of " +
      "the cellular network.",
    params: [],
    run: ({ db }) => `Wi-Fi Calling is currently turned ${onOff(phone(db).device.wifi_calling_enabled)}.`,
  },
  {
    name: "toggle_wifi_calling",
    kind: "write",
    description:
      "Switches Wi-Fi Calling on or off. Calling over Wi-Fi can help where the cellular signal is weak.",
    params: [],
    run: ({ db }) => {
      const { device } = phone(db);
      device.wifi_calling_enabled = !device.wifi_calling_enabled;
      return withStatusBar(device, `Wi-Fi Calling is now ${onOff(device.wifi_calling_enabled)}.`);
    },
  },
  {
    name: "check_vpn_status",
    kind: "read",
    description:
      "Shows whether a VPN is switched on and connected, with the connection details when available.",
    params: [],
    run: ({ db }) => {
      const { device } = phone(db);
      if (device.vpn_connected) {
        return device.vpn_details
          ? `VPN is ON and connected. Details: ${vpnDetailsRepr(device.vpn_details)}`
          : "VPN is ON and connected (no specific details available).";
      }
      if (device.vpn_enabled_setting) return "VPN is turned ON in settings, but currently not connected.";
      return "VPN is turned OFF.";
    },
  },
  {
    name: "connect_vpn",
    kind: "write",
    description: "Connects your VPN.",
    params: [],
    run: ({ db, state }) => connectVpn(phone(db).device, state),
  },
  {
    name: "disconnect_vpn",
    kind: "write",
    description:
      "Disconnects any active VPN, so traffic no longer goes through a VPN server (this can change " +
      "speed or what content is reachable).",
    params: [],
    run: ({ db }) => {
      const { device } = phone(db);
      const done = disconnectVpn(device);
      return withStatusBar(
        device,
        done ? "VPN disconnected successfully." : "No active VPN connection to disconnect.",
      );
    },
  },
  {
    name: "check_installed_apps",
    kind: "read",
    description: "Lists the names of the apps installed on the phone.",
    params: [],
    run: ({ db }) =>
      `The following apps are installed on the phone: ${[...phone(db).device.app_statuses.keys()].join(", ")}`,
  },
  {
    name: "check_app_status",
    kind: "read",
    description: "Shows details about one app, including which permissions it has.",
    params: [param("app_name", { type: "string" })],
    run: ({ db }, a) => {
      const app = appOf(phone(db).device, a.app_name);
      const name = pyStr(a.app_name);
      if (!app) return `App '${name}' not found on this phone.`;
      const granted = grantedPermissions(app.permissions);
      const lines = [`Status for App: ${name}`];
      if (granted.length === 0) lines.push(" - Permissions: None granted.");
      else lines.push(" - Permissions Granted:", ...granted.map((perm) => `   - ${perm}`));
      return lines.join("\n");
    },
  },
  {
    name: "check_app_permissions",
    kind: "read",
    description: "Shows which permissions (such as storage or SMS access) an app currently has.",
    params: [param("app_name", { type: "string" })],
    run: ({ db }, a) => {
      const app = appOf(phone(db).device, a.app_name);
      const name = pyStr(a.app_name);
      if (!app) return `App '${name}' not found on this phone.`;
      const granted = grantedPermissions(app.permissions);
      if (granted.length === 0) return `App '${name}' currently has no permissions granted.`;
      return `App '${name}' has permission for: ${granted.join(", ")}.`;
    },
  },
  {
    name: "grant_app_permission",
    kind: "write",
    description:
      "Gives an app a permission (for example access to storage or SMS); some app features need it to work.",
    params: [
      param("app_name", { type: "string" }, "Name of the app that receives the permission."),
      param("permission", { type: "string" }, "The permission to grant, in lower case."),
    ],
    run: ({ db }, a) => {
      const { device } = phone(db);
      const app = appOf(device, a.app_name);
      const permission = pyLower(a.permission);
      const name = pyStr(a.app_name);
      let message: string;
      if (!app) {
        message = `Error. App '${name}' not found. Cannot grant permission.`;
      } else if (!(APP_PERMISSIONS as readonly string[]).includes(permission)) {
        message = `Error. Permission '${permission}' not tracked for app '${name}', available permissions: ${pyRepr([...APP_PERMISSIONS])}`;
      } else {
        app.permissions[permission as AppPermission] = true;
        message = `Success. Permission '${permission}' granted to app '${name}'.`;
      }
      return withStatusBar(device, message);
    },
  },
  {
    name: "can_send_mms",
    kind: "read",
    description: "Checks whether the default messaging app can send MMS (picture) messages.",
    params: [],
    run: ({ db }) => {
      const { device, surroundings } = phone(db);
      return canSendMms(device, surroundings)
        ? "Your messaging app can send MMS messages."
        : "Your messaging app cannot send MMS messages.";
    },
  },
  {
    name: "reboot_device",
    kind: "write",
    description:
      "Restarts the phone completely, which refreshes all services and connections and clears many " +
      "temporary glitches.",
    params: [],
    run: ({ db }) => {
      const root = phone(db);
      const lines: string[] = [];
      if (root.device.active_apn_settings.reset_at_reboot) {
        lines.push("Resetting APN settings...");
        root.device.active_apn_settings = defaultApnSettings();
      }
      lines.push("Restarting network services...");
      root.device.network_connection_status = "searching";
      search(root);
      return withStatusBar(root.device, lines.join("\n"));
    },
  },
  {
    name: "check_payment_request",
    kind: "read",
    description: "Checks whether the agent has sent you a request to pay a bill.",
    params: [],
    run: ({ db }) => {
      const request = phone(db).surroundings.payment_request;
      if (!request) return "No payment request has been made.";
      return `You have a payment request for bill ${request.bill_id} of ${pyFloatRepr(request.amount_due)} USD.`;
    },
  },
  {
    name: "make_payment",
    kind: "write",
    description: "Pays the bill the agent asked you to pay.",
    params: [],
    run: ({ db }) => {
      const request = phone(db).surroundings.payment_request;
      if (!request) return "You do not have a payment request.";
      // The bill itself turns Paid in the next sync_tools.
      request.paid = true;
      return `Payment of ${pyFloatRepr(request.amount_due)} USD has been made for bill ${request.bill_id}.`;
    },
  },
];

/** The user tools as declared here (taubench's own descriptions). */
export const telecomUserTools = userTools;

/** Builds the user toolkit of one environment (cheap: the tool definitions are shared). */
export function makeUserToolkit(
  db: DbState<any>,
  state: UserToolsState,
  tools: readonly ToolDef<UserToolsState>[] = userTools,
): Toolkit<UserToolsState> {
  return new Toolkit("TelecomUserTools", tools, userHelpers, db, state);
}

function connectVpn(device: PhoneDeviceRecord, state: UserToolsState): string {
  if (device.vpn_connected) return "VPN already connected.";
  device.vpn_connected = true;
  // A reference to the shared default, not a copy (see UserToolsState).
  device.vpn_details = state.defaultVpnDetails;
  return withStatusBar(device, "VPN connected successfully.");
}

function appOf(device: PhoneDeviceRecord, appName: unknown) {
  return typeof appName === "string" ? device.app_statuses.get(appName) : undefined;
}

const SPEED_ADVICE: Record<string, string> = {
  "Very Poor": "Connection is very slow. Basic web browsing might be difficult.",
  Poor: "Connection is slow. Web browsing may be sluggish, streaming difficult.",
  Fair: "Connection is okay for web browsing and some standard definition streaming.",
  Good: "Connection is good for most activities, including HD streaming.",
  Excellent: "Connection is very fast.",
};

const SIM_STATUS_TEXT: Record<string, string> = {
  active: "Your SIM card is active and working.",
  missing: "No SIM card detected in the phone.",
  locked_pin: "The SIM card is locked with a PIN code.",
  locked_puk: "The SIM card is locked with a PUK code.",
};

const str = { type: "string" };
const bool = { type: "boolean" };

const device = (db: DbState<any>) => phone(db).device;
const surroundings = (db: DbState<any>): SurroundingsRecord => phone(db).surroundings;
const speed = (db: DbState<any>) => runSpeedTest(device(db), surroundings(db));

/** Hidden helpers: set-up functions and assertions used by tasks (never offered to the LLM). */
const userHelpers: readonly FunctionDef<UserToolsState>[] = [
  {
    name: "set_user_info",
    params: [param("name", str), param("phone_number", str)],
    run: ({ db }, a) => {
      const s = surroundings(db);
      s.name = a.name as string;
      s.phone_number = a.phone_number as string;
      return null;
    },
  },
  {
    name: "set_user_location",
    params: [param("abroad", bool)],
    run: ({ db }, a) => {
      surroundings(db).is_abroad = a.abroad as boolean;
      return null;
    },
  },
  {
    name: "turn_airplane_mode_on",
    params: [],
    run: ({ db }) => {
      if (!toggleAirplaneMode(phone(db))) toggleAirplaneMode(phone(db));
      return "Airplane Mode is now ON.";
    },
  },
  {
    name: "turn_airplane_mode_off",
    params: [],
    run: ({ db }) => {
      if (toggleAirplaneMode(phone(db))) toggleAirplaneMode(phone(db));
      return "Airplane Mode is now OFF.";
    },
  },
  {
    name: "unseat_sim_card",
    params: [],
    run: ({ db }) => {
      device(db).sim_card_missing = true;
      search(phone(db));
      return "SIM card un-seated successfully.";
    },
  },
  {
    name: "lock_sim_card",
    params: [param("mode", { enum: ["pin", "puk"], type: "string" })],
    run: ({ db }, a) => {
      if (a.mode === "pin") device(db).sim_card_status = "locked_pin";
      else if (a.mode === "puk") device(db).sim_card_status = "locked_puk";
      search(phone(db));
      return `SIM card locked successfully in ${pyStr(a.mode)} mode.`;
    },
  },
  {
    name: "turn_data_on",
    params: [],
    run: ({ db }) => {
      // Upstream sets the flag without a network search.
      device(db).data_enabled = true;
      return "Data connection restored.";
    },
  },
  {
    name: "turn_data_off",
    params: [],
    run: ({ db }) => {
      if (toggleData(phone(db))) toggleData(phone(db));
      return "Data connection broken.";
    },
  },
  {
    name: "turn_roaming_on",
    params: [],
    run: ({ db }) => {
      if (!toggleRoaming(phone(db))) toggleRoaming(phone(db));
      return "Data Roaming is now ON.";
    },
  },
  {
    name: "turn_roaming_off",
    params: [],
    run: ({ db }) => {
      if (toggleRoaming(phone(db))) toggleRoaming(phone(db));
      return "Data Roaming is now OFF.";
    },
  },
  {
    name: "turn_data_saver_mode_on",
    params: [],
    run: ({ db }) => {
      if (!toggleDataSaver(phone(db))) toggleDataSaver(phone(db));
      return "Data Saver Mode is now ON.";
    },
  },
  {
    name: "turn_data_saver_mode_off",
    params: [],
    run: ({ db }) => {
      if (toggleDataSaver(phone(db))) toggleDataSaver(phone(db));
      return "Data Saver Mode is now OFF.";
    },
  },
  {
    name: "break_apn_settings",
    params: [],
    run: ({ db }) => {
      device(db).active_apn_settings.apn_name = "broken";
      search(phone(db));
      return "APN settings broken. Please call reset_apn_settings() to fix.";
    },
  },
  {
    name: "break_apn_mms_setting",
    params: [],
    run: ({ db }) => {
      device(db).active_apn_settings.mmsc_url = null;
      return "APN MMS setting broken. Please call reset_apn_settings() to fix.";
    },
  },
  {
    name: "break_vpn",
    params: [],
    run: ({ db, state }) => {
      const d = device(db);
      connectVpn(d, state);
      if (!d.vpn_details) throw new ToolError("'NoneType' object has no attribute 'server_performance'");
      // Mutates the shared default when it is the connected one (see UserToolsState).
      d.vpn_details.server_performance = "poor";
      return "VPN connection broken.";
    },
  },
  {
    name: "set_wifi_calling",
    params: [param("enabled", bool), param("mms_over_wifi", bool, undefined, { default: null })],
    run: ({ db }, a) => {
      const d = device(db);
      if (!pyEquals(d.wifi_calling_enabled, a.enabled)) d.wifi_calling_enabled = !d.wifi_calling_enabled;
      let message = `Wi-Fi Calling is now ${onOff(Boolean(a.enabled))}.`;
      if (a.mms_over_wifi !== null && a.mms_over_wifi !== undefined) {
        d.wifi_calling_mms_over_wifi = a.mms_over_wifi as boolean;
        message += `\nMMS over Wi-Fi is now ${onOff(Boolean(a.mms_over_wifi))}.`;
      }
      return message;
    },
  },
  {
    name: "remove_app_permission",
    params: [param("app_name", str), param("permission", str)],
    run: ({ db }, a) => {
      const app = appOf(device(db), a.app_name);
      const permission = pyLower(a.permission);
      const name = pyStr(a.app_name);
      if (!app) return [false, `App '${name}' not found. Cannot remove permission.`];
      if (!(APP_PERMISSIONS as readonly string[]).includes(permission)) {
        return [false, `Permission '${permission}' not tracked for app '${name}'.`];
      }
      app.permissions[permission as AppPermission] = false;
      return [true, `Permission '${permission}' removed from app '${name}'.`];
    },
  },
  {
    name: "simulate_network_search",
    params: [],
    run: ({ db }) => {
      search(phone(db));
      return null;
    },
  },
  {
    name: "assert_airplane_mode_status",
    params: [param("expected_status", bool)],
    run: ({ db }, a) => pyEquals(device(db).airplane_mode, a.expected_status),
  },
  {
    name: "assert_service_status",
    params: [param("expected_status", str)],
    run: ({ db }, a) => {
      const expected = a.expected_status;
      if (typeof expected !== "string" || !(NETWORK_STATUSES as readonly string[]).includes(expected)) {
        throw new ToolError(`${pyRepr(expected)} is not a valid NetworkStatus`);
      }
      return device(db).network_connection_status === expected;
    },
  },
  {
    name: "assert_mobile_data_status",
    params: [param("expected_status", bool)],
    run: ({ db }, a) => pyEquals(mobileDataWorking(device(db), surroundings(db)), a.expected_status),
  },
  {
    name: "assert_mobile_roaming_status",
    params: [param("expected_status", bool)],
    run: ({ db }, a) => pyEquals(device(db).roaming_enabled, a.expected_status),
  },
  {
    name: "assert_mobile_data_saver_mode_status",
    params: [param("expected_status", bool)],
    run: ({ db }, a) => pyEquals(device(db).data_saver_mode, a.expected_status),
  },
  {
    name: "assert_internet_speed",
    params: [
      param("expected_speed", { type: "number" }),
      param("expected_desc", str, undefined, { default: null }),
    ],
    run: ({ db }, a) => {
      const { speedMbps, description } = speed(db);
      const fastEnough = (speedMbps ?? 0.0) >= toNumber(a.expected_speed);
      if (a.expected_desc === null || a.expected_desc === undefined) return fastEnough;
      return fastEnough && description.toLowerCase() === pyLower(a.expected_desc);
    },
  },
  {
    name: "assert_internet_not_excellent",
    params: [],
    run: ({ db }) => speed(db).description.toLowerCase() !== "excellent",
  },
  {
    name: "assert_can_send_mms",
    params: [param("expected_status", bool)],
    run: ({ db }, a) => pyEquals(canSendMms(device(db), surroundings(db)), a.expected_status),
  },
  {
    name: "assert_mobile_data_usage_exceeded",
    params: [param("expected_status", bool)],
    run: ({ db }, a) => pyEquals(surroundings(db).mobile_data_usage_exceeded, a.expected_status),
  },
];
