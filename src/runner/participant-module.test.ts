import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isModulePath, loadAgentModule, loadUserModule } from "./participant-module.ts";

describe("isModulePath", () => {
  it("tells module files from registered names", () => {
    for (const spec of ["./a.ts", "../x/a.mjs", "/abs/a.js", "a.ts", "agents/mine", ".hidden", "C:\\a.ts"])
      expect(isModulePath(spec), spec).toBe(true);
    for (const spec of ["llm_agent", "replay", "user_simulator", "my-agent.v2", "dummy_user"])
      expect(isModulePath(spec), spec).toBe(false);
  });
});

describe("loading definitions from modules", () => {
  const folder = mkdtempSync(join(tmpdir(), "tau-module-load-"));
  const write = (name: string, text: string) => writeFileSync(join(folder, name), text);

  it("reads an ES module, a CommonJS module and a TypeScript module, with the file's sha256", async () => {
    write("a.mjs", "export default { name: 'esm_agent', create: () => ({}) };\n");
    write("b.cjs", "module.exports = { name: 'cjs_agent', version: '2', create: () => ({}) };\n");
    write(
      "c.ts",
      "const n: string = 'ts_user';\nexport default { name: n, needsLlm: true, create: () => ({}) };\n",
    );
    const esm = await loadAgentModule("./a.mjs", folder);
    expect(esm.definition).toMatchObject({ name: "esm_agent", needsLlm: false, soloMode: false });
    expect(esm.source).toMatchObject({ kind: "module", path: join(folder, "a.mjs") });
    expect(esm.source.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect((await loadAgentModule("b.cjs", folder)).definition).toMatchObject({
      name: "cjs_agent",
      version: "2",
    });
    expect((await loadUserModule(join(folder, "c.ts"), "/")).definition).toMatchObject({
      name: "ts_user",
      needsLlm: true,
    });
  });

  it("checks a user module against the user fields", async () => {
    write("u.mjs", "export default { name: 'u', soloMode: true, create: () => ({}) };\n");
    await expect(loadUserModule("./u.mjs", folder)).rejects.toThrow(
      `${join(folder, "u.mjs")}: the default export is not a valid user definition: 'u': unknown field soloMode`,
    );
  });

  it("refuses a file that is not a module and a folder", async () => {
    write("notes.txt", "hello");
    await expect(loadAgentModule("./notes.txt", folder)).rejects.toThrow(
      /not a module \(the file must end in \.ts/,
    );
    await expect(loadAgentModule("./", folder)).rejects.toThrow(/--agent \.\/: not a file/);
  });
});
