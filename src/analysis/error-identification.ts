/**
 * `tau analyze RUN`: τ-bench's error identification
 * (`auto_error_identification.py`, §5.2 of the paper) on the failed
 * simulations of a run. For each failure a judge model first says who is
 * responsible (user, agent or environment) and describes why; for the
 * agent's faults it then names the kind of fault (wrong tool, wrong argument,
 * goal partly done, other) and describes it. Two steps per question, as
 * τ-bench does: a lettered-choice classification, then a free description.
 * Prompts are our own wording in τ-bench's structure.
 *
 * On purpose unlike τ-bench: the conversation is always shown (τ-bench
 * leaves it out of the context of tasks graded on outputs), tool calls are
 * shown with their arguments, and τ² tasks' `communicate_info` plays the part
 * of τ-bench's required outputs.
 */
import { dirname, join } from "node:path";
import { writeFileSync } from "node:fs";
import { readAnalysisFile, reviewFilePath } from "../core/review-file.ts";
import type { SimulationAnalysisRecord } from "../core/review-records.ts";
import type { FaultAuthor, FaultType } from "../core/reviews.ts";
import type { SimulationRun } from "../core/simulation.ts";
import type { Task } from "../core/task.ts";
import type { LlmClient } from "../llm/types.ts";
import { analysisBreakdown, FAULT_AUTHOR_LABELS, FAULT_TYPE_LABELS } from "../metrics/fault-audit.ts";
import type { LoadedRun } from "../runner/run-file.ts";
import { renderUserScenario } from "../users/scenario.ts";
import { type JudgePassDependencies, type JudgePassOutcome, runJudgePass } from "./judge-pass.ts";
import { askJudge, JudgeCallFailure, JudgeReplyError, parseObject } from "./review.ts";
import { selectSimulations } from "./review-run.ts";
import { renderExpectedActions, renderReviewTranscript } from "./transcript.ts";

/** τ-bench's threshold: a simulation with reward at most this is a failure to analyse. */
export const FAILURE_REWARD = 1e-3;

/** Whether a simulation failed, as τ-bench's script picks them (`reward <= 1e-3`). */
export function isFailure(simulation: SimulationRun): boolean {
  return (simulation.reward_info?.reward ?? 0) <= FAILURE_REWARD;
}

const AUTHOR_CHOICES: readonly [FaultAuthor, string][] = [
  ["user", "The user"],
  ["agent", "The agent"],
  ["environment", "The environment (neither the user nor the agent)"],
];

const FAULT_TYPE_CHOICES: readonly [FaultType, string][] = [
  ["called_wrong_tool", "The agent called the wrong tool"],
  ["used_wrong_tool_argument", "The agent called the right tool with a wrong argument"],
  ["goal_partially_completed", "The goal was only partly achieved"],
  ["other", "Something else"],
];

/** How the failure is graded: against expected actions, or against outputs the agent must communicate. */
function gradedOnOutputs(task: Task): boolean {
  return (task.evaluation_criteria?.communicate_info?.length ?? 0) > 0;
}

/** What the judge is told about the material (τ-bench `context_description`). */
export function contextDescription(task: Task): string {
  const reference = gradedOnOutputs(task)
    ? [
        "You are given the user's instructions, the outputs the agent was required to communicate, and a conversation.",
        "- The instructions are what the simulated user was told.",
        "- The required outputs are the pieces of information the agent must pass on to the user.",
      ]
    : [
        "You are given the user's instructions, a reference action sequence, and a conversation.",
        "- The instructions are what the simulated user was told.",
        "- The reference action sequence is one valid way of reaching the goal state (an empty sequence means no action should have been taken).",
      ];
  return [
    ...reference,
    "- The conversation is the exchange between the user and the agent.",
    "- The conversation is known to contain a fault.",
  ].join("\n");
}

/** The material itself (τ-bench `display_context`): instructions, reference, conversation. */
export function analysisContext(task: Task, simulation: SimulationRun): string {
  const parts = [
    `----- start user instruction -----\n${renderUserScenario(task.user_scenario)}\n----- end user instruction -----`,
  ];
  if (gradedOnOutputs(task))
    parts.push(
      `----- start required outputs -----\n${JSON.stringify(task.evaluation_criteria?.communicate_info ?? [])}\n----- end required outputs -----`,
    );
  else
    parts.push(
      `----- start ground truth action sequence -----\n${renderExpectedActions(task.evaluation_criteria?.actions)}\n----- end ground truth action sequence -----`,
    );
  parts.push(
    `----- start trajectory -----\n${renderReviewTranscript(simulation.messages)}\n----- end trajectory -----\n`,
  );
  return parts.join("\n\n");
}

