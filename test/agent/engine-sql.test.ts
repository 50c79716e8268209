/**
 * The task engine's suite (engine-suite.ts) on the SQL store: on PGlite
 * always, on PostgreSQL when DATABASE_URL is set (see sql-databases.ts).
 *
 * Every agent gets a database of its own, as separate deployments would:
 * agents sharing one would also share its push outbox and leases, and one
 * agent's push options would decide another's deliveries. A closed agent's
 * database is emptied and handed to the next agent rather than a new one
 * made (a PGlite clone costs most of a second, and the suite starts about
 * twenty agents); it is emptied only then, so a test can still read what an
 * agent stored after closing it.
 */
import type { AgentStore } from "a2a-http/agent";
import { createSqlStore } from "../../packages/runtime/src/agent/sql/store.js";
import { engineSuite } from "./engine-suite.js";
import { describeSqlEngines, type TestDatabase } from "./sql-databases.js";

describeSqlEngines((engine) => {
  const free: TestDatabase[] = [];
  engineSuite({
    async newStore(): Promise<AgentStore> {
      const reused = free.pop();
      const db = reused ?? (await engine().database());
      const client = await db.connect();
      if (reused) {
        const tables = await client.query(`SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'a2a%' AND tablename <> 'a2a_schema'`);
        await client.exec(`TRUNCATE ${tables.rows.map((r) => `"${String(r["tablename"])}"`).join(", ")}`);
      }
      const store = await createSqlStore(client, { migrate: true });
      return {
        ...store,
        async close() {
          await store.close?.();
          free.push(db);
        },
      };
    },
  });
});
