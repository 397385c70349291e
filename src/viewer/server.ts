/**
 * The web viewer's HTTP server: read-only, on 127.0.0.1 only. It serves the
 * built app, the runs it was given (by id: a request never names a path),
 * one trajectory at a time, and server-sent events when a followed run
 * changes. Anything else is a 404.
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { join } from "node:path";
import { listenOn } from "../core/listen.ts";
import { APP_FILES, pageHtml } from "./app-files.ts";
import type { RunCatalog } from "./catalog.ts";
import { type DomainLoader, trajectoryData } from "./trajectory.ts";
import type { RunUpdate } from "./wire.ts";

/** Options of {@link startViewerServer}. */
export interface ViewerServerOptions {
  catalog: RunCatalog;
  /** The built app's folder (see `ensureApp`). */
  appDir: string;
  load: DomainLoader;
  /** 0 (default): a free port. */
  port?: number;
  /** How often followed runs are checked for new lines (default 1000 ms; 0 turns following off). */
  followIntervalMs?: number;
  /** Told about a failed request (the server answers 500 and goes on). */
  onError?: (error: unknown) => void;
}

/** A running viewer server. */
export interface ViewerServer {
  /** `http://127.0.0.1:PORT/`. */
  url: string;
  port: number;
  /** Checks the runs now (what the timer does), pushing updates to open pages. */
  poll(): RunUpdate[];
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
};

/** The only host this server binds to. */
export const VIEWER_HOST = "127.0.0.1";

/** Trajectories kept after they were built (replaying a task for the DB difference is the slow part). */
const TRAJECTORY_CACHE = 32;

/** What a request is answered with. */
interface Reply {
  status: number;
  type: string;
  body: string | Buffer;
}

const TEXT = "text/plain; charset=utf-8";
const JSON_TYPE = "application/json; charset=utf-8";
const NOT_FOUND: Reply = { status: 404, type: TEXT, body: "not found\n" };

function send(response: ServerResponse, reply: Reply): void {
  response.writeHead(reply.status, {
    "content-type": reply.type,
    "content-length": Buffer.byteLength(reply.body),
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
  response.end(reply.body);
}

const json = (value: unknown): Reply => ({ status: 200, type: JSON_TYPE, body: JSON.stringify(value) });

/** Starts the server; resolves once it listens. */
export async function startViewerServer(options: ViewerServerOptions): Promise<ViewerServer> {
  const { catalog, load } = options;
  // Read once: the app's files are served from memory, by exact name.
  const assets = new Map<string, { type: string; body: Buffer }>();
  for (const name of APP_FILES)
    assets.set(`/assets/${name}`, {
      type: TYPES[name.slice(name.lastIndexOf("."))]!,
      body: readFileSync(join(options.appDir, name)),
    });
  const page = pageHtml("server");
  const listeners = new Set<ServerResponse>();
  const trajectories = new Map<string, string>();
  let port = 0;

  const allowedHost = (host: string | undefined) =>
    host === `${VIEWER_HOST}:${port}` || host === `localhost:${port}`;

  const api = (parts: string[]): Reply => {
    if (parts.length === 1 && parts[0] === "runs") return json(catalog.runs.map((run) => run.summary()));
    if (parts[0] !== "runs" || parts.length < 2) return NOT_FOUND;
    const run = catalog.get(parts[1]!);
    if (!run) return NOT_FOUND;
    if (parts.length === 2) return { status: 200, type: JSON_TYPE, body: run.dataJson() };
    if (parts.length !== 4 || parts[2] !== "sims" || !/^\d{1,9}$/.test(parts[3]!)) return NOT_FOUND;
    const serial = Number(parts[3]);
    const key = `${run.id}\u0000${serial}\u0000${run.version}`;
    let body = trajectories.get(key);
    if (body === undefined) {
      const data = trajectoryData(run, serial, load);
      if (!data) return NOT_FOUND;
      body = JSON.stringify(data);
      trajectories.set(key, body);
      if (trajectories.size > TRAJECTORY_CACHE) trajectories.delete(trajectories.keys().next().value!);
    }
    return { status: 200, type: JSON_TYPE, body };
  };

  const events = (request: IncomingMessage, response: ServerResponse): void => {
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "keep-alive",
    });
    response.write("retry: 2000\n\n");
    listeners.add(response);
    request.on("close", () => listeners.delete(response));
  };

  /** The reply to a request, or null for the event stream (answered by {@link events}). */
  const route = (request: IncomingMessage): Reply | null => {
    if (!allowedHost(request.headers.host))
      return { status: 403, type: TEXT, body: "this viewer answers on 127.0.0.1 only\n" };
    if (request.method !== "GET" && request.method !== "HEAD")
      return { status: 405, type: TEXT, body: "read-only\n" };
    const pathname = (request.url ?? "/").split("?")[0]!;
    if (pathname === "/" || pathname === "/index.html")
      return { status: 200, type: "text/html; charset=utf-8", body: page };
    const asset = assets.get(pathname);
    if (asset) return { status: 200, ...asset };
    if (pathname === "/api/events") return null;
    if (!pathname.startsWith("/api/")) return NOT_FOUND;
    // Segments are decoded one by one; a decoded '/' or '..' can only fail the lookup by id.
    try {
      return api(pathname.slice("/api/".length).split("/").map(decodeURIComponent));
    } catch (error) {
      if (error instanceof URIError) return NOT_FOUND;
      throw error;
    }
  };

  const server: Server = createServer((request, response) => {
    try {
      const reply = route(request);
      if (reply === null) events(request, response);
      else send(response, reply);
    } catch (error) {
      options.onError?.(error);
      if (!response.headersSent)
        send(response, { status: 500, type: TEXT, body: `${(error as Error).message.split("\n")[0]}\n` });
      else response.end();
    }
  });

  const poll = (): RunUpdate[] => {
    const updates = catalog.refresh();
    for (const update of updates) {
      const message = `event: run\ndata: ${JSON.stringify(update)}\n\n`;
      for (const listener of listeners) listener.write(message);
    }
    return updates;
  };
  const interval = options.followIntervalMs ?? 1000;
  const timer =
    interval > 0
      ? setInterval(() => {
          try {
            poll();
          } catch (error) {
            options.onError?.(error);
          }
        }, interval)
      : null;
  timer?.unref();
  // Keeps proxies and browsers from dropping an idle event stream.
  const heartbeat = setInterval(() => {
    for (const listener of listeners) listener.write(": keep-alive\n\n");
  }, 15_000);
  heartbeat.unref();

  port = await listenOn(server, options.port ?? 0, VIEWER_HOST);
  return {
    url: `http://${VIEWER_HOST}:${port}/`,
    port,
    poll,
    async close() {
      if (timer) clearInterval(timer);
      clearInterval(heartbeat);
      for (const listener of listeners) listener.end();
      listeners.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
