import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeFolder } from "./make-folder.ts";

describe("makeFolder", () => {
  const root = mkdtempSync(join(tmpdir(), "tau-make-folder-"));

  it("makes every missing level, and an existing folder is fine", () => {
    const path = join(root, "a", "b", "c");
    makeFolder(path);
    expect(statSync(path).isDirectory()).toBe(true);
    makeFolder(path);
    makeFolder(root);
  });

  it("a file in the way throws its own code", () => {
    const file = join(root, "file");
    writeFileSync(file, "x");
    expect(() => makeFolder(file)).toThrow(expect.objectContaining({ code: "EEXIST" }));
    expect(() => makeFolder(join(file, "below"))).toThrow(expect.objectContaining({ code: "ENOTDIR" }));
  });

  // Node's recursive mkdir retries this one forever (the parent exists, the child is refused with
  // ENOENT): in a process of its own, so that a regression fails on its timeout instead of hanging.
  it.skipIf(!existsSync("/proc/self"))(
    "a parent that refuses children throws once instead of retrying (skipped: no /proc)",
    () => {
      const module = JSON.stringify(join(import.meta.dirname, "make-folder.ts"));
      const script = `import { makeFolder } from ${module};
try { makeFolder("/proc/taubench-no-such/run"); console.log("made"); } catch (error) { console.log(error.code); }`;
      const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
        encoding: "utf8",
        timeout: 20_000,
      });
      expect(child.signal).toBeNull();
      expect(child.stdout.trim()).toBe("ENOENT");
    },
    30_000,
  );
});
