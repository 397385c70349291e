/** The episode loop: orchestration of agent, user and environment, and one graded episode. */
export { type EpisodeOptions, runEpisode } from "./episode.ts";
export {
  type CallInFlight,
  DEFAULT_MAX_ERRORS,
  DEFAULT_MAX_STEPS,
  EmptyMessageError,
  GREETING_TEXT,
  greetingMessage,
  OrchestrationError,
  Orchestrator,
  type OrchestratorOptions,
  participantCallsInFlight,
  type Role,
  trajectoryCosts,
} from "./orchestrator.ts";
