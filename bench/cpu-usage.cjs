// Preloaded (node --require) into a plugin process by bench/generate.mjs:
// reports the process's own CPU time (user + system, µs) on stderr as it exits.
// On a shared machine wall time mostly measures the queue for a core; CPU
// time is what the process itself costs.
process.on("exit", () => {
  const { user, system } = process.cpuUsage();
  process.stderr.write(`\n#cpu-us ${user + system}\n`);
});
