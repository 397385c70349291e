import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DataDirError } from "../../core/errors.ts";
import { tarOf } from "../../testing/archive.ts";
import { TAU1_MANIFEST } from "./manifest.ts";
import { pullTau1Data } from "./pull.ts";

const dataDir = process.env.TAU1_DATA_DIR;
const sourceDir = process.env.TAU1_SRC_DIR;
const ready = Boolean(dataDir && sourceDir && existsSync(join(sourceDir, "tau_bench")));

function filesBelow(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesBelow(path) : [path];
  });
}

/**
 * An archive laid out like upstream's repository snapshot: the Python sources
 * from TAU1_SRC_DIR, the JSON data, policies and few-shot files from
 * TAU1_DATA_DIR at their upstream paths, all below one top-level folder.
 */
function upstreamArchive(edit: (path: string, data: Buffer) => Buffer = (_path, data) => data): Buffer {
  const files: { path: string; data: Buffer }[] = [];
  const add = (path: string, data: Buffer) =>
    files.push({ path: `tau-bench-59a200c/${path}`, data: edit(path, data) });
  for (const file of filesBelow(sourceDir!)) add(relative(sourceDir!, file), readFileSync(file));
  for (const entry of TAU1_MANIFEST) {
    if (entry.kind === "copy") add(entry.from, readFileSync(join(dataDir!, entry.path)));
  }
  return gzipSync(tarOf(files));
}

describe.skipIf(!ready)("tau data pull --tau1 (needs TAU1_DATA_DIR and TAU1_SRC_DIR)", () => {
  let server: Server;
  let baseUrl = "";
  const archives = new Map<string, Buffer>();
  beforeAll(async () => {
    archives.set("/good.tar.gz", upstreamArchive());
    // One int turned into a float in a task's arguments: the converted file's checksum changes.
    archives.set(
      "/edited.tar.gz",
      upstreamArchive((path, data) =>
        path.endsWith("airline/tasks_test.py")
          ? Buffer.from(data.toString("utf8").replace('"total_baggages": 3', '"total_baggages": 3.0'))
          : data,
      ),
    );
    server = createServer((request, response) => {
      const body = archives.get(request.url ?? "");
      // No keep-alive: a socket the server closed while a slow test ran must not be reused.
      response.writeHead(body ? 200 : 404, { connection: "close" }).end(body);
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  it("converts the task lists, rules and tool descriptions to exactly the reference JSON and copies the rest", async () => {
    const dest = join(mkdtempSync(join(tmpdir(), "tau1-pull-")), "data");
    const result = await pullTau1Data({ dest, url: `${baseUrl}/good.tar.gz` });
    expect(result.files).toBe(TAU1_MANIFEST.length);
    for (const entry of TAU1_MANIFEST) {
      // The prompt texts have no reference copy; the pull checked their sha256 (their content: texts.test.ts).
      if (entry.kind === "text") {
        expect(existsSync(join(dest, entry.path))).toBe(true);
        continue;
      }
      expect({
        path: entry.path,
        same: readFileSync(join(dest, entry.path)).equals(readFileSync(join(dataDir!, entry.path))),
      }).toEqual({
        path: entry.path,
        same: true,
      });
    }
    // Pulling again over an earlier pull replaces it.
    await pullTau1Data({ dest, url: `${baseUrl}/good.tar.gz` });
    expect(filesBelow(dest).length).toBe(TAU1_MANIFEST.length);
  });

  it("refuses an archive whose converted files differ, naming the file, and writes nothing", async () => {
    const dest = join(mkdtempSync(join(tmpdir(), "tau1-pull-")), "data");
    const pull = pullTau1Data({ dest, url: `${baseUrl}/edited.tar.gz` });
    await expect(pull).rejects.toBeInstanceOf(DataDirError);
    await expect(pull).rejects.toThrow(/airline\/tasks_test\.json: checksum mismatch.*Nothing was written/);
    expect(existsSync(dest)).toBe(false);
  });

  it("refuses a --dest holding other files", async () => {
    const dest = mkdtempSync(join(tmpdir(), "tau1-pull-"));
    writeFileSync(join(dest, "notes.txt"), "mine");
    await expect(pullTau1Data({ dest, url: `${baseUrl}/good.tar.gz` })).rejects.toThrow(/notes\.txt/);
    expect(readFileSync(join(dest, "notes.txt"), "utf8")).toBe("mine");
  });
});
