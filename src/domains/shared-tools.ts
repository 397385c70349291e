/** Tools every domain shares. */
import { param, type ToolDef } from "../env/toolkit.ts";

/** `transfer_to_human_agents`: no checks, no state change (common.md §11). */
export const transferToHumanAgents: ToolDef = {
  name: "transfer_to_human_agents",
  kind: "generic",
  description:
    "Hand the conversation over to a human agent, with a summary of the user's issue. " +
    "Use it only when the user explicitly asks for a human agent, or when the issue cannot be " +
    "resolved with the policy and the available tools.",
  params: [param("summary", { type: "string" }, "A summary of the user's issue.")],
  run: () => "Transfer successful",
};
