/**
 * `tau mcp`: one episode of a domain task served over the Model Context
 * Protocol (official SDK), for agents that act through MCP tools. The client
 * gets the domain's agent tools with the same JSON schemas taubench's LLM
 * agents are sent, plus `start_conversation` (policy and the customer's first
 * message), `send_message_to_user` (the reply of the user simulator, which
 * runs here) and `end_conversation`. When the episode ends (the client ends
 * it, the user stops, or a limit is reached) it is graded and written by the
 * runner to a results file that `tau view` reads; the last action's result
 * carries the reward and its breakdown. Numbers in arguments are retyped from
 * the tool's schema (see number-kinds.ts): JSON.parse loses `2.0`.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { TauError } from "../core/errors.ts";
import { packageVersion } from "../core/results-file.ts";
import type { SimulationRun } from "../core/simulation.ts";
import type { ToolSchema } from "../env/toolkit.ts";
import { type ActionReply, EpisodeActionError, type EpisodeDriver } from "./episode.ts";
import { typeNumbersBySchema } from "../env/number-kinds.ts";

/** The tools `tau mcp` adds to the domain's. */
export const EPISODE_TOOLS = {
  start: "start_conversation",
  say: "send_message_to_user",
  end: "end_conversation",
} as const;

/** What the server needs to know about the episode it serves. */
export interface EpisodeServerOptions {
  driver: EpisodeDriver;
  /** The domain's agent tools, as the LLM agents get them. */
  tools: readonly ToolSchema[];
  policy: string;
  /** Resolves with the graded simulation once the runner recorded it. */
  graded: Promise<GradedEpisode>;
  /** Called once the result carrying the grading has been handed to the transport. */
  onReported?: () => void;
}

/** The end of an episode, as the last action reports it. */
export interface GradedEpisode {
  simulation: SimulationRun;
  resultsPath: string;
}

const episodeTools = (): Tool[] => [
  {
    name: EPISODE_TOOLS.start,
    description:
      "Start the conversation: returns the policy you must follow and the customer's first message (the conversation opened with your greeting 'Hi! How can I help you today?').",
    inputSchema: { type: "object", properties: {} },
  },
  {
    name: EPISODE_TOOLS.say,
    description:
      "Send a message to the customer and return their reply. When the customer ends the conversation, the result says so and carries the grading.",
    inputSchema: {
      type: "object",
      properties: { message: { type: "string", description: "What you say to the customer." } },
      required: ["message"],
    },
  },
  {
    name: EPISODE_TOOLS.end,
    description: "End the conversation; returns the grading (reward and its breakdown).",
    inputSchema: { type: "object", properties: {} },
  },
];

/** The grading as the client sees it. */
export function gradingReport(graded: GradedEpisode): Record<string, unknown> {
  const { simulation } = graded;
  const reward = simulation.reward_info;
  return {
    episode_over: true,
    termination_reason: simulation.termination_reason,
    reward: reward?.reward ?? null,
    reward_breakdown: reward?.reward_breakdown ?? null,
    db_match: reward?.db_check?.db_match ?? null,
    ...(simulation.info?.error ? { error: simulation.info.error } : {}),
    ...(simulation.termination_reason === "user_stop"
      ? { last_customer_message: simulation.messages.findLast((m) => m.role === "user")?.content ?? null }
      : {}),
    simulation_id: simulation.id,
    results_file: graded.resultsPath,
  };
}

function textResult(text: string, extra: Partial<CallToolResult> = {}): CallToolResult {
  return { content: [{ type: "text", text }], ...extra };
}

/** Builds the MCP server of one episode (connect it to a stdio or Streamable HTTP transport). */
export function createEpisodeServer(options: EpisodeServerOptions): Server {
  const { driver, tools, policy, graded } = options;
  const byName = new Map(tools.map((tool) => [tool.function.name, tool]));
  const server = new Server(
    { name: "taubench", version: packageVersion() },
    {
      capabilities: { tools: {} },
      instructions: `You are the customer-service agent of a τ-bench episode. Call ${EPISODE_TOOLS.start} first; follow the policy it returns. Use the domain tools, talk to the customer with ${EPISODE_TOOLS.say}, and call ${EPISODE_TOOLS.end} when you are done.`,
    },
  );
  const listed: Tool[] = [
    ...tools.map((tool) => ({
      name: tool.function.name,
      description: tool.function.description,
      inputSchema: tool.function.parameters as Tool["inputSchema"],
    })),
    ...episodeTools(),
  ];
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listed }));

  const finished = async (reply: ActionReply | null, lead?: string): Promise<CallToolResult> => {
    if (reply?.kind === "tool")
      return textResult(reply.message.content ?? "", { isError: reply.message.error });
    if (reply?.kind === "user") return textResult(reply.message.content ?? "");
    const report = gradingReport(await graded);
    const text = `${lead ?? "The episode is over."}\n${JSON.stringify(report, null, 2)}`;
    // The SDK sends the result right after the handler returns.
    if (options.onReported) setTimeout(options.onReported, 50);
    return textResult(text, { structuredContent: report });
  };

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name } = request.params;
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    try {
      if (driver.isOver && name !== EPISODE_TOOLS.start)
        return await finished(null, "The episode is already over.");
      switch (name) {
        case EPISODE_TOOLS.start: {
          const opening = await driver.opening();
          return textResult(`<policy>\n${policy}\n</policy>\n\nThe customer says: ${opening.content ?? ""}`);
        }
        case EPISODE_TOOLS.say: {
          if (typeof args.message !== "string" || args.message.trim() === "")
            return textResult(`${EPISODE_TOOLS.say} needs a non-empty 'message'`, { isError: true });
          await driver.opening();
          const reply = await driver.act({ kind: "say", text: args.message });
          return await finished(reply, "The customer ended the conversation.");
        }
        case EPISODE_TOOLS.end:
          await driver.opening();
          return await finished(await driver.act({ kind: "end" }));
        default: {
          // Unknown names go to the environment too: it answers as upstream does (an error result).
          const schema = byName.get(name);
          const typed = schema ? typeNumbersBySchema(args, schema.function.parameters) : args;
          await driver.opening();
          return await finished(await driver.act({ kind: "tool", name, arguments: typed }));
        }
      }
    } catch (error) {
      if (error instanceof EpisodeActionError || error instanceof TauError)
        return textResult(`tau: ${error.message}`, { isError: true });
      throw error;
    }
  });
  return server;
}
