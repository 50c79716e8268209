// A benchmark's server in a child process (bench/agent.mjs, server.mjs,
// otel.mjs): the same script forked under tsx with the child's environment,
// which answers its port over IPC once it listens; pinned to a CPU when asked.
import { fork } from "node:child_process";
import { pin } from "./pin.mjs";

/** Forks `file` with `env` added; resolves with the child and its port, pinned to CPU `pinTo` unless undefined. */
export async function forkServer(file, name, env, pinTo) {
  const proc = fork(file, [], {
    env: { ...process.env, ...env },
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const port = await new Promise((resolve, reject) => {
    proc.once("message", resolve);
    proc.once("exit", (code) => reject(new Error(`${name} exited ${code}`)));
  });
  if (pinTo !== undefined && !pin(proc.pid, pinTo)) throw new Error(`${name}: taskset could not pin the server`);
  return { proc, port };
}

/** Sends `what` to a child (unless `send` is false) and waits for its answer, `{ [what]: value }`. */
export function askChild(proc, what, send = true) {
  return new Promise((resolve) => {
    const on = (m) => {
      if (m?.[what] === undefined) return;
      proc.off("message", on);
      resolve(m[what]);
    };
    proc.on("message", on);
    if (send) proc.send(what);
  });
}
