/** Registers every subcommand (one module per command). */
import type { Command } from "commander";
import { registerCompareCommand } from "./compare.ts";
import { registerDataCommand } from "./data.ts";
import { registerDomainsCommand } from "./domains.ts";
import { registerEvaluateTrajsCommand } from "./evaluate-trajs.ts";
import { registerExportCommand } from "./export.ts";
import { registerMcpCommand } from "./mcp.ts";
import { registerReplayCommand } from "./replay.ts";
import { registerRunCommand } from "./run.ts";
import { registerTasksCommand } from "./tasks.ts";
import { registerTelecomCommand } from "./telecom.ts";
import { registerViewCommand } from "./view.ts";

/** Adds all subcommands to the program. */
export function registerCommands(program: Command): void {
  registerDomainsCommand(program);
  registerTasksCommand(program);
  registerReplayCommand(program);
  registerRunCommand(program);
  registerViewCommand(program);
  registerExportCommand(program);
  registerEvaluateTrajsCommand(program);
  registerCompareCommand(program);
  registerDataCommand(program);
  registerTelecomCommand(program);
  registerMcpCommand(program);
}
