/**
 * Derived behaviour of the simulated phone (specs/telecom.md §3): network
 * search, whether mobile data works, MMS capability, the speed test and the
 * status-bar text. Pure functions of the user DB's device and surroundings,
 * except {@link simulateNetworkSearch}, which writes the three network fields.
 */
import { pyRound } from "../../core/py-json.ts";
import type {
  NetworkTechnology,
  PhoneDeviceRecord,
  SignalStrength,
  SimStatus,
  SurroundingsRecord,
} from "./models.ts";

/** The SIM status the phone reports: a missing card wins over the stored status. */
export function effectiveSimStatus(device: PhoneDeviceRecord): SimStatus {
  return device.sim_card_missing ? "missing" : device.sim_card_status;
}

function noService(device: PhoneDeviceRecord): void {
  device.network_connection_status = "no_service";
  device.network_technology_connected = "none";
  device.network_signal_strength = "none";
}

/** Upstream `simulate_network_search`: recomputes connection status, technology and signal (§3.1). */
export function simulateNetworkSearch(device: PhoneDeviceRecord, surroundings: SurroundingsRecord): void {
  const signalFor = (tech: string): SignalStrength => surroundings.signal_strength.get(tech) ?? "none";
  const connect = (tech: NetworkTechnology) => {
    device.network_technology_connected = tech;
    device.network_signal_strength = signalFor(tech);
  };
  if (effectiveSimStatus(device) === "active") {
    device.network_connection_status = "connected";
    switch (device.network_mode_preference) {
      case "4g_5g_preferred":
        connect(signalFor("5G") === "none" ? "4G" : "5G");
        break;
      case "3g_only":
        connect("3G");
        break;
      case "2g_only":
        connect("2G");
        break;
      default:
        // `4g_only`, and upstream's fallback for anything else.
        connect("4G");
        break;
    }
  } else {
    noService(device);
  }
  if (device.airplane_mode) noService(device);
  if (device.active_apn_settings.apn_name === "broken") noService(device);
  if (!surroundings.line_active) noService(device);
}

/** Whether mobile data works (§3.2). */
export function mobileDataWorking(device: PhoneDeviceRecord, surroundings: SurroundingsRecord): boolean {
  if (device.airplane_mode || device.network_signal_strength === "none") return false;
  if (device.network_connection_status === "no_service") return false;
  if (surroundings.is_abroad && !(device.roaming_enabled && surroundings.roaming_allowed)) return false;
  if (!device.data_enabled) return false;
  if (surroundings.mobile_data_usage_exceeded) return false;
  return true;
}

/** Whether the messaging app can send MMS (§3.3). */
export function canSendMms(device: PhoneDeviceRecord, surroundings: SurroundingsRecord): boolean {
  if (!mobileDataWorking(device, surroundings)) return false;
  if (device.network_technology_connected === "2G") return false;
  if (device.wifi_calling_enabled && device.wifi_calling_mms_over_wifi) return false;
  if (device.active_apn_settings.mmsc_url === null) return false;
  const messaging = device.app_statuses.get("messaging");
  if (!messaging) return false;
  return messaging.permissions.storage && messaging.permissions.sms;
}

/** Result of the speed test: no value when data does not work. */
export interface SpeedTest {
  speedMbps: number | null;
  description: string;
}

const TECH_RANGE_MBPS: Record<NetworkTechnology, [number, number]> = {
  "2G": [0.1, 0.4],
  "3G": [1.0, 5.0],
  "4G": [10.0, 100.0],
  "5G": [50.0, 500.0],
  none: [0.0, 0.0],
};

const SIGNAL_FACTOR: Record<SignalStrength, number> = {
  poor: 0.2,
  fair: 0.5,
  good: 0.8,
  excellent: 1.0,
  none: 0.0,
};

/** The simulated download speed and its label (§3.4). */
export function runSpeedTest(device: PhoneDeviceRecord, surroundings: SurroundingsRecord): SpeedTest {
  if (!mobileDataWorking(device, surroundings)) return { speedMbps: null, description: "No Connection" };
  let base =
    device.vpn_connected && device.vpn_details && device.vpn_details.server_performance === "poor"
      ? 0.1
      : 1.0;
  if (device.data_saver_mode) base *= 0.2;
  const [min, max] = TECH_RANGE_MBPS[device.network_technology_connected] ?? [0.0, 0.0];
  const factor = SIGNAL_FACTOR[device.network_signal_strength] ?? 0.0;
  // Same operation order as upstream so the doubles agree before rounding.
  const speed = pyRound(((min + max) / 2.0) * factor * base, 2);
  let description: string;
  if (speed < 1) description = "Very Poor";
  else if (speed < 5) description = "Poor";
  else if (speed < 25) description = "Fair";
  else if (speed < 100) description = "Good";
  else description = "Excellent";
  return { speedMbps: speed, description };
}

const SIGNAL_ICON: Record<SignalStrength, string> = {
  none: "📵 No Signal",
  poor: "📶¹ Poor",
  fair: "📶² Fair",
  good: "📶³ Good",
  excellent: "📶⁴ Excellent",
};

/** The status-bar text (§3.5). */
export function statusBar(device: PhoneDeviceRecord): string {
  const parts: string[] = [];
  if (device.airplane_mode) {
    parts.push("✈️ Airplane Mode");
  } else {
    parts.push(SIGNAL_ICON[device.network_signal_strength] ?? SIGNAL_ICON.none);
    const tech = device.network_technology_connected;
    if (tech !== "none") parts.push(tech);
    if (device.data_enabled && tech !== "none") {
      parts.push("📱 Data Enabled");
      if (device.data_saver_mode) parts.push("🔽 Data Saver");
    } else {
      parts.push("📵 Data Disabled");
    }
  }
  if (device.wifi_enabled && device.wifi_connected) {
    parts.push(device.wifi_ssid ? `📡 Connected to ${device.wifi_ssid}` : "📡 Enabled");
  }
  if (device.vpn_connected) parts.push("🔒 VPN Connected");
  parts.push(`🔋 ${device.battery_level}%`);
  return parts.join(" | ");
}
