/** Grading: reward components, their combination, the NL judge, and the gold environment. */
export { actionMatchesToolCall, evaluateActions } from "./action-evaluator.ts";
export { checkCommunicateInfo, evaluateCommunicate } from "./communicate-evaluator.ts";
export { evaluateEnvironment, replayPredicted } from "./env-evaluator.ts";
export {
  type EvaluateSimulationOptions,
  evaluateSimulation,
  NotGradableError,
  toolKinds,
} from "./evaluator.ts";
export {
  applyInitialState,
  buildGoldEnvironment,
  type GoldReplay,
  type GoldStep,
  replayGold,
} from "./gold.ts";
export {
  createLlmJudge,
  DEFAULT_JUDGE_ARGS,
  evaluateNlAssertions,
  judgeSystemPrompt,
  judgeUserPrompt,
  type NlAssertionJudge,
  NlJudgeReplyError,
  parseJudgeReply,
} from "./nl-assertions.ts";
export { type ReplayRecord, replayRecord } from "./replay-record.ts";
