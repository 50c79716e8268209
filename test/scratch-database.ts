/**
 * A database of its own for one test, on the PostgreSQL server of
 * DATABASE_URL: made with CREATE DATABASE, dropped by `drop()`. Imports
 * nothing from vitest, so the slow test files (package, scaffold) and the
 * agent tests share it.
 */
import { connectPostgres, type SqlClient } from "../packages/runtime/src/agent/sql/client.js";

export interface ScratchDatabase {
  readonly name: string;
  /** The server's URL with this database's name. */
  readonly url: string;
  /** Drops the database (after the backends of closed clients have gone). */
  drop(): Promise<void>;
}

export async function createScratchDatabase(serverUrl: string, prefix: string): Promise<ScratchDatabase> {
  const name = `${prefix}_${crypto.randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const admin: SqlClient = await connectPostgres(serverUrl, { max: 1 });
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } catch (e) {
    await admin.close();
    throw e;
  }
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return {
    name,
    url: u.toString(),
    async drop() {
      try {
        // pg's pool.end() resolves before its sockets close: a backend still there when the
        // database is dropped would be terminated, and its client report that as an error.
        for (let i = 0; i < 100; i++) {
          const r = await admin.query(`SELECT count(*)::integer AS n FROM pg_stat_activity WHERE datname = $1`, [name]);
          if (Number(r.rows[0]!["n"]) === 0) break;
          await new Promise((ok) => setTimeout(ok, 20));
        }
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      } finally {
        await admin.close();
      }
    },
  };
}
