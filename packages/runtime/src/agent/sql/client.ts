/**
 * The little the SQL store needs of a database, over the two engines it runs
 * on: a PostgreSQL server through `pg` (a Pool), and PostgreSQL compiled to
 * WASM in this process through `@electric-sql/pglite` (a data directory).
 * Both are optional peer dependencies, loaded only when a store asks for one,
 * so an agent on the memory store installs neither.
 */
import { isGivenUp } from "./faults.js";

export interface SqlRows {
  readonly rows: Record<string, unknown>[];
  readonly rowCount: number;
}

export interface SqlQueryable {
  /** One statement, with $1… parameters. */
  query(text: string, params?: readonly unknown[]): Promise<SqlRows>;
  /** Several statements, no parameters (migrations). */
  exec(text: string): Promise<void>;
}

export interface SqlClient extends SqlQueryable {
  /** Which engine, for logs: "postgres" or "pglite". */
  readonly kind: "postgres" | "pglite";
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<R>(fn: (tx: SqlQueryable) => Promise<R>): Promise<R>;
  /**
   * Calls `onNotify` with the payload of every NOTIFY on `channel`, and
   * `onReconnect` after the listening connection was lost and made again
   * (notifications in between are lost: the caller catches up from its tables).
   */
  listen(channel: string, onNotify: (payload: string) => void, onReconnect: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** What a failed load of an optional peer dependency says. */
function missing(pkg: string, why: string, cause: unknown): Error {
  return new Error(`${why} needs the package ${pkg}: npm install ${pkg}`, { cause });
}

export interface PostgresClientOptions {
  /** Most connections in the pool (one more is held for LISTEN). Default 10. */
  readonly max?: number;
  /**
   * Most milliseconds a statement waits for a connection of the pool: a free
   * one when all are busy, or a new one being made (pg bounds both with this
   * one timer). Past it the statement fails ("timeout exceeded when trying to
   * connect") rather than wait for ever. Default 5 000; 0 for no bound.
   */
  readonly poolTimeoutMs?: number;
  /**
   * Most milliseconds a statement runs: the server cancels it then (SQLSTATE
   * 57014), and should the server not answer at all (frozen, or the network
   * gone) the client gives up 1 s later and drops that connection ("Query
   * read timeout"). Migrations (`exec`) run without it. Default 5 000; 0 for
   * no bound.
   */
  readonly statementTimeoutMs?: number;
  /**
   * How often the LISTEN connection is asked `SELECT 1`, and how long its
   * answer may take: a connection that died without a word (a frozen
   * server, a dropped NAT entry, a network gone) is then dropped and made
   * again, and the caller catches up (`onReconnect`), rather than hearing
   * nothing for ever. Default 5 000; 0 for none.
   */
  readonly listenKeepAliveMs?: number;
  /** Reports errors of idle connections and of the listener (a database that restarts). */
  readonly onError?: (error: unknown) => void;
}

/** Most statement texts a pool prepares (each connection, once per text). */
const MAX_PREPARED = 200;
/** How long the client waits past the server's statement timeout before it gives up on the server. */
const SILENT_SERVER_MS = 1_000;
/** A statement without the client's bound (setTimeout's largest delay: about 24.8 days). */
const UNBOUNDED_MS = 2_147_483_647;

/** A PostgreSQL server, through a `pg` Pool on `url` (postgres://…). */
export async function connectPostgres(url: string, options: PostgresClientOptions = {}): Promise<SqlClient> {
  let pg: typeof import("pg");
  try {
    // pg is CommonJS: under ESM its API is the default export.
    const mod = (await import("pg")) as unknown as { default?: typeof import("pg") };
    pg = mod.default ?? (mod as unknown as typeof import("pg"));
  } catch (e) {
    throw missing("pg", `a store on ${redact(url)}`, e);
  }
  const onError = options.onError ?? ((e: unknown) => console.error("a2a-http store:", e));
  const poolTimeoutMs = options.poolTimeoutMs ?? 5_000;
  const statementTimeoutMs = options.statementTimeoutMs ?? 5_000;
  const keepAliveMs = options.listenKeepAliveMs ?? 5_000;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    ...(poolTimeoutMs > 0 ? { connectionTimeoutMillis: poolTimeoutMs } : {}),
    ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs, query_timeout: statementTimeoutMs + SILENT_SERVER_MS } : {}),
  });
  // An idle client's error (the server restarted) must not crash the process: the pool replaces it.
  pool.on("error", onError);
  // Fail now, with the URL, rather than at the first request; outside the
  // pool, whose poolTimeoutMs is for statements (the caller bounds the open).
  const first = new pg.Client({ connectionString: url });
  try {
    await first.connect();
    await first.end();
  } catch (e) {
    await first.end().catch(() => {});
    await pool.end().catch(() => {});
    throw new Error(`cannot connect to ${redact(url)}: ${(e as Error).message}`, { cause: e });
  }
  const listeners = new Set<{ stop(): Promise<void> }>();
  // Statements with parameters are prepared once per connection, by a name per
  // text: PostgreSQL then neither parses nor plans them again, which took a
  // task's commit from about 380 to 100 µs of the server's CPU
  // (bench/store.mjs). The store's texts are few and fixed; past
  // MAX_PREPARED others, any more go unnamed.
  const names = new Map<string, string>();
  const prepared = (text: string, params: readonly unknown[] | undefined) => {
    if (!params) return { text };
    let name = names.get(text);
    if (name === undefined && names.size < MAX_PREPARED) names.set(text, (name = `a2a_${names.size + 1}`));
    const values = params as unknown[];
    return name === undefined ? { text, values } : { name, text, values };
  };

  return {
    kind: "postgres",
    query: (text, params) => pool.query(prepared(text, params)) as unknown as Promise<SqlRows>,
    exec: async (text) => void (await pool.query(unbounded(text))),
    async transaction(fn) {
      const c = await pool.connect();
      /** Set when the connection cannot be trusted (a statement given up on): the pool drops it. */
      let broken: Error | undefined;
      try {
        await c.query("BEGIN");
        const r = await fn({
          query: (text, params) => c.query(prepared(text, params)) as unknown as Promise<SqlRows>,
          exec: async (text) => void (await c.query(unbounded(text))),
        });
        await c.query("COMMIT");
        return r;
      } catch (e) {
        if (isGivenUp(e)) broken = e as Error;
        else await c.query("ROLLBACK").catch((f: Error) => void (broken = f));
        throw e;
      } finally {
        c.release(broken);
      }
    },
    async listen(channel, onNotify, onReconnect) {
      let stopped = false;
      let client: import("pg").Client | undefined;
      let retry: ReturnType<typeof setTimeout> | undefined;
      /** Drops a listening connection that failed or fell silent (its late notifications too); another is made. */
      const dropped = new WeakSet<import("pg").Client>();
      /** Said once per loss: the attempts that fail until the server answers again are not (one a second, each a stack). */
      let reported = false;
      const report = (e: unknown) => {
        if (reported) return;
        reported = true;
        onError(e);
      };
      const drop = (c: import("pg").Client, e: unknown) => {
        if (dropped.has(c)) return;
        dropped.add(c);
        report(e);
        c.removeAllListeners("notification");
        void c.end().catch(() => {});
        if (client === c) client = undefined;
        schedule();
      };
      const connect = async (again: boolean): Promise<void> => {
        // Bounded like the keep-alive, so that a server that answers nothing fails the attempt and the next one comes.
        const c = new pg.Client({
          connectionString: url,
          keepAlive: true,
          ...(keepAliveMs > 0 ? { connectionTimeoutMillis: keepAliveMs, query_timeout: keepAliveMs } : {}),
        });
        c.on("notification", (n) => {
          if (n.channel === channel) onNotify(n.payload ?? "");
        });
        c.on("error", (e) => drop(c, e));
        c.on("end", () => {
          if (client === c) {
            client = undefined;
            schedule();
          }
        });
        try {
          await c.connect();
          await c.query(`LISTEN ${quoteIdent(channel)}`);
        } catch (e) {
          dropped.add(c);
          void c.end().catch(() => {});
          throw e;
        }
        if (stopped) {
          await c.end().catch(() => {});
          return;
        }
        client = c;
        reported = false;
        if (again) onReconnect();
      };
      // A lost listener comes back once a second until the server answers again.
      const schedule = () => {
        if (stopped || retry) return;
        retry = setTimeout(() => {
          retry = undefined;
          connect(true).catch((e) => {
            report(e);
            schedule();
          });
        }, 1_000);
        retry.unref?.();
      };
      await connect(false);
      // The keep-alive: one SELECT 1 at a time on the listening connection; a failure or no answer in time drops it.
      let asking = false;
      const keepAlive =
        keepAliveMs > 0
          ? setInterval(() => {
              const c = client;
              if (!c || asking) return;
              asking = true;
              c.query("SELECT 1").then(
                () => void (asking = false),
                (e: unknown) => {
                  asking = false;
                  if (client === c)
                    drop(c, new Error("the LISTEN connection did not answer its keep-alive: making it again", { cause: e }));
                },
              );
            }, keepAliveMs)
          : undefined;
      keepAlive?.unref?.();
      const handle = {
        async stop() {
          stopped = true;
          clearInterval(keepAlive);
          clearTimeout(retry);
          listeners.delete(handle);
          const c = client;
          client = undefined;
          await c?.end().catch(() => {});
        },
      };
      listeners.add(handle);
      return () => handle.stop();
    },
    async close() {
      for (const l of [...listeners]) await l.stop();
      await pool.end();
    },
  };
}

