/**
 * The leaderboard's `submission.json`: upstream's pydantic models
 * (`tau2/scripts/leaderboard/submission.py`) as zod schemas. Nested models
 * forbid unknown keys (`BaseModelNoExtra`); the top level ignores them, as
 * upstream's `Submission` does. Also the folder layout constants.
 */
import { z } from "zod";

/** Upstream's file and folder names. */
export const SUBMISSION_FILE_NAME = "submission.json";
export const TRAJECTORY_FILES_DIR_NAME = "trajectories";
/** The leaderboard's domains, in upstream's order. */
export const LEADERBOARD_DOMAINS = ["retail", "airline", "telecom", "banking_knowledge"] as const;
export type LeaderboardDomain = (typeof LEADERBOARD_DOMAINS)[number];

/** A calendar date as pydantic's `date` reads it from JSON (`YYYY-MM-DD`). */
const IsoDate = z.string().refine((text) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
}, "expected a date YYYY-MM-DD");

const optional = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/** `ContactInfo`. */
export const ContactInfo = z.strictObject({
  email: optional(z.string()),
  name: optional(z.string()),
  github: optional(z.string()),
});

const Percentage = z.number().min(0).max(100);

/** `DomainResults`: pass^1..4 as percentages, average cost per trajectory in USD. */
export const DomainResults = z.strictObject({
  pass_1: optional(Percentage),
  pass_2: optional(Percentage),
  pass_3: optional(Percentage),
  pass_4: optional(Percentage),
  cost: optional(z.number().min(0)),
  retrieval_config: optional(z.string()),
});
export type DomainResults = z.infer<typeof DomainResults>;

/** `Results`: one entry per domain; banking_knowledge must say its retrieval config. */
export const SubmissionResults = z
  .strictObject({
    retail: optional(DomainResults),
    airline: optional(DomainResults),
    telecom: optional(DomainResults),
    banking_knowledge: optional(DomainResults),
  })
  .refine(
    (results) => !results.banking_knowledge || Boolean(results.banking_knowledge.retrieval_config),
    "banking_knowledge results require retrieval_config (e.g. 'bm25', 'terminal', 'text-emb-3-large')",
  );
export type SubmissionResults = z.infer<typeof SubmissionResults>;

/** `Reference`. */
export const Reference = z.strictObject({
  title: z.string(),
  url: z.string(),
  type: optional(z.string()),
});
export type Reference = z.infer<typeof Reference>;

/** `ModelRelease`: a release announcement needs a release date. */
export const ModelRelease = z
  .strictObject({
    release_date: optional(IsoDate),
    announcement_url: optional(z.string()),
    announcement_title: optional(z.string()),
  })
  .refine(
    (release) => release.announcement_url == null || release.release_date != null,
    "model_release.announcement_url is set but model_release.release_date is not",
  );

/** `Verification`. */
export const Verification = z.strictObject({
  modified_prompts: optional(z.boolean()),
  omitted_questions: optional(z.boolean()),
  details: optional(z.string()),
});

/** `Methodology`. */
export const Methodology = z.strictObject({
  evaluation_date: optional(IsoDate),
  tau2_bench_version: optional(z.string()),
  user_simulator: optional(z.string()),
  notes: optional(z.string()),
  verification: optional(Verification),
});

const VoicePipeline = z.strictObject({
  asr: optional(z.string()),
  llm: optional(z.string()),
  tts: optional(z.string()),
});

/** `VoiceConfig` (voice submissions; taubench prepares text ones only). */
export const VoiceConfig = z.strictObject({
  provider: z.string(),
  model: z.string(),
  tick_duration_seconds: optional(z.number()),
  max_steps_seconds: optional(z.number()),
  user_tts_provider: optional(z.string()),
  pipeline: optional(VoicePipeline),
});

const Count = optional(z.number().int());
const InteractionMetricsCounts = z.strictObject({
  n_simulations: Count,
  response_total: Count,
  yield_total: Count,
  backchannel_total: Count,
  vocal_tic_total: Count,
  non_directed_total: Count,
  agent_interrupts_count: Count,
});
const Rate = optional(z.number());
const InteractionMetricsPanel = z.strictObject({
  response_latency_mean: Rate,
  yield_latency_mean: Rate,
  response_rate: Rate,
  yield_rate: Rate,
  agent_interruption_rate: Rate,
  selectivity_backchannel: Rate,
  selectivity_vocal_tic: Rate,
  selectivity_non_directed: Rate,
  counts: optional(InteractionMetricsCounts),
});

/** `InteractionMetrics` (voice submissions). */
export const InteractionMetrics = z.strictObject({
  version: optional(z.string()),
  config: optional(z.record(z.string(), z.number())),
  domains: optional(z.record(z.string(), InteractionMetricsPanel)),
  overall: optional(InteractionMetricsPanel),
});

/** `Submission` (unknown top-level keys are ignored, as upstream's `extra="ignore"`). */
export const Submission = z.object({
  model_name: z.string(),
  model_organization: z.string(),
  submitting_organization: z.string(),
  submission_date: IsoDate,
  submission_type: z.enum(["standard", "custom"]).default("standard"),
  modality: z.enum(["text", "voice"]).default("text"),
  contact_info: ContactInfo,
  results: SubmissionResults,
  is_new: z.boolean().default(false),
  trajectories_available: z.boolean().default(false),
  trajectory_files: optional(z.record(z.string(), z.string())),
  references: optional(z.array(Reference)),
  methodology: optional(Methodology),
  voice_config: optional(VoiceConfig),
  interaction_metrics: optional(InteractionMetrics),
  model_release: optional(ModelRelease),
  reasoning_effort: optional(z.string()),
});
export type Submission = z.infer<typeof Submission>;

/** Upstream's field order of `Submission` (pydantic dumps fields in declaration order). */
export const SUBMISSION_FIELD_ORDER = Object.keys(Submission.shape) as (keyof Submission)[];
