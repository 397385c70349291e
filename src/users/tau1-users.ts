/**
 * The original τ-bench user strategies (specs/tau-bench-v1.md §11): `llm`
 * (the default), `react` (a Thought, then the User Response), `verify` (a
 * checker model accepts or rejects each reply, up to three tries), `reflection`
 * (a rejected reply is reflected on and regenerated once) and `human` (a
 * person types the replies). Upstream's quirks are kept: no temperature is
 * passed, the react parser returns everything after `Thought:`, the checker's
 * transcript labels the simulated user `Customer` and the agent `Agent` from
 * the simulator's own (flipped) view, and the recorded user cost is that of
 * the last model call only (the trajectory's user messages carry the real sum).
 */
import { TauError } from "../core/errors.ts";
import type { Usage } from "../core/messages.ts";
import { pyStringRepr } from "../core/py-json.ts";
import { fillTemplate, type Tau1Text } from "../domains/tau1/texts.ts";
import type { LlmClient, LlmMessage, LlmResponse } from "../llm/types.ts";

/** The strategies of `run.py --user-strategy`. */
export const TAU1_USER_STRATEGIES = ["llm", "react", "verify", "reflection", "human"] as const;
export type Tau1UserStrategy = (typeof TAU1_USER_STRATEGIES)[number];

/** The fixed first agent line the simulator answers (sent as a `user` message). */
export const TAU1_GREETING = "Hi! How can I help you today?";

/** One simulated user turn. */
export interface Tau1UserReply {
  text: string;
  /** Summed over this turn's model calls (null when one of them had no known price). */
  costUsd: number | null;
  /** The last model call's cost: what upstream records as `user_cost`. */
  lastCallCostUsd: number | null;
  usage: Usage;
  /** Model calls this turn took. */
  calls: number;
}

/** One episode's simulated user (upstream `BaseUserSimulationEnv`). */
export interface Tau1User {
  readonly strategy: Tau1UserStrategy;
  /** The first message, given the task's instruction. */
  reset(instruction: string, signal?: AbortSignal): Promise<Tau1UserReply>;
  /** The reply to the agent's message. */
  step(content: string, signal?: AbortSignal): Promise<Tau1UserReply>;
}

/** The simulated user could not produce a reply (a reply in the wrong format, or no text). */
export class Tau1UserError extends TauError {}

/** Our wording of the `llm` strategy's system prompt, in upstream's structure (`{instruction_display}` is filled in). */
export const LLM_USER_SYSTEM_FALLBACK = [
  "You play a customer who is talking with a customer-service agent.{instruction_display}",
  "Rules:",
  "- Write one line at a time, as the customer's next message.",
  "- Do not reveal the whole instruction at once; give only what the current step needs.",
  "- Never invent facts the instruction does not give. If the agent asks for something you were not told (an order id, say), say you do not remember or do not have it.",
  "- When the instruction's goal is reached, reply with '###STOP###' alone, nothing else, to end the conversation.",
  "- Do not repeat the instruction word for word; say the same things in your own words.",
  "- Keep the conversation natural and stay in the character the instruction describes.",
].join("\n");

/** Our wording of the `react` strategy's system prompt, in upstream's structure. */
export const REACT_USER_SYSTEM_FALLBACK = [
  "You play a customer who is talking with a customer-service agent.{instruction_display}",
  "Rules:",
  "- First write a Thought about what to do next (it is not sent to the agent).",
  "- Then write a one-line User Response, the customer's message (it is sent to the agent).",
  "- Do not reveal the whole instruction at once; give only what the current step needs.",
  "- Never invent facts the instruction does not give. If the agent asks for something you were not told (an order id, say), say you do not remember or do not have it.",
  "- When the instruction's goal is reached, make the User Response '###STOP###' alone, nothing else, to end the conversation.",
  "- Do not repeat the instruction word for word; say the same things in your own words.",
  "- Keep the conversation natural and stay in the character the instruction describes.",
  "",
  "Format:",
  "",
  "Thought:",
  "<your thought>",
  "",
  "User Response:",
  "<the customer's message (it is read by a program and sent to the agent)>",
].join("\n");

