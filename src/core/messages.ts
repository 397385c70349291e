/**
 * Conversation messages and tool calls (upstream `data_model/message.py`), as
 * zod schemas; each schema and its inferred type share one name.
 */
import { z } from "zod";
import { PyFloat } from "./py-json.ts";

/** A number as read from Python JSON (integral floats arrive boxed). */
export const PyNumber = z.preprocess((v) => (v instanceof PyFloat ? v.value : v), z.number());

/** Who asked for a tool call: the agent (`assistant`) or the simulated user. */
export const Requestor = z.enum(["assistant", "user"]);
export type Requestor = z.infer<typeof Requestor>;

/** One tool call. `arguments` keeps Python int/float distinctions (see core/py-json). */
export const ToolCall = z.object({
  id: z.string().default(""),
  name: z.string(),
  arguments: z.record(z.string(), z.any()).default({}),
  requestor: Requestor.default("assistant"),
});
export type ToolCall = z.infer<typeof ToolCall>;

/** Token usage of one LLM call; the cache fields are taubench additions (absent upstream). */
export const Usage = z
  .object({
    // Upstream writes completion_tokens first; zod emits keys in shape order.
    completion_tokens: PyNumber.default(0),
    prompt_tokens: PyNumber.default(0),
    cache_read_tokens: PyNumber.optional(),
    cache_write_tokens: PyNumber.optional(),
    reasoning_tokens: PyNumber.optional(),
  })
  .passthrough();
export type Usage = z.infer<typeof Usage>;

const participantFields = {
  content: z.string().nullable().default(null),
  tool_calls: z.array(ToolCall).nullable().default(null),
  turn_idx: PyNumber.nullable().default(null),
  timestamp: z.string().nullable().default(null),
  cost: PyNumber.nullable().default(null),
  usage: Usage.nullable().default(null),
  raw_data: z.any().nullable().default(null),
  generation_time_seconds: PyNumber.nullable().optional(),
};

/** A message written by the agent. */
export const AssistantMessage = z.object({ role: z.literal("assistant"), ...participantFields });
export type AssistantMessage = z.infer<typeof AssistantMessage>;

/** A message written by the (simulated) user. */
export const UserMessage = z.object({ role: z.literal("user"), ...participantFields });
export type UserMessage = z.infer<typeof UserMessage>;

/** The result of one tool call; `id` equals the call's id. */
export const ToolMessage = z.object({
  role: z.literal("tool"),
  id: z.string().default(""),
  content: z.string().nullable().default(null),
  requestor: Requestor.default("assistant"),
  error: z.boolean().default(false),
  turn_idx: PyNumber.nullable().default(null),
  timestamp: z.string().nullable().default(null),
});
export type ToolMessage = z.infer<typeof ToolMessage>;

/** A system prompt (inside LLM contexts only, never in a trajectory). */
export const SystemMessage = z.object({
  role: z.literal("system"),
  content: z.string().nullable().default(null),
  turn_idx: PyNumber.nullable().default(null),
  timestamp: z.string().nullable().default(null),
});
export type SystemMessage = z.infer<typeof SystemMessage>;

/** Any trajectory message, discriminated by `role`. */
export const Message = z.discriminatedUnion("role", [
  AssistantMessage,
  UserMessage,
  ToolMessage,
  SystemMessage,
]);
export type Message = z.infer<typeof Message>;

/** An agent or user message. */
export type ParticipantMessage = AssistantMessage | UserMessage;

/** Several tool results delivered to a participant in one step (never stored in a trajectory). */
export interface MultiToolMessage {
  role: "multi_tool";
  tool_messages: ToolMessage[];
}

/** Upstream `is_tool_call()`: tool_calls is not null (an empty list still counts). */
export function isToolCall(message: Message): boolean {
  return (message.role === "assistant" || message.role === "user") && message.tool_calls !== null;
}

/** Upstream `has_text_content()`: content is non-null and not only whitespace. */
export function hasTextContent(message: { content?: string | null }): boolean {
  return typeof message.content === "string" && message.content.trim() !== "";
}

/** Builds an assistant message with upstream's defaults. */
export function assistantMessage(fields: Partial<Omit<AssistantMessage, "role">>): AssistantMessage {
  return (
    (participantMessage("assistant", fields) as AssistantMessage | undefined) ??
    AssistantMessage.parse({ role: "assistant", ...fields })
  );
}

/** Builds a user message with upstream's defaults. */
export function userMessage(fields: Partial<Omit<UserMessage, "role">>): UserMessage {
  return (
    (participantMessage("user", fields) as UserMessage | undefined) ??
    UserMessage.parse({ role: "user", ...fields })
  );
}

const PARTICIPANT_FIELDS = new Set(Object.keys(participantFields));

/** A PyNumber field's value as the schema makes it (a finite number or null), or undefined when only the schema can say. */
function numberOrNull(value: unknown): number | null | undefined {
  return value === null || value === undefined ? null : finiteNumber(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    Object.getPrototypeOf(value) === Object.prototype &&
    !Object.hasOwn(value, "__proto__")
  );
}

