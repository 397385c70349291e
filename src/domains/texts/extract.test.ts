/**
 * The extraction run on upstream's own source files (`../shared/tau2-src`, the
 * v1.0.1 blobs). The expected sha256 values were computed independently, by
 * importing upstream's modules in Python and hashing the values themselves
 * (the texts are never in this repository).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { extractTexts, type TextSource, TextExtractionError } from "./extract.ts";
import { serializeTexts } from "./format.ts";
import { formatTemplate, loadUpstreamTexts, parseTextsFile, textsPath, writeTextsFile } from "./store.ts";
import { TAU2_TEXT, TAU2_TEXT_SOURCE } from "./tau2.ts";

const dataDir = process.env.TAU_DATA_DIR;
const srcDir = process.env.TAU2_SRC_DIR ?? (dataDir ? join(dataDir, "..", "tau2-src") : "");
const haveSources = srcDir !== "" && existsSync(join(srcDir, "src", "tau2"));
const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const readFrom = (root: string) => (path: string) =>
  existsSync(join(root, path)) ? readFileSync(join(root, path)) : undefined;

describe.skipIf(!haveSources)("extracting tau2-bench v1.0.1's texts (skipped: no ../shared/tau2-src)", () => {
  const file = haveSources ? extractTexts(TAU2_TEXT_SOURCE, readFrom(srcDir), srcDir) : null;
  const texts = () => parseTextsFile("texts.json", Buffer.from(serializeTexts(file!)));

  it("gives the pinned texts file, byte for byte", () => {
    expect(TAU2_TEXT_SOURCE.textsSha256).not.toBeNull();
    expect(sha(serializeTexts(file!))).toBe(TAU2_TEXT_SOURCE.textsSha256);
  });

  it("finds every toolkit's tools and discoverable tools", () => {
    const counts = Object.fromEntries(
      Object.entries(file!.entries)
        .filter(([, entry]) => entry.kind === "toolkit")
        .map(([key, entry]) => [
          key,
          entry.kind === "toolkit" ? [entry.tools.length, entry.discoverable.length] : [],
        ]),
    );
    expect(counts).toEqual({
      "toolkit.mock.MockTools": [4, 0],
      "toolkit.mock.MockUserTools": [2, 0],
      "toolkit.airline.AirlineTools": [14, 0],
      "toolkit.retail.RetailTools": [16, 0],
      "toolkit.telecom.TelecomTools": [13, 0],
      "toolkit.telecom.TelecomUserTools": [30, 0],
      "toolkit.banking_knowledge.KnowledgeTools": [14, 44],
      "toolkit.banking_knowledge.KnowledgeUserTools": [6, 4],
      "toolkit.banking_knowledge.KBSearchMixin": [1, 0],
      "toolkit.banking_knowledge.GrepMixin": [1, 0],
      "toolkit.banking_knowledge.KBSearchBm25AllToolsMixin": [1, 0],
      "toolkit.banking_knowledge.KBSearchDenseAllToolsMixin": [1, 0],
      "toolkit.banking_knowledge.ShellMixin": [1, 0],
    });
    expect(Object.keys(file!.entries)).toHaveLength(48);
  });

  it("extracts the prompt texts exactly (sha256 of upstream's Python values)", () => {
    const t = texts();
    expect(sha(t.text(TAU2_TEXT.agentInstruction))).toBe(
      "e00faa515230c8648931f73ed25c9528418cccc522fe8936917f4c2a047bc5d2",
    );
    expect(sha(t.template(TAU2_TEXT.agentSystemPrompt).text)).toBe(
      "71ed98b68d2f1e2a79512f6581b78dc1741efc1ab8fce791764740f8a47702b1",
    );
    expect(sha(t.text(TAU2_TEXT.goldPlanInstruction))).toBe(
      "a3384399bf02469603161940160786cee1d4dac7773980ad61e5637784ecd65e",
    );
    expect(sha(t.template(TAU2_TEXT.soloInstruction).text)).toBe(
      "364f1958755125145cf85fcc7327c5ab50d94edce8de3b9c0cf2057f5c2fa8ef",
    );
    expect(sha(t.format(TAU2_TEXT.userSystemPrompt, { guidelines: "G", instructions: "I" }))).toBe(
      "fc17cf2710bb41037b85677273ff04b6fc82de9360801dfe4c0c635fa6a5da01",
    );
    expect(sha(t.text(TAU2_TEXT.greeting))).toBe(
      "271973d4979a0bdfa021f64bf7cc98f77eeffd101b3d1fbcaaf178c4b061b62f",
    );
    const dense = (provider: string, model: string) =>
      sha(t.format(TAU2_TEXT.bankingDenseInstructions, { provider: t.text(provider), model: t.text(model) }));
    expect(dense(TAU2_TEXT.bankingDenseProviderOpenai, TAU2_TEXT.bankingDenseModelOpenai)).toBe(
      "1db981b013227561263263489dcf127d9fbe6817aa7e886a7381a4abd5f9b760",
    );
    expect(dense(TAU2_TEXT.bankingDenseProviderOpenrouter, TAU2_TEXT.bankingDenseModelOpenrouter)).toBe(
      "2120e08200422ff3cc78fda35c3863e16c9840643adf07c9afc5c65224a5c535",
    );
  });

  it("keeps discoverable tools' docstrings as inspect.getdoc gives them", () => {
    const t = texts();
    const joined = (className: string) =>
      sha(
        t
          .discoverableTools("banking_knowledge", className)
          .map((tool) => `${tool.name}\n${tool.doc}`)
          .join("\n\0\n"),
      );
    expect(joined("KnowledgeTools")).toBe("c0695776cb99d48d09ae9b7e69f75357ece28122a86ec6e81c78cc54fd0452ef");
    expect(joined("KnowledgeUserTools")).toBe(
      "bd9c6e693a0990685da4c99f64a3e3f1480492b1eef63b12a8b3b9f88a3da92c",
    );
    const first = t.discoverableTools("banking_knowledge", "KnowledgeTools")[0]!;
    expect(t.discoverableTool("banking_knowledge", first.name)).toBe(first.doc);
  });

  it("looks tools up by domain and name, with parameters in signature order", () => {
    const t = texts();
    const tool = t.tool("banking_knowledge", "KB_search_bm25")!;
    expect(tool.params.map((param) => [param.name, param.annotation, param.default])).toEqual([
      ["query", "str", null],
      ["k", "int", "10"],
    ]);
    expect(tool.params.every((param) => typeof param.description === "string")).toBe(true);
    // Parameters the docstring does not name get no description (telecom, spec §2.4).
    const mode = t.tool("telecom", "set_network_mode_preference")!;
    expect(mode.params.map((param) => param.description)).toEqual([null]);
    expect(t.tool("telecom", "no_such_tool")).toBeUndefined();
    expect(t.tools("telecom").size).toBe(43);
    expect(t.model("telecom", "APNSettings")!.fields.size).toBe(6);
  });

  it("writes and reloads the file from a data folder, and refuses an edited one", () => {
    const dir = mkdtempSync(join(tmpdir(), "tau-texts-"));
    writeTextsFile(dir, file!);
    const loaded = loadUpstreamTexts(dir)!;
    expect(loaded.sha256).toBe(TAU2_TEXT_SOURCE.textsSha256);
    expect(loaded.release).toBe("tau2-bench v1.0.1");
    const edited = readFileSync(textsPath(dir), "utf8").replace("Hi! How can I help you today?", "Hello.");
    writeFileSync(textsPath(dir), edited);
    expect(() => loadUpstreamTexts(dir)).toThrow(/does not match its sha256 \(was the file edited\?\)/);
  });

  it("refuses sources that are not the pinned release's, naming the file", () => {
    const changed = (path: string) => {
      const data = readFrom(srcDir)(path);
      return path.endsWith("orchestrator.py") ? Buffer.concat([data!, Buffer.from("\n")]) : data;
    };
    expect(() => extractTexts(TAU2_TEXT_SOURCE, changed, "a checkout")).toThrow(
      /src\/tau2\/orchestrator\/orchestrator\.py: not tau2-bench v1\.0\.1's file/,
    );
  });
});

describe("extraction rules", () => {
  const source = (text: string, rules: TextSource["files"][number]["rules"]): TextSource => ({
    name: "toy",
    release: "v0",
    textsSha256: null,
    files: [{ path: "toy.py", sha256: sha(text), rules }],
  });
  const run = (text: string, rules: TextSource["files"][number]["rules"]) =>
    extractTexts(source(text, rules), () => Buffer.from(text), "toy").entries;

  it("reads constants with .strip(), f-string and + templates, keyword arguments and returns", () => {
    const text = [
      'A = """',
      "  Hello {name}!",
      '""".strip()',
      'G = Message(role="assistant", content="Hi" " there")',
      "def f(x):",
      '    """Doc."""',
      "    if x:",
      '        return ""',
      '    return f"<{x.title}>" + x.body + "{}"',
    ].join("\n");
    const entries = run(text, [
      { kind: "template", key: "a", select: { assign: "A" }, fields: { name: "who" } },
      { kind: "text", key: "g", select: { assign: "G", keyword: "content" } },
      {
        kind: "template",
        key: "f",
        scope: "f",
        select: { return: 1 },
        fields: { "x.title": "title", "x.body": "body" },
      },
      { kind: "docstring", key: "d", scope: "f" },
    ]);
    expect(entries.a).toEqual({ kind: "template", text: "Hello {who}!", fields: ["who"] });
    expect(entries.g).toEqual({ kind: "text", text: "Hi there" });
    expect(entries.f).toEqual({ kind: "template", text: "<{title}>{body}{{}}", fields: ["title", "body"] });
    expect(entries.d).toEqual({ kind: "text", text: "Doc." });
    const template = { text: "<{title}>{body}{{}}", fields: ["title", "body"] };
    expect(formatTemplate(template, { title: "T", body: "{B}" })).toBe("<T>{B}{}");
  });

  it("reports every problem at once: unmapped fields, missing names, missing files", () => {
    const text = 'A = f"{a} {b}"\n';
    const bad = source(text, [
      { kind: "template", key: "a", select: { assign: "A" }, fields: { a: "a" } },
      { kind: "text", key: "z", select: { assign: "Z" } },
    ]);
    const error = (() => {
      try {
        extractTexts(
          { ...bad, files: [...bad.files, { path: "gone.py", sha256: "0", rules: [] }] },
          (path) => (path === "toy.py" ? Buffer.from(text) : undefined),
          "toy",
        );
      } catch (caught) {
        return caught as Error;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(TextExtractionError);
    expect(error!.message).toContain("3 problems");
    expect(error!.message).toContain("the field {b} is not mapped to a name");
    expect(error!.message).toContain("no assignment to 'Z'");
    expect(error!.message).toContain("gone.py: missing");
  });
});
