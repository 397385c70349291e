import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { DataDirError } from "../core/errors.ts";
import { TAU_BIN } from "./e2e-harness.ts";
import { fileSystemError, systemCauseDetail } from "./main.ts";

const repo = resolve(import.meta.dirname, "..", "..");

function systemError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

describe("systemCauseDetail", () => {
  it("adds the operating-system reason buried under fetch's 'fetch failed'", () => {
    const fetchError = new TypeError("fetch failed", {
      cause: systemError("getaddrinfo ENOTFOUND example.invalid", "ENOTFOUND"),
    });
    const error = new DataDirError("Cannot download https://example.invalid/x.tar.gz: fetch failed", {
      cause: fetchError,
    });
    expect(systemCauseDetail(error)).toBe(" (getaddrinfo ENOTFOUND example.invalid)");
  });

  it("adds nothing when the message already says it or no cause has a system code", () => {
    const said = systemError("ENOENT: no such file or directory, open 'x'", "ENOENT");
    expect(
      systemCauseDetail(new DataDirError(`Cannot read archive x: ${said.message}`, { cause: said })),
    ).toBe("");
    expect(systemCauseDetail(new DataDirError("plain", { cause: new Error("no code") }))).toBe("");
    expect(systemCauseDetail(new DataDirError("no cause"))).toBe("");
  });
});

describe("fileSystemError", () => {
  const caught = (run: () => void): unknown => {
    try {
      run();
    } catch (error) {
      return error;
    }
    throw new Error("it did not throw");
  };

  it("says which file and why for an error of Node's file system that no command wrapped", () => {
    const parent = mkdtempSync(join(tmpdir(), "tau-fs-error-"));
    const missing = join(parent, "no", "such");
    expect(fileSystemError(caught(() => mkdirSync(missing)))?.message).toBe(
      `cannot create ${missing}: no such file or folder (or the file system does not allow creating it) (ENOENT)`,
    );
    const copy = caught(() => copyFileSync(join(parent, "absent"), join(parent, "copy")));
    expect(fileSystemError(copy)?.message).toBe(
      `cannot copy ${join(parent, "absent")} to ${join(parent, "copy")}: no such file or folder (or the file system does not allow creating it) (ENOENT)`,
    );
    expect(fileSystemError(caught(() => mkdirSync(missing)))?.exitCode).toBe(1);
  });

  it("leaves anything else alone", () => {
    expect(fileSystemError(new Error("plain"))).toBeNull();
    expect(fileSystemError(systemError("connect ECONNREFUSED", "ECONNREFUSED"))).toBeNull();
    expect(fileSystemError(undefined)).toBeNull();
  });

  it.skipIf(!existsSync("/proc/self") || !process.env.TAU_DATA_DIR)(
    "tau telecom generate into a folder that cannot be made is one line naming it (skipped: no /proc or TAU_DATA_DIR)",
    () => {
      const output = "/proc/taubench-no-such/tasks.json";
      const result = spawnSync(process.execPath, [TAU_BIN, "telecom", "generate", "--output", output], {
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(result.status).toBe(1);
      expect(result.stderr.trim()).toBe(
        "tau: cannot create /proc/taubench-no-such: no such file or folder (or the file system does not allow creating it) (ENOENT)",
      );
    },
    90_000,
  );
});

describe("tau data pull from an unreachable URL", () => {
  it("fails with one line that says why, exit 2, no stack", async () => {
    // A loopback port that was just free: nothing listens there, so the connection is refused at once.
    const server = createServer();
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const { port } = server.address() as AddressInfo;
    await new Promise((done) => server.close(done));
    const url = `http://127.0.0.1:${port}/data.tar.gz`;
    const dest = join(mkdtempSync(join(tmpdir(), "tau-pull-")), "data");
    const tau = (pullUrl: string) =>
      spawnSync(process.execPath, [TAU_BIN, "data", "pull", "--dest", dest, "--url", pullUrl], {
        encoding: "utf8",
      });
    const refused = tau(url);
    expect(refused.status).toBe(2);
    const hint = `. Without network access, fetch the release archive some other way and pass it with --url`;
    expect(refused.stderr.trim()).toMatch(/^tau: [^\n]+$/);
    expect(refused.stderr.trim()).toContain(
      `tau: Cannot download ${url}: fetch failed (connect ECONNREFUSED 127.0.0.1:${port})${hint}`,
    );
    // fetch refuses some ports itself; that reason has no system code but is shown all the same.
    expect(tau("http://127.0.0.1:1/data.tar.gz").stderr.trim()).toContain(
      `tau: Cannot download http://127.0.0.1:1/data.tar.gz: fetch failed (bad port)${hint}`,
    );
  });
});

describe("tau --version", () => {
  it("prints the package version and exits 0", () => {
    const result = spawnSync(process.execPath, [TAU_BIN, "--version"], {
      encoding: "utf8",
    });
    expect(result.status).toBe(0);
    const version = (JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { version: string })
      .version;
    expect(result.stdout.trim()).toBe(version);
  });
});
