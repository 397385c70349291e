/**
 * taubench's library API: the package's front door (`import … from "taubench"`).
 * Everything a program needs to evaluate an agent the τ-bench way is here; the
 * `tau` command is built on these same exports. The fakes for tests are in
 * `taubench/testing`.
 */

// Running an evaluation
/** Runs (or resumes) an evaluation with `tau run`'s settings; returns simulations, `info` and metrics. */
export { runEvaluation } from "./runner/evaluate.ts";
/** Resolves an evaluation (tasks, seeds, participants, results path) without running it. */
export { planEvaluation } from "./runner/evaluate.ts";
/** The model-client factory `runEvaluation` uses by default (to wrap it, or to reuse its settings). */
export { llmFactory } from "./runner/evaluate.ts";
/** The settings of `runEvaluation`, its result, and how it builds model clients. */
export type { EvaluationOptions, EvaluationResult, LlmSettings } from "./runner/evaluate.ts";
/** A planned run (what `planEvaluation` returns) and the serializable config inside it. */
export type { RunConfig, RunPlan } from "./runner/plan.ts";
/** Progress of a run: the event union `onEvent` receives, and its listener type. */
export type { RunEvent, RunEventListener } from "./runner/events.ts";
/** One `(trial, task, seed)` unit of a run, as progress events carry it. */
export type { WorkUnit } from "./runner/batch.ts";
/** Which role a model plays in a run (`createLlm`'s third argument). */
export type { ModelUse } from "./runner/run-clients.ts";

// Reading results
/** Opens a run: a checkpoint, a results file (ours or upstream's), a run folder or a run name. */
export { loadRun } from "./runner/run-file.ts";
/** What a run throws when another process writes it, or when a model endpoint fails the pre-flight. */
export { RunLockedError } from "./runner/run-lock.ts";
export { PreflightError } from "./runner/preflight.ts";
/** A run as `loadRun` returns it. */
export type { LoadedRun } from "./runner/run-file.ts";

// Metrics
/** pass^k, pass@k, average reward, costs and breakdowns of a set of simulations. */
export { computeMetrics } from "./metrics/index.ts";
/** pass^k of one task from its trial and success counts (the unbiased estimator of the paper). */
export { passHatKForTask } from "./metrics/index.ts";
/** pass@k of one task from its trial and success counts. */
export { passAtKForTask } from "./metrics/index.ts";
/** Whether a reward counts as a success (1 within float tolerance). */
export { isSuccessful } from "./metrics/index.ts";
/** What `computeMetrics` returns. */
export type { AgentMetrics, TaskMetrics } from "./metrics/index.ts";
/** How an interval was computed (method, level, resamples, seed, tasks) and its one-line description. */
export { describeIntervalMethod } from "./metrics/index.ts";
/** The method of an interval, as `AgentMetrics.intervalMethod` and comparisons carry it. */
export type { IntervalMethod } from "./metrics/index.ts";

// Comparing runs and planning trials (docs/statistics.md)
/** Compares run B with run A on pass^1: difference, interval, p-value, decision, and what it could detect. */
export { compareRuns } from "./runner/compare-runs.ts";
/** What `compareRuns` returns (the comparison, both runs' metrics, their paths and domain). */
export type { RunsComparison } from "./runner/compare-runs.ts";
/** The same paired comparison from two `computeMetrics` results. */
export { compareMetrics } from "./metrics/index.ts";
/** What `compareMetrics` takes and returns, and its verdicts (`better`, `worse`, `no_clear_difference`, `no_shared_tasks`). */
export type { CompareOptions, ComparisonDecision, RunComparison } from "./metrics/index.ts";
/** The smallest true difference the paired test over tasks detects at a power and alpha. */
export { minimumDetectableDifference } from "./metrics/index.ts";
/** Trials per task (the same in both runs) to detect an effect, from a variance model. */
export { trialsToDetect } from "./metrics/index.ts";
/** Trials per task of a new run against a baseline kept as it is. */
export { candidateTrialsToDetect } from "./metrics/index.ts";
/** What `tau plan` computes: trials per task for an effect, fresh and against a baseline. */
export { planTrials } from "./metrics/index.ts";
/** A baseline run's numbers for `planTrials` (tasks, mean trial variance, its fixed share). */
export { baselineForPlan } from "./metrics/index.ts";
/** Splits the spread of per-task differences into trial noise and task-to-task variation. */
export { decomposeVariance } from "./metrics/index.ts";
/** Per-task counts, pairs of them, and the inputs and outputs of the power and plan functions. */
export type {
  PairedCounts,
  PlanInput,
  PowerTarget,
  TaskCounts,
  TrialPlan,
  TrialsNeeded,
  VarianceDecomposition,
  VarianceModel,
} from "./metrics/index.ts";
/** The group-sequential design of `--until-decided` (boundaries, planned trials) from a baseline. */
export { designSequential } from "./metrics/index.ts";
/** One look of a sequential design: the paired statistic, this look's boundaries, the decision. */
export { sequentialLook } from "./metrics/index.ts";
/** The name of the sequential test, as results record it. */
export { SEQUENTIAL_TEST } from "./metrics/index.ts";
/** The sequential design, a look, its decision, its options, and why a design is refused. */
export type {
  Infeasibility,
  SequentialDecision,
  SequentialDesign,
  SequentialLook,
  SequentialOptions,
} from "./metrics/index.ts";
/** Reads a run's `info.taubench.until_decided` (the looks and decision of `--until-decided`). */
export { readUntilDecidedRecord } from "./runner/until-decided.ts";
/** What `runEvaluation`'s `untilDecided` takes, and the record it returns and writes. */
export type { UntilDecidedOptions } from "./runner/evaluate.ts";
/** The record of a sequential comparison and of each of its looks. */
export type { RecordedLook, UntilDecidedRecord } from "./runner/until-decided.ts";

