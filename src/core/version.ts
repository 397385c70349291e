/** taubench's own version, read without loading anything else (`tau --version` starts fast). */
import { readFileSync } from "node:fs";

/** taubench's package version, read from package.json next to the sources (or the build). */
export function packageVersion(): string {
  const text = readFileSync(new URL("../../package.json", import.meta.url), "utf8");
  return (JSON.parse(text) as { version: string }).version;
}
