/**
 * The data folder a domain reads: the τ²-bench folder (`--data-dir`,
 * `TAU_DATA_DIR`, the pulled cache) or, for the original τ-bench domains,
 * the τ-bench folder (`--tau1-data-dir`, `TAU1_DATA_DIR`, its pulled cache).
 */
import { resolveDataDir } from "./data-dir.ts";
import { getDomainDefinition } from "./registry.ts";
import { resolveTau1DataDir } from "./tau1/data-dir.ts";

/** The data-folder flags of a command. */
export interface DataDirFlags {
  dataDir?: string | undefined;
  tau1DataDir?: string | undefined;
}

/** Resolves the data folder of `domain` from the flags, the environment and the default caches. */
export function resolveDomainDataDir(domain: string, flags: DataDirFlags): string {
  return getDomainDefinition(domain).dataFolder === "tau1"
    ? resolveTau1DataDir(flags.tau1DataDir)
    : resolveDataDir(flags.dataDir);
}
