/**
 * The fixed phrasing the offline participants speak to each other: the replay
 * agent asks the scripted user to perform a device action and closes with a
 * set phrase; the scripted user recognises both. One definition, used by both
 * sides (agents and users may not import each other).
 */
import { isPyDict, parsePyJson, pyDumps } from "./py-json.ts";

/** How the replay agent asks the user to act; followed by `name(<JSON arguments>)`. */
export const USER_ACTION_REQUEST = "Please perform this action on your device: ";

/** What the replay agent says when every step is done; the scripted user answers `###STOP###`. */
export const REPLAY_CLOSING = "All requested actions have been completed. Thank you, goodbye!";

/** The request text for one user action: `name()` or `name({"k": v})` (Python JSON, floats kept). */
export function userActionRequest(action: { name: string; arguments: Record<string, unknown> }): string {
  const hasArgs = Object.keys(action.arguments).length > 0;
  return `${USER_ACTION_REQUEST}${action.name}(${hasArgs ? pyDumps(action.arguments) : ""})`;
}

/** Reads a request written by {@link userActionRequest}; null when the text is not one. */
export function parseUserActionRequest(
  text: string,
): { name: string; arguments: Record<string, unknown> } | null {
  const trimmed = text.trim();
  if (!trimmed.startsWith(USER_ACTION_REQUEST)) return null;
  const match = /^([A-Za-z_][A-Za-z0-9_]*)\(([\s\S]*)\)$/.exec(trimmed.slice(USER_ACTION_REQUEST.length));
  if (!match) return null;
  const inner = match[2]!.trim();
  if (inner === "") return { name: match[1]!, arguments: {} };
  try {
    const value = parsePyJson(inner);
    // Only a JSON object is an argument list (not a number, a list or a boxed float).
    if (!isPyDict(value) || value instanceof Map) return null;
    return { name: match[1]!, arguments: value as Record<string, unknown> };
  } catch {
    return null;
  }
}
