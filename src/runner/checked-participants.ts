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
import { formatIssuePath, InfrastructureError } from "../core/errors.ts";
import { AssistantMessage, UserMessage } from "../core/messages.ts";
import { UserError } from "../users/errors.ts";
import type { User } from "../users/types.ts";

function parseMessage<T>(schema: z.ZodType<T>, out: unknown, fail: (problem: string) => Error): T {
  const message = (out as { message?: unknown } | null | undefined)?.message;
  // The message itself instead of { message, state }: say so rather than "expected object".
  if (message === undefined && typeof (out as { role?: unknown } | null)?.role === "string")
    throw fail("generate returned a message; it must return { message, state }");
  if (out === null || typeof out !== "object")
    throw fail(
      `generate returned ${out === null || out === undefined ? String(out) : `a ${typeof out}`}; it must return { message, state }`,
    );
  const result = schema.safeParse(message);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw fail(
    `returned an invalid message (${issue ? `${formatIssuePath(issue.path)}: ${issue.message}` : "unreadable"})`,
  );
}

const AGENT_METHODS = ["initState", "generate", "isStop"] as const;
const USER_METHODS = ["initState", "generate"] as const;

/** What `create` returned, in a few words, when it is not a participant with `methods`; null when it is. */
function notAParticipant(value: unknown, methods: readonly string[]): string | null {
  if (value === null || value === undefined) return String(value);
  if (typeof value !== "object") return `a ${typeof value}`;
  if (typeof (value as { then?: unknown }).then === "function")
    return "a Promise (create must return the participant itself: do asynchronous work in generate)";
  const missing = methods.filter(
    (method) => typeof (value as Record<string, unknown>)[method] !== "function",
  );
  if (missing.length === 0) return null;
  return missing.length === methods.length ? "an object" : `an object without ${missing.join(", ")}`;
}

/**
 * Throws, stopping the run, when `create` did not return a participant: every simulation would fail
 * the same way, and scoring each as the participant's failure would hide a bug in its module.
 */
function assertParticipant(
  value: unknown,
  kind: "agent" | "user",
  name: string,
  methods: readonly string[],
): void {
  const got = notAParticipant(value, methods);
  if (got === null) return;
  const needs = `${kind === "agent" ? "an agent" : "a user"} needs the methods ${methods.join(", ")}`;
  throw new InfrastructureError(`${kind} '${name}': create() returned ${got}; ${needs}`, {
    isRetryable: false,
    stopsRun: true,
  });
}

/** `agent` with every generated message checked and completed (throws, stopping the run, if it is no agent). */
export function checkedAgent(agent: Agent, name: string): Agent {
  assertParticipant(agent, "agent", name, AGENT_METHODS);
  const fail = (problem: string) => new AgentError(name, problem);
  return {
    name: agent.name ?? name,
    initState: (history) => agent.initState(history),
    isStop: (message) => agent.isStop(message),
    ...(agent.setSeed ? { setSeed: (seed: number) => agent.setSeed?.(seed) } : {}),
    async generate(input, state, signal) {
      const out = await agent.generate(input, state, signal);
      return { message: parseMessage(AssistantMessage, out, fail), state: out.state };
    },
  };
}

/** `user` with every generated message checked and completed (throws, stopping the run, if it is no user). */
export function checkedUser(user: User, name: string): User {
  assertParticipant(user, "user", name, USER_METHODS);
  const fail = (problem: string) => new UserError(name, problem);
  return {
    name: user.name ?? name,
    initState: (history) => user.initState(history),
    ...(user.setSeed ? { setSeed: (seed: number) => user.setSeed?.(seed) } : {}),
    async generate(input, state, signal) {
      const out = await user.generate(input, state, signal);
      return { message: parseMessage(UserMessage, out, fail), state: out.state };
    },
  };
}
