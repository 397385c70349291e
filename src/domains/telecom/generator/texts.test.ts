import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FileFormatError } from "../../../core/errors.ts";
import { parsePyJson, pyDumps, pyEquals } from "../../../core/py-json.ts";
import { INTENT_NAMES } from "./catalog.ts";
import { fillTemplate, loadTelecomTaskTexts, type TelecomTaskTexts, type Template } from "./texts.ts";

const dataDir = process.env.TAU_DATA_DIR;

describe("fillTemplate (no data needed)", () => {
  it("puts values into every slot, literal text untouched", () => {
    const template: Template = [
      "Hi ",
      { slot: "name" },
      " (",
      { slot: "phone_number" },
      "), ",
      { slot: "name" },
      ".",
    ];
    expect(fillTemplate(template, { name: "Ann", phone_number: "1", location: "x" })).toBe(
      "Hi Ann (1), Ann.",
    );
  });
});

describe.skipIf(!dataDir)("telecom generator texts (skipped: TAU_DATA_DIR not set)", () => {
  let texts: TelecomTaskTexts;
  const telecomDir = () => join(dataDir!, "domains", "telecom");
  const readRaw = (file: string) =>
    parsePyJson(readFileSync(join(telecomDir(), file), "utf8")) as Record<string, any>[];

  /** A data folder holding only some of the telecom task files (links to the real ones, or given contents). */
  function partialDataDir(files: Record<string, string | null>): string {
    const root = mkdtempSync(join(tmpdir(), "tau-telecom-texts-"));
    const dir = join(root, "domains", "telecom");
    mkdirSync(dir, { recursive: true });
    for (const [name, content] of Object.entries(files)) {
      if (content === null) symlinkSync(join(telecomDir(), name), join(dir, name));
      else writeFileSync(join(dir, name), content);
    }
    return root;
  }

  beforeAll(() => {
    texts = loadTelecomTaskTexts(dataDir!);
  });

  it("takes every text from tasks_small.json with the official data", () => {
    expect([...texts.sources.keys()]).toEqual([
      "locations",
      "mobile_data_issue",
      "service_issue",
      "mms_issue",
      "persona Easy",
      "persona Hard",
    ]);
    for (const source of texts.sources.values()) expect(source).toMatch(/^tasks_small\.json \(/);
  });

  it("derives templates with name and phone slots, and a location slot where the text has one", () => {
    const slots = (template: Template) =>
      template.filter((p) => typeof p !== "string").map((p) => (p as { slot: string }).slot);
    expect(slots(texts.intents.get("service_issue")!.knownInfo)).toEqual(["name", "phone_number"]);
    for (const intent of ["mobile_data_issue", "mms_issue"] as const) {
      expect(slots(texts.intents.get(intent)!.knownInfo)).toEqual(["name", "phone_number", "location"]);
      expect(slots(texts.intents.get(intent)!.ticket)).toEqual(["name", "phone_number", "location"]);
    }
    expect(texts.locations.abroad).not.toBe(texts.locations.home);
    // Whole words: the phrases start and end on word boundaries.
    for (const phrase of Object.values(texts.locations)) expect(phrase).toMatch(/^\w.*\w$/);
    expect(texts.personas.get("None")).toBeNull();
    expect(texts.personas.get("Easy")).not.toBe(texts.personas.get("Hard"));
  });

  it("keeps assertion messages per variant (service success has them, failure not)", () => {
    const service = texts.intents.get("service_issue")!.messages;
    expect(typeof service.success.get("assert_service_status")).toBe("string");
    expect(typeof service.success.get("assert_no_overdue_bill")).toBe("string");
    expect(service.failure.get("assert_service_status")).toBeNull();
    expect(texts.intents.get("mms_issue")!.messages.success.get("assert_can_send_mms")).toBeNull();
  });

  it("finds tasks_small.json identical to tasks.json for its 20 tasks; both name get_status_bar", () => {
    const small = readRaw("tasks_small.json");
    const full = readRaw("tasks.json");
    const byId = new Map(full.map((task) => [task.id as string, task]));
    expect(small).toHaveLength(20);
    for (const task of small) expect(pyEquals(task, byId.get(task.id)), task.id).toBe(true);
    // The "stale" tool name is in every task of both files, so it must be reproduced as is.
    const instructions = (task: Record<string, any>) =>
      task.user_scenario.instructions.task_instructions as string;
    expect(full.every((task) => instructions(task).includes("`get_status_bar`"))).toBe(true);
    expect(full.some((task) => instructions(task).includes("check_status_bar"))).toBe(false);
  });

  it("falls back to tasks.json when tasks_small.json is missing, with the same texts", () => {
    const fallback = loadTelecomTaskTexts(partialDataDir({ "tasks.json": null }));
    for (const source of fallback.sources.values()) expect(source).toMatch(/^tasks\.json \(/);
    expect(fallback.locations).toEqual(texts.locations);
    expect(fallback.personas).toEqual(texts.personas);
    for (const intent of INTENT_NAMES) {
      const a = fallback.intents.get(intent)!;
      const b = texts.intents.get(intent)!;
      expect(a.purpose === b.purpose && a.reasonForCall === b.reasonForCall).toBe(true);
      expect(a.taskInstructions === b.taskInstructions).toBe(true);
      expect(a.knownInfo).toEqual(b.knownInfo);
      expect(a.ticket).toEqual(b.ticket);
      expect(a.messages).toEqual(b.messages);
    }
  });

  it("refuses source tasks whose texts disagree, naming the file, the task and the field", () => {
    const altered = readRaw("tasks_small.json");
    const victim = altered.find((task) => task.id.startsWith("[service_issue]") && task.id.includes("Hard"))!;
    victim.ticket = `${victim.ticket} (edited)`;
    const dir = partialDataDir({ "tasks_small.json": pyDumps(altered, { indent: 2 }) });
    let error: unknown;
    try {
      loadTelecomTaskTexts(dir);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(FileFormatError);
    expect((error as Error).message).toContain("tasks_small.json");
    expect((error as Error).message).toContain(
      `task ${victim.id}: ticket differs from the other service_issue tasks`,
    );
  });

  it("says what is missing when no task file has an intent", () => {
    const small = readRaw("tasks_small.json").filter((task) => !task.id.startsWith("[mms_issue]"));
    const dir = partialDataDir({ "tasks_small.json": pyDumps(small, { indent: 2 }) });
    expect(() => loadTelecomTaskTexts(dir)).toThrow(/no task to take the mms_issue texts from/);
  });
});
