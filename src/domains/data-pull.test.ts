import { createServer, type Server } from "node:http";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DataDirError } from "../core/errors.ts";
import type { ManifestEntry } from "./data-manifest.ts";
import { tarOf } from "../testing/archive.ts";
import { parseTar, pullData, verifyData } from "./data-pull.ts";

const sha = (data: Buffer) => createHash("sha256").update(data).digest("hex");

describe("tau data pull", () => {
  const policy = Buffer.from("# Policy\nBe helpful.\n");
  const tasks = Buffer.from('[{"id": "t1"}]\n');
  const manifest: ManifestEntry[] = [
    { path: "domains/mock/policy.md", sha256: sha(policy), bytes: policy.length },
    { path: "domains/mock/tasks.json", sha256: sha(tasks), bytes: tasks.length },
  ];
  const good = gzipSync(
    tarOf([
      { path: "tau2-bench-1.0.1/README.md", data: Buffer.from("readme") },
      { path: "tau2-bench-1.0.1/data/tau2/domains/mock/policy.md", data: policy },
      { path: "tau2-bench-1.0.1/data/tau2/domains/mock/tasks.json", data: tasks },
    ]),
  );
  const tampered = gzipSync(
    tarOf([
      {
        path: "tau2-bench-1.0.1/data/tau2/domains/mock/policy.md",
        data: Buffer.from("# Policy\nBe rude.\n"),
      },
      {
        path: "tau2-bench-1.0.1/data/tau2/domains/mock/tasks.json",
        data: Buffer.from("version https://git-lfs.github.com/spec/v1\noid sha256:abc\n"),
      },
    ]),
  );
  let server: Server;
  let base = "";
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === "/good.tar.gz") res.end(good);
      else if (req.url === "/tampered.tar.gz") res.end(tampered);
      else {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("downloads, verifies and installs the files", async () => {
    const dest = join(mkdtempSync(join(tmpdir(), "tau-pull-")), "data");
    const result = await pullData({ dest, url: `${base}/good.tar.gz`, manifest });
    expect(result.files).toBe(2);
    expect(readFileSync(join(dest, "domains/mock/policy.md"))).toEqual(policy);
    expect(readFileSync(join(dest, "domains/mock/tasks.json"))).toEqual(tasks);
    // pulling again over an earlier pull is allowed
    expect((await pullData({ dest, url: `${base}/good.tar.gz`, manifest })).files).toBe(2);
  });

  it("refuses an archive whose files do not match, naming each file, and writes nothing", async () => {
    const dest = join(mkdtempSync(join(tmpdir(), "tau-pull-")), "data");
    const error = await pullData({ dest, url: `${base}/tampered.tar.gz`, manifest }).catch((e) => e);
    expect(error).toBeInstanceOf(DataDirError);
    expect(error.message).toContain("domains/mock/policy.md: checksum mismatch");
    expect(error.message).toContain("Git LFS pointer");
    expect(() => readFileSync(join(dest, "domains/mock/policy.md"))).toThrow();
  });

  it("reports HTTP failures in one line", async () => {
    const error = await pullData({
      dest: join(tmpdir(), "never"),
      url: `${base}/missing.tar.gz`,
      manifest,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(DataDirError);
    expect(error.message).toMatch(/HTTP 404/);
  });

  it("says a file that is neither gzip nor tar is not an archive (instead of listing every file as missing)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tau-pull-"));
    const notArchive = join(dir, "page.html");
    writeFileSync(notArchive, "<html>rate limited</html>");
    const error = await pullData({ dest: join(dir, "data"), url: notArchive, manifest }).catch((e) => e);
    expect(error).toBeInstanceOf(DataDirError);
    expect(error.message).toBe(
      `${notArchive} is not a gzip archive (nor a tar file); expected the release .tar.gz`,
    );
    // An uncompressed tar still installs.
    const plain = join(dir, "data.tar");
    writeFileSync(
      plain,
      tarOf([
        { path: "top/data/tau2/domains/mock/policy.md", data: policy },
        { path: "top/data/tau2/domains/mock/tasks.json", data: tasks },
      ]),
    );
    expect((await pullData({ dest: join(dir, "data"), url: plain, manifest })).files).toBe(2);
  });

  it("an unreachable host names --url and TAU_DATA_DIR as the ways out", async () => {
    // Port 9 (discard) on 127.0.0.1 refuses the connection: the offline case, without the internet.
    const error = await pullData({
      dest: join(tmpdir(), "never"),
      url: "http://127.0.0.1:9/release.tar.gz",
      manifest,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(DataDirError);
    expect(error.message).toMatch(/^Cannot download http:\/\/127\.0\.0\.1:9\/release\.tar\.gz: /);
    expect(error.message).toContain("--url FILE.tar.gz");
    expect(error.message).toContain("TAU_DATA_DIR");
  });

  it("verifies a folder: missing files and changed files are named", async () => {
    const dest = join(mkdtempSync(join(tmpdir(), "tau-pull-")), "data");
    expect(verifyData(dest, manifest)).toMatchObject({ exists: false, checked: 0 });
    await pullData({ dest, url: `${base}/good.tar.gz`, manifest });
    expect(verifyData(dest, manifest)).toEqual({
      dir: dest,
      exists: true,
      checked: 2,
      missing: [],
      mismatched: [],
    });
    writeFileSync(join(dest, "domains/mock/policy.md"), "# Policy\nBe rude.\n");
    rmSync(join(dest, "domains/mock/tasks.json"));
    expect(verifyData(dest, manifest)).toMatchObject({
      checked: 1,
      missing: ["domains/mock/tasks.json"],
      mismatched: ["domains/mock/policy.md"],
    });
  });

  it("parses GNU long names", () => {
    const long = `${"x".repeat(120)}/file.txt`;
    const entries = parseTar(tarOf([{ path: long, data: Buffer.from("hi") }]));
    expect(entries).toEqual([{ path: long, data: Buffer.from("hi") }]);
  });
});

describe("tau data pull --dest safety", () => {
  it("refuses to replace a folder that holds anything but data files, before downloading", async () => {
    const dest = mkdtempSync(join(tmpdir(), "tau-pull-home-"));
    writeFileSync(join(dest, "thesis.tex"), "precious");
    const error = await pullData({
      dest,
      url: "http://127.0.0.1:9/never-fetched.tar.gz",
      manifest: [],
    }).catch((e) => e);
    expect(error).toBeInstanceOf(DataDirError);
    expect(error.message).toContain("thesis.tex");
    expect(readFileSync(join(dest, "thesis.tex"), "utf8")).toBe("precious");
  });
});
