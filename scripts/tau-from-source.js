#!/usr/bin/env node
// `tau` from the TypeScript sources through tsx (development and the test suite, which must test the
// sources, not a build that may be stale). The installed `tau` is bin/tau.js, which runs dist/.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
await main(process.argv);
