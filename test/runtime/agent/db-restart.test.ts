/**
 * PostgreSQL stopped and started in place under two agent instances
 * (issue 39 item 8): a throwaway cluster of scripts/pg-cluster.sh, stopped
 * with `pg_ctl stop -m fast` while a task runs on instance A and another
 * waits for input on B, then started again on the same port after longer
 * than a lease. The task whose end came during the outage ends COMPLETED
 * once, the waiting task is not failed by any sweep, and reads during the
 * outage answer UNAVAILABLE.
 */
import { create } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, isRpcError } from "a2a-http";
import { createAgentHandlers } from "../../../packages/runtime/src/agent/engine.js";
import { openStore } from "../../../packages/runtime/src/stores.js";
import { GetTaskRequestSchema, Role, SendMessageRequestSchema, TaskState, type Task, A2AService } from "../../../gen/a2a_pb.js";
import { canStartCluster, startCluster, type PgCluster } from "../../pg-cluster.js";
import { handlerContext, plainCard } from "./in-process.js";

const ci = process.env["CI"] === "true";
const LEASE_MS = 1_500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quiet = { info() {}, warn() {}, error() {} };

describe.skipIf(!canStartCluster && !ci)("two agents through a PostgreSQL restart in place", () => {
  let cluster: PgCluster;
  let url: string;
  beforeAll(() => {
    cluster = startCluster();
    url = cluster.url;
  }, 60_000);
  afterAll(() => cluster?.remove());

  const send = (text: string, returnImmediately = true) =>
    create(SendMessageRequestSchema, {
      message: { messageId: `m-${text}`, role: Role.USER, parts: [{ content: { case: "text", value: text } }] },
      configuration: { returnImmediately },
    });

  it("loses no task and fails none by a sweep; answers UNAVAILABLE while the database is down", async () => {
    const opened = async (instance: string) =>
      openStore(url, { migrate: true, instance, leaseMs: LEASE_MS, log: () => {}, logger: quiet, connectTimeoutMs: 500 } as never);
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const agentA = createAgentHandlers(
      A2AService,
      async (_input, task) => {
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
    try {
      const running = ((await agentA.sendMessage!(send("run"), handlerContext())) as { payload: { value: Task } }).payload.value.id;
      const waiting = ((await agentB.sendMessage!(send("ask", false), handlerContext())) as { payload: { value: Task } }).payload.value;
      expect(waiting.status?.state).toBe(TaskState.INPUT_REQUIRED);
      await sleep(300);

      cluster.stop();
      release();
      await sleep(500);
      const during = await get(agentA, running).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isRpcError(during) && during.code).toBe(Code.UNAVAILABLE);
      // Down for longer than a lease.
      await sleep(LEASE_MS * 2);
      cluster.start();

      let task: Task | undefined;
      for (let i = 0; i < 150 && task?.status?.state !== TaskState.COMPLETED; i++) {
        await sleep(100);
        task = await get(agentB, running).catch(() => undefined);
      }
      expect(task?.status?.state).toBe(TaskState.COMPLETED);
      expect(task?.artifacts.map((a) => a.parts[0]?.content.value)).toEqual(["the result"]);
      // Two leases after the restart: every sweep has had its chance, and the running task was never failed.
      await sleep(LEASE_MS * 2);
      expect((await get(agentA, running)).status?.state).toBe(TaskState.COMPLETED);
      expect((await get(agentA, waiting.id)).status?.state).toBe(TaskState.INPUT_REQUIRED);
    } finally {
      await agentA.close();
      await agentB.close();
    }
  }, 60_000);
});
