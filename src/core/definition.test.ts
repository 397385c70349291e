import { describe, expect, it } from "vitest";
import { checkDefinition, DefinitionError } from "./definition.ts";
import { UsageError } from "./errors.ts";

const FIELDS = { booleans: ["needsLlm"], strings: ["instructions"], functions: ["taskFilter"], objects: [] };
const create = () => ({});

function failure(value: unknown): DefinitionError {
  try {
    checkDefinition("agent", value, FIELDS);
  } catch (error) {
    if (error instanceof DefinitionError) return error;
    throw error;
  }
  throw new Error("expected a DefinitionError");
}

describe("checkDefinition", () => {
  it("accepts a minimal and a full definition", () => {
    expect(() => checkDefinition("agent", { name: "mine", create }, FIELDS)).not.toThrow();
    expect(() =>
      checkDefinition(
        "agent",
        {
          name: "my-agent.v2",
          version: "2.0.1",
          description: "d",
          needsLlm: true,
          instructions: "x",
          taskFilter: () => true,
          create,
        },
        FIELDS,
      ),
    ).not.toThrow();
  });

  it("names the field and what is wrong, in one line, as a usage error", () => {
    const error = failure({ name: "mine" });
    expect(error).toBeInstanceOf(UsageError);
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe("invalid agent definition: 'mine': create must be a function (got undefined)");
    expect(failure(42).detail).toBe("expected an object, got number");
    expect(failure(null).detail).toBe("expected an object, got null");
    expect(failure({ name: "my agent", create }).detail).toMatch(
      /^name must be 1 to 64 letters.*got "my agent"/,
    );
    expect(failure({ name: "x/y", create }).detail).toMatch(/got "x\/y"/);
    expect(failure({ create }).detail).toMatch(/got undefined\)$/);
    expect(failure({ name: "m", version: "", create }).detail).toBe(
      `'m': version must be a non-empty string (got "")`,
    );
    expect(failure({ name: "m", needsLlm: "yes", create }).detail).toBe(
      `'m': needsLlm must be true or false (got "yes")`,
    );
    expect(failure({ name: "m", description: 3, create }).detail).toBe(
      "'m': description must be a string (got number)",
    );
    expect(failure({ name: "m", taskFilter: true, create }).detail).toBe(
      "'m': taskFilter must be a function (got boolean)",
    );
  });

  it("refuses a misspelt field instead of ignoring it", () => {
    expect(failure({ name: "m", needLlm: true, create }).detail).toBe(
      "'m': unknown field needLlm (known: name, version, description, create, needsLlm, instructions, taskFilter)",
    );
  });
});
