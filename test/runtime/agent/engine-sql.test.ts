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
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code } from "a2a-http";
import type { AgentStore } from "a2a-http/agent";
import type { SqlClient } from "../../../packages/runtime/src/agent/sql/client.js";
import { createSqlStore } from "../../../packages/runtime/src/agent/sql/store.js";
import { clientFor, codeOf, messageOf, rejection, startAgent, transports, userMessage, type TestAgent } from "./engine-harness.js";
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
        const tables = await client.query(
          `SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'a2a%' AND tablename <> 'a2a_schema'`,
        );
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

// --- what only a SQL store can show, through the engine's rpcs --------------------

describeSqlEngines((engine) => {
  describe("a row this a2a-http cannot read, through the rpcs", () => {
    let agent: TestAgent;
    let client: SqlClient;
    const storeErrors: unknown[] = [];
    beforeAll(async () => {
      client = await (await engine().database()).connect();
      agent = await startAgent({ store: await createSqlStore(client, { migrate: true, onError: (e) => storeErrors.push(e) }) });
    });
    afterAll(async () => {
      await agent?.close();
    });

    it.each(transports)(
      "over %s: GetTask of that task fails with DATA_LOSS naming it; ListTasks still answers the owner's other tasks",
      async (transport) => {
        const owner = `owner-${crypto.randomUUID()}`;
        const c = clientFor(transport, agent, { owner });
        const ids: string[] = [];
        for (const text of ["one", "two", "three"]) {
          const res = await c.sendMessage({ message: userMessage(text) });
          ids.push((res.payload.value as { id: string }).id);
        }
        // As a newer a2a-http would write it.
        await client.query(`UPDATE a2a_tasks SET format = 99 WHERE owner = $1 AND id = $2`, [owner, ids[1]]);
        const e = await rejection(c.getTask({ id: ids[1]! }));
        // JSON-RPC has no code of its own for DATA_LOSS: it arrives as an internal error (-32603), its message kept.
        expect(codeOf(e), messageOf(e)).toBe(transport === "jsonrpc" ? Code.INTERNAL : Code.DATA_LOSS);
        expect(messageOf(e)).toContain(`task ${ids[1]}`);
        const listed = await c.listTasks({});
        expect(listed.tasks.map((t) => t.id).sort()).toEqual([ids[0], ids[2]].sort());
        // The row ListTasks left out is reported.
        expect(storeErrors.map((x) => (x as Error).message)).toContainEqual(
          expect.stringContaining(`task ${ids[1]} is stored in format 99`),
        );
        expect((await c.getTask({ id: ids[0]! })).id).toBe(ids[0]);
      },
    );
  });
});

describeSqlEngines((engine) => {
  describe("ids longer than the SQL store takes, through the rpcs", () => {
    let agent: TestAgent;
    beforeAll(async () => {
      agent = await startAgent({
        store: await createSqlStore(await (await engine().database()).connect(), { migrate: true }),
        push: { allow: { http: true, addresses: ["127.0.0.1/32"] } },
      });
    });
    afterAll(async () => {
      await agent?.close();
    });

    it.each(transports)(
      "over %s: a 3 000-byte contextId or push config id is INVALID_ARGUMENT naming the limit, not an internal error",
      async (transport) => {
        const c = clientFor(transport, agent, { owner: `owner-${crypto.randomUUID()}` });
        const long = "c".repeat(3000);
        const e = await rejection(c.sendMessage({ message: userMessage("hi", { contextId: long }) }));
        expect(codeOf(e), messageOf(e)).toBe(Code.INVALID_ARGUMENT);
        expect(messageOf(e)).toMatch(/too long for the SQL store/);
        expect((await c.listTasks({})).tasks).toEqual([]);

        const res = await c.sendMessage({ message: userMessage("hi") });
        const taskId = (res.payload.value as { id: string }).id;
        const p = await rejection(c.createTaskPushNotificationConfig({ taskId, id: long, url: "http://127.0.0.1:9/hook" }));
        expect(codeOf(p), messageOf(p)).toBe(Code.INVALID_ARGUMENT);
        expect((await c.listTaskPushNotificationConfigs({ taskId })).configs).toEqual([]);
      },
    );
  });
});
