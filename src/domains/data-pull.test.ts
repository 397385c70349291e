import { createServer, type Server } from "node:http";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DataDirError } from "../core/errors.ts";
import { DATA_MANIFEST, type ManifestEntry } from "./data-manifest.ts";
import { tarOf } from "../testing/archive.ts";
import { parseTar, pullData, verifyData } from "./data-pull.ts";
import type { TextSource } from "./texts/extract.ts";
import { loadUpstreamTexts, textsPath } from "./texts/store.ts";
import { TAU2_TEXT_SOURCE } from "./texts/tau2.ts";

const sha = (data: Buffer) => createHash("sha256").update(data).digest("hex");

// A source file of the toy release and the one text taken from it.
const toyPy = Buffer.from('GREETING = """\nHello there.\n""".strip()\n');
const toySource: TextSource = {
  name: "toy-bench",
  release: "v0",
  textsSha256: null,
  files: [
    {
      path: "src/toy.py",
      sha256: sha(toyPy),
      rules: [{ kind: "text", key: "greeting", select: { assign: "GREETING" } }],
    },
  ],
};

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
      { path: "tau2-bench-1.0.1/src/toy.py", data: toyPy },
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

  it("downloads, verifies and installs the files, and extracts the texts from the sources", async () => {
    const dest = join(mkdtempSync(join(tmpdir(), "tau-pull-")), "data");
    const result = await pullData({ dest, url: `${base}/good.tar.gz`, manifest, textSource: toySource });
    expect(result.files).toBe(2);
    expect(readFileSync(join(dest, "domains/mock/policy.md"))).toEqual(policy);
    expect(readFileSync(join(dest, "domains/mock/tasks.json"))).toEqual(tasks);
    expect(result.texts).toMatchObject({ path: textsPath(dest, toySource), entries: 1 });
    expect(loadUpstreamTexts(dest, toySource)!.text("greeting")).toBe("Hello there.");
    // pulling again over an earlier pull (texts file included) is allowed
    expect(
      (await pullData({ dest, url: `${base}/good.tar.gz`, manifest, textSource: toySource })).files,
    ).toBe(2);
  });

  it("refuses an archive without the sources the texts come from, and writes nothing", async () => {
    const dest = join(mkdtempSync(join(tmpdir(), "tau-pull-")), "data");
    const missing = { ...toySource, files: [{ ...toySource.files[0]!, path: "src/elsewhere.py" }] };
    const error = await pullData({ dest, url: `${base}/good.tar.gz`, manifest, textSource: missing }).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(DataDirError);
    expect(error.message).toContain("src/elsewhere.py: missing");
    expect(error.message).toContain("Nothing was written.");
    expect(() => readFileSync(join(dest, "domains/mock/policy.md"))).toThrow();
  });

  it("refuses an archive whose files do not match, naming each file, and writes nothing", async () => {
    const dest = join(mkdtempSync(join(tmpdir(), "tau-pull-")), "data");
    const error = await pullData({
      dest,
      url: `${base}/tampered.tar.gz`,
      manifest,
      textSource: toySource,
    }).catch((e) => e);
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
      textSource: toySource,
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
    expect((await pullData({ dest: join(dir, "data"), url: plain, manifest, textSource: null })).files).toBe(
      2,
    );
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
    await pullData({ dest, url: `${base}/good.tar.gz`, manifest, textSource: null });
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

const dataDir = process.env.TAU_DATA_DIR;
const srcDir = process.env.TAU2_SRC_DIR ?? (dataDir ? join(dataDir, "..", "tau2-src") : "");

describe.skipIf(!dataDir || !existsSync(join(srcDir, "src")))(
  "tau data pull of the whole release from 127.0.0.1 (skipped: no ../shared/tau2-data and tau2-src)",
  () => {
    let server: Server;
    let url = "";
    beforeAll(async () => {
      // The release archive's layout: data/tau2/... and the Python sources, below one top folder.
      const files = [
        ...DATA_MANIFEST.map((file) => ({
          path: `tau2-bench-1.0.1/data/tau2/${file.path}`,
          data: readFileSync(join(dataDir!, file.path)),
        })),
        ...TAU2_TEXT_SOURCE.files.map((file) => ({
          path: `tau2-bench-1.0.1/${file.path}`,
          data: readFileSync(join(srcDir, file.path)),
        })),
      ];
      const archive = gzipSync(tarOf(files), { level: 1 });
      server = createServer((_req, res) => res.end(archive));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1.0.1.tar.gz`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it("installs every data file and the pinned texts file", async () => {
      const dest = join(mkdtempSync(join(tmpdir(), "tau-pull-full-")), "data");
      const result = await pullData({ dest, url });
      expect(result.files).toBe(DATA_MANIFEST.length);
      expect(result.texts).toEqual({
        path: textsPath(dest),
        entries: 48,
        sha256: TAU2_TEXT_SOURCE.textsSha256,
      });
      const texts = loadUpstreamTexts(dest)!;
      expect(texts.sha256).toBe(TAU2_TEXT_SOURCE.textsSha256);
      expect(texts.tools("retail").size).toBe(16);
    });
  },
);
