import { createServer } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { UsageError } from "./errors.ts";
import { listenOn } from "./listen.ts";

const servers: ReturnType<typeof createServer>[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});
const server = () => {
  const s = createServer();
  servers.push(s);
  return s;
};

describe("listenOn", () => {
  it("returns the port it got, a free one for 0", async () => {
    const port = await listenOn(server(), 0, "127.0.0.1");
    expect(port).toBeGreaterThan(0);
  });

  it("a port in use is a usage error naming the address and the flag", async () => {
    const port = await listenOn(server(), 0, "127.0.0.1");
    const second = server();
    const failure = listenOn(second, port, "127.0.0.1", "--port");
    await expect(failure).rejects.toBeInstanceOf(UsageError);
    await expect(failure).rejects.toThrow(
      `127.0.0.1:${port} is already in use; pass another --port, or --port 0 for a free one`,
    );
    expect(second.listening).toBe(false);
  });
});
