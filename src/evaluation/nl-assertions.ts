/**
 * The NL_ASSERTION component (spec §5.7, P14): one LLM call grades every
 * assertion against the whole conversation. With upstream's texts in the data
 * folder both prompts are upstream's; without them the system prompt is our
 * own wording in upstream's TASK/FORMAT layout. The user prompt keeps
 * upstream's Python-flavoured rendering (`assistant: None` for tool calls, the
 * assertions as a Python list repr) because that is what the judge model sees.
 */
import { InfrastructureError } from "../core/errors.ts";
import type { Message } from "../core/messages.ts";
import { PyFloat, parsePyJson, pyRepr } from "../core/py-json.ts";
import type { NlAssertionCheck, RewardInfo } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import type { UpstreamTexts } from "../domains/texts/store.ts";
import { TAU2_TEXT } from "../domains/texts/tau2.ts";
import type { LlmClient } from "../llm/types.ts";
import { rewardInfo } from "./reward-parts.ts";

/** Something that grades natural-language assertions about a conversation. */
export interface NlAssertionJudge {
  evaluate(
    messages: readonly Message[],
    assertions: readonly string[],
    signal?: AbortSignal,
  ): Promise<NlAssertionCheck[]>;
}

/** The judge's reply was not the JSON we asked for; upstream raises and the runner retries the episode. */
export class NlJudgeReplyError extends InfrastructureError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(`NL assertion judge: ${message}`, options);
  }
}

/** Judge arguments upstream uses (`DEFAULT_LLM_NL_ASSERTIONS_ARGS`). */
export const DEFAULT_JUDGE_ARGS: Readonly<Record<string, unknown>> = { temperature: 0 };

// Eight-space indentation, leading and trailing newline: the layout of upstream's
// triple-quoted prompt, in our own words.
const JUDGE_SYSTEM_PROMPT = `
        TASK
        - You receive a transcript recorded while a test case ran, and a list of expected outcomes.
        - In the transcript an agent is serving a customer.
        - Decide, for every expected outcome, whether the agent's behaviour fulfils it.
        - Judge each expected outcome on its own.

        FORMAT
        - Reply with one JSON object; each graded outcome has these fields:
        - \`reasoning\`: a brief explanation of your decision
        - \`metExpectation\`: \`true\` when the agent fulfils the expected outcome, otherwise \`false\`
        - \`expectedOutcome\`: the expected outcome you are grading, copied from the input
        
        Shape of the reply:
        {
            "results": [
                {
                    "expectedOutcome": "<an expected outcome from the input>",
                    "reasoning": "<why>",
                    "metExpectation": <true or false>,
                }
            ]
        }
        `;

/** The judge's system prompt (upstream's when its texts are given). */
export function judgeSystemPrompt(texts: UpstreamTexts | null = null): string {
  return texts ? texts.text(TAU2_TEXT.judgeSystemPrompt) : JUDGE_SYSTEM_PROMPT;
}

/** One trajectory line as upstream renders it: `{role}: {content}`, `None` when there is no text. */
function transcriptLine(message: Message): string {
  return `${message.role}: ${message.content ?? "None"}`;
}

/** The judge's user prompt: the transcript, then the assertions as a Python list literal. */
export function judgeUserPrompt(
  messages: readonly Message[],
  assertions: readonly string[],
  texts: UpstreamTexts | null = null,
): string {
  const transcript = messages.map(transcriptLine).join("\n");
  if (texts)
    return texts.format(TAU2_TEXT.judgeUserPrompt, {
      trajectory: transcript,
      assertions: pyRepr([...assertions]),
    });
  return (
    `\n        conversation:\n        ${transcript}\n        \n` +
    `        expectedOutcomes:\n        ${pyRepr([...assertions])}\n        `
  );
}

const TRUE_WORDS = new Set(["1", "on", "t", "true", "y", "yes"]);
const FALSE_WORDS = new Set(["0", "off", "f", "false", "n", "no"]);

