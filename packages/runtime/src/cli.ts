/**
 * The `a2a-http` command of the runtime package. One subcommand so far:
 * `a2a-http migrate --url <postgres://…|dir>` applies the SQL store's missing
 * migrations, a step of a deployment run once before the agents start (they
 * only check the schema on a PostgreSQL server, unless told to migrate).
 *
 * Exit codes: 0 done, 1 the store failed (one line on stderr), 2 bad usage.
 */
import { parseArgs } from "node:util";
import { SCHEMA_VERSION, StoreError, migrateStore, shownSpec } from "./stores.js";

const usage = `usage: a2a-http migrate --url <postgres://user:password@host:5432/db | directory>

Applies the a2a-http SQL store's missing migrations (this a2a-http's schema
is version ${SCHEMA_VERSION}) and says what it applied. Migrations are
forward-only and applied in one transaction under a lock, so several
machines may run this at once: one migrates, the others find it done.

  --url   a PostgreSQL server (postgres:// or postgresql://, through the
          package pg), or a directory of an embedded PostgreSQL (PGlite,
          through @electric-sql/pglite; created when missing)
  --help  this text`;

/** Runs the command line `argv` (without node and the script); resolves with the exit code. */
export async function main(
  argv: readonly string[],
  out = (s: string) => console.log(s),
  err = (s: string) => console.error(s),
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { url: { type: "string" }, help: { type: "boolean", short: "h", default: false } },
    });
  } catch (e) {
    err(`a2a-http: ${(e as Error).message}\n${usage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out(usage);
    return 0;
  }
  const [command, ...extra] = positionals;
  if (command !== "migrate" || extra.length > 0) {
    err(
      `${command === undefined ? "a2a-http: no command given" : `a2a-http: unknown command "${[command, ...extra].join(" ")}"`}\n${usage}`,
    );
    return 2;
  }
  const url = values.url?.trim();
  if (!url) {
    err(`a2a-http migrate: --url is required\n${usage}`);
    return 2;
  }
  if (url === "memory") {
    err("a2a-http migrate: the memory store has no schema: give a directory or a postgres:// URL");
    return 2;
  }
  const started = performance.now();
  try {
    const { store, applied, version } = await migrateStore(url);
    const ms = Math.round(performance.now() - started);
    out(
      applied.length === 0
        ? `${store}: schema at version ${version}, nothing to apply (${ms} ms)`
        : `${store}: applied ${applied.join(", ")}; schema at version ${version} (${ms} ms)`,
    );
    return 0;
  } catch (e) {
    // One line: the store's errors are written to be read as they are; others keep their first line.
    const message = e instanceof StoreError ? e.message : ((e as Error).message ?? String(e)).split("\n")[0]!;
    // A driver's message may quote the URL: never its password.
    err(`a2a-http migrate: ${message.replaceAll(url, shownSpec(url))}`);
    return 1;
  }
}

// Run directly (`node dist/cli.js`, or the source with tsx); the package's bin,
// bin/a2a-http.js, imports main instead, and a test imports it without running it.
const self = process.argv[1];
if (self !== undefined && /(?:^|[\\/])cli\.[jt]s$/.test(self)) {
  // Exit now: a driver's socket still closing must not hold the command open.
  process.exit(await main(process.argv.slice(2)));
}
