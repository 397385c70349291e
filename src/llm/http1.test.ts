import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { runModuleScript } from "../cli/e2e-harness.ts";
import { sendHttp1 } from "./http1.ts";

/** A request as the raw server read it. */
interface Seen {
  head: string;
  body: string;
}

/** A plain TCP server that reads requests framed by content-length and answers through `answer`. */
async function rawServer(answer: (seen: Seen, socket: Socket) => void): Promise<{
  url: (path: string) => URL;
  connections: () => number;
  seen: Seen[];
  close: () => Promise<void>;
  sockets: Socket[];
}> {
  const seen: Seen[] = [];
  const sockets: Socket[] = [];
  const server: Server = createServer((socket) => {
    sockets.push(socket);
    let buffer = Buffer.alloc(0);
    socket.on("error", () => {});
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const end = buffer.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = buffer.toString("latin1", 0, end);
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffer.length < end + 4 + length) return;
        const request = { head, body: buffer.toString("utf8", end + 4, end + 4 + length) };
        buffer = buffer.subarray(end + 4 + length);
        seen.push(request);
        answer(request, socket);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => new URL(`http://127.0.0.1:${port}${path}`),
    connections: () => sockets.length,
    seen,
    sockets,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Writes `text` a byte at a time, a millisecond apart, so the client sees every split point. */
async function dribble(socket: Socket, text: string): Promise<void> {
  socket.setNoDelay(true);
  for (const byte of Buffer.from(text)) {
    socket.write(Buffer.from([byte]));
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

const ok = (body: string, extra = "") =>
  `HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n${extra}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

const post = (url: URL, body: string, headers: Record<string, string> = {}, signal?: AbortSignal) =>
  sendHttp1(url, "POST", headers, [Buffer.from(body)], signal);

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error as TypeError & { cause: Error & { code?: string } },
  );

describe("sendHttp1", () => {
  let server: Awaited<ReturnType<typeof rawServer>> | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("sends the request line, host, content-length and body chunks, and reads status, headers and body", async () => {
    server = await rawServer((_seen, socket) =>
      socket.write("HTTP/1.1 201 Made Here\r\nX-Twice: a\r\nx-twice:  b \r\ncontent-length: 5\r\n\r\nhéll"),
    );
    const reply = await sendHttp1(
      server.url("/v1/chat?x=1"),
      "POST",
      { "content-type": "application/json", authorization: "Bearer k" },
      [Buffer.from('{"a":'), Buffer.from('"é"}')],
    );
    expect(reply.status).toBe(201);
    expect(reply.statusText).toBe("Made Here");
    expect(reply.rawHeaders).toEqual(["X-Twice", "a", "x-twice", "b", "content-length", "5"]);
    expect(reply.body.toString()).toBe("héll");
    const [seen] = server.seen;
    expect(seen!.head.split("\r\n")).toEqual([
      "POST /v1/chat?x=1 HTTP/1.1",
      "content-type: application/json",
      "authorization: Bearer k",
      `host: ${server.url("/").host}`,
      "connection: keep-alive",
      "content-length: 10",
    ]);
    expect(seen!.body).toBe('{"a":"é"}');
    const withCredentials = new URL(server.url("/"));
    withCredentials.username = "us%20er";
    withCredentials.password = "pa:ss";
    await sendHttp1(withCredentials, "GET", {}, undefined);
    expect(server.seen[1]!.head).toContain(
      `\r\nauthorization: Basic ${Buffer.from("us er:pa:ss").toString("base64")}`,
    );
  });

  it("reads replies split at every byte: content-length, chunked with extensions and trailers, 1xx first", async () => {
    const replies = [
      ok("split body"),
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\nA\r\n, chunked!\r\n0\r\nx-trailer: t\r\n\r\n",
      `HTTP/1.1 100 Continue\r\n\r\n${ok("after continue")}`,
    ];
    server = await rawServer((seen, socket) =>
      // The last request gets the interim and the final reply in one write.
      seen.body === "4"
        ? socket.write(`HTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\n${ok("in one piece")}`)
        : void dribble(socket, replies.shift()!),
    );
    expect((await post(server.url("/a"), "1")).body.toString()).toBe("split body");
    expect((await post(server.url("/b"), "2")).body.toString()).toBe("hello, chunked!");
    const continued = await post(server.url("/c"), "3");
    expect([continued.status, continued.body.toString()]).toEqual([200, "after continue"]);
    expect((await post(server.url("/d"), "4")).body.toString()).toBe("in one piece");
    expect(server.connections()).toBe(1);
  });

  it("keeps one connection per request in flight and reuses them, newest first", async () => {
    server = await rawServer((seen, socket) => setTimeout(() => socket.write(ok(seen.body)), 20));
    const first = await Promise.all([1, 2, 3, 4, 5].map((n) => post(server!.url("/"), `r${n}`)));
    expect(first.map((reply) => reply.body.toString())).toEqual(["r1", "r2", "r3", "r4", "r5"]);
    expect(server.connections()).toBe(5);
    await Promise.all([6, 7, 8, 9, 10].map((n) => post(server!.url("/"), `r${n}`)));
    expect(server.connections()).toBe(5);
  });

  it("does not reuse a connection the reply closes, frames by the end of the connection, or leaves bytes on", async () => {
    const replies = [
      ok("closing", "connection: close\r\n"),
      "HTTP/1.1 200 OK\r\n\r\nto the end",
      `${ok("one")}${ok("two")}`,
      "HTTP/1.0 200 OK\r\ncontent-length: 3\r\n\r\nold",
      ok("last"),
    ];
    server = await rawServer((_seen, socket) => {
      const reply = replies.shift()!;
      if (reply.includes("to the end")) socket.end(reply);
      else socket.write(reply);
    });
    expect((await post(server.url("/"), "a")).body.toString()).toBe("closing");
    expect((await post(server.url("/"), "b")).body.toString()).toBe("to the end");
    expect((await post(server.url("/"), "c")).body.toString()).toBe("one");
    expect((await post(server.url("/"), "d")).body.toString()).toBe("old");
    expect((await post(server.url("/"), "e")).body.toString()).toBe("last");
    expect(server.connections()).toBe(5);
  });

  it("reads a HEAD reply and a 204 without a body and keeps the connection", async () => {
    server = await rawServer((seen, socket) =>
      socket.write(
        seen.head.startsWith("HEAD")
          ? "HTTP/1.1 200 OK\r\ncontent-length: 12\r\n\r\n"
          : "HTTP/1.1 204 No Content\r\n\r\n",
      ),
    );
    const head = await sendHttp1(server.url("/"), "HEAD", {}, undefined);
    expect([head.status, head.body.length]).toEqual([200, 0]);
    const empty = await sendHttp1(server.url("/"), "DELETE", {}, undefined);
    expect([empty.status, empty.body.length]).toEqual([204, 0]);
    expect(server.seen.map((seen) => /content-length/.test(seen.head))).toEqual([false, false]);
    expect(server.connections()).toBe(1);
  });

  it("opens a new connection when the server closed an idle one, or sent bytes on it unasked", async () => {
    server = await rawServer((seen, socket) => {
      socket.write(ok("fine"));
      if (seen.body === "close after") setTimeout(() => socket.end(), 10);
      if (seen.body === "noise after") setTimeout(() => socket.write("HTTP/1.1 200 OK\r\n"), 10);
    });
    await post(server.url("/"), "close after");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await post(server.url("/"), "noise after")).body.toString()).toBe("fine");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await post(server.url("/"), "again")).body.toString()).toBe("fine");
    expect(server.connections()).toBe(3);
  });

  it("fails like fetch when the connection ends early: before the reply, mid-head, mid-body, refused", async () => {
    const plans = ["", "HTTP/1.1 200 OK\r\ncontent-le", "HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npart"];
    server = await rawServer((_seen, socket) => socket.end(plans.shift()!));
    const hangUp = await failure(post(server.url("/"), "x"));
    expect([hangUp.constructor, hangUp.message]).toEqual([TypeError, "fetch failed"]);
    expect([hangUp.cause.code, hangUp.cause.message]).toEqual(["ECONNRESET", "socket hang up"]);
    for (let index = 0; index < 2; index++) {
      const cut = await failure(post(server.url("/"), "x"));
      expect([cut.cause.code, cut.cause.message]).toEqual([
        "ECONNRESET",
        "the connection closed before the response ended",
      ]);
    }
    const port = server.url("/").port;
    await server.close();
    server = undefined;
    const refused = await failure(post(new URL(`http://127.0.0.1:${port}/`), "x"));
    expect([refused.message, refused.cause.code]).toEqual(["fetch failed", "ECONNREFUSED"]);
  });

  it("refuses replies it cannot frame, saying what is wrong", async () => {
    const replies = [
      "HTTP/2 200 OK\r\n\r\n",
      "HTTP/1.1 200 OK\r\ncontent-length: 3\r\ncontent-length: 4\r\n\r\nabcd",
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
      "HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\n",
      "HTTP/1.1 200 OK\r\n folded: header\r\n\r\n",
      "HTTP/1.1 101 Switching Protocols\r\n\r\n",
    ];
    const expected = [
      "bad status line",
      "bad content-length",
      "bad chunk size",
      "without chunked last",
      "bad header line",
      "switched protocols",
    ];
    server = await rawServer((_seen, socket) => socket.write(replies.shift()!));
    for (const what of expected) {
      const error = await failure(post(server.url("/"), "x"));
      expect(error.message).toBe("fetch failed");
      expect(error.cause.code).toBe("HPE_INVALID");
      expect(error.cause.message).toContain("not valid HTTP/1.1");
      expect(error.cause.message).toContain(what);
    }
    expect(server.connections()).toBe(expected.length);
  });

  it("refuses a header it could not send safely before connecting", async () => {
    server = await rawServer((_seen, socket) => socket.write(ok("no")));
    const injected = await failure(post(server.url("/"), "x", { "x-note": "a\r\nx-evil: 1" }));
    expect(injected).toBeInstanceOf(TypeError);
    expect(injected.message).toContain('"x-note"');
    await expect(post(server.url("/"), "x", { "bad name": "v" })).rejects.toThrow(/header name/);
    await expect(post(server.url("/"), "x", { "transfer-encoding": "chunked" })).rejects.toThrow(
      /frames the body itself/,
    );
    await expect(sendHttp1(server.url("/"), "PO ST", {}, undefined)).rejects.toThrow(/method/);
    expect(server.connections()).toBe(0);
  });

  it("aborts with the signal's reason, before or during the call, and drops that connection", async () => {
    server = await rawServer(() => {});
    const reason = new Error("stop now");
    await expect(post(server.url("/"), "x", {}, AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(server.connections()).toBe(0);
    const controller = new AbortController();
    const pending = post(server.url("/"), "x", {}, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 30));
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    const socket = server.sockets[0]!;
    await new Promise<void>((resolve) => (socket.closed ? resolve() : socket.once("close", () => resolve())));
    expect(socket.closed).toBe(true);
  });

  it("does not keep the process alive with an idle connection", async () => {
    server = await rawServer((_seen, socket) => socket.write(ok("bye")));
    const script = `
      const { sendHttp1 } = await import(${JSON.stringify(new URL("./http1.ts", import.meta.url).href)});
      const reply = await sendHttp1(new URL(${JSON.stringify(server.url("/").href)}), "POST", {}, [Buffer.from("x")]);
      console.log(reply.body.toString());`;
    const { code, output } = await runModuleScript(script);
    // The server never closes the connection: the child exits because its idle socket does not hold it.
    expect([code, output.trim()]).toEqual([0, "bye"]);
  });
});
