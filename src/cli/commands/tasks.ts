/** `tau tasks --domain D [--split S]`: lists a domain's tasks. */
import type { Command } from "commander";
import { resolveDomainDataDir } from "../../domains/domain-data-dir.ts";
import { loadDomain } from "../../domains/registry.ts";
import { selectTasks, splitOption } from "../../runner/task-selection.ts";

interface TasksOptions {
  domain: string;
  split?: string;
  taskSplitName?: string;
  dataDir?: string;
  tau1DataDir?: string;
}

export function registerTasksCommand(program: Command): void {
  program
    .command("tasks")
    .description("list the tasks of a domain")
    .requiredOption("--domain <name>", "domain name (see `tau domains`)")
    .option("--split <name>", "task split (e.g. base, train, test); default: every task in the file")
    .option("--task-split-name <name>", "same as --split (the name tau run uses)")
    .option("--data-dir <dir>", "data folder (default: TAU_DATA_DIR or the pulled cache)")
    .option(
      "--tau1-data-dir <dir>",
      "original τ-bench data folder, for tau1-* domains (default: TAU1_DATA_DIR)",
    )
    .action((options: TasksOptions) => {
      const split = splitOption(options) ?? null;
      const domain = loadDomain(options.domain, resolveDomainDataDir(options.domain, options));
      const tasks = selectTasks(domain, {
        split,
        onWarning: (line) => console.error(line),
      });
      for (const task of tasks) {
        const basis = task.evaluation_criteria?.reward_basis.join("+") ?? "-";
        const actions = task.evaluation_criteria?.actions?.length ?? 0;
        console.log(`${task.id}\t${basis}\t${actions} action${actions === 1 ? "" : "s"}`);
      }
      console.error(`${tasks.length} task${tasks.length === 1 ? "" : "s"}`);
    });
}
