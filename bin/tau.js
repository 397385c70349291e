#!/usr/bin/env node
// The `tau` command: runs the compiled CLI in dist/ (`npm run build`; `npm ci` and `npm pack` build it
// through the `prepare` script). `npm run tau -- …` runs the TypeScript sources instead.
let cli;
try {
  cli = await import("../dist/cli/main.js");
} catch (error) {
  if (error?.code !== "ERR_MODULE_NOT_FOUND" || !String(error.message).includes("dist/cli/main.js"))
    throw error;
  console.error("tau: the compiled CLI (dist/) is missing; run `npm run build` in the taubench folder");
  process.exit(1);
}
await cli.main(process.argv);
