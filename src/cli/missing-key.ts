/**
 * A missing API key names the role that needs it. The user simulator and the
 * judge default to an OpenAI model, so someone with only an Anthropic key who
 * sets `--agent-llm` would otherwise read "OPENAI_API_KEY is not set" with no
 * hint of which flag to change.
 */
import { UsageError } from "../core/errors.ts";
import { MissingApiKeyError } from "../llm/index.ts";

/** Who uses a model in a command, and the flag that chose it. */
export interface ModelRole {
  /** Shown as "used by <name>". */
  name: string;
  /** The option that picks this role's model. */
  flag: string;
  /** A further way out, e.g. skipping the judge. */
  instead?: string;
}

/** The agent's role (`--agent-llm`). */
export const AGENT_ROLE: ModelRole = { name: "the agent", flag: "--agent-llm" };
/** The user simulator's role (`--user-llm`). */
export const USER_ROLE: ModelRole = { name: "the user simulator", flag: "--user-llm" };

/** The NL-assertion judge's role; `flag` is the option that picks its model in this command. */
export function judgeRole(flag: string): ModelRole {
  return {
    name: "the NL-assertion judge",
    flag,
    instead: "pass --judge none to leave NL assertions unevaluated",
  };
}

/**
 * Returns `error` unchanged unless it is a missing key; then a usage error (exit 2) whose one line
 * keeps the documented start (`VAR is not set (needed for model M`) and adds the roles and the way out.
 */
export function explainMissingKey(error: unknown, model: string, roles: readonly ModelRole[]): unknown {
  if (!(error instanceof MissingApiKeyError) || roles.length === 0) return error;
  const names = roles.map((role) => role.name).join(" and ");
  const flags = roles.map((role) => role.flag).join(" / ");
  const instead = roles.flatMap((role) => (role.instead ? [`, or ${role.instead}`] : [])).join("");
  return new UsageError(
    `${error.variable} is not set (needed for model ${model}, used by ${names}); set it or choose another ${flags}${instead}`,
    { cause: error },
  );
}
