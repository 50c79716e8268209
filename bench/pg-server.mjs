// The PostgreSQL server a bench runs against: $DATABASE_URL, else a throwaway
// cluster of scripts/pg-cluster.sh, started here and removed by stop() (also
// when the bench exits or is interrupted). For bench/store.mjs and
// bench/streams.mjs --store=sql.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(fileURLToPath(import.meta.url), "..", "..");

/** $DATABASE_URL, else a throwaway cluster (scripts/pg-cluster.sh) that `stop()` removes. */
export async function startServer() {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, own: false, stop() {} };
  const dir = mkdtempSync(join(tmpdir(), "bench-pg-"));
  const script = join(ROOT, "scripts", "pg-cluster.sh");
  const r = spawnSync("bash", [script, "start", dir], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`scripts/pg-cluster.sh start failed (set DATABASE_URL to use a server of your own): ${r.stderr}`);
  const url = r.stdout.trim().split("\n").at(-1);
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    spawnSync("bash", [script, "stop", dir], { stdio: "inherit" });
    rmSync(dir, { recursive: true, force: true });
  };
  // An interrupted or crashed run stops its cluster too (stop() is synchronous, so it can run on exit).
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.once(sig, () => {
      stop();
      process.exit(130);
    });
  }
  process.once("exit", stop);
  return { url, own: true, stop };
}

/** The URL of database `name` on the server at `url`. */
export function databaseUrl(url, name) {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
