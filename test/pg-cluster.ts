/**
 * A throwaway PostgreSQL cluster of scripts/pg-cluster.sh for the tests that
 * fault the database itself (issue 39 item 8): started with settings of its
 * own (`max_connections=12`), stopped and started in place, frozen
 * (SIGSTOP of its postmaster and every child) and thawed. Only this
 * cluster's processes are signalled: the postmaster's pid from its own
 * postmaster.pid, its children from /proc. Imports nothing from vitest.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("../scripts/pg-cluster.sh", import.meta.url));

/** Whether this machine has PostgreSQL's binaries (Debian's layout) to start a cluster with. */
export const canStartCluster =
  process.platform === "linux" && execFileSync("sh", ["-c", "ls -d /usr/lib/postgresql/*/bin 2>/dev/null || true"]).length > 0;

export interface PgCluster {
  /** postgres://… of the cluster's postgres database. */
  readonly url: string;
  /** Stops it (pg_ctl stop -m fast). */
  stop(): void;
  /** Starts it again, on the same port. */
  start(): void;
  /** SIGSTOPs the postmaster and all its children. */
  freeze(): void;
  /** SIGCONTs them (also safe when not frozen). */
  thaw(): void;
  /** The server's log so far. */
  log(): string;
  /** Thaws, stops and removes it. */
  remove(): void;
}

export function startCluster(...settings: string[]): PgCluster {
  if (!canStartCluster) throw new Error("PostgreSQL's binaries are missing (apt-get install postgresql): this test starts its own cluster");
  const dir = mkdtempSync(join(tmpdir(), "a2a-cluster-"));
  // The postgres user must reach the cluster's directory.
  chmodSync(dir, 0o755);
  const home = join(dir, "c");
  const run = (cmd: "start" | "stop") => execFileSync(script, [cmd, home, ...settings], { encoding: "utf8" }).trim();
  const url = run("start");
  /** The postmaster (first line of its postmaster.pid) and its children, read now. */
  const pids = (): number[] => {
    const file = join(home, "data", "postmaster.pid");
    if (!existsSync(file)) return [];
    const main = Number(readFileSync(file, "utf8").split("\n")[0]);
    if (!Number.isInteger(main) || main <= 0) return [];
    const children = readdirSync("/proc")
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          // Field 4 of /proc/<pid>/stat is the parent's pid; the name (field 2) may hold spaces, hence after ')'.
          const stat = readFileSync(`/proc/${p}/stat`, "utf8");
          return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === main;
        } catch {
          return false;
        }
      })
      .map(Number);
    return [main, ...children];
  };
  const signal = (sig: "SIGSTOP" | "SIGCONT") => {
    for (const pid of pids()) {
      try {
        process.kill(pid, sig);
      } catch {
        // Gone meanwhile.
      }
    }
  };
  return {
    url,
    stop: () => void run("stop"),
    start: () => void run("start"),
    log: () => (existsSync(join(home, "log")) ? readFileSync(join(home, "log"), "utf8") : ""),
    freeze: () => signal("SIGSTOP"),
    thaw: () => signal("SIGCONT"),
    remove() {
      signal("SIGCONT");
      if (existsSync(home)) run("stop");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
