import { describe, expect, it } from "vitest";
import { UsageError } from "../core/errors.ts";
import { MissingApiKeyError } from "../llm/index.ts";
import { AGENT_ROLE, explainMissingKey, judgeRole, USER_ROLE } from "./missing-key.ts";

describe("explainMissingKey", () => {
  const missing = new MissingApiKeyError("OPENAI_API_KEY", "openai/gpt-4.1");

  it("names the user simulator and its flag, keeping the documented start", () => {
    const error = explainMissingKey(missing, "openai/gpt-4.1", [USER_ROLE]);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).cause).toBe(missing);
    expect((error as Error).message).toBe(
      "OPENAI_API_KEY is not set (needed for model openai/gpt-4.1, used by the user simulator); set it or choose another --user-llm",
    );
  });

  it("lists every role sharing the model and offers --judge none for the judge", () => {
    expect((explainMissingKey(missing, "openai/gpt-4.1", [AGENT_ROLE, USER_ROLE]) as Error).message).toBe(
      "OPENAI_API_KEY is not set (needed for model openai/gpt-4.1, used by the agent and the user simulator); set it or choose another --agent-llm / --user-llm",
    );
    expect((explainMissingKey(missing, "openai/gpt-4.1", [judgeRole("--judge")]) as Error).message).toBe(
      "OPENAI_API_KEY is not set (needed for model openai/gpt-4.1, used by the NL-assertion judge); set it or choose another --judge, or pass --judge none to leave NL assertions unevaluated",
    );
  });

  it("leaves other errors, and keys with no known role, as they were", () => {
    const other = new Error("boom");
    expect(explainMissingKey(other, "openai/gpt-4.1", [USER_ROLE])).toBe(other);
    expect(explainMissingKey(missing, "openai/gpt-4.1", [])).toBe(missing);
  });
});
