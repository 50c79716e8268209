/**
 * A frozen PostgreSQL (issue 39 items 5 and 8): every process of a throwaway
 * cluster stopped with SIGSTOP (test/pg-cluster.ts; thawed with SIGCONT in a
 * `finally`) while two agents run on it. A server that answers nothing is
 * the fault a connection error never reports: each wait must be bounded on
 * its own. A read and a send answer UNAVAILABLE within the store's bounds
 * (statementTimeoutMs and 1 s more for an open connection, poolTimeoutMs
 * for a new one), and once the server is thawed a task whose end came
 * during the freeze ends COMPLETED once, a task waiting for input is failed
 * by no sweep, and new work runs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, isRpcError } from "a2a-http";
import { TaskState } from "../../../gen/a2a_pb.js";
import { canStartCluster, startCluster, type PgCluster } from "../../pg-cluster.js";
import { twoAgents } from "./two-agents.js";

const ci = process.env["CI"] === "true";
const LEASE_MS = 1_500;
/** The store's bounds here: a statement 1 s (the client gives up 1 s later), a connection 1 s. */
const STATEMENT_MS = 1_000;
const POOL_MS = 1_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How long `p` took to settle, and what it settled with. */
async function timed<R>(p: Promise<R>): Promise<{ ms: number; value?: R; error?: unknown }> {
  const started = Date.now();
  try {
    return { ms: Date.now() - started, value: await p };
  } catch (error) {
    return { ms: Date.now() - started, error };
  }
}

describe.skipIf(!canStartCluster && !ci)("two agents on a frozen PostgreSQL (SIGSTOP)", () => {
  let cluster: PgCluster;
  beforeAll(() => {
    cluster = startCluster();
  }, 60_000);
  afterAll(() => cluster?.remove());

  it("answers UNAVAILABLE within its bounds while frozen, and loses, doubles and fails nothing after the thaw", async () => {
    const two = await twoAgents(cluster.url, LEASE_MS, { statementTimeoutMs: STATEMENT_MS, poolTimeoutMs: POOL_MS });
    try {
      const tasks = await two.start();
      await sleep(300);

      let waited: number[] = [];
      cluster.freeze();
      try {
        // A connection the pool holds open (bounded by the statement's bound) and a new one (the pool's).
        const [read, made] = await Promise.all([timed(two.get(two.agentA, tasks.running)), timed(two.sent(two.agentB, "during"))]);
        for (const r of [read, made]) {
          expect(isRpcError(r.error) && r.error.code, String(r.error)).toBe(Code.UNAVAILABLE);
          expect(r.ms).toBeLessThan(STATEMENT_MS + 1_000 + POOL_MS + 1_000);
        }
        waited = [read.ms, made.ms];
        // The task's end comes while the server is frozen; it stays frozen for longer than a lease.
        two.release();
        await sleep(LEASE_MS * 2);
      } finally {
        cluster.thaw();
      }

      // New work runs on both.
      expect((await two.sent(two.agentA, "after", false)).status?.state).toBe(TaskState.COMPLETED);
      expect((await two.sent(two.agentB, "again", false)).status?.state).toBe(TaskState.INPUT_REQUIRED);
      await two.survived(tasks);
      console.log(`frozen: GetTask answered UNAVAILABLE in ${waited[0]} ms, a returnImmediately send in ${waited[1]} ms`);
    } finally {
      await two.close();
    }
  }, 60_000);
});
