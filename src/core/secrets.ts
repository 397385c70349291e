/**
 * The secrets this process knows (provider API keys, credentials in endpoint
 * URLs), so that none of them is ever written to a file or printed: every
 * writer of results, checkpoints and caches, and the CLI's output, passes its
 * text through {@link maskSecrets}. A provider's error body that echoes the key
 * then reaches the disk and the screen as `[redacted OPENAI_API_KEY]`.
 *
 * No `node:` imports: the browser viewer may import what imports this.
 */

/** Values shorter than this are not treated as secrets: they would match ordinary text. */
export const MIN_SECRET_LENGTH = 8;

/** Secret value → what it is (the environment variable, or "credential"). */
const secrets = new Map<string, string>();
let pattern: RegExp | null = null;
/** {@link knownSecrets}' list, made again only when the secrets change (it is asked per checkpoint line). */
let list: readonly string[] | null = null;

/** Names of environment variables whose values are secrets whatever provider they belong to. */
export const SECRET_VARIABLE = /(_API_KEY|_TOKEN|_SECRET|_PASSWORD|_CREDENTIALS?)$/;

/** Remembers a secret so that {@link maskSecrets} hides it; short or empty values are ignored. */
export function registerSecret(value: string | undefined | null, label = "credential"): void {
  const secret = value?.trim();
  if (!secret || secret.length < MIN_SECRET_LENGTH || secrets.has(secret)) return;
  secrets.set(secret, label);
  pattern = null;
  list = null;
}

/** Stops treating `value` as a secret (a key withdrawn; tests). */
export function forgetSecret(value: string): void {
  if (!secrets.delete(value.trim())) return;
  pattern = null;
  list = null;
}

/** Registers every variable of `env` that names a secret ({@link SECRET_VARIABLE}). */
export function registerSecretsFromEnv(env: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(env))
    if (SECRET_VARIABLE.test(name)) registerSecret(value, name);
}

/** Registers the password (and a long user name, which some gateways use as the key) of a URL. */
export function registerUrlCredentials(url: string | undefined): void {
  if (!url) return;
  const match = /^[a-z][a-z0-9+.-]*:\/\/([^/@?#]*)@/i.exec(url);
  if (!match) return;
  const [user, password] = match[1]!.split(":");
  for (const part of [user, password]) {
    if (!part) continue;
    let decoded = part;
    try {
      decoded = decodeURIComponent(part);
    } catch {
      // Not percent-encoded text: keep it as written.
    }
    registerSecret(decoded, "credential");
    registerSecret(part, "credential");
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** `text` with every known secret replaced by `[redacted NAME]`. */
export function maskSecrets(text: string): string {
  if (secrets.size === 0) return text;
  // Longest first, so a key that contains another is replaced whole.
  pattern ??= new RegExp(
    [...secrets.keys()]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join("|"),
    "g",
  );
  return text.replace(pattern, (secret) => `[redacted ${secrets.get(secret)}]`);
}

/** The secrets known now (for a search in bytes, which {@link maskSecrets} cannot take). */
export function knownSecrets(): readonly string[] {
  list ??= [...secrets.keys()];
  return list;
}

/** Whether some secret is known (lets hot paths skip the scan). */
export function hasSecrets(): boolean {
  return secrets.size > 0;
}
