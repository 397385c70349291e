/**
 * A boundary for participants that are not built in (module files, library
 * definitions): their messages are parsed with the message schemas, which
 * fills the fields they left out (`{ role: "assistant", content: "Hi" }` is
 * enough) and turns a malformed message into an error naming the participant
 * and the field, instead of a results file that cannot be read back.
 */
import type { z } from "zod";
import type { Agent } from "../agents/types.ts";
import { AgentError } from "../agents/errors.ts";
import { formatIssuePath } from "../core/errors.ts";
import { AssistantMessage, UserMessage } from "../core/messages.ts";
import { UserError } from "../users/errors.ts";
import type { User } from "../users/types.ts";

function parseMessage<T>(schema: z.ZodType<T>, message: unknown, fail: (problem: string) => Error): T {
  const result = schema.safeParse(message);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw fail(
    `returned an invalid message (${issue ? `${formatIssuePath(issue.path)}: ${issue.message}` : "unreadable"})`,
  );
}

/** `agent` with every generated message checked and completed. */
export function checkedAgent(agent: Agent, name: string): Agent {
  const fail = (problem: string) => new AgentError(name, problem);
  return {
    name: agent.name ?? name,
    initState: (history) => agent.initState(history),
    isStop: (message) => agent.isStop(message),
    ...(agent.setSeed ? { setSeed: (seed: number) => agent.setSeed?.(seed) } : {}),
    async generate(input, state, signal) {
      const out = await agent.generate(input, state, signal);
      return { message: parseMessage(AssistantMessage, out?.message, fail), state: out.state };
    },
  };
}

/** `user` with every generated message checked and completed. */
export function checkedUser(user: User, name: string): User {
  const fail = (problem: string) => new UserError(name, problem);
  return {
    name: user.name ?? name,
    initState: (history) => user.initState(history),
    ...(user.setSeed ? { setSeed: (seed: number) => user.setSeed?.(seed) } : {}),
    async generate(input, state, signal) {
      const out = await user.generate(input, state, signal);
      return { message: parseMessage(UserMessage, out?.message, fail), state: out.state };
    },
  };
}
