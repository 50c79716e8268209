import { spawnSync } from "node:child_process";

/** Binds a process and all its threads to one CPU; false where taskset is missing or refuses. */
export function pin(pid, cpu) {
  const r = spawnSync("taskset", ["-a", "-p", "-c", String(cpu), String(pid)], { stdio: "ignore" });
  return r.status === 0;
}
