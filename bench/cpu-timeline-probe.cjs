// Preloaded into the `tau run` process bench/run-process.ts measures: samples the process's CPU time
// (user + system) every 100 ms and, on exit, writes the samples to the file TAU_BENCH_CPU_TIMELINE
// names, as JSON [[epoch ms, CPU ms], …], so the bench can tell the CPU of the run phase from start-up's.
const { writeFileSync } = require("node:fs");

const target = process.env.TAU_BENCH_CPU_TIMELINE;
if (target) {
  const samples = [];
  const sample = () => {
    const usage = process.cpuUsage();
    samples.push([Date.now(), (usage.user + usage.system) / 1000]);
  };
  sample();
  setInterval(sample, 100).unref();
  process.on("exit", () => {
    sample();
    writeFileSync(target, JSON.stringify(samples));
  });
}
