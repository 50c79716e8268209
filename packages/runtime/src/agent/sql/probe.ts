/**
 * The SQL store's ping (`AgentStore.ping`, what an agent's readiness asks):
 * one `SELECT 1` on the store's database, which needs a connection from the
 * pool (PostgreSQL) or PGlite's turn, and so fails or waits when the store
 * cannot serve. No table is read: a ping costs the server next to nothing.
 */
import type { SqlQueryable } from "./client.js";

/** A ping of `db`: resolves once `SELECT 1` answered, rejects with the driver's error. */
export function sqlPing(db: SqlQueryable): () => Promise<void> {
  return async () => {
    await db.query("SELECT 1");
  };
}
