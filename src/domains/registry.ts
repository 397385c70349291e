/** The registry of domains, and loading them once per data folder per process. */
import { UsageError } from "../core/errors.ts";
import { airlineDomain } from "./airline/index.ts";
import { bankingKnowledgeDomain } from "./banking_knowledge/index.ts";
import { mockDomain } from "./mock/index.ts";
import { retailDomain } from "./retail/index.ts";
import { tau1AirlineDomain, tau1RetailDomain } from "./tau1/index.ts";
import { telecomDomain, telecomWorkflowDomain } from "./telecom/index.ts";
import type { Domain, DomainDefinition, DomainSettings } from "./types.ts";

const definitions = new Map<string, DomainDefinition>();

/** Adds a domain to the registry (built-in domains register themselves below). */
export function registerDomain(definition: DomainDefinition): void {
  definitions.set(definition.name, definition);
}

registerDomain(mockDomain);
registerDomain(airlineDomain);
registerDomain(retailDomain);
registerDomain(telecomDomain);
registerDomain(telecomWorkflowDomain);
registerDomain(tau1RetailDomain);
registerDomain(tau1AirlineDomain);
registerDomain(bankingKnowledgeDomain);

/** Names of the registered domains, in registration order. */
export function domainNames(): string[] {
  return [...definitions.keys()];
}

/** The registry entry for a name; unknown names are a {@link UsageError} listing the known ones. */
export function getDomainDefinition(name: string): DomainDefinition {
  const definition = definitions.get(name);
  if (!definition)
    throw new UsageError(`Unknown domain '${name}'. Known domains: ${domainNames().join(", ")}`);
  return definition;
}

const loaded = new Map<string, Domain>();

/** Loads a domain's files (DBs parsed once, cached per data folder). */
export function loadDomain(name: string, dataDir: string): Domain {
  const key = `${name}\u0000${dataDir}`;
  let domain = loaded.get(key);
  if (!domain) {
    domain = getDomainDefinition(name).load(dataDir);
    loaded.set(key, domain);
  }
  return domain;
}

/**
 * The domain with run-level settings applied (banking_knowledge's retrieval config). Settings for a
 * domain that has none are a {@link UsageError}; without settings the domain is returned as loaded.
 */
export function configureDomain(domain: Domain, settings: DomainSettings): Domain {
  const given =
    (settings.retrievalConfig !== null && settings.retrievalConfig !== undefined) ||
    (settings.retrievalConfigKwargs !== null && settings.retrievalConfigKwargs !== undefined);
  if (!domain.configure) {
    if (given)
      throw new UsageError(
        `Domain '${domain.name}' has no retrieval configs (--retrieval-config is for banking_knowledge)`,
      );
    return domain;
  }
  return given || settings.services !== undefined ? domain.configure(settings) : domain;
}