export interface PgliteClientOptions {
  /** Reports errors of the listener. */
  readonly onError?: (error: unknown) => void;
}

/**
 * PostgreSQL in this process (PGlite), on a data directory ("memory://" for
 * none). One process owns a directory at a time; PGlite runs one query at a
 * time, so transactions are serialized by it.
 */
export async function openPglite(dataDir: string, _options: PgliteClientOptions = {}): Promise<SqlClient> {
  let mod: typeof import("@electric-sql/pglite");
  try {
    mod = await import("@electric-sql/pglite");
  } catch (e) {
    throw missing("@electric-sql/pglite", `a store in ${dataDir}`, e);
  }
  const db = new mod.PGlite(dataDir);
  try {
    await db.waitReady;
  } catch (e) {
    throw new Error(`cannot open the PGlite data directory ${dataDir}: ${(e as Error).message}`, { cause: e });
  }
  const open = async () => {
    const next = new mod.PGlite(dataDir);
    await next.waitReady;
    return next;
  };
  return pgliteClient(db, open);
}

/** The part of a PGlite instance the client uses (structural, so that the package stays an optional import). */
export interface PgliteLike {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[]; affectedRows?: number }>;
  exec(text: string): Promise<unknown>;
  transaction<T>(fn: (tx: Pick<PgliteLike, "query" | "exec">) => Promise<T>): Promise<T>;
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/**
 * A client over a PGlite instance that is already open (`close()` closes it):
 * for callers that open PGlite themselves, e.g. with options of their own or
 * as a clone of another instance.
 *
 * A PANIC (PostgreSQL's crash: a WAL write that failed, on a full disk)
 * leaves a PGlite instance unusable: its next statement, even the ROLLBACK
 * PGlite sends itself when a transaction fails, spins in WASM and holds the
 * whole process for ever. So no statement goes to an instance after one:
 * with `reopen` (openPglite gives it) the next call opens the directory
 * anew, which recovers from the WAL as a restarted server would, and the
 * listeners are told to catch up; without it, every call fails at once.
 */