/** Our wording of the checker's prompt (`{transcript}`, `{response}`), in upstream's structure. */
export const VERIFY_PROMPT_FALLBACK = [
  "You supervise the Agent in a conversation. You see the Transcript of a conversation between a Customer and an Agent, and a Response the Customer produced. Decide whether the Response is satisfactory (true) or not (false).",
  "Your answer is read by a program: write only the classification, true or false, and nothing else.",
  "",
  "# Transcript:",
  "{transcript}",
  "",
  "# Response:",
  "{response}",
  "",
  "-----",
  "",
  "Classification:",
].join("\n");

/** Our wording of the reflection prompt (`{transcript}`, `{response}`), in upstream's structure. */
export const REFLECTION_PROMPT_FALLBACK = [
  "You supervise the Agent in a conversation. You see the Transcript of a conversation between a (simulated) Customer and an Agent. You judged a Response the Customer produced to be unsatisfactory.",
  "Write a Reflection on what went wrong, then propose a new Response that fixes it.",
  "Your answer is read by a program, so keep to the format below.",
  "",
  "# Transcript:",
  "{transcript}",
  "",
  "# Response:",
  "{response}",
  "",
  "# Format:",
  "",
  "Reflection:",
  "<the reflection>",
  "",
  "Response:",
  "<the new response (it is read by a program and sent to the agent)>",
].join("\n");

/** The four prompt texts an LLM user strategy uses (upstream's or ours). */
export interface Tau1UserTexts {
  llmSystem: Tau1Text;
  reactSystem: Tau1Text;
  verify: Tau1Text;
  reflection: Tau1Text;
}

/** A message of the simulator's own context (roles flipped: the agent speaks as `user`). */
type ContextMessage = { role: "system" | "user" | "assistant"; content: string | null };

function addUsage(total: Usage, more: Usage): Usage {
  return {
    ...total,
    prompt_tokens: total.prompt_tokens + more.prompt_tokens,
    completion_tokens: total.completion_tokens + more.completion_tokens,
  };
}

/** Cost and usage of a turn's model calls. */
class TurnMeter {
  costUsd: number | null = 0;
  lastCallCostUsd: number | null = null;
  usage: Usage = { prompt_tokens: 0, completion_tokens: 0 };
  calls = 0;

  /** Counts a call; only the simulator's own generations set the last-call cost (upstream's `total_cost`). */
  record(response: LlmResponse, generation: boolean): void {
    this.calls += 1;
    this.costUsd =
      this.costUsd === null || response.costUsd === null ? null : this.costUsd + response.costUsd;
    if (generation) this.lastCallCostUsd = response.costUsd;
    this.usage = addUsage(this.usage, response.usage);
  }

  reply(text: string): Tau1UserReply {
    return {
      text,
      costUsd: this.costUsd,
      lastCallCostUsd: this.lastCallCostUsd,
      usage: this.usage,
      calls: this.calls,
    };
  }
}

/** Upstream's `map_role_label`: `user` → Customer, `assistant` → Agent, others capitalised. */
function roleLabel(role: string): string {
  if (role === "user") return "Customer";
  if (role === "assistant") return "Agent";
  return role.charAt(0).toUpperCase() + role.slice(1);
}

function transcriptOf(messages: readonly ContextMessage[]): string {
  return messages.map((message) => `${roleLabel(message.role)}: ${message.content ?? "None"}`).join("\n");
}

/**
 * How upstream's `verify` shows a reply it was handed as a provider message
 * object: Python's `str()` of that object (its fields, the text quoted).
 * The exact field list depends on the provider library's version.
 */
export function messageObjectText(content: string | null): string {
  return `content=${content === null ? "None" : pyStringRepr(content)} role='assistant' tool_calls=None function_call=None`;
}

function toLlm(messages: readonly ContextMessage[]): LlmMessage[] {
  return messages.map((message) =>
    message.role === "assistant"
      ? { role: "assistant", content: message.content }
      : { role: message.role, content: message.content ?? "" },
  );
}

