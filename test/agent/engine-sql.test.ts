/**
 * The task engine's suite (engine-suite.ts) on the SQL store: on PGlite
 * always, on PostgreSQL when DATABASE_URL is set (see sql-databases.ts).
 * Every agent gets a database of its own, as separate deployments would:
 * agents sharing one would also share its push outbox and leases, and one
 * agent's push options would decide another's deliveries.
 */
import { createSqlStore } from "../../packages/runtime/src/agent/sql/store.js";
import { engineSuite } from "./engine-suite.js";
import { describeSqlEngines } from "./sql-databases.js";

describeSqlEngines((engine) => {
  engineSuite({
    newStore: async () => createSqlStore(await (await engine().database()).connect(), { migrate: true }),
  });
});
