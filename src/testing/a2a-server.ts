/**
 * An A2A agent server on 127.0.0.1 (port 0) for tests, built with the A2A
 * SDK's own server side: its agent card, JSON-RPC, and whatever executor the
 * test scripts. A test can make it answer 401 to every call.
 */
import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { A2A_PROTOCOL_VERSION, AGENT_CARD_PATH, type AgentCard, type Message, Role } from "@a2a-js/sdk";
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import express from "express";

/** A running test A2A server. */
export interface TestA2aServer {
  /** `http://127.0.0.1:<port>` (the card is at `/.well-known/agent-card.json`). */
  url: string;
  /** While true, every JSON-RPC call gets HTTP 401. */
  denyCalls: boolean;
  /** The JSON-RPC methods received, in order (denied calls included); a test may empty it. */
  readonly methods: string[];
  close(): Promise<void>;
}

/** Serves `executor` as an A2A agent. */
export async function startA2aServer(
  executor: AgentExecutor,
  name = "Scripted agent",
): Promise<TestA2aServer> {
  const app = express();
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card = {
    name,
    description: "A scripted agent for tests",
    supportedInterfaces: [
      { url: `${url}/`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: A2A_PROTOCOL_VERSION },
    ],
    provider: undefined,
    version: "1.0.0",
    capabilities: { streaming: false, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text", "application/json"],
    defaultOutputModes: ["text", "application/json"],
    skills: [],
    signatures: [],
  } as unknown as AgentCard;
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const running: TestA2aServer = {
    url,
    denyCalls: false,
    methods: [],
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
  app.use(express.json(), (request, response, next) => {
    if (request.method === "POST") running.methods.push(String(request.body?.method));
    if (running.denyCalls && request.method === "POST") response.status(401).json({ error: "bad agent key" });
    else next();
  });
  app.use(jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return running;
}

/** Answers an executor's request with one agent message of one part (`text/plain` or JSON data), and ends it. */
export function publishAgentReply(
  context: RequestContext,
  bus: ExecutionEventBus,
  content: Message["parts"][number]["content"],
): void {
  const reply: Message = {
    messageId: randomUUID(),
    contextId: context.contextId,
    taskId: "",
    role: Role.ROLE_AGENT,
    parts: [
      {
        content,
        metadata: undefined,
        filename: "",
        mediaType: content?.$case === "text" ? "text/plain" : "application/json",
      },
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  bus.publish(AgentEvent.message(reply));
  bus.finished();
}
