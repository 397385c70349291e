import { describe, expect, it } from "vitest";
import {
  EXIT_INTERRUPTED,
  EXIT_NONE_EVALUATED,
  EXIT_OK,
  EXIT_SOME_NOT_EVALUATED,
  runExitCode,
} from "./exit-codes.ts";

const graded = { termination_reason: "user_stop" } as const;
const agentFailed = { termination_reason: "agent_error" } as const;
const infra = { termination_reason: "infrastructure_error" } as const;

describe("runExitCode", () => {
  const end = (simulations: { termination_reason: string }[], extra: object = {}) =>
    runExitCode({ interrupted: false, stoppedBy: null, simulations: simulations as never, ...extra });

  it("is 0 only when every simulation was evaluated (an agent's own failure is evaluated)", () => {
    expect(end([graded, agentFailed])).toBe(EXIT_OK);
    expect(end([graded, infra])).toBe(EXIT_SOME_NOT_EVALUATED);
    expect(end([infra, infra])).toBe(EXIT_NONE_EVALUATED);
    expect(end([])).toBe(EXIT_OK);
  });

  it("a run a provider error stopped is never 0; Ctrl-C is 130 whatever finished", () => {
    const denied = new Error("HTTP 401");
    expect(end([graded], { stoppedBy: denied })).toBe(EXIT_SOME_NOT_EVALUATED);
    expect(end([], { stoppedBy: denied })).toBe(EXIT_NONE_EVALUATED);
    expect(end([graded], { interrupted: true })).toBe(EXIT_INTERRUPTED);
    expect([EXIT_OK, EXIT_SOME_NOT_EVALUATED, EXIT_NONE_EVALUATED, EXIT_INTERRUPTED]).toEqual([0, 3, 4, 130]);
  });
});
