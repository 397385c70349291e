import { describe, expect, it } from "vitest";
import { canSendMms, mobileDataWorking, runSpeedTest, simulateNetworkSearch, statusBar } from "./device.ts";
import {
  defaultApnSettings,
  defaultSurroundings,
  type NetworkTechnology,
  type PhoneDeviceRecord,
  type SignalStrength,
} from "./models.ts";

function phone(overrides: Partial<PhoneDeviceRecord> = {}): PhoneDeviceRecord {
  return {
    sim_card_status: "active",
    sim_card_missing: false,
    airplane_mode: false,
    network_signal_strength: "good",
    network_technology_connected: "5G",
    network_connection_status: "connected",
    battery_level: 80,
    data_enabled: true,
    roaming_enabled: false,
    network_mode_preference: "4g_5g_preferred",
    active_apn_settings: defaultApnSettings(),
    wifi_enabled: false,
    wifi_connected: false,
    wifi_ssid: null,
    wifi_signal_strength: "none",
    wifi_calling_enabled: false,
    wifi_calling_mms_over_wifi: false,
    data_saver_mode: false,
    vpn_enabled_setting: false,
    vpn_connected: false,
    vpn_details: null,
    app_statuses: new Map([
      [
        "messaging",
        { app_name: "messaging", permissions: { sms: true, storage: true, phone: true, network: false } },
      ],
    ]),
    ...overrides,
  };
}

const at = (tech: NetworkTechnology, signal: SignalStrength, extra: Partial<PhoneDeviceRecord> = {}) =>
  phone({ network_technology_connected: tech, network_signal_strength: signal, ...extra });

describe("telecom device model", () => {
  it("computes the spec's speed-test examples", () => {
    const s = defaultSurroundings();
    const poorVpn = { server_address: "192.168.1.1", protocol: "OpenVPN", server_performance: "poor" };
    const cases: [PhoneDeviceRecord, number, string][] = [
      [at("5G", "excellent"), 275.0, "Excellent"],
      [at("5G", "good"), 220.0, "Excellent"],
      [at("4G", "good"), 44.0, "Good"],
      [at("4G", "good", { data_saver_mode: true }), 8.8, "Fair"],
      [at("3G", "fair"), 1.5, "Poor"],
      [at("2G", "poor"), 0.05, "Very Poor"],
      [at("5G", "excellent", { vpn_connected: true, vpn_details: poorVpn }), 27.5, "Good"],
      [at("5G", "excellent", { data_saver_mode: true }), 55.0, "Good"],
    ];
    for (const [device, speed, description] of cases) {
      expect(runSpeedTest(device, s)).toEqual({ speedMbps: speed, description });
    }
    expect(runSpeedTest(at("5G", "excellent", { data_enabled: false }), s)).toEqual({
      speedMbps: null,
      description: "No Connection",
    });
  });

  it("searches the network from SIM, preference, airplane mode, APN and line state", () => {
    const search = (device: PhoneDeviceRecord, lineActive = true) => {
      const s = defaultSurroundings();
      s.line_active = lineActive;
      simulateNetworkSearch(device, s);
      return [
        device.network_connection_status,
        device.network_technology_connected,
        device.network_signal_strength,
      ];
    };
    expect(search(phone())).toEqual(["connected", "5G", "excellent"]);
    expect(search(phone({ network_mode_preference: "4g_only" }))).toEqual(["connected", "4G", "good"]);
    expect(search(phone({ network_mode_preference: "3g_only" }))).toEqual(["connected", "3G", "fair"]);
    expect(search(phone({ network_mode_preference: "2g_only" }))).toEqual(["connected", "2G", "poor"]);
    expect(search(phone({ sim_card_missing: true }))).toEqual(["no_service", "none", "none"]);
    expect(search(phone({ sim_card_status: "locked_pin" }))).toEqual(["no_service", "none", "none"]);
    expect(search(phone({ airplane_mode: true }))).toEqual(["no_service", "none", "none"]);
    expect(search(phone({ active_apn_settings: { ...defaultApnSettings(), apn_name: "broken" } }))).toEqual([
      "no_service",
      "none",
      "none",
    ]);
    expect(search(phone(), false)).toEqual(["no_service", "none", "none"]);
    // No 5G signal around: the preferred mode falls back to 4G.
    const s = defaultSurroundings();
    s.signal_strength.set("5G", "none");
    const device = phone();
    simulateNetworkSearch(device, s);
    expect(device.network_technology_connected).toBe("4G");
    expect(device.network_signal_strength).toBe("good");
  });

  it("checks mobile data and MMS in the spec's order", () => {
    const s = defaultSurroundings();
    expect(mobileDataWorking(phone(), s)).toBe(true);
    s.is_abroad = true;
    expect(mobileDataWorking(phone({ roaming_enabled: true }), s)).toBe(false);
    s.roaming_allowed = true;
    expect(mobileDataWorking(phone({ roaming_enabled: true }), s)).toBe(true);
    const home = defaultSurroundings();
    home.mobile_data_usage_exceeded = true;
    expect(mobileDataWorking(phone(), home)).toBe(false);
    const fresh = defaultSurroundings();
    expect(canSendMms(phone(), fresh)).toBe(true);
    expect(canSendMms(at("2G", "poor"), fresh)).toBe(false);
    expect(canSendMms(phone({ wifi_calling_enabled: true, wifi_calling_mms_over_wifi: true }), fresh)).toBe(
      false,
    );
    expect(
      canSendMms(phone({ active_apn_settings: { ...defaultApnSettings(), mmsc_url: null } }), fresh),
    ).toBe(false);
    expect(canSendMms(phone({ app_statuses: new Map() }), fresh)).toBe(false);
  });

  it("renders the status bar exactly", () => {
    expect(statusBar(at("5G", "excellent"))).toBe("📶⁴ Excellent | 5G | 📱 Data Enabled | 🔋 80%");
    expect(statusBar(at("none", "none"))).toBe("📵 No Signal | 📵 Data Disabled | 🔋 80%");
    expect(statusBar(phone({ airplane_mode: true }))).toBe("✈️ Airplane Mode | 🔋 80%");
    expect(statusBar(at("4G", "good", { data_saver_mode: true, vpn_connected: true }))).toBe(
      "📶³ Good | 4G | 📱 Data Enabled | 🔽 Data Saver | 🔒 VPN Connected | 🔋 80%",
    );
    expect(statusBar(phone({ wifi_enabled: true, wifi_connected: true, wifi_ssid: "Home" }))).toContain(
      "📡 Connected to Home",
    );
    // Code points, not just look-alikes.
    expect([..."✈️"].map((c) => c.codePointAt(0))).toEqual([0x2708, 0xfe0f]);
    expect([..."📶⁴"].map((c) => c.codePointAt(0))).toEqual([0x1f4f6, 0x2074]);
  });
});