/** Pydantic's lax `bool` coercion (the upstream check model validates `metExpectation` this way). */
function laxBool(value: unknown, where: string): boolean {
  if (typeof value === "boolean") return value;
  const number = value instanceof PyFloat ? value.value : value;
  if (number === 0 || number === 1) return number === 1;
  if (typeof value === "string") {
    const word = value.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
  }
  throw new NlJudgeReplyError(`${where}.metExpectation is not a boolean: ${JSON.stringify(value)}`);
}

function field(entry: unknown, key: string, where: string): unknown {
  if (entry instanceof Map) {
    if (!entry.has(key)) throw new NlJudgeReplyError(`${where} has no '${key}'`);
    return entry.get(key);
  }
  throw new NlJudgeReplyError(`${where} is not an object`);
}

function stringField(entry: unknown, key: string, where: string): string {
  const value = field(entry, key, where);
  if (typeof value !== "string") throw new NlJudgeReplyError(`${where}.${key} is not a string`);
  return value;
}

/**
 * Parses the judge's reply strictly, as upstream's `json.loads`: markdown
 * fences or prose around the JSON are errors; a missing `results` means none.
 */
export function parseJudgeReply(content: string | null): NlAssertionCheck[] {
  if (content === null) throw new NlJudgeReplyError("the reply has no text");
  let data: unknown;
  try {
    data = parsePyJson(content, { maps: true });
  } catch (error) {
    throw new NlJudgeReplyError(`the reply is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  if (!(data instanceof Map)) throw new NlJudgeReplyError("the reply is not a JSON object");
  const results = data.has("results") ? data.get("results") : [];
  if (!Array.isArray(results)) throw new NlJudgeReplyError("'results' is not a list");
  return results.map((entry, index) => {
    const where = `results[${index}]`;
    return {
      nl_assertion: stringField(entry, "expectedOutcome", where),
      met: laxBool(field(entry, "metExpectation", where), where),
      justification: stringField(entry, "reasoning", where),
    };
  });
}

/** A judge backed by a language model (one call per simulation, no tools); upstream's prompts when `texts` are given. */
export function createLlmJudge(
  client: LlmClient,
  args?: Record<string, unknown>,
  texts: UpstreamTexts | null = null,
): NlAssertionJudge {
  // Given args replace the defaults wholesale, like upstream's `--*-llm-args`.
  const callArgs = { ...(args ?? DEFAULT_JUDGE_ARGS) };
  return {
    async evaluate(messages, assertions, signal) {
      const response = await client.generate({
        messages: [
          { role: "system", content: judgeSystemPrompt(texts) },
          { role: "user", content: judgeUserPrompt(messages, assertions, texts) },
        ],
        args: callArgs,
        callName: "nl_assertions_eval",
        ...(signal ? { signal } : {}),
      });
      return parseJudgeReply(response.content);
    },
  };
}

/**
 * Grades the `nl_assertions` of a task; no assertions means reward 1 and no
 * judge call. Returns null when assertions exist but there is no judge.
 */
export async function evaluateNlAssertions(
  task: Task,
  trajectory: readonly Message[],
  judge: NlAssertionJudge | null,
  signal?: AbortSignal,
): Promise<RewardInfo | null> {
  const criteria = task.evaluation_criteria;
  if (criteria === null) {
    return rewardInfo({
      reward: 1,
      nl_assertions: [],
      info: { note: "No evaluation criteria" },
      reward_breakdown: { NL_ASSERTION: 1 },
    });
  }
  const assertions = criteria.nl_assertions;
  if (!assertions || assertions.length === 0) {
    return rewardInfo({
      reward: 1,
      nl_assertions: [],
      info: { note: "No nl_assertions to evaluate" },
      reward_breakdown: { NL_ASSERTION: 1 },
    });
  }
  if (judge === null) return null;
  const checks = await judge.evaluate(trajectory, assertions, signal);
  const reward = checks.every((check) => check.met) ? 1 : 0;
  return rewardInfo({ reward, nl_assertions: checks, reward_breakdown: { NL_ASSERTION: reward } });
}
