/**
 * Running one MCP-served episode end to end: the runner executes the task
 * with the {@link EpisodeDriver} as its agent (checkpoint, grading and
 * results files as for `tau run`), while the MCP server answers the client
 * over stdio or Streamable HTTP on 127.0.0.1.
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { registerAgent } from "../agents/registry.ts";
import { TauError, UsageError } from "../core/errors.ts";
import { listenOn } from "../core/listen.ts";
import { loadDomain } from "../domains/registry.ts";
import { loadCheckpointState } from "../runner/checkpoint-state.ts";
import { executeRun, type RunConfig, type RunDependencies } from "../runner/run.ts";
import { EpisodeDriver } from "./episode.ts";
import { createEpisodeServer, type GradedEpisode } from "./server.ts";

/** The stdio client closed the connection before the episode ended. */
export class ClientGoneError extends TauError {
  constructor(resultsPath: string) {
    super(
      `the MCP client closed the connection (stdin ended) before the episode ended; nothing was graded. The same tau mcp command serves the task again (${resultsPath} holds no simulation)`,
    );
  }
}

/** How the client reaches the server. */
export type EpisodeTransport = { kind: "stdio" } | { kind: "http"; port: number };

/** Options of {@link serveEpisode}. */
export interface ServeEpisodeOptions {
  /** The run of one task (`taskIds: [id]`, one trial); `agent` is set here. */
  config: Omit<RunConfig, "agent">;
  deps: RunDependencies;
  transport: EpisodeTransport;
  /** Where informational lines go (never stdout: with stdio, stdout is the protocol). */
  log(line: string): void;
  /** The stdio streams (tests pass their own); default the process's. */
  stdio?: { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream };
}

/** A served episode. */
export interface ServedEpisode {
  /** `http://127.0.0.1:<port>/mcp`, or `stdio`. */
  endpoint: string;
  /** The graded simulation; rejects when the run could not finish (e.g. the user's model failed). */
  graded: Promise<GradedEpisode>;
  /** Resolves once the grading was sent to the client (or the run failed). */
  done: Promise<void>;
  close(): Promise<void>;
}

/** Starts the server and the episode; see {@link ServedEpisode}. */
export async function serveEpisode(options: ServeEpisodeOptions): Promise<ServedEpisode> {
  const { config } = options;
  const domain = loadDomain(config.domain, config.dataDir);
  const taskId = config.taskIds?.[0];
  if (config.taskIds?.length !== 1 || !domain.tasks().some((task) => task.id === taskId))
    throw new UsageError(
      `Unknown task id for domain '${domain.name}': ${config.taskIds?.join(", ") ?? "(none)"}`,
    );
  let http: HttpServer | null = null;
  let endpoint = "stdio";
  if (options.transport.kind === "http") {
    http = createServer();
    endpoint = `http://127.0.0.1:${await listenOn(http, options.transport.port, "127.0.0.1")}/mcp`;
  }

  const driver = new EpisodeDriver(endpoint);
  registerAgent(driver.definition());
  const environment = domain.makeEnvironment();
  // A stdio client that goes away (its end of stdin closed) can never send the next turn: the run stops.
  const stop = new AbortController();
  const outer = options.deps.signal;
  if (outer?.aborted) stop.abort(outer.reason);
  else outer?.addEventListener("abort", () => stop.abort(outer.reason), { once: true });
  const run = executeRun(
    { ...config, agent: "mcp_client", maxRetries: 0, numTrials: 1 },
    { ...options.deps, signal: stop.signal },
  );
  const graded = run.then(
    async (outcome): Promise<GradedEpisode> => {
      const state = await loadCheckpointState(outcome.checkpointPath, { full: true });
      const simulation = [...state.simulations.values()].at(-1);
      if (!simulation) {
        const reason: unknown = stop.signal.reason;
        throw reason instanceof ClientGoneError
          ? reason
          : (outcome.stoppedBy ?? new Error("the episode recorded no simulation"));
      }
      const result = { simulation, resultsPath: outcome.resultsPath };
      driver.finish();
      return result;
    },
    (error: unknown) => {
      driver.finish(error);
      throw error;
    },
  );
  let reported!: () => void;
  const sent = new Promise<void>((resolve) => {
    reported = resolve;
  });
  const done = graded.then(
    () => sent,
    () => {},
  );

  const server = createEpisodeServer({
    driver,
    tools: environment.getToolSchemas(),
    policy: domain.policy(),
    graded,
    onReported: reported,
  });
  let transport: Transport;
  if (http) {
    const { StreamableHTTPServerTransport } = await import(
      "@modelcontextprotocol/sdk/server/streamableHttp.js"
    );
    const port = (http.address() as AddressInfo).port;
    const httpTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableDnsRebindingProtection: true,
      allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`],
    });
    http.on("request", (req, res) => {
      if (new URL(req.url ?? "/", "http://127.0.0.1").pathname !== "/mcp") {
        res.writeHead(404).end();
        return;
      }
      httpTransport.handleRequest(req, res).catch((error: unknown) => {
        options.log(`tau mcp: ${(error as Error).message}`);
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
    transport = httpTransport;
  } else {
    const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
    transport = options.stdio
      ? new StdioServerTransport(options.stdio.stdin as never, options.stdio.stdout as never)
      : new StdioServerTransport();
    const stdin = options.stdio?.stdin ?? process.stdin;
    const gone = () => {
      if (!stop.signal.aborted) stop.abort(new ClientGoneError(config.resultsPath));
    };
    stdin.once("end", gone);
    stdin.once("close", gone);
    void graded.then(
      () => {
        stdin.off("end", gone);
        stdin.off("close", gone);
      },
      () => {},
    );
  }
  await server.connect(transport);
  options.log(`Serving ${config.domain} task ${config.taskIds?.[0]} over MCP (${endpoint})`);
  return {
    endpoint,
    graded,
    done,
    async close() {
      await server.close();
      if (http) {
        http.closeAllConnections();
        await new Promise<void>((resolve) => http!.close(() => resolve()));
      }
    },
  };
}
