import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runModuleScript } from "../cli/e2e-harness.ts";
import { handlesRequest, httpFetch, requestOverHttp } from "./http-fetch.ts";

type Route = (request: IncomingMessage, body: string, response: ServerResponse) => void;

describe("httpFetch", () => {
  let server: Server;
  let base: string;
  let connections = 0;
  const routes = new Map<string, Route>();

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const route = routes.get(request.url ?? "");
        if (!route) {
          response.writeHead(404).end("no route");
          return;
        }
        route(request, Buffer.concat(chunks).toString("utf8"), response);
      });
    });
    server.on("connection", () => connections++);
    server.keepAliveTimeout = 10_000;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    routes.set("/echo", (request, body, response) => {
      response.writeHead(201, "Made", { "content-type": "application/json", "x-twice": ["a", "b"] });
      response.end(
        JSON.stringify({ method: request.method, headers: request.headers, body, length: body.length }),
      );
    });
    routes.set("/gzip", (_request, _body, response) => {
      response.writeHead(200, { "content-encoding": "gzip", "content-type": "text/plain" });
      response.end(gzipSync("zipped: é"));
    });
    routes.set("/empty", (_request, _body, response) => response.writeHead(204).end());
    routes.set("/slow", (_request, _body, response) => {
      setTimeout(() => response.end("late"), 2_000).unref();
    });
    routes.set("/drop", (request) => request.socket.destroy());
    routes.set("/truncated", (_request, _body, response) => {
      response.writeHead(200, { "content-length": "100" });
      response.write("only part of it", () => response.socket?.destroy());
    });
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("sends the method, headers and body and returns status, headers and body", async () => {
    const body = JSON.stringify({ text: "héllo" });
    const response = await httpFetch(`${base}/echo`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: "Bearer k" },
      body,
    });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe("Made");
    expect(response.ok).toBe(true);
    expect(response.headers.get("x-twice")).toBe("a, b");
    const seen = (await response.json()) as { method: string; headers: Record<string, string>; body: string };
    expect(seen.method).toBe("POST");
    expect(seen.body).toBe(body);
    expect(seen.headers["content-length"]).toBe(String(Buffer.byteLength(body)));
    expect(seen.headers["content-type"]).toBe("application/json");
    expect(seen.headers.authorization).toBe("Bearer k");
    expect(seen.headers["accept-encoding"]).toContain("gzip");
  });

  it("decodes a gzip body", async () => {
    const response = await httpFetch(`${base}/gzip`);
    expect(await response.text()).toBe("zipped: é");
  });

  it("gives a null-body status a null body", async () => {
    const response = await httpFetch(`${base}/empty`, { method: "DELETE" });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it("reuses one kept-alive connection for calls in a row", async () => {
    await httpFetch(`${base}/echo`, { method: "POST", body: "1" });
    const before = connections;
    for (let index = 0; index < 5; index++) await httpFetch(`${base}/echo`, { method: "POST", body: "x" });
    expect(connections).toBe(before);
  });

  it("rejects with the signal's reason when aborted, before or during the call", async () => {
    const reason = new Error("stop now");
    await expect(httpFetch(`${base}/echo`, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    const controller = new AbortController();
    const pending = httpFetch(`${base}/slow`, { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 20);
    await expect(pending).rejects.toBe(reason);
  });

  it("fails like fetch on network errors: TypeError 'fetch failed' with the cause", async () => {
    const dropped = await requestOverHttp(`${base}/drop`, { method: "POST", body: "x" }).catch((e) => e);
    expect(dropped).toBeInstanceOf(TypeError);
    expect(dropped.message).toBe("fetch failed");
    expect(dropped.cause.code).toBe("ECONNRESET");
    const truncated = await requestOverHttp(`${base}/truncated`).catch((e) => e);
    expect(truncated).toBeInstanceOf(TypeError);
    expect(truncated.cause.code).toBe("ECONNRESET");
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await httpFetch(`http://127.0.0.1:${port}/`).catch((e) => e);
    expect(refused).toBeInstanceOf(TypeError);
    expect(refused.cause.code).toBe("ECONNREFUSED");
  });

  it("reads a buffered body once, through a reader or the body methods, like a real Response", async () => {
    const viaReader = await httpFetch(`${base}/echo`, { method: "POST", body: "r" });
    expect(viaReader.bodyUsed).toBe(false);
    const reader = viaReader.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    expect(JSON.parse(Buffer.from(first.value!).toString()).body).toBe("r");
    expect((await reader.read()).done).toBe(true);
    reader.releaseLock();
    expect(viaReader.bodyUsed).toBe(true);
    await expect(viaReader.text()).rejects.toThrow(TypeError);

    const original = await httpFetch(`${base}/echo`, { method: "POST", body: "c" });
    const copy = original.clone();
    expect(copy.status).toBe(201);
    expect(((await copy.json()) as { body: string }).body).toBe("c");
    expect(((await original.json()) as { body: string }).body).toBe("c");

    const piped = await httpFetch(`${base}/gzip`);
    let text = "";
    for await (const part of piped.body!.pipeThrough(new TextDecoderStream())) text += part;
    expect(text).toBe("zipped: é");
    const bytes = await (await httpFetch(`${base}/gzip`)).arrayBuffer();
    expect(Buffer.from(bytes).toString()).toBe("zipped: é");
  });

  it("leaves requests it does not handle to the global fetch", async () => {
    expect(handlesRequest(`${base}/echo`, { body: "x" })).toBe(true);
    expect(handlesRequest(new URL(`${base}/echo`))).toBe(true);
    expect(handlesRequest(new Request(`${base}/echo`))).toBe(false);
    expect(handlesRequest(`${base}/echo`, { method: "POST", body: new FormData() })).toBe(false);
    expect(handlesRequest("data:text/plain,hi")).toBe(false);
    const response = await httpFetch(new Request(`${base}/echo`, { method: "POST", body: "via fetch" }));
    expect(((await response.json()) as { body: string }).body).toBe("via fetch");
  });
});

describe("requestOverHttp over https (node:https)", () => {
  it("sends to an https server the client trusts, reusing the connection, and refuses one it does not", async () => {
    // A self-signed certificate for 127.0.0.1 (openssl: .ci/run installs it).
    const folder = mkdtempSync(join(tmpdir(), "tau-https-"));
    const [key, cert] = [join(folder, "key.pem"), join(folder, "cert.pem")];
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        key,
        "-out",
        cert,
        "-days",
        "2",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
      ],
      { stdio: "ignore" },
    );
    let connections = 0;
    const server = createHttpsServer(
      { key: readFileSync(key), cert: readFileSync(cert) },
      (request, response) => {
        const chunks: Buffer[] = [];
        request.on("data", (chunk: Buffer) => chunks.push(chunk));
        request.on("end", () => response.end(`${request.method} ${Buffer.concat(chunks).toString()}`));
      },
    );
    server.on("secureConnection", () => connections++);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      // Not trusted here: the certificate error is the cause, as with fetch.
      const refused = await requestOverHttp(url, { method: "POST", body: "x" }).catch((error) => error);
      expect(refused).toBeInstanceOf(TypeError);
      expect(refused.cause.code).toBe("DEPTH_ZERO_SELF_SIGNED_CERT");
      // Trusted in a process started with the certificate as an extra CA.
      const script = `
        const { requestOverHttp } = await import(${JSON.stringify(new URL("./http-fetch.ts", import.meta.url).href)});
        for (const body of ["one", "two"]) {
          const reply = await requestOverHttp(${JSON.stringify(url)}, { method: "POST", body });
          console.log(reply.status, reply.body.toString());
        }`;
      const { code, output } = await runModuleScript(script, { env: { NODE_EXTRA_CA_CERTS: cert } });
      expect([code, output.trim().split("\n")]).toEqual([0, ["200 POST one", "200 POST two"]]);
      expect(connections).toBe(1); // the refused handshake never completed; the child's two calls shared one
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 30_000);
});
