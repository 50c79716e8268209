/**
 * An agent on the SQL store through a PostgreSQL outage (issue 39): the
 * database is cut away (every connection dropped, new ones refused, by a
 * proxy in front of the server of DATABASE_URL) while tasks run, then
 * restored. A task whose end comes during the outage ends COMPLETED once the
 * database is back, its artifact written once; a read during the outage
 * answers UNAVAILABLE (an RpcError, 503 on HTTP+JSON), not INTERNAL; the
 * agent itself stays up.
 */
import { handlerContext, plainCard } from "./in-process.js";
import { create } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, isRpcError } from "a2a-http";
import { createAgentHandlers } from "../../../packages/runtime/src/agent/engine.js";
import { StoreUnavailableError } from "../../../packages/runtime/src/agent/index.js";
import { openStore } from "../../../packages/runtime/src/stores.js";
import { storeFault } from "../../../packages/runtime/src/agent/sql/unavailable.js";
import { createPushOutbox } from "../../../packages/runtime/src/agent/sql/push-outbox.js";
import { CLAIM_DELIVERIES, DELETE_DELIVERY } from "../../../packages/runtime/src/agent/sql/statements.js";
import { A2AService, GetTaskRequestSchema, Role, SendMessageRequestSchema, TaskState, type Task } from "../../../gen/a2a_pb.js";
import { startPgProxy, type PgProxy } from "../../pg-proxy.js";
import { createScratchDatabase, type ScratchDatabase } from "../../scratch-database.js";

const url = process.env["DATABASE_URL"];
const ci = process.env["CI"] === "true";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("what a database error means to the engine (storeFault)", () => {
  it("maps the connection's faults and a server that cannot serve now, and nothing else", () => {
    const withCode = (message: string, code: string, severity?: string) => Object.assign(new Error(message), { code, severity });
    const refused = storeFault(withCode("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"));
    expect(refused).toBeInstanceOf(StoreUnavailableError);
    expect((refused as StoreUnavailableError).mayHaveWritten).toBe(false);
    const lost = storeFault(new Error("Connection terminated unexpectedly"));
    expect((lost as StoreUnavailableError).mayHaveWritten).toBe(true);
    const shutdown = storeFault(withCode("terminating connection due to administrator command", "57P01", "FATAL"));
    expect((shutdown as StoreUnavailableError).mayHaveWritten).toBe(false);
    expect(storeFault(withCode("sorry, too many clients already", "53300", "FATAL"))).toBeInstanceOf(StoreUnavailableError);
    const cancelled = storeFault(withCode("canceling statement due to statement timeout", "57014", "ERROR"));
    expect((cancelled as StoreUnavailableError).mayHaveWritten).toBe(false);
    expect((storeFault(new Error("Query read timeout")) as StoreUnavailableError).mayHaveWritten).toBe(true);
    // A crash (a WAL write failed on a full disk): the database restarts, and the commit may have been made.
    const panic = storeFault(withCode('could not write to log file "000000010000000000000001"', "53100", "PANIC"));
    expect((panic as StoreUnavailableError).mayHaveWritten).toBe(true);
    expect(storeFault(withCode("could not extend file: No space left on device", "53100", "ERROR"))).not.toBeInstanceOf(
      StoreUnavailableError,
    );
    // The server's refusal of the statement itself, and our own bugs, stay what they are.
    const unique = withCode("duplicate key value violates unique constraint", "23505", "ERROR");
    expect(storeFault(unique)).toBe(unique);
    const bug = new TypeError("cannot read properties of undefined");
    expect(storeFault(bug)).toBe(bug);
  });
});

