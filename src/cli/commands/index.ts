/**
 * Every subcommand, each in a module of its own that registers it. Only the
 * module of the command being run is loaded; `tau --help` (or no command)
 * loads them all. Add a command with one line here.
 */
import type { Command } from "commander";

type Register = (program: Command) => void;

/** Command name → its module's register function, in the order `tau --help` lists them. */
const COMMANDS: Record<string, () => Promise<Register>> = {
  domains: async () => (await import("./domains.ts")).registerDomainsCommand,
  tasks: async () => (await import("./tasks.ts")).registerTasksCommand,
  replay: async () => (await import("./replay.ts")).registerReplayCommand,
  run: async () => (await import("./run.ts")).registerRunCommand,
  view: async () => (await import("./view.ts")).registerViewCommand,
  export: async () => (await import("./export.ts")).registerExportCommand,
  "evaluate-trajs": async () => (await import("./evaluate-trajs.ts")).registerEvaluateTrajsCommand,
  compare: async () => (await import("./compare.ts")).registerCompareCommand,
  plan: async () => (await import("./plan.ts")).registerPlanCommand,
  data: async () => (await import("./data.ts")).registerDataCommand,
  telecom: async () => (await import("./telecom.ts")).registerTelecomCommand,
  mcp: async () => (await import("./mcp.ts")).registerMcpCommand,
  tool: async () => (await import("./tool.ts")).registerToolCommand,
  review: async () => (await import("./review.ts")).registerReviewCommand,
  submit: async () => (await import("./submit.ts")).registerSubmitCommand,
  analyze: async () => (await import("./analyze.ts")).registerAnalyzeCommand,
};

/** Options of `tau` itself that take no value, so the first other argument is the command. */
const GLOBAL_FLAGS = new Set(["--verbose"]);

/**
 * Adds the subcommands `args` (the arguments after `tau`) need: the named command only, none for a
 * bare `tau --version`, all of them otherwise (help, an unknown command's suggestion).
 */
export async function registerCommands(program: Command, args: readonly string[] = []): Promise<void> {
  const first = args.find((arg) => !GLOBAL_FLAGS.has(arg));
  let names = Object.keys(COMMANDS);
  if (first !== undefined && Object.hasOwn(COMMANDS, first)) names = [first];
  else if (first === "--version") names = [];
  for (const name of names) (await COMMANDS[name]!())(program);
}
