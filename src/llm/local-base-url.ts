/** Where `--llm-base-url` (the library's `localBaseUrl`) applies. */
import { parseModelId } from "./model-id.ts";

/**
 * `--llm-base-url` points `local/…` models at an OpenAI-compatible server. It
 * is never applied to a hosted provider's model: that would send, say, the
 * OpenAI key of the user simulator to the local server.
 */
export function localBaseUrl(model: string, url: string | undefined): { baseUrl?: string } {
  return url !== undefined && parseModelId(model).provider === "local" ? { baseUrl: url } : {};
}
