// Preloaded into the processes bench/startup.ts times: prints the CPU time the process used on exit.
process.on("exit", () => {
  const usage = process.cpuUsage();
  process.stderr.write(`cpu-ms ${((usage.user + usage.system) / 1000).toFixed(1)}\n`);
});
