import { describe, expect, it } from "vitest";
import { DefinitionError } from "../core/definition.ts";
import { episodeFields } from "../testing/contexts.ts";
import { Task } from "../core/task.ts";
import { defineAgent } from "./define.ts";
import { ReplayAgent } from "./replay-agent.ts";

describe("defineAgent", () => {
  it("fills the defaults, keeps the rest, and calls create and parseOptions with their object as this", () => {
    expect(() => defineAgent({ name: "mine", create: 1 } as never)).toThrow(DefinitionError);

    const seen: unknown[] = [];
    const definition = defineAgent<{ depth: number }>({
      name: "mine",
      version: "1.2.0",
      parseOptions: (options) => ({ depth: Number(options.depth ?? 1) }),
      create(ctx) {
        seen.push(ctx.options.depth, ctx.trial, ctx.seed, ctx.simulationId);
        return new ReplayAgent(ctx.task, { solo: false });
      },
    });
    expect(definition).toMatchObject({
      name: "mine",
      version: "1.2.0",
      description: "",
      needsLlm: false,
      soloMode: false,
    });
    expect(definition.parseOptions?.({ depth: "3" })).toEqual({ depth: 3 });
    const task = Task.parse({ id: "t1", user_scenario: { instructions: "Do things." } });
    const agent = definition.create({
      domainName: "mock",
      task,
      tools: [],
      policy: "",
      soloMode: false,
      llm: null,
      llmArgs: {},
      ...episodeFields({ options: { depth: 2 }, trial: 1, seed: 7, simulationId: "sim" }),
    });
    expect(agent).toBeInstanceOf(ReplayAgent);
    expect(seen).toEqual([2, 1, 7, "sim"]);
  });
});
