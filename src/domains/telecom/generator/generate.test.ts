import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { PyFloat, parsePyJson } from "../../../core/py-json.ts";
import { readSplits } from "../../files.ts";
import { loadDomain } from "../../registry.ts";
import {
  AIRPLANE_SET,
  DATA_USAGE_SET,
  type IntentDefinition,
  SIM_SET,
  type SubIssue,
  telecomIntents,
} from "./catalog.ts";
import {
  composeSubIssues,
  formatReport,
  type GeneratedTask,
  type GenerationReport,
  generateTelecomTasks,
  serializeTasks,
} from "./generate.ts";
import { loadTelecomTaskTexts, type TelecomTaskTexts } from "./texts.ts";

const dataDir = process.env.TAU_DATA_DIR;

/** Path of the first difference between two parsed JSON values (key order and int/float count), or null. */
function firstDifference(a: unknown, b: unknown, path: string): string | null {
  if (a instanceof PyFloat || b instanceof PyFloat) {
    return a instanceof PyFloat && b instanceof PyFloat && a.value === b.value ? null : path;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return path;
    for (let i = 0; i < a.length; i++) {
      const found = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  if (a !== null && b !== null && typeof a === "object" && typeof b === "object") {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.join("\u0000") !== kb.join("\u0000")) return `${path} (keys)`;
    for (const k of ka) {
      const found = firstDifference(
        (a as Record<string, unknown>)[k],
        (b as Record<string, unknown>)[k],
        `${path}.${k}`,
      );
      if (found !== null) return found;
    }
    return null;
  }
  return Object.is(a, b) ? null : path;
}

function intent(name: string): IntentDefinition {
  const found = telecomIntents().find((i) => i.name === name);
  if (!found) throw new Error(`no intent ${name}`);
  return found;
}

describe("composition (no data needed)", () => {
  it("gives upstream's combination counts per intent, both data-usage variants included", () => {
    expect(composeSubIssues(intent("service_issue"))).toHaveLength(47);
    expect(composeSubIssues(intent("mobile_data_issue"))).toHaveLength(382);
    expect(composeSubIssues(intent("mms_issue"))).toHaveLength(2976);
  });

  it("follows product order (last set fastest, none after the variants) and sorts names inside a task", () => {
    const composed = composeSubIssues(intent("mobile_data_issue"));
    const names = composed.map((c) => c.name);
    // The first product tuple takes every set's first variant; names are sorted inside a task.
    expect(names[0]).toBe(
      "airplane_mode_on|bad_network_preference|bad_vpn|data_mode_off|data_saver_mode_on|data_usage_exceeded|user_abroad_roaming_enabled_off",
    );
    expect(names.at(-1)).toBe("data_usage_exceeded_no_refuel");
    // Airplane mode alone is refused by the validator.
    expect(names).not.toContain("airplane_mode_on");
    // After the stable sort by size, pairs keep product order: airplane first, then the roaming variants.
    const pairs = composed.filter((c) => c.subIssues.length === 2).map((c) => c.name);
    expect(pairs.slice(0, 4)).toEqual([
      "airplane_mode_on|user_abroad_roaming_enabled_off",
      "airplane_mode_on|user_abroad_roaming_disabled_on",
      "airplane_mode_on|user_abroad_roaming_disabled_off",
      "airplane_mode_on|data_mode_off",
    ]);
  });

  it("applies the MMS validator (at least one MMS-path sub-issue)", () => {
    const composed = composeSubIssues(intent("mms_issue"));
    const mmsPath = /bad_network_preference|bad_wifi_calling|break_apn_mms_setting|break_app_/;
    expect(composed.every((c) => mmsPath.test(c.name))).toBe(true);
    expect(composed.some((c) => c.name === "airplane_mode_on|data_mode_off")).toBe(false);
  });
});

describe.skipIf(!dataDir)("telecom task generation (skipped: TAU_DATA_DIR not set)", () => {
  let texts: TelecomTaskTexts;
  let tasks: GeneratedTask[];
  let report: GenerationReport;
  let makeEnvironment: () => ReturnType<ReturnType<typeof loadDomain>["makeEnvironment"]>;
  const telecomDir = () => join(dataDir!, "domains", "telecom");

  beforeAll(() => {
    const domain = loadDomain("telecom", dataDir!);
    makeEnvironment = () => domain.makeEnvironment();
    texts = loadTelecomTaskTexts(dataDir!);
    ({ tasks, report } = generateTelecomTasks(makeEnvironment, texts));
  });

  it("equals the data folder's tasks.json (parsed, int/float kept), task by task and in order", () => {
    const text = readFileSync(join(telecomDir(), "tasks.json"), "utf8");
    const expected = parsePyJson(text) as unknown[];
    const generated = parsePyJson(serializeTasks(tasks)) as unknown[];
    expect(generated.map((t) => (t as { id: string }).id)).toEqual(
      expected.map((t) => (t as { id: string }).id),
    );
    // A strict walk (key order, int vs float) is much faster than 2,285 toEqual calls; on a
    // difference, toEqual on that one task shows the diff.
    expect(firstDifference({ a: new PyFloat(2), b: 1 }, { a: 2, b: 1 }, "")).toBe(".a");
    expect(firstDifference({ b: 1, a: 2 }, { a: 2, b: 1 }, "")).toBe(" (keys)");
    const at = expected.findIndex((task, i) => firstDifference(generated[i], task, "") !== null);
    if (at >= 0) {
      expect(firstDifference(generated[at], expected[at], `[${at}]`)).toBeNull();
      expect(generated[at]).toEqual(expected[at]);
    }
    // Floats that are integral must stay floats (`2.0`), ints ints (`200`).
    const refuel = tasks.find((t) => t.id === "[mobile_data_issue]data_usage_exceeded[PERSONA:Easy]")!;
    expect(refuel.evaluation_criteria.actions[0]!.arguments.gb_amount).toBeInstanceOf(PyFloat);
    expect(refuel.evaluation_criteria.env_assertions[1]!.arguments.expected_speed).toBe(200);
    // And the bytes are upstream's json.dump(indent=2).
    expect(serializeTasks(tasks) === text).toBe(true);
  });

  it("contains the 114 tasks of the base split, and every id of the small and full splits", () => {
    const splits = readSplits(join(telecomDir(), "split_tasks.json"));
    const ids = new Set(tasks.map((t) => t.id));
    const base = splits.base!;
    expect(base).toHaveLength(114);
    expect(tasks.filter((t) => base.includes(t.id))).toHaveLength(114);
    expect(splits.small!.every((id) => ids.has(id))).toBe(true);
    expect(splits.full!.length).toBe(tasks.length);
    expect(splits.full!.every((id) => ids.has(id))).toBe(true);
  });

  it("reports counts per intent, number of sub-issues and persona, omissions and rejections", () => {
    expect(Object.fromEntries(report.perIntent)).toEqual({
      mobile_data_issue: 254,
      service_issue: 47,
      mms_issue: 1984,
    });
    expect(Object.fromEntries(report.perSubIssueCount)).toEqual({
      1: 20,
      2: 101,
      3: 283,
      4: 505,
      5: 596,
      6: 467,
      7: 235,
      8: 69,
      9: 9,
    });
    expect(Object.fromEntries(report.perPersona)).toEqual({ None: 769, Easy: 760, Hard: 756 });
    expect(Object.fromEntries(report.composed)).toEqual({
      mobile_data_issue: 382,
      service_issue: 47,
      mms_issue: 2976,
    });
    expect(report.omitted).toBe(382 - 254 + 2976 - 1984);
    expect(report.rejected).toEqual([]);
    const transfers = tasks.filter((t) => t.evaluation_criteria.reward_basis.includes("ACTION"));
    expect(report.expectedFailures).toBe(transfers.length);
    expect(transfers.every((t) => /lock_sim_card_pin|contract_end_suspension/.test(t.id))).toBe(true);
    const printed = formatReport(report, texts.sources);
    expect(printed).toContain("tasks accepted per persona: None 769, Easy 760, Hard 756");
    expect(printed).toContain(
      "combinations composed per intent (before omission and validation): mobile_data_issue 382, service_issue 47, mms_issue 2976",
    );
    expect(printed).toContain(
      "tasks accepted per intent: mobile_data_issue 254, service_issue 47, mms_issue 1984",
    );
    expect(printed).toContain("rejected: 0");
    expect(printed).toContain("tasks_small.json");
  });

  it("with the no-refuel variant kept, those tasks validate too and expect a transfer", () => {
    const mobile = intent("mobile_data_issue");
    const only: IntentDefinition = { ...mobile, selectionSets: [AIRPLANE_SET, DATA_USAGE_SET] };
    const result = generateTelecomTasks(makeEnvironment, texts, {
      intents: [only],
      noRefuelTasks: "include",
    });
    expect(result.report.rejected).toEqual([]);
    const noRefuel = result.tasks.find(
      (t) => t.id === "[mobile_data_issue]data_usage_exceeded_no_refuel[PERSONA:Easy]",
    )!;
    expect(noRefuel.evaluation_criteria.reward_basis).toEqual(["ENV_ASSERTION", "ACTION"]);
    expect(noRefuel.evaluation_criteria.actions.map((a) => a.name)).toEqual(["transfer_to_human_agents"]);
    expect(noRefuel.evaluation_criteria.env_assertions.map((a) => a.arguments)).toEqual([
      { expected_status: false },
      { expected_speed: 0, expected_desc: null },
    ]);
    const omitted = generateTelecomTasks(makeEnvironment, texts, { intents: [only] });
    expect(omitted.report.omitted).toBe(2);
    // Omitted tasks keep their persona slot: the survivors' personas do not move.
    expect(omitted.tasks.map((t) => t.id)).toEqual(
      result.tasks.filter((t) => !t.id.includes("no_refuel")).map((t) => t.id),
    );
  });

  describe("validation rejects broken composites with a reason", () => {
    const service = () => intent("service_issue");
    const unseat = SIM_SET[0]!;
    const airplane = AIRPLANE_SET[0]!;
    const run = (sets: SubIssue[][]) =>
      generateTelecomTasks(makeEnvironment, texts, { intents: [{ ...service(), selectionSets: sets }] })
        .report;

    it("a fix that does not repair the phone", () => {
      const brokenFix: SubIssue = {
        ...unseat,
        fix: [() => [{ requestor: "user", name: "reboot_device", arguments: {} }]],
      };
      const result = run([[airplane], [brokenFix]]);
      expect(result.accepted).toBe(1); // airplane mode alone is fine
      expect(result.rejected.map((r) => r.id)).toEqual([
        "[service_issue]unseat_sim_card[PERSONA:Easy]",
        "[service_issue]airplane_mode_on|unseat_sim_card[PERSONA:Hard]",
      ]);
      expect(result.rejected[1]!.reason).toBe(
        "not fixed after all 2 expected action(s): user assert_service_status(expected_status='connected') is not true",
      );
    });

    it("a fix that is one action too long", () => {
      const tooLong: SubIssue = {
        ...airplane,
        fix: [
          () => [
            { requestor: "user", name: "toggle_airplane_mode", arguments: {} },
            { requestor: "user", name: "reboot_device", arguments: {} },
          ],
        ],
      };
      const [rejection] = run([[tooLong]]).rejected;
      expect(rejection!.reason).toBe(
        "already fixed before action 2/2 (user reboot_device()): the earlier actions suffice",
      );
    });

    it("a fix whose tool call fails", () => {
      const failing: SubIssue = {
        ...unseat,
        fix: [
          () => [
            {
              requestor: "assistant",
              name: "resume_line",
              arguments: { customer_id: "C9999", line_id: "L1002" },
            },
          ],
        ],
      };
      const [rejection] = run([[failing]]).rejected;
      expect(rejection!.reason).toMatch(
        /^action 1\/1 \(assistant resume_line\(customer_id='C9999', line_id='L1002'\)\) raised: Customer with ID C9999 not found$/,
      );
    });

    it("a set-up that does not break anything, and a set-up check that fails", () => {
      const harmless: SubIssue = {
        name: "data_saver_only",
        setup: [
          () => [
            { type: "call", call: { env_type: "user", func_name: "turn_data_saver_mode_on", arguments: {} } },
          ],
        ],
        fix: null,
      };
      expect(run([[harmless]]).rejected[0]!.reason).toBe(
        "the set-up alone already satisfies the success assertions (nothing is broken)",
      );
      const checked: SubIssue = {
        ...harmless,
        setup: [
          ...harmless.setup,
          () => [
            {
              type: "check",
              assertion: {
                env_type: "user",
                func_name: "assert_service_status",
                arguments: { expected_status: "no_service" },
                assert_value: true,
                message: null,
              },
            },
          ],
        ],
      };
      expect(run([[checked]]).rejected[0]!.reason).toBe(
        "set-up of data_saver_only did not break the phone as intended: assert_service_status(expected_status='no_service') is false",
      );
    });
  });
});