const TOOL_CALL_FIELDS = new Set(Object.keys(ToolCall.shape));

/** What ToolCall's parse returns for a call of the usual shape (undefined: only the schema can say). */
function toolCallOf(value: unknown): ToolCall | undefined {
  if (!isPlainObject(value)) return undefined;
  for (const key in value) if (!TOOL_CALL_FIELDS.has(key)) return undefined;
  const { id, name, arguments: args, requestor } = value;
  if (id !== undefined && typeof id !== "string") return undefined;
  if (typeof name !== "string") return undefined;
  if (args !== undefined && !isPlainObject(args)) return undefined;
  if (requestor !== undefined && requestor !== "assistant" && requestor !== "user") return undefined;
  return {
    id: id ?? "",
    name,
    arguments: args === undefined ? {} : { ...args },
    requestor: requestor ?? "assistant",
  };
}

const USAGE_OPTIONAL = ["cache_read_tokens", "cache_write_tokens", "reasoning_tokens"] as const;
const USAGE_FIELDS = new Set(Object.keys(Usage.shape));

/** A finite number (PyFloat unboxed) as PyNumber makes it; undefined otherwise. */
function finiteNumber(value: unknown): number | undefined {
  const n = value instanceof PyFloat ? value.value : value;
  return typeof n === "number" && Number.isFinite(n) ? n : undefined;
}

/** What Usage's parse returns for usage of the usual shape (undefined: only the schema can say). */
function usageOf(value: unknown): Usage | undefined {
  if (!isPlainObject(value)) return undefined;
  const completion = value.completion_tokens === undefined ? 0 : finiteNumber(value.completion_tokens);
  const prompt = value.prompt_tokens === undefined ? 0 : finiteNumber(value.prompt_tokens);
  if (completion === undefined || prompt === undefined) return undefined;
  const out: Usage = { completion_tokens: completion, prompt_tokens: prompt };
  for (const key of USAGE_OPTIONAL) {
    if (!(key in value)) continue;
    if (value[key] === undefined) out[key] = undefined;
    else {
      const n = finiteNumber(value[key]);
      if (n === undefined) return undefined;
      out[key] = n;
    }
  }
  for (const key in value) if (!USAGE_FIELDS.has(key)) out[key] = value[key];
  return out;
}

/**
 * What the message schema's parse returns for fields of the usual shapes, built without it (a
 * model reply makes two messages per call): the same keys in the same order, the same defaults,
 * tool calls and usage built the same way. Undefined for anything else, which
 * the whole schema then parses (and reports, with its own paths).
 */
function participantMessage(
  role: "assistant" | "user",
  fields: Partial<Omit<AssistantMessage, "role">>,
): AssistantMessage | UserMessage | undefined {
  for (const key in fields) if (!PARTICIPANT_FIELDS.has(key)) return undefined;
  const { content, tool_calls, timestamp, usage, raw_data } = fields;
  if (content !== undefined && content !== null && typeof content !== "string") return undefined;
  if (timestamp !== undefined && timestamp !== null && typeof timestamp !== "string") return undefined;
  if (tool_calls !== undefined && tool_calls !== null && !Array.isArray(tool_calls)) return undefined;
  const turnIdx = numberOrNull(fields.turn_idx);
  const cost = numberOrNull(fields.cost);
  if (turnIdx === undefined || cost === undefined) return undefined;
  let calls: ToolCall[] | null = null;
  if (tool_calls) {
    calls = new Array(tool_calls.length);
    for (let i = 0; i < tool_calls.length; i++) {
      const call = toolCallOf(tool_calls[i]);
      if (call === undefined) return undefined;
      calls[i] = call;
    }
  }
  let parsedUsage: Usage | null = null;
  if (usage !== undefined && usage !== null) {
    const parsed = usageOf(usage);
    if (parsed === undefined) return undefined;
    parsedUsage = parsed;
  }
  const message: AssistantMessage | UserMessage = {
    role,
    content: content ?? null,
    tool_calls: calls,
    turn_idx: turnIdx,
    timestamp: timestamp ?? null,
    cost,
    usage: parsedUsage,
    raw_data: raw_data ?? null,
  };
  if ("generation_time_seconds" in fields) {
    const seconds = fields.generation_time_seconds;
    if (seconds === undefined) message.generation_time_seconds = undefined;
    else {
      const n = numberOrNull(seconds);
      if (n === undefined) return undefined;
      message.generation_time_seconds = n;
    }
  }
  return message;
}

/** The one timestamp format of every file taubench writes: upstream's `get_now()` (local time, microseconds, no zone). */
export const TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/;

/** Python-style local ISO timestamp without timezone, as upstream's `get_now()`. */
export function nowIso(date = new Date()): string {
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds() * 1000, 6)}`
  );
}