// Agents and users
/** Checks an agent definition and fills its defaults (the default export of an agent module). */
export { defineAgent } from "./agents/define.ts";
/** Checks a user definition and fills its defaults (the default export of a user module). */
export { defineUser } from "./users/define.ts";
/** The error a definition that cannot be used raises (one line naming the field). */
export { DefinitionError } from "./core/definition.ts";
/** What `defineAgent` takes. */
export type { AgentDefinitionInput } from "./agents/define.ts";
/** What `defineUser` takes. */
export type { UserDefinitionInput } from "./users/define.ts";
/** An agent: produces the assistant's next message from the user's message or tool results. */
export type { Agent, AgentInput } from "./agents/types.ts";
/** An agent definition and the per-episode context its `create` receives. */
export type { AgentContext, AgentDefinition } from "./agents/registry.ts";
/** The built-in function-calling agent loop, with your own system prompt (what `llm_agent` is built on). */
export { LlmAgent } from "./agents/llm-agent.ts";
/** How an `LlmAgent` is set up. */
export type { LlmAgentOptions } from "./agents/llm-agent.ts";
/** Names of the built-in agents (`llm_agent`, `replay`, …). */
export { agentNames } from "./agents/registry.ts";
/** A user: produces the (simulated) customer's next message. */
export type { User, UserInput } from "./users/types.ts";
/** A user definition and the per-episode context its `create` receives. */
export type { UserContext, UserDefinition } from "./users/registry.ts";
/** Names of the built-in users (`user_simulator`, `scripted`, `dummy_user`). */
export { userNames } from "./users/registry.ts";
/** Whether a user message ends the conversation (`###STOP###` and the other stop tokens). */
export { isUserStop } from "./users/types.ts";
/** Any AI SDK language model as an agent with the domain policy and tools (the harness runs the tools). */
export { aiSdkAgent } from "./agents/ai-sdk-agent.ts";
/** What `aiSdkAgent` takes. */
export type { AiSdkAgentOptions } from "./agents/ai-sdk-agent.ts";
/** An OpenAI Agents SDK `Agent` (its instructions, model, handoffs) evaluated with the domain tools. */
export { openaiAgentsBridge } from "./agents/openai-agents-bridge.ts";
/** What `openaiAgentsBridge` takes. */
export type { OpenAIAgentLike, OpenAIAgentsBridgeOptions } from "./agents/openai-agents-bridge.ts";
/** An agent service that speaks OpenAI Chat Completions at a base URL (what `--agent-url` uses). */
export { chatCompletionsAgent } from "./agents/chat-completions-agent.ts";
/** What `chatCompletionsAgent` takes. */
export type { ChatCompletionsAgentOptions } from "./agents/chat-completions-agent.ts";
/** An agent that speaks the A2A protocol (what `--agent-a2a` uses). */
export { a2aAgent } from "./agents/a2a-agent.ts";
/** What `a2aAgent` takes. */
export type { A2aAgentOptions } from "./agents/a2a-agent.ts";
/** A `fetch` for AI SDK providers that keeps raw bodies, so a `2.0` in tool arguments stays a float. */
export { keepRawResponses } from "./llm/provider-client.ts";
/** Builds an assistant message (fills the fields an agent does not care about). */
export { assistantMessage } from "./core/messages.ts";
/** Builds a user message. */
export { userMessage } from "./core/messages.ts";

// Models
/** A client for `provider/model` (OpenAI, Anthropic, Google, any OpenAI-compatible `local/…` server). */
export { createLlmClient } from "./llm/index.ts";
/** Options of `createLlmClient`. */
export type { LlmClientOptions } from "./llm/index.ts";
/** The model interface every agent and user goes through, its request, response and events. */
export type {
  LlmClient,
  LlmEvent,
  LlmEventListener,
  LlmMessage,
  LlmRequest,
  LlmResponse,
} from "./llm/index.ts";
/** A provider failure (after retries) and a missing API key. */
export { LlmError, MissingApiKeyError } from "./llm/index.ts";
/** Reads a price file (`tau run --price-table`) over the bundled prices, for `llm.priceTable` or `createLlmClient`. */
export { loadPriceTable } from "./llm/index.ts";
/** Prices per `provider/model` in USD per million tokens, as `loadPriceTable` returns them. */
export type { PriceTable } from "./llm/index.ts";

// Data
/** The data folder every command reads: the given path, `TAU_DATA_DIR`, or the `tau data pull` cache. */
export { resolveDataDir } from "./domains/data-dir.ts";
/** The per-user cache folder `tau data pull` fills. */
export { defaultDataDir } from "./domains/data-dir.ts";

// Records and errors
/** Messages of a conversation and tool calls (zod schemas with the same names as their types). */
export type { AssistantMessage, Message, ToolCall, ToolMessage, UserMessage } from "./core/messages.ts";
/** A task, as the data folder defines it. */
export type { Task } from "./core/task.ts";
/** One graded simulation, its reward breakdown and how it ended. */
export type { RewardInfo, SimulationRun, TerminationReason } from "./core/simulation.ts";
/** A run's metadata (upstream's `info`, with taubench's stamp). */
export type { Info } from "./core/results.ts";
/** A tool as the model sees it (OpenAI function schema). */
export type { ToolSchema } from "./env/toolkit.ts";
/** A number that is written as a Python float (`0.0`), as upstream records model arguments. */
export { PyFloat } from "./core/py-json.ts";
/** taubench's error base class, bad input (exit code 2), and failures outside the agent's control. */
export { FileIoError, InfrastructureError, TauError, UsageError } from "./core/errors.ts";
