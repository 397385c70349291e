import { describe, expect, it } from "vitest";
import { userMessage } from "../core/messages.ts";
import { isUserStop, USER_STOP_TOKENS } from "./types.ts";

describe("isUserStop (upstream UserSimulator.is_stop, P2)", () => {
  it("stops on any of the three tokens, as a case-sensitive substring", () => {
    expect([...USER_STOP_TOKENS]).toEqual(["###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"]);
    for (const token of USER_STOP_TOKENS) {
      expect(isUserStop(userMessage({ content: `Thanks, bye.${token}` }))).toBe(true);
      expect(isUserStop(userMessage({ content: token.toLowerCase() }))).toBe(false);
    }
    expect(isUserStop(userMessage({ content: "###STOP" }))).toBe(false);
  });

  it("never stops on a tool-call message or a message without text", () => {
    const call = { id: "1", name: "check_status_bar", arguments: {}, requestor: "user" as const };
    expect(isUserStop(userMessage({ content: "###STOP###", tool_calls: [call] }))).toBe(false);
    // An empty tool-call list still counts as a tool call upstream (`tool_calls is not None`).
    expect(isUserStop(userMessage({ content: "###STOP###", tool_calls: [] }))).toBe(false);
    expect(isUserStop(userMessage({ content: null, tool_calls: [call] }))).toBe(false);
  });
});
