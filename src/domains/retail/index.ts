/**
 * The `retail` domain: online-store customer service — orders, returns and
 * exchanges (specs/retail.md). Agent tools only; the simulated user has none,
 * and solo mode is refused as upstream does.
 */
import { join } from "node:path";
import { UsageError } from "../../core/errors.ts";
import { DbState } from "../../env/db-state.ts";
import { Environment } from "../../env/environment.ts";
import { Toolkit } from "../../env/toolkit.ts";
import { domainFiles, readPyJson, validateDb } from "../files.ts";
import { loadUpstreamTexts } from "../texts/store.ts";
import { withUpstreamToolTexts } from "../texts/tool-wording.ts";
import type { Domain, DomainDefinition } from "../types.ts";
import { type OrderRecord, RetailDb, RetailDbFile, type RetailRoot, storedFloat } from "./data-model.ts";
import { retailTools } from "./tools.ts";

/**
 * Reads `db.json`: validated with the float-typed file model, then stored
 * with the one `any` field boxed (see `Order` in data-model.ts).
 */
function readRetailDb(path: string): DbState<RetailRoot> {
  const value = validateDb(path, RetailDbFile, readPyJson(path, { maps: true }));
  for (const order of (value.orders as Map<string, OrderRecord>).values()) {
    const difference = order.exchange_price_difference;
    if (typeof difference === "number") order.exchange_price_difference = storedFloat(difference);
  }
  return DbState.fromValidated<RetailRoot>(RetailDb, value);
}

/** Loads the retail domain from `<dataDir>/domains/retail` (the DB is parsed once, forked per episode). */
function load(dataDir: string): Domain {
  const dir = join(dataDir, "domains", "retail");
  const baseDb = readRetailDb(join(dir, "db.json"));
  const files = domainFiles(dir);
  const policy = () => files.text("policy.md");
  const texts = loadUpstreamTexts(dataDir);
  const tools = withUpstreamToolTexts(retailTools, texts, "retail");
  return {
    name: "retail",
    dataFolder: dir,
    supportsSolo: false,
    hasUserTools: false,
    makeEnvironment: (options = {}) => {
      if (options.soloMode) throw new UsageError("Retail domain does not support solo mode");
      return new Environment({
        domainName: "retail",
        policy: policy(),
        tools: new Toolkit("RetailTools", tools, [], baseDb.fork()),
      });
    },
    tasks: files.tasks,
    splits: files.splits,
    policy,
    upstreamTexts: texts,
  };
}

/** Registry entry of the retail domain. */
export const retailDomain: DomainDefinition = {
  name: "retail",
  description: "Online-store customer service: cancel, modify, return and exchange orders (114 tasks).",
  load,
};