describe("the push outbox when the database fails a claim's reads", () => {
  it("keeps a delivery it could not read for a moment (too many clients), and drops only one it can never read", async () => {
    const deleted: unknown[] = [];
    const rows = [
      { id: "1", tenant: "", owner: "", task_id: "t1", config_id: "c1", seq: 1, attempts: 0 },
      { id: "2", tenant: "", owner: "", task_id: "t2", config_id: "c2", seq: 1, attempts: 0 },
    ];
    const db = {
      query: async (text: string, params?: readonly unknown[]) => {
        if (text === CLAIM_DELIVERIES) return { rows, rowCount: rows.length };
        if (text === DELETE_DELIVERY) deleted.push(params?.[0]);
        return { rows: [], rowCount: 0 };
      },
    };
    const fault = { value: Object.assign(new Error("sorry, too many clients already"), { code: "53300", severity: "FATAL" }) as Error };
    const pushConfigs = {
      get: async () => {
        throw fault.value;
      },
    };
    const errors: unknown[] = [];
    const outbox = createPushOutbox(
      { db: db as never, instance: "A", leaseMs: 1_000, onError: (e) => errors.push(e), schemas: () => ({}) as never },
      pushConfigs as never,
    );
    expect(await outbox.claim(10, 1_000)).toEqual([]);
    expect(deleted).toEqual([]);
    // An error that is no fault of the connection: that delivery can never be sent, and is dropped.
    fault.value = new TypeError("not a config");
    expect(await outbox.claim(10, 1_000)).toEqual([]);
    expect(deleted).toEqual(["1", "2"]);
    expect(errors).toHaveLength(2);
  });
});

describe.skipIf(!url && !ci)("an agent on PostgreSQL through an outage", () => {
  let scratch: ScratchDatabase;
  let proxy: PgProxy;
  beforeAll(async () => {
    if (!url) throw new Error("DATABASE_URL is not set: this test needs a PostgreSQL server (.ci/run starts one)");
    scratch = await createScratchDatabase(url, "outage");
    proxy = await startPgProxy(url);
    // The schema first, straight to the server.
    await (await openStore(scratch.url, { migrate: true, log: () => {} })).close?.();
  });
  afterAll(async () => {
    await proxy?.close();
    await scratch?.drop();
  });

  const card = plainCard;
  const ctx = () => handlerContext();

  it("finishes a task whose end came during the outage, once the database is back, and answers UNAVAILABLE meanwhile", async () => {
    const errors: unknown[] = [];
    const store = await openStore(proxy.url(scratch.name), { log: () => {}, connectTimeoutMs: 500, logger: quiet() });
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let ended: Promise<void> | undefined;
    const agent = createAgentHandlers(
      A2AService,
      async (_input, task) => {
        await task.working("started");
        await released;
        await task.artifact("the result");
        ended = task.complete();
        await ended;
      },
      { card, store, onError: (e) => errors.push(e) },
    );
    try {
      const sent = (await agent.sendMessage!(
        create(SendMessageRequestSchema, {
          message: { messageId: "m1", role: Role.USER, parts: [{ content: { case: "text", value: "go" } }] },
          configuration: { returnImmediately: true },
        }),
        ctx(),
      )) as { payload: { value: Task } };
      const id = sent.payload.value.id;
      await sleep(200);

      proxy.cut();
      release();
      await sleep(300);
      const during = await Promise.resolve(agent.getTask!(create(GetTaskRequestSchema, { id }), ctx())).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isRpcError(during) && during.code).toBe(Code.UNAVAILABLE);
      await sleep(1_000);
      proxy.restore();

      let task: Task | undefined;
      for (let i = 0; i < 100 && task?.status?.state !== TaskState.COMPLETED; i++) {
        await sleep(100);
        task = (await Promise.resolve(agent.getTask!(create(GetTaskRequestSchema, { id }), ctx())).catch(() => undefined)) as
          | Task
          | undefined;
      }
      expect(task?.status?.state).toBe(TaskState.COMPLETED);
      expect(task?.artifacts.map((a) => a.parts[0]?.content.value)).toEqual(["the result"]);
      await ended;
      // What the executor saw: no error; the outage was a delay.
      expect(errors.filter((e) => !(e instanceof StoreUnavailableError))).toEqual([]);
    } finally {
      proxy.restore();
      await agent.close();
    }
  }, 30_000);
});

/** A logger that keeps the outage's lines out of the test's output. */
function quiet() {
  const none = () => {};
  return { info: none, warn: none, error: none };
}