/** What an LLM user strategy is built from. */
export interface Tau1LlmUserOptions {
  llm: LlmClient;
  /** Provider arguments; upstream passes none (the provider's default temperature). */
  llmArgs: Record<string, unknown>;
  texts: Tau1UserTexts;
}

/** `llm`, and the base of the other model-driven strategies. */
export class LlmUser implements Tau1User {
  readonly strategy: Tau1UserStrategy = "llm";
  protected messages: ContextMessage[] = [];

  constructor(protected readonly options: Tau1LlmUserOptions) {}

  protected systemTemplate(): string {
    return this.options.texts.llmSystem.text;
  }

  /** Upstream's `build_system_prompt(instruction)`. */
  systemPrompt(instruction: string | null): string {
    return fillTemplate(this.systemTemplate(), {
      instruction_display: instruction === null ? "" : `\n\nInstruction: ${instruction}\n`,
    });
  }

  protected async call(
    messages: readonly ContextMessage[],
    meter: TurnMeter,
    signal?: AbortSignal,
    generation = true,
  ) {
    const response = await this.options.llm.generate({
      messages: toLlm(messages),
      args: { ...this.options.llmArgs },
      callName: "user",
      ...(signal ? { signal } : {}),
    });
    meter.record(response, generation);
    return response;
  }

  /** Upstream's `generate_next_message`: one call, appended to the history, its text returned. */
  protected async generate(
    messages: readonly ContextMessage[],
    meter: TurnMeter,
    signal?: AbortSignal,
  ): Promise<string> {
    const response = await this.call(messages, meter, signal);
    this.messages.push({ role: "assistant", content: response.content });
    return this.textOf(response.content);
  }

  protected textOf(content: string | null): string {
    if (content === null)
      throw new Tau1UserError(`user strategy '${this.strategy}': the model returned no text`);
    return content;
  }

  async reset(instruction: string, signal?: AbortSignal): Promise<Tau1UserReply> {
    this.messages = [
      { role: "system", content: this.systemPrompt(instruction) },
      { role: "user", content: TAU1_GREETING },
    ];
    const meter = new TurnMeter();
    return meter.reply(await this.generate(this.messages, meter, signal));
  }

  async step(content: string, signal?: AbortSignal): Promise<Tau1UserReply> {
    this.messages.push({ role: "user", content });
    const meter = new TurnMeter();
    return meter.reply(await this.generate(this.messages, meter, signal));
  }

  /** The checker (upstream's `verify`): true when "true" occurs in its lower-cased answer. */
  protected async verify(
    response: string,
    messages: readonly ContextMessage[],
    meter: TurnMeter,
    signal?: AbortSignal,
  ): Promise<boolean> {
    const prompt = fillTemplate(this.options.texts.verify.text, {
      transcript: transcriptOf(messages),
      response,
    });
    const answer = await this.call([{ role: "user", content: prompt }], meter, signal, false);
    return this.textOf(answer.content).toLowerCase().includes("true");
  }
}

/** `react`: the model writes a Thought and a User Response; the response is parsed out. */
export class ReactUser extends LlmUser {
  override readonly strategy = "react";

  protected override systemTemplate(): string {
    return this.options.texts.reactSystem.text;
  }

  protected override async generate(
    messages: readonly ContextMessage[],
    meter: TurnMeter,
    signal?: AbortSignal,
  ): Promise<string> {
    const text = await super.generate(messages, meter, signal);
    return parseReactUserReply(text);
  }
}

/** Upstream's react-user parser, its quirk included: a `Thought:` reply returns everything after it. */
export function parseReactUserReply(response: string): string {
  if (response.includes("###STOP###")) return "###STOP###";
  if (response.includes("Thought:")) {
    const parts = response.split("Thought:");
    if (parts.length !== 2) throw new Tau1UserError("too many values to unpack (expected 2)");
    return parts[1]!.trim();
  }
  if (response.includes("User Response:")) {
    const parts = response.split("User Response:");
    if (parts.length !== 2) throw new Tau1UserError("too many values to unpack (expected 2)");
    return parts[1]!.trim();
  }
  throw new Tau1UserError(`Invalid response format: ${response}`);
}