const CLASSIFY_SYSTEM = `Classify the text below following the instruction, by picking one of the listed choices. Answer with the choice's letter as JSON:
{"classification": string}

For example, when the right choice is 'Z. what choice Z says', the answer is the valid JSON:
{"classification": "Z"}`;

const letter = (index: number) => String.fromCharCode(65 + index);

/** The lettered-choice prompt (τ-bench `build_classify_state`'s layout). */
export function classifyUserPrompt(instruction: string, text: string, choices: readonly string[]): string {
  const listed = choices.map((choice, index) => `${letter(index)}. ${choice}`).join("\n");
  return `Instruction:\n${instruction}\n\nText:\n${text}\n\nChoices:\n${listed}\n\nValid JSON:`;
}

/** Reads `{"classification": "B"}` (a bare letter, or the choice's own text, are recovered as τ-bench does). */
export function parseClassification(content: string | null, choices: readonly string[]): number {
  const choice = parseObject(content).classification;
  if (typeof choice !== "string") throw new JudgeReplyError("the reply has no 'classification'", content);
  const trimmed = choice.trim();
  const byLetter = choices.findIndex(
    (_, index) => letter(index) === trimmed.replace(/[.)]$/, "").toUpperCase(),
  );
  if (byLetter >= 0) return byLetter;
  const byText = choices.findIndex((text) => text.toLowerCase() === trimmed.toLowerCase());
  if (byText >= 0) return byText;
  throw new JudgeReplyError(`unknown choice ${JSON.stringify(choice)}`, content);
}

function parseDescription(content: string | null): string {
  if (content === null || content.trim() === "")
    throw new JudgeReplyError("the description is empty", content);
  return content;
}

/** The outcome of one failure's analysis. */
export type FailureAnalysis =
  | {
      status: "reviewed";
      author: FaultAuthor;
      authorDescription: string;
      faultType: FaultType | null;
      faultTypeDescription: string | null;
    }
  | { status: "failed"; error: string; attempts: number; lastReply: string | null };

/** Analyses one failed simulation. */
export async function analyzeFailure(
  simulation: SimulationRun,
  task: Task,
  context: { client: LlmClient; args: Record<string, unknown>; maxAttempts?: number; signal?: AbortSignal },
): Promise<FailureAnalysis> {
  const description = contextDescription(task);
  const text = analysisContext(task, simulation);
  const classify = async (instruction: string, choices: readonly string[], callName: string) =>
    askJudge(
      context,
      [
        { role: "system", content: CLASSIFY_SYSTEM },
        { role: "user", content: classifyUserPrompt(`${description}\n\n${instruction}`, text, choices) },
      ],
      callName,
      (content) => parseClassification(content, choices),
    );
  const describe = async (instruction: string, callName: string) =>
    askJudge(
      context,
      [
        { role: "system", content: `${description}\n\n${instruction}` },
        { role: "user", content: text },
      ],
      callName,
      parseDescription,
    );
  try {
    const authorIndex = await classify(
      "Decide who is responsible for the fault. The user is responsible when they caused an action that their instruction does not support. The agent is responsible when it took an incorrect action, or a correct action with wrong arguments. Every other fault is the environment's.",
      AUTHOR_CHOICES.map(([, text]) => text),
      "fault_assignment",
    );
    const author = AUTHOR_CHOICES[authorIndex]![0];
    const authorDescription = await describe(
      `Explain why the ${author} is responsible for the fault in the conversation. Be brief, and keep to the functional differences between the reference and the conversation.`,
      "fault_assignment_description",
    );
    if (author !== "agent")
      return {
        status: "reviewed",
        author,
        authorDescription,
        faultType: null,
        faultTypeDescription: null,
      };
    const typeIndex = await classify(
      "Decide what kind of fault the first fault in the conversation is.",
      FAULT_TYPE_CHOICES.map(([, text]) => text),
      "fault_type",
    );
    const faultType = FAULT_TYPE_CHOICES[typeIndex]![0];
    const faultTypeDescription = await describe(
      `Explain why the conversation contains a fault of the kind "${faultType}". Be brief, and keep to the functional differences between the reference and the conversation.`,
      "fault_type_description",
    );
    return {
      status: "reviewed",
      author,
      authorDescription,
      faultType,
      faultTypeDescription,
    };
  } catch (error) {
    if (!(error instanceof JudgeCallFailure)) throw error;
    return {
      status: "failed",
      error: error.message,
      attempts: error.attempts,
      lastReply: error.lastReply,
    };
  }
}

