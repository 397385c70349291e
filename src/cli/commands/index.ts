/** Registers every subcommand (one module per command). */
import type { Command } from "commander";
import { registerDomainsCommand } from "./domains.ts";

/** Adds all subcommands to the program. */
export function registerCommands(program: Command): void {
  registerDomainsCommand(program);
}
