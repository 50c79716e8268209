/**
 * PostgreSQL stopped and started in place under two agent instances
 * (issue 39 item 8): a throwaway cluster of scripts/pg-cluster.sh, stopped
 * with `pg_ctl stop -m fast` while a task runs on instance A and another
 * waits for input on B, then started again on the same port after longer
 * than a lease. The task whose end came during the outage ends COMPLETED
 * once, the waiting task is not failed by any sweep, and reads during the
 * outage answer UNAVAILABLE.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, isRpcError } from "a2a-http";
import { canStartCluster, startCluster, type PgCluster } from "../../pg-cluster.js";
import { twoAgents } from "./two-agents.js";

const ci = process.env["CI"] === "true";
const LEASE_MS = 1_500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!canStartCluster && !ci)("two agents through a PostgreSQL restart in place", () => {
  let cluster: PgCluster;
  let url: string;
  beforeAll(() => {
    cluster = startCluster();
    url = cluster.url;
  }, 60_000);
  afterAll(() => cluster?.remove());

  it("loses no task and fails none by a sweep; answers UNAVAILABLE while the database is down", async () => {
    const two = await twoAgents(url, LEASE_MS, { connectTimeoutMs: 500 });
    try {
      const tasks = await two.start();
      await sleep(300);

      cluster.stop();
      two.release();
      await sleep(500);
      const during = await two.get(two.agentA, tasks.running).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isRpcError(during) && during.code).toBe(Code.UNAVAILABLE);
      // Down for longer than a lease.
      await sleep(LEASE_MS * 2);
      cluster.start();

      await two.survived(tasks);
    } finally {
      await two.close();
    }
  }, 60_000);
});
