import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runTauSync, TAU_BIN } from "../e2e-harness.ts";

const dataDir = process.env.TAU_DATA_DIR;
const srcDir = resolve(process.env.TAU2_SRC_DIR ?? (dataDir ? join(dataDir, "..", "tau2-src") : "."));
const haveSources = dataDir !== undefined && existsSync(join(srcDir, "src", "tau2"));

describe.skipIf(!dataDir)("tau data verify (skipped: TAU_DATA_DIR not set)", () => {
  it("passes on the official folder and names a changed file, exit 1, elsewhere", () => {
    const ok = runTauSync(["data", "verify", "--data-dir", dataDir!]);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/\(from --data-dir\): all \d+ files match upstream v1\.0\.1's sha256\./);
    expect(ok.stdout).toContain("upstream's exact texts: none, so runs use taubench's own wording");
    const copy = mkdtempSync(join(tmpdir(), "tau-verify-"));
    cpSync(join(dataDir!, "domains", "mock"), join(copy, "domains", "mock"), { recursive: true });
    writeFileSync(join(copy, "domains", "mock", "policy.md"), "changed");
    const bad = runTauSync(["data", "verify"], { env: { TAU_DATA_DIR: copy } });
    expect(bad.status).toBe(1);
    expect(bad.stdout).toContain("differs from upstream v1.0.1: domains/mock/policy.md");
    expect(bad.stdout).toContain("missing: domains/airline/db.json");
    expect(bad.stdout).toContain(`${copy} (from TAU_DATA_DIR):`);
    const where = runTauSync(["data", "where"], { env: { TAU_DATA_DIR: join(copy, "nowhere") } });
    expect(where.stdout).toContain(`in use: ${join(copy, "nowhere")} (from TAU_DATA_DIR; does not exist)`);
    // Files are counted per domain folder, not listed one by one (there are hundreds of documents).
    expect(where.stdout).toMatch(
      /^expected files \(\d+\): domains\/airline\/ 4, domains\/banking_knowledge\/ \d+, .*user_simulator\/ 2$/m,
    );
    expect(where.stdout).toMatch(/^τ-bench files \(\d+\): LICENSE, airline\/ \d+, /m);
    rmSync(copy, { recursive: true, force: true });
  });
});

describe.skipIf(!haveSources)(
  "tau data pull from a local archive (skipped: no TAU_DATA_DIR or tau2-src)",
  () => {
    // The archive and two pulled copies take about 115 MB.
    let work = "";
    afterEach(() => {
      if (work) rmSync(work, { recursive: true, force: true });
    });

    it("says how to use the folder: found by default in the cache, named explicitly elsewhere", () => {
      // An uncompressed archive with upstream's layout (top folder, then data/tau2/...), built from the data.
      work = mkdtempSync(join(tmpdir(), "tau-pull-cli-"));
      mkdirSync(join(work, "tau2-bench-1.0.1", "data"), { recursive: true });
      symlinkSync(resolve(dataDir!), join(work, "tau2-bench-1.0.1", "data", "tau2"));
      symlinkSync(join(srcDir, "src"), join(work, "tau2-bench-1.0.1", "src"));
      const archive = join(work, "data.tar");
      const tar = spawnSync("tar", ["-chf", archive, "-C", work, "tau2-bench-1.0.1"], { encoding: "utf8" });
      expect(tar.status, tar.stderr).toBe(0);
      const cache = join(work, "cache");
      const pull = (extra: string[]) =>
        spawnSync(process.execPath, [TAU_BIN, "data", "pull", "--url", archive, ...extra], {
          encoding: "utf8",
          env: { ...process.env, XDG_CACHE_HOME: cache },
        });

      const elsewhere = join(work, "elsewhere");
      const named = pull(["--dest", elsewhere]);
      expect(named.status, named.stderr).toBe(0);
      expect(named.stdout).toContain(`Use it with --data-dir ${elsewhere} or TAU_DATA_DIR=${elsewhere}.`);
      expect(named.stdout).not.toContain("default");
      expect(existsSync(join(elsewhere, "domains", "telecom", "tasks.json"))).toBe(true);
      expect(named.stdout).toContain(
        `Extracted upstream's exact texts (48 entries) into ${join(elsewhere, "taubench")}`,
      );

      const cached = pull([]);
      expect(cached.status, cached.stderr).toBe(0);
      expect(cached.stdout).toContain(
        `into ${join(cache, "taubench", "data")}. Every command finds it there`,
      );
    });
  },
);

describe.skipIf(!haveSources)("tau data extract-texts (skipped: no TAU_DATA_DIR or tau2-src)", () => {
  it("writes the texts from a checkout into the data folder named by TAU_DATA_DIR, and refuses a non-checkout", () => {
    // A data folder like a user's own `data/tau2`: upstream's files, no texts yet.
    const work = mkdtempSync(join(tmpdir(), "tau-extract-cli-"));
    try {
      const data = join(work, "tau2");
      mkdirSync(data);
      symlinkSync(join(resolve(dataDir!), "domains"), join(data, "domains"));
      const run = (from: string) =>
        spawnSync(process.execPath, [TAU_BIN, "data", "extract-texts", "--from", from], {
          encoding: "utf8",
          env: { ...process.env, TAU_DATA_DIR: data },
        });
      const done = run(srcDir);
      expect(done.status, done.stderr).toBe(0);
      expect(done.stdout).toBe(
        `Extracted upstream's exact texts (48 entries) into ${join(data, "taubench", "tau2-bench-texts.json")}.\n`,
      );
      const wrong = run(work);
      expect(wrong.status).toBe(2);
      expect(wrong.stderr.trim()).toBe(
        `tau: ${work} is not a tau2-bench checkout: it has no src/tau2/agent/llm_agent.py (pass the folder that holds src/)`,
      );
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
