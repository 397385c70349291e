/** `tau domains`: lists the registered domains. */
import type { Command } from "commander";
import { domainNames, getDomainDefinition } from "../../domains/registry.ts";

export function registerDomainsCommand(program: Command): void {
  program
    .command("domains")
    .description("list the available domains")
    .action(() => {
      for (const name of domainNames())
        console.log(`${name.padEnd(18)} ${getDomainDefinition(name).description}`);
    });
}
