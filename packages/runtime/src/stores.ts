/**
 * `a2a-http/stores`: where an agent's tasks live, chosen by one string.
 *
 * - `"memory"` (or empty): the engine's memory store; nothing outlives the process.
 * - `postgres://…` or `postgresql://…`: the SQL store on a PostgreSQL server
 *   (through `pg`); several agent instances may share it.
 * - anything else: a directory holding an embedded PostgreSQL (PGlite), for
 *   one agent on one machine; created when missing.
 *
 * `pg` and `@electric-sql/pglite` are optional peer dependencies, imported
 * only when a store needs one, so an agent on the memory store installs
 * neither. Every failure to open is a {@link StoreError} whose message is one
 * line that says what to do.
 */
import { accessSync, closeSync, constants, mkdirSync, openSync, readFileSync, readdirSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { createMemoryStore, type MemoryStoreOptions } from "./agent/memory-store.js";
import { StoreUnavailableError, type AgentStore } from "./agent/store.js";
import { connectPostgres, openPglite, redact, type SqlClient } from "./agent/sql/client.js";
import { SchemaOutdatedError, SchemaTooNewError, SCHEMA_VERSION, checkSchema, migrate } from "./agent/sql/migrations.js";
import { createSqlStore, type SqlStoreOptions } from "./agent/sql/store.js";
import { sqlPing } from "./agent/sql/probe.js";
import { storeFault } from "./agent/sql/unavailable.js";
import { defaultReport, throttleStoreFaults } from "./agent/fault-reports.js";
import { consoleLogger, type Logger } from "./logger.js";

export { connectPostgres, openPglite, redact } from "./agent/sql/client.js";
export type { SqlClient, SqlQueryable, SqlRows, PostgresClientOptions, PgliteClientOptions } from "./agent/sql/client.js";
export { migrate, checkSchema, SCHEMA_VERSION, SchemaTooNewError, SchemaOutdatedError } from "./agent/sql/migrations.js";
export { createSqlStore } from "./agent/sql/store.js";
export { sqlPing } from "./agent/sql/probe.js";
export type { SqlStoreOptions } from "./agent/sql/store.js";
export { createMemoryStore } from "./agent/memory-store.js";
export type { MemoryStoreOptions } from "./agent/memory-store.js";
export type { AgentStore } from "./agent/store.js";

/** What a store spec names. */
export type StoreSpec =
  | { readonly kind: "memory" }
  | { readonly kind: "postgres"; readonly url: string }
  | { readonly kind: "directory"; readonly dir: string };

/** Why a store could not be opened; callers add their own hint (a flag, a variable) by `reason`. */
export type StoreErrorReason =
  | "spec"
  | "unreachable"
  | "directory"
  | "locked"
  | "missing-package"
  | "schema-outdated"
  | "schema-too-new"
  | "open";

export class StoreError extends Error {
  override name = "StoreError";
  constructor(
    readonly reason: StoreErrorReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Reads a store spec (see the module's comment). A string with a URL scheme
 * other than postgres is refused rather than taken for a directory: `mysql://x`
 * is far more likely a mistake than a folder named `mysql:`.
 */
export function parseStoreSpec(spec: string | undefined): StoreSpec {
  const s = (spec ?? "").trim();
  if (s === "" || s === "memory") return { kind: "memory" };
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(s)?.[1]?.toLowerCase();
  if (scheme === "postgres" || scheme === "postgresql") {
    let u: URL;
    try {
      u = new URL(s);
    } catch {
      throw new StoreError("spec", `not a valid PostgreSQL URL: ${shownSpec(s)} (expected postgres://user:password@host:5432/database)`);
    }
    if (u.hostname === "" && !u.searchParams.has("host")) {
      throw new StoreError("spec", `the PostgreSQL URL ${redact(s)} names no host (expected postgres://user:password@host:5432/database)`);
    }
    return { kind: "postgres", url: s };
  }
  if (scheme !== undefined) {
    throw new StoreError("spec", `unknown store ${scheme}://…: use memory, a directory, or a postgres:// URL`);
  }
  return { kind: "directory", dir: resolve(s) };
}

/**
 * A spec as it may be shown: a URL without its password (also one that does
 * not parse, which `redact` would hide whole), a directory as it is.
 */
export function shownSpec(spec: string): string {
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(spec)) return spec;
  const r = redact(spec);
  return r.startsWith("<") ? spec.replace(/^([^:]+:\/\/[^:/@]*:)[^@]*@/, "$1***@") : r;
}

/** What a store is, for a log line: the URL without its password. */
export function describeStore(spec: StoreSpec): string {
  switch (spec.kind) {
    case "memory":
      return "memory (tasks are lost when the agent stops)";
    case "postgres":
      return `PostgreSQL at ${redact(spec.url)}`;
    case "directory":
      return `PGlite (embedded PostgreSQL) in ${spec.dir}`;
  }
}

export interface OpenStoreOptions extends Omit<SqlStoreOptions, "migrate"> {
  /**
   * A PostgreSQL server: apply missing migrations when the store opens.
   * Default false: the schema is only checked, and `a2a-http migrate` applies
   * it (one step of a deployment, not of every instance's start). A directory
   * is always migrated: the agent owns it.
   */
  readonly migrate?: boolean;
  /** The one line saying which store is used. Default: the logger's `info`; `() => {}` for none. */
  readonly log?: (line: string) => void;
  /**
   * Where the store line goes (unless `log` is given) and, unless `onError`
   * is given, the SQL store's errors (`error`, with `err`; the database away
   * as one `warn` line per kind of fault per 30 s). Default
   * {@link consoleLogger}: `console.log` for the line, `console.error` for errors.
   */
  readonly logger?: Logger;
  /** The memory store's options. */
  readonly memory?: MemoryStoreOptions;
  /** A PostgreSQL server: how long to wait for the first connection. Default 10 000 ms (pg itself waits forever). */
  readonly connectTimeoutMs?: number;
  /** A PostgreSQL server: most connections in the pool. Default 10. */
  readonly maxConnections?: number;
  /**
   * A PostgreSQL server: most milliseconds a statement waits for a connection
   * of the pool, a free one or a new one being made. Default 5 000; 0 for no bound.
   */
  readonly poolTimeoutMs?: number;
  /**
   * A PostgreSQL server: most milliseconds a statement runs before the server
   * cancels it; 1 s more and the client gives up on a server that does not
   * answer. Migrations run without it. Default 5 000; 0 for no bound.
   */
  readonly statementTimeoutMs?: number;
}

/** What opening the database of a SQL spec takes. */
type DatabaseOptions = Pick<OpenStoreOptions, "connectTimeoutMs" | "maxConnections" | "poolTimeoutMs" | "statementTimeoutMs" | "onError">;

/** Opens the store a spec names: `"memory"` or empty, a `postgres://` URL, or a directory. */
export async function openStore(spec: string | undefined, options: OpenStoreOptions = {}): Promise<AgentStore> {
  const parsed = parseStoreSpec(spec);
  const logger = options.logger ?? consoleLogger;
  const log = options.log ?? ((line: string) => logger.info({ store: parsed.kind }, line));
  if (parsed.kind === "memory") {
    log(`store: ${describeStore(parsed)}`);
    return createMemoryStore(options.memory);
  }
  const {
    log: _log,
    memory: _memory,
    connectTimeoutMs: _t,
    maxConnections: _m,
    poolTimeoutMs: _p,
    statementTimeoutMs: _s,
    migrate: wantMigrate,
    logger: _logger,
    ...sqlOptions
  } = options;
  // The SQL store's and its driver's errors go to the logger, an outage's as a line per kind now and then (fault-reports.ts):
  // every pooled connection reports the server's restart, each with the driver's whole error.
  const report = throttleStoreFaults(defaultReport(logger));
  const onError =
    sqlOptions.onError ??
    ((e: unknown) => {
      const fault = storeFault(e);
      if (fault instanceof StoreUnavailableError) report(fault);
      else logger.error({ err: e }, "a2a-http store");
    });
  const errors = { onError };
  const db = await openDatabase(parsed, { ...options, ...errors });
  let store: AgentStore;
  try {
    store = await createSqlStore(db, { ...sqlOptions, ...errors, migrate: parsed.kind === "directory" || wantMigrate === true });
  } catch (e) {
    await db.close().catch(() => {});
    throw schemaError(e, parsed);
  }
  // Readiness (agent/readiness.ts) pings the database; until createSqlStore sets its own ping.
  store.ping ??= sqlPing(db);
  log(`store: ${describeStore(parsed)}`);
  return store;
}

/**
 * Opens the database of a SQL spec, with the errors of {@link openStore}.
 * For a directory it takes the directory's lock, released by `close()`.
 */
export async function openDatabase(spec: Exclude<StoreSpec, { kind: "memory" }>, options: DatabaseOptions = {}): Promise<SqlClient> {
  return spec.kind === "postgres" ? connectServer(spec.url, options) : openDirectory(spec.dir, options);
}

/** Turns the schema errors into StoreErrors that name the store and the command. */
export function schemaError(e: unknown, spec: StoreSpec): unknown {
  const where = spec.kind === "postgres" ? redact(spec.url) : spec.kind === "directory" ? spec.dir : "memory";
  if (e instanceof SchemaOutdatedError) {
    return new StoreError(
      "schema-outdated",
      `${where} holds a2a-http schema version ${e.found}, this a2a-http needs ${SCHEMA_VERSION}: run \`npx a2a-http migrate --url ${where}\``,
      { cause: e },
    );
  }
  if (e instanceof SchemaTooNewError) {
    return new StoreError(
      "schema-too-new",
      `${where} holds a2a-http schema version ${e.found}, newer than this a2a-http knows (${SCHEMA_VERSION}): upgrade a2a-http`,
      { cause: e },
    );
  }
  return e;
}

async function connectServer(url: string, options: DatabaseOptions): Promise<SqlClient> {
  const ms = options.connectTimeoutMs ?? 10_000;
  const pending = connectPostgres(url, {
    ...(options.maxConnections !== undefined ? { max: options.maxConnections } : {}),
    ...(options.poolTimeoutMs !== undefined ? { poolTimeoutMs: options.poolTimeoutMs } : {}),
    ...(options.statementTimeoutMs !== undefined ? { statementTimeoutMs: options.statementTimeoutMs } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new StoreError("unreachable", `cannot connect to ${redact(url)}: no answer within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([pending, timeout]);
  } catch (e) {
    // A connection that succeeds after we gave up must not keep the process alive.
    pending
      .then(
        (db) => db.close(),
        () => {},
      )
      .catch(() => {});
    if (e instanceof StoreError) throw e;
    throw fromDriver(e, url);
  } finally {
    clearTimeout(timer);
  }
}

/** The driver's errors, as one line each. */
function fromDriver(e: unknown, url: string): StoreError {
  const message = (e as Error).message ?? String(e);
  if (/needs the package/.test(message)) return new StoreError("missing-package", message, { cause: e });
  // pg's own message is "cannot connect to <url>: <why>" already; the why of an unknown host is ENOTFOUND.
  const text = message.startsWith("cannot connect") ? message : `cannot connect to ${redact(url)}: ${message}`;
  return new StoreError("unreachable", text.split("\n")[0]!, { cause: e });
}

/** The file that says which process has a directory open: PGlite itself takes no lock, and two writers would corrupt it. */
export const LOCK_FILE = "a2a-http.lock";

async function openDirectory(dir: string, options: Pick<OpenStoreOptions, "onError">): Promise<SqlClient> {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new StoreError("directory", `cannot create the store directory ${dir}: ${code(e)}`, { cause: e });
  }
  try {
    accessSync(dir, constants.W_OK | constants.R_OK);
  } catch (e) {
    throw new StoreError("directory", `the store directory ${dir} is not writable by this process: ${code(e)}`, { cause: e });
  }
  // A directory with other files and no PostgreSQL in it is somebody else's: initdb there would mix the two.
  const entries = readdirSync(dir).filter((n) => n !== LOCK_FILE);
  if (entries.length > 0 && !entries.includes("PG_VERSION")) {
    throw new StoreError("directory", `${dir} is not an a2a-http store directory (it holds other files): give an empty or new directory`);
  }
  const release = lockDirectory(dir);
  try {
    const db = await openPglite(dir, options.onError ? { onError: options.onError } : {});
    return {
      ...db,
      async close() {
        try {
          await db.close();
        } finally {
          release();
        }
      },
    };
  } catch (e) {
    release();
    const message = (e as Error).message ?? String(e);
    if (/needs the package/.test(message)) throw new StoreError("missing-package", message, { cause: e });
    throw new StoreError("open", `${message.split("\n")[0]!}${dataVersionHint(dir)}`, { cause: e });
  }
}

/**
 * A data directory holds one PostgreSQL major version's files, and each
 * PGlite release line runs one version (0.5: PostgreSQL 18, 0.6: 19), which
 * cannot open another's: say which one the directory needs.
 */
function dataVersionHint(dir: string): string {
  let version: string;
  try {
    version = readFileSync(join(dir, "PG_VERSION"), "utf8").trim();
  } catch {
    return "";
  }
  return ` (it holds PostgreSQL ${version} data, which only a PGlite release running PostgreSQL ${version} opens: 0.5 runs 18, 0.6 runs 19; install that line of @electric-sql/pglite, or give a new directory)`;
}

function code(e: unknown): string {
  return (e as { code?: string }).code ?? (e as Error).message;
}

/**
 * Takes the directory's lock file (created exclusively, holding
 * `pid@host#start`); a lock whose process is gone (killed, crashed) is taken
 * over. Returns the release, also run at exit so that a process that never
 * closes its store leaves no lock behind.
 */
function lockDirectory(dir: string): () => void {
  const path = join(dir, LOCK_FILE);
  const me = `${process.pid}@${hostname()}#${startOf(process.pid) ?? ownStart}`;
  for (let attempt = 0; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, "wx");
    } catch (e) {
      if ((e as { code?: string }).code !== "EEXIST" || attempt >= 3) {
        throw new StoreError("directory", `cannot lock the store directory ${dir}: ${code(e)}`, { cause: e });
      }
      const holder = readLock(path);
      if (holder && holder.text === me) {
        throw new StoreError(
          "locked",
          `the store directory ${dir} is in use by this process (is the store opened twice?): one agent at a time opens a directory (for several instances use PostgreSQL)`,
        );
      }
      if (holder && isAlive(holder)) {
        throw new StoreError(
          "locked",
          `the store directory ${dir} is in use by process ${holder.pid} on ${holder.host}: one agent at a time opens a directory (for several instances use PostgreSQL)`,
        );
      }
      // Its process is gone: the lock is stale.
      try {
        unlinkSync(path);
      } catch {
        // another process took it over first: try again
      }
      continue;
    }
    try {
      writeSync(fd, me);
    } finally {
      closeSync(fd);
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      process.off("exit", release);
      try {
        if (readFileSync(path, "utf8") === me) unlinkSync(path);
      } catch {
        // gone already
      }
    };
    process.on("exit", release);
    return release;
  }
}

/** When this process started (ms), where the system does not say (not Linux). */
const ownStart = `t${Math.round(Date.now() - process.uptime() * 1000)}`;

/**
 * When a process started, in clock ticks since boot (Linux's /proc), or
 * undefined elsewhere. With the pid it names one process: a pid is reused,
 * and in a container the agent is pid 1 after every restart.
 */
function startOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name, in parentheses, may hold spaces: fields count from its end.
    const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    return start ? `p${start}` : undefined;
  } catch {
    return undefined;
  }
}

function readLock(path: string): { text: string; pid: number; host: string; start: string } | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8").trim();
  } catch {
    return undefined;
  }
  const m = /^(\d+)@(.*)#(.*)$/.exec(text);
  // An empty or garbled lock: its writer died between creating and writing it.
  return m ? { text, pid: Number(m[1]), host: m[2]!, start: m[3]! } : undefined;
}

function isAlive(holder: { pid: number; host: string; start: string }): boolean {
  // On another machine (a shared disk) we cannot tell: treat it as held.
  if (holder.host !== hostname()) return true;
  // This pid is this process, but the lock is another start's: an earlier run (a container restarted).
  if (holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (e) {
    // EPERM: it exists, under another user.
    if ((e as { code?: string }).code !== "EPERM") return false;
  }
  // Alive: the same process, unless the system says the pid now names a later one.
  const now = startOf(holder.pid);
  return !(holder.start.startsWith("p") && now !== undefined && now !== holder.start);
}

/** Migrates the database of a spec; what `a2a-http migrate` runs. */
export async function migrateStore(
  spec: string,
  options: Pick<OpenStoreOptions, "connectTimeoutMs"> = {},
): Promise<{ store: string; applied: number[]; version: number }> {
  const parsed = parseStoreSpec(spec);
  if (parsed.kind === "memory")
    throw new StoreError("spec", "the memory store has no schema to migrate: give a directory or a postgres:// URL");
  const db = await openDatabase(parsed, options);
  try {
    const applied = await migrate(db);
    await checkSchema(db);
    return { store: describeStore(parsed), applied, version: SCHEMA_VERSION };
  } catch (e) {
    throw schemaError(e, parsed);
  } finally {
    await db.close().catch(() => {});
  }
}
