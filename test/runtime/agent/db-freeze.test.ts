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
import { create } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, isRpcError } from "a2a-http";
import { createAgentHandlers } from "../../../packages/runtime/src/agent/engine.js";
import { openStore } from "../../../packages/runtime/src/stores.js";
import { A2AService, GetTaskRequestSchema, Role, SendMessageRequestSchema, TaskState, type Task } from "../../../gen/a2a_pb.js";
import { canStartCluster, startCluster, type PgCluster } from "../../pg-cluster.js";
import { handlerContext, plainCard } from "./in-process.js";

const ci = process.env["CI"] === "true";
const LEASE_MS = 1_500;
/** The store's bounds here: a statement 1 s (the client gives up 1 s later), a connection 1 s. */
const STATEMENT_MS = 1_000;
const POOL_MS = 1_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quiet = { info() {}, warn() {}, error() {} };

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

  const send = (text: string, returnImmediately = true) =>
    create(SendMessageRequestSchema, {
      message: { messageId: `m-${text}`, role: Role.USER, parts: [{ content: { case: "text", value: text } }] },
      configuration: { returnImmediately },
    });

  it("answers UNAVAILABLE within its bounds while frozen, and loses, doubles and fails nothing after the thaw", async () => {
    const opened = (instance: string) =>
      openStore(cluster.url, {
        migrate: true,
        instance,
        leaseMs: LEASE_MS,
        log: () => {},
        logger: quiet,
        statementTimeoutMs: STATEMENT_MS,
        poolTimeoutMs: POOL_MS,
      });
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let runs = 0;
    const agentA = createAgentHandlers(
      A2AService,
      async (input, task) => {
        if (input.text !== "run") return task.complete("quick");
        runs++;
        await task.working("started");
        await released;
        await task.artifact("the result");
        await task.complete();
      },
      { card: plainCard, store: await opened("A"), logger: quiet },
    );
    const agentB = createAgentHandlers(A2AService, (_input, task) => task.askForInput("more, please"), {
      card: plainCard,
      store: await opened("B"),
      logger: quiet,
    });
    const get = (agent: typeof agentA, id: string) =>
      Promise.resolve(agent.getTask!(create(GetTaskRequestSchema, { id }), handlerContext("getTask"))) as Promise<Task>;
    const sent = async (agent: typeof agentA, text: string, returnImmediately = true) =>
      ((await agent.sendMessage!(send(text, returnImmediately), handlerContext())) as { payload: { value: Task } }).payload.value;
    try {
      const running = (await sent(agentA, "run")).id;
      const waiting = await sent(agentB, "ask", false);
      expect(waiting.status?.state).toBe(TaskState.INPUT_REQUIRED);
      await sleep(300);

      let waited: number[] = [];
      cluster.freeze();
      try {
        // A connection the pool holds open (bounded by the statement's bound) and a new one (the pool's).
        const [read, made] = await Promise.all([timed(get(agentA, running)), timed(sent(agentB, "during"))]);
        for (const r of [read, made]) {
          expect(isRpcError(r.error) && r.error.code, String(r.error)).toBe(Code.UNAVAILABLE);
          expect(r.ms).toBeLessThan(STATEMENT_MS + 1_000 + POOL_MS + 1_000);
        }
        waited = [read.ms, made.ms];
        // The task's end comes while the server is frozen; it stays frozen for longer than a lease.
        release();
        await sleep(LEASE_MS * 2);
      } finally {
        cluster.thaw();
      }

      let task: Task | undefined;
      for (let i = 0; i < 150 && task?.status?.state !== TaskState.COMPLETED; i++) {
        await sleep(100);
        task = await get(agentB, running).catch(() => undefined);
      }
      expect(task?.status?.state).toBe(TaskState.COMPLETED);
      expect(task?.artifacts.map((a) => a.parts[0]?.content.value)).toEqual(["the result"]);
      expect(runs).toBe(1);
      // New work runs on both.
      expect((await sent(agentA, "after", false)).status?.state).toBe(TaskState.COMPLETED);
      expect((await sent(agentB, "again", false)).status?.state).toBe(TaskState.INPUT_REQUIRED);
      // Two leases after the thaw: every sweep has had its chance.
      await sleep(LEASE_MS * 2);
      expect((await get(agentA, running)).status?.state).toBe(TaskState.COMPLETED);
      expect((await get(agentA, waiting.id)).status?.state).toBe(TaskState.INPUT_REQUIRED);
      console.log(`frozen: GetTask answered UNAVAILABLE in ${waited[0]} ms, a returnImmediately send in ${waited[1]} ms`);
    } finally {
      await agentA.close();
      await agentB.close();
    }
  }, 60_000);
});