/** `verify`: up to three generations per turn, each checked; the first accepted one is kept. */
export class VerifyUser extends LlmUser {
  override readonly strategy = "verify";
  private readonly maxAttempts = 3;

  protected override async generate(
    messages: readonly ContextMessage[],
    meter: TurnMeter,
    signal?: AbortSignal,
  ): Promise<string> {
    let last: string | null = null;
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      const response = await this.call(messages, meter, signal);
      last = response.content;
      // Upstream hands the checker the message object, not its text.
      if (await this.verify(messageObjectText(response.content), messages, meter, signal)) {
        this.messages.push({ role: "assistant", content: response.content });
        return this.textOf(response.content);
      }
    }
    // After the last rejection the reply is returned without being added to the history.
    return this.textOf(last);
  }
}

/** `reflection`: a rejected reply is reflected on and regenerated once; the first reply stands otherwise. */
export class ReflectionUser extends LlmUser {
  override readonly strategy = "reflection";
  private readonly maxAttempts = 2;

  protected override async generate(
    messages: readonly ContextMessage[],
    meter: TurnMeter,
    signal?: AbortSignal,
  ): Promise<string> {
    const context = [...messages];
    const initial = await super.generate(context, meter, signal);
    if (await this.verify(initial, context, meter, signal)) return initial;
    for (let attempt = 1; attempt < this.maxAttempts; attempt++) {
      const prompt = fillTemplate(this.options.texts.reflection.text, {
        transcript: transcriptOf(context),
        response: initial,
      });
      const answer = this.textOf(
        (await this.call([{ role: "user", content: prompt }], meter, signal, false)).content,
      );
      const parts = answer.split("Response:");
      if (parts.length !== 2)
        throw new Tau1UserError(
          parts.length < 2
            ? "not enough values to unpack (expected 2, got 1)"
            : "too many values to unpack (expected 2)",
        );
      context.push({ role: "user", content: parts[1]!.trim() });
      const regenerated = await super.generate(context, meter, signal);
      if (await this.verify(regenerated, context, meter, signal)) return regenerated;
    }
    return initial;
  }
}

/** Where the `human` strategy asks and reads. */
export interface HumanIo {
  /** Shows `prompt` and resolves with the line the person typed. */
  ask(prompt: string, signal?: AbortSignal): Promise<string>;
}

/** `human`: the instruction, then each agent message, is shown; the typed line is the reply. Cost 0. */
export class HumanUser implements Tau1User {
  readonly strategy = "human";

  constructor(private readonly io: HumanIo) {}

  private async read(prompt: string, signal?: AbortSignal): Promise<Tau1UserReply> {
    const text = await this.io.ask(`${prompt}\n`, signal);
    return {
      text,
      costUsd: 0,
      lastCallCostUsd: 0,
      usage: { prompt_tokens: 0, completion_tokens: 0 },
      calls: 0,
    };
  }

  reset(instruction: string, signal?: AbortSignal): Promise<Tau1UserReply> {
    return this.read(instruction, signal);
  }

  step(content: string, signal?: AbortSignal): Promise<Tau1UserReply> {
    return this.read(content, signal);
  }
}

/** Builds one episode's user. */
export function createTau1User(
  strategy: Tau1UserStrategy,
  options: { llm: LlmClient | null; llmArgs: Record<string, unknown>; texts: Tau1UserTexts; human?: HumanIo },
): Tau1User {
  if (strategy === "human") {
    if (!options.human) throw new Tau1UserError("the human user strategy needs a terminal");
    return new HumanUser(options.human);
  }
  if (!options.llm) throw new Tau1UserError(`user strategy '${strategy}' needs a model: pass --user-llm`);
  const llmOptions = { llm: options.llm, llmArgs: options.llmArgs, texts: options.texts };
  switch (strategy) {
    case "llm":
      return new LlmUser(llmOptions);
    case "react":
      return new ReactUser(llmOptions);
    case "verify":
      return new VerifyUser(llmOptions);
    case "reflection":
      return new ReflectionUser(llmOptions);
    default: {
      const never: never = strategy;
      throw new Tau1UserError(`unknown user strategy '${String(never)}'`);
    }
  }
}
