/** Errors raised by agents (upstream `AgentError` and the exceptions of `LLMSoloAgent`). */
import { TauError } from "../core/errors.ts";

/**
 * The agent could not produce a valid message (a solo reply without tool
 * calls, an unparsable text action, a malformed context). Like upstream's
 * exceptions this aborts the episode rather than ending it with a reason.
 */
export class AgentError extends TauError {
  /** Registry name of the agent that failed. */
  readonly agentName: string;
  constructor(agentName: string, message: string, options: { cause?: unknown } = {}) {
    super(`${agentName}: ${message}`, options);
    this.agentName = agentName;
  }
}

/** A text agent's reply (ReAct/Act) whose action could not be parsed; keeps the raw reply. */
export class AgentOutputError extends AgentError {
  /** The model's reply as received. */
  readonly reply: string;
  constructor(agentName: string, message: string, reply: string, options: { cause?: unknown } = {}) {
    const excerpt = reply.length > 300 ? `${reply.slice(0, 300)}…` : reply;
    super(agentName, `${message}. Reply was: ${JSON.stringify(excerpt)}`, options);
    this.reply = reply;
  }
}