export function pgliteClient(first: PgliteLike, reopen?: () => Promise<PgliteLike>): SqlClient {
  let db = first;
  /** The PANIC that ended `db`, until another instance replaces it. */
  let crashed: unknown;
  let reopening: Promise<PgliteLike> | undefined;
  const listeners = new Set<PgliteListener>();
  /** The instance to use now: `db`, or a new one when it crashed. */
  const live = (): PgliteLike | Promise<PgliteLike> => {
    if (crashed === undefined) return db;
    if (!reopen)
      throw new Error("the PGlite instance crashed (PANIC) and takes no more statements: open the directory again", { cause: crashed });
    reopening ??= (async () => {
      const next = await reopen();
      db = next;
      crashed = undefined;
      for (const l of listeners) {
        l.unlisten = await next.listen(l.channel, l.onNotify);
        l.onReconnect();
      }
      return next;
    })().finally(() => (reopening = undefined));
    return reopening;
  };
  /** Notes a PANIC of the instance `on`; rethrows `e`. */
  const failed = (on: PgliteLike, e: unknown): never => {
    if ((e as { severity?: unknown } | undefined)?.severity === "PANIC" && on === db) crashed = e;
    throw e;
  };
  /** Statements on `on` (the instance, or a transaction of `instance`). */
  const queryOn = async (on: Pick<PgliteLike, "query">, instance: PgliteLike, text: string, params?: readonly unknown[]) => {
    const r = await on.query(text, params as unknown[]).catch((e: unknown) => failed(instance, e));
    // PGlite counts only written rows (a SELECT's affectedRows is 0); pg's
    // rowCount is the rows a SELECT returned, and the store reads it the same on both.
    return { rows: r.rows as Record<string, unknown>[], rowCount: r.affectedRows || r.rows.length };
  };
  const execOn = async (on: Pick<PgliteLike, "exec">, instance: PgliteLike, text: string) =>
    void (await on.exec(text).catch((e: unknown) => failed(instance, e)));
  const wrap = (on: Pick<PgliteLike, "query" | "exec">, instance: PgliteLike): SqlQueryable => ({
    query: (text, params) => queryOn(on, instance, text, params),
    exec: (text) => execOn(on, instance, text),
  });
  return {
    kind: "pglite",
    // The usual case, no crash: straight to the instance.
    query: (text, params) =>
      crashed === undefined ? queryOn(db, db, text, params) : Promise.resolve(live()).then((on) => queryOn(on, on, text, params)),
    exec: (text) => (crashed === undefined ? execOn(db, db, text) : Promise.resolve(live()).then((on) => execOn(on, on, text))),
    async transaction(fn) {
      const on = crashed === undefined ? db : await live();
      let panic!: (e: unknown) => void;
      const panicked = new Promise<never>((_, reject) => (panic = reject));
      return Promise.race([
        panicked,
        on.transaction(async (tx) => {
          try {
            return await fn(wrap(tx, on));
          } catch (e) {
            // After a PANIC the transaction is left as it is: PGlite's own ROLLBACK would hang the process.
            if ((e as { severity?: unknown } | undefined)?.severity === "PANIC") {
              panic(e);
              return new Promise<never>(() => {});
            }
            throw e;
          }
        }),
      ]).catch((e: unknown) => failed(on, e));
    },
    async listen(channel, onNotify, onReconnect) {
      // In one process nothing is lost between a NOTIFY and its listener: no reconnects, but after a crash.
      const l: PgliteListener = { channel, onNotify, onReconnect };
      l.unlisten = await (await live()).listen(channel, onNotify);
      listeners.add(l);
      return async () => {
        listeners.delete(l);
        await l.unlisten?.();
      };
    },
    close: async () => {
      // A crashed instance is not asked to close: it would spin.
      if (crashed === undefined) await db.close();
    },
  };
}

/** A LISTEN of a PGlite client, kept to be made again on the instance that replaces a crashed one. */
interface PgliteListener {
  readonly channel: string;
  readonly onNotify: (payload: string) => void;
  readonly onReconnect: () => void;
  unlisten?: () => Promise<void>;
}

/** A postgres:// URL without its password, for messages. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "<an invalid URL>";
  }
}

/**
 * A statement the client waits for as long as it takes (migrations: DDL on a
 * big table, or a wait for another instance's migration); the server's
 * statement timeout is lifted by the statement itself (`SET LOCAL`).
 */
function unbounded(text: string): { text: string; query_timeout: number } {
  return { text, query_timeout: UNBOUNDED_MS };
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
