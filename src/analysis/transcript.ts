/**
 * How a conversation is shown to a reviewing model: one block per message
 * with its turn index (the judge cites it as `turn_idx`), tool calls as JSON,
 * tool results fenced. The same layout as upstream's markdown display of a
 * trajectory, which its reviewer and authentication classifier read.
 */
import type { Message } from "../core/messages.ts";
import type { Action } from "../core/task.ts";

/** One message as the reviewer sees it. */
export function renderReviewMessage(message: Message): string {
  const turn =
    message.turn_idx === null || message.turn_idx === undefined ? "" : `[TURN ${message.turn_idx}] `;
  switch (message.role) {
    case "assistant":
    case "user": {
      const parts = [`${turn}**${message.role}**:`];
      if (message.content) parts.push(message.content);
      for (const call of message.tool_calls ?? [])
        parts.push(
          `**Tool Call**: ${call.name}\n\`\`\`json\n${JSON.stringify(call.arguments, null, 2)}\n\`\`\``,
        );
      return parts.join("\n");
    }
    case "tool": {
      const parts = [
        `${turn}**tool${message.error ? " (Error)" : ""}**:`,
        `Response to: ${message.requestor}`,
      ];
      if (message.content) parts.push(`\`\`\`\n${message.content}\n\`\`\``);
      return parts.join("\n");
    }
    case "system": {
      const parts = [`${turn}**system**:`];
      if (message.content) parts.push(message.content);
      return parts.join("\n");
    }
    default: {
      const never: never = message;
      throw new Error(`unhandled message ${String(never)}`);
    }
  }
}

/** The whole conversation, blank line between messages. */
export function renderReviewTranscript(messages: readonly Message[]): string {
  return messages.map(renderReviewMessage).join("\n\n");
}

/**
 * What the user saw (upstream `make_user_visible_trajectory`): the user's own
 * messages and tool results, and the agent's text (its tool calls dropped; a
 * message that was only tool calls disappears).
 */
export function userVisibleMessages(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    if (message.role === "user") out.push(message);
    else if (message.role === "tool") {
      if (message.requestor === "user") out.push(message);
    } else if (message.role === "assistant") {
      const hasCalls = (message.tool_calls?.length ?? 0) > 0;
      if (!hasCalls) out.push(message);
      else if (message.content !== null) out.push({ ...message, tool_calls: null });
    }
  }
  return out;
}

/** The task's expected actions as an indented JSON list (the reviewer's example trajectory). */
export function renderExpectedActions(actions: readonly Action[] | null | undefined): string {
  const list = (actions ?? []).map((action) => ({
    action_id: action.action_id,
    requestor: action.requestor,
    name: action.name,
    arguments: action.arguments,
    info: action.info ?? null,
    compare_args: action.compare_args ?? null,
  }));
  return `\`\`\`json\n${JSON.stringify(list, null, 2)}\n\`\`\``;
}
