/**
 * Listening on a local port for `tau view --web` and `tau mcp --http`: a port in use or one that
 * needs privileges is a {@link UsageError} naming the address, not an unexpected error.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { UsageError } from "./errors.ts";

/** Starts `server` on `host:port` (0: any free port) and returns the port it got. */
export function listenOn(server: Server, port: number, host: string, flag = "--port"): Promise<number> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(listenError(error, host, port, flag));
    server.once("error", failed);
    server.listen(port, host, () => {
      server.off("error", failed);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function listenError(error: NodeJS.ErrnoException, host: string, port: number, flag: string): Error {
  const address = `${host}:${port}`;
  if (error.code === "EADDRINUSE")
    return new UsageError(`${address} is already in use; pass another ${flag}, or ${flag} 0 for a free one`, {
      cause: error,
    });
  if (error.code === "EACCES")
    return new UsageError(`no permission to listen on ${address} (ports below 1024 need privileges)`, {
      cause: error,
    });
  return error;
}
