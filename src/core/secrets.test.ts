import { describe, expect, it } from "vitest";
import { TauError } from "./errors.ts";
import {
  MIN_SECRET_LENGTH,
  maskSecrets,
  registerSecret,
  registerSecretsFromEnv,
  registerUrlCredentials,
} from "./secrets.ts";

describe("secrets", () => {
  it("masks every registered value, naming what it was; short values are not secrets", () => {
    registerSecret("sk-unit-test-0123456789", "OPENAI_API_KEY");
    registerSecret("short", "X");
    expect(maskSecrets("key sk-unit-test-0123456789 and sk-unit-test-0123456789 again; short")).toBe(
      "key [redacted OPENAI_API_KEY] and [redacted OPENAI_API_KEY] again; short",
    );
    expect("short".length).toBeLessThan(MIN_SECRET_LENGTH);
  });

  it("takes *_API_KEY, *_TOKEN and *_SECRET variables from the environment, not others", () => {
    registerSecretsFromEnv({
      ANTHROPIC_API_KEY: "ak-unit-test-abcdefgh",
      HF_TOKEN: "hf_unit_test_token_1",
      HOME: "/home/someone-long-enough",
    });
    expect(maskSecrets("ak-unit-test-abcdefgh hf_unit_test_token_1 /home/someone-long-enough")).toBe(
      "[redacted ANTHROPIC_API_KEY] [redacted HF_TOKEN] /home/someone-long-enough",
    );
  });

  it("takes the user info of a URL, percent-decoded too", () => {
    registerUrlCredentials("https://gateway-user:p%40ss-word-123@proxy.example.invalid/v1");
    expect(maskSecrets("auth p@ss-word-123 / p%40ss-word-123 by gateway-user")).toBe(
      "auth [redacted credential] / [redacted credential] by [redacted credential]",
    );
    registerUrlCredentials("http://127.0.0.1:11434/v1");
    expect(maskSecrets("http://127.0.0.1:11434/v1")).toBe("http://127.0.0.1:11434/v1");
  });

  it("masks our errors' messages and stacks when they are made", () => {
    registerSecret("sk-in-an-error-987654", "OPENAI_API_KEY");
    const error = new TauError("provider said: invalid key sk-in-an-error-987654");
    expect(error.message).toBe("provider said: invalid key [redacted OPENAI_API_KEY]");
    expect(error.stack).not.toContain("sk-in-an-error-987654");
  });
});