/** What `tau analyze` was asked. */
export interface AnalyzeRunOptions {
  llm: string;
  llmArgs: Record<string, unknown>;
  maxConcurrency: number;
  taskIds?: readonly string[] | null;
  /** At most this many failures (τ-bench `--max-num-failed-results`). */
  limit?: number | null;
  maxAttempts?: number;
}

/** What an analysis pass produced. */
export interface AnalyzeRunResult extends JudgePassOutcome {
  filePath: string;
  jsonPath: string;
  records: SimulationAnalysisRecord[];
}

/** Analyses a run's failures; writes `analysis.jsonl` and τ-bench's `analysis.json` beside it. */
export async function analyzeRun(
  run: LoadedRun,
  options: AnalyzeRunOptions,
  deps: JudgePassDependencies,
): Promise<AnalyzeRunResult> {
  const filePath = reviewFilePath(run.path, "analysis");
  const selected = selectSimulations(run, isFailure, options);
  const outcome = await runJudgePass(
    {
      run,
      kind: "analysis",
      filePath,
      llm: options.llm,
      llmArgs: options.llmArgs,
      maxConcurrency: options.maxConcurrency,
      selected,
      state: readAnalysisFile(filePath),
      async work(simulation, task, client, signal) {
        const result = await analyzeFailure(simulation, task, {
          client,
          args: options.llmArgs,
          signal,
          ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}),
        });
        if (result.status === "failed")
          return {
            status: "failed",
            failure: { error: result.error, attempts: result.attempts, last_reply: result.lastReply },
          };
        return {
          status: "reviewed",
          fault_assignment: {
            task_id: task.id,
            author: result.author,
            description: result.authorDescription,
          },
          fault_type:
            result.faultType === null
              ? null
              : {
                  task_id: task.id,
                  fault_type: result.faultType,
                  description: result.faultTypeDescription ?? "",
                },
        };
      },
    },
    deps,
  );
  const after = readAnalysisFile(filePath);
  const records = selected
    .map((index) => after.simulations.get(run.simulations[index]!.id))
    .filter((record): record is SimulationAnalysisRecord => record !== undefined);
  const jsonPath = join(dirname(run.path), "analysis.json");
  writeFileSync(jsonPath, `${JSON.stringify(analysisJson(records), null, 4)}\n`);
  return { ...outcome, filePath, jsonPath, records };
}

/** τ-bench's output file: both lists, each entry with the trial and simulation id added. */
export function analysisJson(records: readonly SimulationAnalysisRecord[]): Record<string, unknown> {
  const done = records.filter((record) => record.status === "reviewed");
  return {
    fault_assignment_analysis: done.map((record) => ({
      ...record.fault_assignment,
      trial: record.trial,
      simulation_id: record.simulation_id,
    })),
    fault_type_analysis: done
      .filter((record) => record.fault_type !== null)
      .map((record) => ({ ...record.fault_type, trial: record.trial, simulation_id: record.simulation_id })),
    failed_analyses: records
      .filter((record) => record.status === "failed")
      .map((record) => ({
        simulation_id: record.simulation_id,
        task_id: record.task_id,
        trial: record.trial,
      })),
  };
}

/** τ-bench's printed breakdown: counts and percentages of authors, then of agent fault types. */
export function renderAnalysisBreakdown(records: readonly SimulationAnalysisRecord[]): string {
  const breakdown = analysisBreakdown(records);
  const percent = (count: number, total: number) =>
    total === 0 ? "-" : `${(Math.round((count / total) * 10000) / 100).toString()}%`;
  const lines = [
    `Analysed ${breakdown.analysed} failed simulation(s)${breakdown.analysisFailures > 0 ? ` (${breakdown.analysisFailures} could not be analysed: the judge's replies were unusable)` : ""}:`,
    "",
    "Who is at fault:",
  ];
  for (const { author, count } of breakdown.authors)
    lines.push(`  - ${FAULT_AUTHOR_LABELS[author]}: ${count} (${percent(count, breakdown.analysed)})`);
  lines.push("", "Fault type (agent faults only):");
  for (const { faultType, count } of breakdown.faultTypes)
    lines.push(`  - ${FAULT_TYPE_LABELS[faultType]}: ${count} (${percent(count, breakdown.typed)})`);
  return lines.join("\n");
}
