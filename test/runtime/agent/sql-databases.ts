/**
 * The SQL engines the SQL store's tests run on: PGlite (in this process,
 * always) and a PostgreSQL server from DATABASE_URL (`.ci/run` starts one
 * with scripts/pg-cluster.sh; by hand: `scripts/pg-cluster.sh start DIR`).
 *
 * Without DATABASE_URL the PostgreSQL tests skip, under a name that says
 * so; under CI=true they fail instead, so a CI that lost its server cannot
 * pass by running nothing. Nothing is installed here: both drivers are
 * devDependencies.
 *
 * Each `database()` is a new empty database, so that stores (and the agents
 * on them) never see each other's rows, outbox or leases: on PostgreSQL a
 * `CREATE DATABASE a2a_test_<random>`, dropped at `close()`; on PGlite a
 * clone of one empty instance opened per test file (a fresh PGlite costs
 * 2-3 s of initdb, a clone well under one).
 */
import { describe, it, beforeAll, afterAll } from "vitest";
import type { PGlite, PGliteInterface } from "@electric-sql/pglite";
import { connectPostgres, pgliteClient, type SqlClient } from "../../../packages/runtime/src/agent/sql/client.js";

export interface TestDatabase {
  /** Its name, for messages. */
  readonly name: string;
  /**
   * A new client on this database (PostgreSQL: its own pool; PGlite: the same
   * instance, as a second process could not share it). Its `close()` does
   * nothing: the engine closes what it opened at its own `close()`, so a
   * store closed by an agent leaves the database readable for the test.
   */
  connect(): Promise<SqlClient>;
}

export type EngineName = "PGlite" | "PostgreSQL";

export interface SqlEngine {
  readonly name: EngineName;
  /** A new empty database (no schema yet: the store migrates it). */
  database(): Promise<TestDatabase>;
  /** Closes every client and drops every database made. */
  close(): Promise<void>;
}

const url = process.env["DATABASE_URL"];
const inCi = process.env["CI"] === "true";

/** A client whose close() is left to the engine. */
function unclosable(c: SqlClient): SqlClient {
  return { ...c, close: async () => {} };
}

function pgliteEngine(): SqlEngine {
  let template: Promise<PGlite> | undefined;
  const open: PGliteInterface[] = [];
  let n = 0;
  return {
    name: "PGlite",
    async database() {
      template ??= (async () => {
        const { PGlite } = await import("@electric-sql/pglite");
        const db = new PGlite("memory://");
        await db.waitReady;
        open.push(db);
        return db;
      })();
      const db = await (await template).clone();
      open.push(db);
      const name = `pglite-${++n}`;
      const client = pgliteClient(db);
      return { name, connect: async () => unclosable(client) };
    },
    async close() {
      for (const db of open.splice(0)) await db.close().catch(() => {});
      template = undefined;
    },
  };
}

function postgresEngine(serverUrl: string): SqlEngine {
  let admin: Promise<SqlClient> | undefined;
  const databases: string[] = [];
  const clients: SqlClient[] = [];
  /**
   * Once dropping: a backend still on its way out after its client ended can
   * be terminated by DROP ... WITH (FORCE), and its "terminating connection"
   * reaches the ending client as an error; nothing to report then.
   */
  let closing = false;
  const onError = (e: unknown) => {
    // 57P01 admin_shutdown: a test terminated a connection on purpose (the listener's reconnect).
    if (!closing && (e as { code?: string }).code !== "57P01") console.error("a2a-http store (test database):", e);
  };
  const adminClient = () => (admin ??= connectPostgres(serverUrl, { max: 2, onError }));
  return {
    name: "PostgreSQL",
    async database() {
      const name = `a2a_test_${crypto.randomUUID().replace(/-/g, "").slice(0, 16)}`;
      // Template0, so that nothing another test left in template1 comes along.
      await (await adminClient()).exec(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8'`);
      databases.push(name);
      const dbUrl = new URL(serverUrl);
      dbUrl.pathname = `/${name}`;
      return {
        name,
        async connect() {
          const c = await connectPostgres(dbUrl.toString(), { max: 5, onError });
          clients.push(c);
          return unclosable(c);
        },
      };
    },
    async close() {
      closing = true;
      for (const c of clients.splice(0)) await c.close().catch(() => {});
      const a = await admin?.catch(() => undefined);
      admin = undefined;
      if (!a) return;
      try {
        // FORCE: a connection some failed test left open must not keep the database alive.
        for (const name of databases.splice(0)) await a.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await a.close();
      }
    },
  };
}

/**
 * Declares `body` once per engine, in a describe block named after it, with
 * the engine closed after the block. PostgreSQL without DATABASE_URL: a
 * skipped block whose name says why, or under CI=true one failing test.
 */
export function describeSqlEngines(body: (engine: () => SqlEngine, name: EngineName) => void): void {
  describeOn(pgliteEngine(), body);
  if (url) {
    describeOn(postgresEngine(url), body);
  } else if (inCi) {
    describe("PostgreSQL", () => {
      it("has a server to run on", () => {
        throw new Error(
          "CI=true but DATABASE_URL is not set: the PostgreSQL store tests cannot run (.ci/run starts a server with scripts/pg-cluster.sh)",
        );
      });
    });
  } else {
    describe.skip("PostgreSQL (skipped: DATABASE_URL is not set; `scripts/pg-cluster.sh start DIR` prints one)", () => {
      body(() => {
        throw new Error("no PostgreSQL");
      }, "PostgreSQL");
    });
  }
}

function describeOn(engine: SqlEngine, body: (engine: () => SqlEngine, name: EngineName) => void): void {
  describe(engine.name, () => {
    afterAll(() => engine.close(), 60_000);
    body(() => engine, engine.name);
  });
}

/** For a test file that needs one database for most of its tests: opened before them, closed with the engine. */
export function useDatabase(engine: () => SqlEngine): () => TestDatabase {
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = await engine().database();
  }, 60_000);
  return () => db!;
}
