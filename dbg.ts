import { readFileSync } from "node:fs";
import { loadDomain } from "./src/domains/registry.ts";
const ref = JSON.parse(readFileSync("/tmp/prompts-ref/tools.json", "utf8"));
const dataDir = "/tmp/prompts-data";
const pairs: [string, string, "agent" | "user"][] = [["mock","mock.MockTools","agent"],["mock","mock.MockUserTools","user"],["airline","airline.AirlineTools","agent"],["retail","retail.RetailTools","agent"],["telecom","telecom.TelecomTools","agent"],["telecom","telecom.TelecomUserTools","user"]];
let bad = 0;
for (const [domain, key, side] of pairs) {
  const env = loadDomain(domain, dataDir).makeEnvironment();
  const ours = side === "agent" ? env.getToolSchemas() : env.getUserToolSchemas();
  const theirs = ref[key];
  if (JSON.stringify(ours.map(s => s.function.name)) !== JSON.stringify(Object.keys(theirs))) { console.log("ORDER", key); bad++; }
  for (const schema of ours) {
    const a = JSON.stringify(schema, null, 2), b = JSON.stringify(theirs[schema.function.name], null, 2);
    if (a !== b) { bad++; console.log("DIFF", key, schema.function.name); console.log(a.slice(0, 1500)); console.log(b.slice(0, 1500)); }
  }
}
console.log("bad", bad);
