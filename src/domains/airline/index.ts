/**
 * The `airline` domain: flight reservations (specs/airline.md). Agent tools
 * only; the simulated user has none, and solo mode is refused as upstream does.
 */
import { join } from "node:path";
import { UsageError } from "../../core/errors.ts";
import { Environment } from "../../env/environment.ts";
import { Toolkit } from "../../env/toolkit.ts";
import { domainFiles, readDb } from "../files.ts";
import { loadUpstreamTexts } from "../texts/store.ts";
import { withUpstreamToolTexts } from "../texts/tool-wording.ts";
import type { Domain, DomainDefinition } from "../types.ts";
import { type AirlineRoot, FlightDb } from "./model.ts";
import { airlineTools } from "./tools.ts";

/** Loads the airline domain from `<dataDir>/domains/airline`. */
function load(dataDir: string): Domain {
  const dir = join(dataDir, "domains", "airline");
  const baseDb = readDb<AirlineRoot>(join(dir, "db.json"), FlightDb);
  const files = domainFiles(dir);
  const policy = () => files.text("policy.md");
  const texts = loadUpstreamTexts(dataDir);
  const tools = withUpstreamToolTexts(airlineTools, texts, "airline");
  return {
    name: "airline",
    dataFolder: dir,
    supportsSolo: false,
    hasUserTools: false,
    makeEnvironment: (options = {}) => {
      if (options.soloMode) throw new UsageError("Airline domain does not support solo mode");
      return new Environment({
        domainName: "airline",
        policy: policy(),
        tools: new Toolkit("AirlineTools", tools, [], baseDb.fork()),
      });
    },
    tasks: files.tasks,
    splits: files.splits,
    policy,
    upstreamTexts: texts,
  };
}

/** Registry entry of the airline domain. */
export const airlineDomain: DomainDefinition = {
  name: "airline",
  description: "Airline customer service: book, change and cancel flight reservations (50 tasks).",
  load,
};
