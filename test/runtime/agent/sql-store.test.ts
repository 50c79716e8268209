/**
 * The SQL store's contract (packages/runtime/src/agent/sql), the same cases
 * on PGlite and on PostgreSQL (see sql-databases.ts): versioned writes,
 * concurrent writers, ListTasks, ownership, push configs, migrations, rows it
 * cannot read, the push outbox, leases and the notifications between
 * instances. Tests that share a database keep apart by tenant; those that
 * read the whole database (the outbox, migrations) get one of their own.
 */
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { create, type Message as ProtoMessage } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, isRpcError } from "a2a-http";
import { StaleVersionError, StoreFullError, type AgentStore, type StoredTask, type TaskKey, type TaskPage } from "a2a-http/agent";
import {
  StreamResponseSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
  TaskState,
  Role,
  MessageSchema,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
} from "../../../gen/a2a_pb.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectPostgres, openPglite, type SqlClient } from "../../../packages/runtime/src/agent/sql/client.js";
import { SCHEMA_VERSION, SchemaOutdatedError, SchemaTooNewError, migrate } from "../../../packages/runtime/src/agent/sql/migrations.js";
import { createSqlStore, type SqlStoreOptions } from "../../../packages/runtime/src/agent/sql/store.js";
import { rejection } from "../../e2e/interop/harness/util.js";
import { describeSqlEngines, useDatabase, type TestDatabase } from "./sql-databases.js";

const schemas = { task: TaskSchema, event: StreamResponseSchema, pushConfig: TaskPushNotificationConfigSchema };

/** A bound store on a client of `db`. */
async function openStore(db: TestDatabase, options: SqlStoreOptions = {}): Promise<{ store: AgentStore; client: SqlClient }> {
  const client = await db.connect();
  const store = await createSqlStore(client, { migrate: true, ...options });
  store.bind?.(schemas);
  return { store, client };
}

function task(id: string, state: TaskState, contextId = "ctx", at = Date.now()): Task {
  return create(TaskSchema, { id, contextId, status: { state, timestamp: timestampFromMs(at) } });
}

/** A status event, as the engine writes one per change. */
function event(t: Task): StreamResponse {
  return create(StreamResponseSchema, {
    payload: { case: "statusUpdate", value: { taskId: t.id, contextId: t.contextId, status: t.status } },
  });
}

const stateOf = (e: ProtoMessage) => ((e as StreamResponse).payload.value as { status?: { state: number } } | undefined)?.status?.state;

function config(taskId: string, id: string, url = `https://hooks.example.com/${id}`): TaskPushNotificationConfig {
  return create(TaskPushNotificationConfigSchema, { id, taskId, url, token: `tok-${id}` });
}

async function count(client: SqlClient, sql: string, params: unknown[]): Promise<number> {
  return Number((await client.query(`SELECT count(*)::integer AS n FROM ${sql}`, params)).rows[0]!["n"]);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function eventually(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting for a condition");
    await sleep(5);
  }
}

describeSqlEngines((engine, engineName) => {
  const db = useDatabase(engine);
  let store: AgentStore;
  let client: SqlClient;
  const errors: unknown[] = [];
  beforeAll(async () => {
    ({ store, client } = await openStore(db(), { instance: "main", onError: (e) => errors.push(e) }));
  });

  // Every test writes under a tenant of its own.
  let tenant = "";
  let key: TaskKey;
  beforeEach(() => {
    tenant = `tenant-${crypto.randomUUID()}`;
    key = { tenant, owner: "alice", id: "task-1" };
  });

  describe("tasks", () => {
    it("create is version 1 with event 1; commit goes one version up and appends its event", async () => {
      const t1 = task(key.id, TaskState.SUBMITTED);
      await store.tasks.create(key, t1, 1000, event(t1));
      const got = await store.tasks.get(key);
      expect(got?.version).toBe(1);
      expect(got?.task).toEqual(t1);

      const t2 = task(key.id, TaskState.WORKING);
      await store.tasks.commit(key, t2, 1, 2000, event(t2));
      const t3 = task(key.id, TaskState.COMPLETED);
      await store.tasks.commit(key, t3, 2, 3000, event(t3));
      expect(await store.tasks.get(key)).toEqual({ task: t3, version: 3 });

      const all = await store.tasks.events(key, 0);
      expect(all.map((e) => e.seq)).toEqual([1, 2, 3]);
      expect(all.map((e) => stateOf(e.event))).toEqual([TaskState.SUBMITTED, TaskState.WORKING, TaskState.COMPLETED]);
      expect(all[1]!.event).toEqual(event(t2));
      expect((await store.tasks.events(key, 2)).map((e) => e.seq)).toEqual([3]);
      expect(await store.tasks.events(key, 3)).toEqual([]);
      expect(await store.tasks.get({ ...key, id: "no-such-task" })).toBeUndefined();
    });

    it("a stale commit is refused with StaleVersionError and writes nothing (task, event, outbox)", async () => {
      const t1 = task(key.id, TaskState.WORKING);
      await store.tasks.create(key, t1, 1000, event(t1));
      await store.pushConfigs.put(key, config(key.id, "c1"));
      const t2 = task(key.id, TaskState.INPUT_REQUIRED);
      await store.tasks.commit(key, t2, 1, 2000, event(t2));
      const outboxBefore = await count(client, `a2a_push_outbox WHERE tenant = $1`, [tenant]);

      const late = task(key.id, TaskState.COMPLETED);
      const e = await rejection(store.tasks.commit(key, late, 1, 3000, event(late)));
      expect(e).toBeInstanceOf(StaleVersionError);
      expect(e).toMatchObject({ expected: 1, actual: 2 });
      expect(await store.tasks.get(key)).toEqual({ task: t2, version: 2 });
      expect((await store.tasks.events(key, 0)).map((x) => x.seq)).toEqual([1, 2]);
      expect(await count(client, `a2a_push_outbox WHERE tenant = $1`, [tenant])).toBe(outboxBefore);

      // A commit to a task that is not there, and a second create: refused the same way.
      const missing = await rejection(store.tasks.commit({ ...key, id: "missing" }, late, 0, 3000, event(late)));
      expect(missing).toBeInstanceOf(StaleVersionError);
      expect(missing).toMatchObject({ actual: 0 });
      expect(await rejection(store.tasks.create(key, t1, 1000, event(t1)))).toBeInstanceOf(StaleVersionError);
      expect((await store.tasks.get(key))?.version).toBe(2);
      expect(await store.tasks.get({ ...key, id: "missing" })).toBeUndefined();
    });

    it("20 concurrent read-modify-commit writers to one task: no lost update, events 1..21 each once", async () => {
      const t0 = task(key.id, TaskState.WORKING);
      await store.tasks.create(key, t0, 1000, event(t0));
      let stale = 0;
      const writer = async (w: number) => {
        for (;;) {
          // Bound to the generated TaskSchema (openStore), the store gives back a Task.
          const cur = (await store.tasks.get(key)) as StoredTask<Task> | undefined;
          const next = create(TaskSchema, {
            ...cur!.task,
            history: [
              ...cur!.task.history,
              create(MessageSchema, { messageId: `m${w}`, role: Role.AGENT, parts: [{ content: { case: "text", value: `w${w}` } }] }),
            ],
          });
          try {
            await store.tasks.commit(key, next, cur!.version, 1000 + w, event(next));
            return;
          } catch (e) {
            if (!(e instanceof StaleVersionError)) throw e;
            stale++;
          }
        }
      };
      await Promise.all(Array.from({ length: 20 }, (_, w) => writer(w)));
      const final = await store.tasks.get(key);
      expect(final?.version).toBe(21);
      expect(final!.task.history.map((m) => m.messageId).sort()).toEqual(Array.from({ length: 20 }, (_, w) => `m${w}`).sort());
      expect((await store.tasks.events(key, 0)).map((e) => e.seq)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
      // The writers did race (else this proves little): at least one commit was refused.
      expect(stale).toBeGreaterThan(0);
    });

    it("group commit: writes of many tasks at once share statements, yet each is checked, refused or failed alone, with its own event, deliveries and NOTIFY", async () => {
      // A second instance on a client that counts the statements sent through it.
      let statements = 0;
      const inner = await db().connect();
      // Writes only (the lookups of a refused write's version are one each).
      const counted: SqlClient = {
        ...inner,
        query: (text, params) => (text.startsWith("WITH") && statements++, inner.query(text, params)),
      };
      const gc = await createSqlStore(counted, { instance: "gc" });
      gc.bind?.(schemas);
      const heard: string[] = [];
      const unwatch = await store.shared!.watch(
        (k, seq) => {
          if (k.tenant === tenant) heard.push(`${k.id}:${seq}`);
        },
        () => {},
      );
      const N = 24;
      const keys = Array.from({ length: N }, (_, i) => ({ ...key, id: `t${i}` }));
      const first = (k: TaskKey) => task(k.id, TaskState.SUBMITTED, "ctx", 1000);
      await Promise.all(keys.map((k) => gc.tasks.create(k, first(k), 1000, event(first(k)))));
      expect(statements).toBeLessThan(N);
      for (const k of keys.slice(0, 4)) await store.pushConfigs.put(k, config(k.id, "c"));

      statements = 0;
      const next = (i: number) => task(`t${i}`, TaskState.WORKING, `ctx-${i}`, 2000);
      const results = await Promise.allSettled([
        ...keys.map((k, i) =>
          // Every fourth one stale.
          gc.tasks.commit(k, next(i), i % 4 === 1 ? 5 : 1, 2000, event(next(i))),
        ),
        gc.tasks.create(keys[2]!, next(2), 1000, event(next(2))),
        gc.tasks.commit({ ...key, id: "missing" }, next(0), 1, 2000, event(next(0))),
      ]);
      expect(statements).toBeLessThan(N);
      for (const [i, r] of results.slice(0, N).entries()) {
        const k = keys[i]!;
        if (i % 4 === 1) {
          expect(r.status === "rejected" && r.reason).toBeInstanceOf(StaleVersionError);
          expect(r.status === "rejected" && r.reason).toMatchObject({ expected: 5, actual: 1 });
        } else {
          expect(r.status).toBe("fulfilled");
        }
        const written = r.status === "fulfilled";
        expect(await store.tasks.get(k)).toEqual({ task: written ? next(i) : first(k), version: written ? 2 : 1 });
        expect((await store.tasks.events(k, 0)).map((e) => e.seq)).toEqual(written ? [1, 2] : [1]);
        if (i < 4) expect(await count(client, `a2a_push_outbox WHERE tenant = $1 AND task_id = $2`, [tenant, k.id])).toBe(written ? 1 : 0);
      }
      const [duplicate, missing] = [results[N]!, results[N + 1]!];
      expect(duplicate.status === "rejected" && duplicate.reason).toBeInstanceOf(StaleVersionError);
      expect(missing.status === "rejected" && missing.reason).toMatchObject({ expected: 1, actual: 0 });

      // One write that fails (a time the bigint column refuses) fails its statement: the others are tried again alone and written.
      const last = (i: number) => task(`t${i}`, TaskState.COMPLETED, `ctx-${i}`, 3000);
      const third = await Promise.allSettled(keys.map((k, i) => gc.tasks.commit(k, last(i), 2, i === 4 ? 3000.5 : 3000, event(last(i)))));
      for (const [i, r] of third.entries()) {
        if (i % 4 === 1) {
          expect(r.status === "rejected" && r.reason).toBeInstanceOf(StaleVersionError);
        } else if (i === 4) {
          expect(r.status === "rejected" && r.reason).not.toBeInstanceOf(StaleVersionError);
          expect((await store.tasks.get(keys[i]!))?.version).toBe(2);
        } else {
          expect(r.status).toBe("fulfilled");
          // Read the row first, as a subscriber does: this other instance answers events from what its
          // notifications brought (recent-events.ts), which may not have reached it yet; the row's version vouches.
          expect(await store.tasks.get(keys[i]!)).toEqual({ task: last(i), version: 3 });
          expect((await store.tasks.events(keys[i]!, 0)).map((e) => e.seq)).toEqual([1, 2, 3]);
        }
      }

      const want = keys.flatMap((k, i) => [`${k.id}:1`, ...(i % 4 === 1 ? [] : i === 4 ? [`${k.id}:2`] : [`${k.id}:2`, `${k.id}:3`])]);
      await eventually(() => heard.length >= want.length);
      expect(heard.sort()).toEqual(want.sort());
      await unwatch();
    });
  });

  describe("ListTasks", () => {
    /** Tasks of one owner: ids, contexts, states and status times chosen so that every rule shows. */
    async function seed(): Promise<void> {
      const rows: [string, string, TaskState, number][] = [
        ["t1", "c1", TaskState.COMPLETED, 1000],
        ["t2", "c1", TaskState.WORKING, 2000],
        ["t3", "c2", TaskState.COMPLETED, 3000],
        // Three at one time: ties go by id, descending, bytewise ("B" < "_" < "a").
        ["a", "c2", TaskState.WORKING, 4000],
        ["B", "c1", TaskState.COMPLETED, 4000],
        ["_", "c2", TaskState.COMPLETED, 4000],
        ["t7", "c1", TaskState.FAILED, 5000],
      ];
      for (const [id, ctx, state, at] of rows) {
        const t = task(id, state, ctx, at);
        await store.tasks.create({ tenant, owner: "alice", id }, t, at, event(t));
      }
      // Someone else's, and the same owner in another tenant: never listed.
      const other = task("t9", TaskState.COMPLETED, "c1", 9000);
      await store.tasks.create({ tenant, owner: "bob", id: "t9" }, other, 9000, event(other));
      await store.tasks.create({ tenant: `${tenant}-2`, owner: "alice", id: "t9" }, other, 9000, event(other));
    }
    const query = (q: Partial<Parameters<AgentStore["tasks"]["list"]>[0]> = {}) =>
      store.tasks.list({ tenant, owner: "alice", contextId: "", state: 0, updatedSince: undefined, pageSize: 50, after: undefined, ...q });
    const ids = (p: TaskPage) => p.tasks.map((t) => t.id);

    it("newest first, ties by id descending; total; no next on the last page", async () => {
      await seed();
      const page = await query();
      expect(ids(page)).toEqual(["t7", "a", "_", "B", "t3", "t2", "t1"]);
      expect(page.total).toBe(7);
      expect(page.next).toBeUndefined();
    });

    it("every filter: contextId, state, updatedSince (at or after), and all three together", async () => {
      await seed();
      expect(ids(await query({ contextId: "c1" }))).toEqual(["t7", "B", "t2", "t1"]);
      expect(ids(await query({ state: TaskState.COMPLETED }))).toEqual(["_", "B", "t3", "t1"]);
      const since = await query({ updatedSince: 4000 });
      expect(ids(since)).toEqual(["t7", "a", "_", "B"]);
      expect(since.total).toBe(4);
      expect(ids(await query({ updatedSince: 4001 }))).toEqual(["t7"]);
      const all3 = await query({ contextId: "c2", state: TaskState.COMPLETED, updatedSince: 3000 });
      expect(ids(all3)).toEqual(["_", "t3"]);
      expect(all3.total).toBe(2);
      expect((await query({ contextId: "nope" })).total).toBe(0);
    });

    it("page size and page positions: pages of 2 walk the whole list once, through ties, each with the total", async () => {
      await seed();
      const seen: string[] = [];
      let after: { updatedAt: number; id: string } | undefined;
      let pages = 0;
      do {
        const page = await query({ pageSize: 2, after });
        expect(page.total).toBe(7);
        expect(page.tasks.length).toBeLessThanOrEqual(2);
        seen.push(...ids(page));
        after = page.next;
        pages++;
      } while (after && pages < 10);
      expect(seen).toEqual(["t7", "a", "_", "B", "t3", "t2", "t1"]);
      expect(pages).toBe(4);
      // A position inside the tie, with a filter.
      const rest = await query({ pageSize: 1, after: { updatedAt: 4000, id: "_" }, contextId: "c1" });
      expect(ids(rest)).toEqual(["B"]);
      expect(rest.next).toEqual({ updatedAt: 4000, id: "B" });
      // Exactly one page's worth: no next.
      expect((await query({ pageSize: 7 })).next).toBeUndefined();
    });
  });

  describe("ownership", () => {
    it("owners and tenants are isolated: the same task id under each is its own task, with its own events and configs", async () => {
      const keys: TaskKey[] = [key, { ...key, owner: "bob" }, { ...key, tenant: `${tenant}-other` }];
      for (const [i, k] of keys.entries()) {
        const t = task(k.id, TaskState.WORKING, `ctx-${i}`);
        await store.tasks.create(k, t, 1000 + i, event(t));
        await store.pushConfigs.put(k, config(k.id, `cfg-${i}`));
      }
      const t = task(key.id, TaskState.COMPLETED, "ctx-0");
      await store.tasks.commit(key, t, 1, 5000, event(t));
      for (const [i, k] of keys.entries()) {
        const got = await store.tasks.get(k);
        expect(got?.task.contextId).toBe(`ctx-${i}`);
        expect(got?.version).toBe(i === 0 ? 2 : 1);
        expect((await store.tasks.events(k, 0)).length).toBe(i === 0 ? 2 : 1);
        expect((await store.pushConfigs.list(k)).map((c) => c.id)).toEqual([`cfg-${i}`]);
        for (let j = 0; j < keys.length; j++) if (j !== i) expect(await store.pushConfigs.get(k, `cfg-${j}`)).toBeUndefined();
        const page = await store.tasks.list({ ...k, contextId: "", state: 0, updatedSince: undefined, pageSize: 10, after: undefined });
        expect(page.tasks.map((x) => x.contextId)).toEqual([`ctx-${i}`]);
      }
      expect(await store.pushConfigs.delete(keys[1]!, "cfg-0")).toBe(false);
      expect(await store.pushConfigs.get(key, "cfg-0")).toBeDefined();
    });
  });

  describe("push configs", () => {
    it("put, get, list in the order first put (a replaced one keeps its place), delete", async () => {
      const t = task(key.id, TaskState.WORKING);
      await store.tasks.create(key, t, 1000, event(t));
      for (const id of ["b", "a", "c"]) await store.pushConfigs.put(key, config(key.id, id));
      await store.pushConfigs.put(key, config(key.id, "a", "https://hooks.example.com/replaced"));
      expect((await store.pushConfigs.list(key)).map((c) => c.id)).toEqual(["b", "a", "c"]);
      expect((await store.pushConfigs.get(key, "a"))?.url).toBe("https://hooks.example.com/replaced");
      expect(await store.pushConfigs.get(key, "a")).toEqual(config(key.id, "a", "https://hooks.example.com/replaced"));
      expect(await store.pushConfigs.get(key, "zz")).toBeUndefined();
      expect(await store.pushConfigs.delete(key, "b")).toBe(true);
      expect(await store.pushConfigs.delete(key, "b")).toBe(false);
      expect((await store.pushConfigs.list(key)).map((c) => c.id)).toEqual(["a", "c"]);
      // A config for a task that is not there is not kept.
      const gone = { ...key, id: "no-task" };
      await store.pushConfigs.put(gone, config(gone.id, "x"));
      expect(await store.pushConfigs.list(gone)).toEqual([]);
    });

    it("at most 10 per task (StoreFullError); replacing one when full is fine", async () => {
      const t = task(key.id, TaskState.WORKING);
      await store.tasks.create(key, t, 1000, event(t));
      for (let i = 0; i < 10; i++) await store.pushConfigs.put(key, config(key.id, `c${i}`));
      expect(await rejection(store.pushConfigs.put(key, config(key.id, "c10")))).toBeInstanceOf(StoreFullError);
      await store.pushConfigs.put(key, config(key.id, "c3", "https://hooks.example.com/again"));
      expect((await store.pushConfigs.list(key)).length).toBe(10);
      // Ten concurrent puts to a task that has one free place: exactly one fits.
      await store.pushConfigs.delete(key, "c0");
      const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => store.pushConfigs.put(key, config(key.id, `n${i}`))));
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      expect(
        results.filter((r) => r.status === "rejected").every((r) => (r as PromiseRejectedResult).reason instanceof StoreFullError),
      ).toBe(true);
      expect((await store.pushConfigs.list(key)).length).toBe(10);
    });
  });

  describe("rows this version cannot read", () => {
    it("format 99 or garbage bytes: get() fails with DATA_LOSS naming the task; list() still returns the owner's other tasks", async () => {
      for (const id of ["good", "future", "garbage"]) {
        const t = task(id, TaskState.COMPLETED);
        await store.tasks.create({ ...key, id }, t, 1000, event(t));
      }
      await client.query(`UPDATE a2a_tasks SET format = 99 WHERE tenant = $1 AND id = 'future'`, [tenant]);
      // Field 1 (id), length 16, and then nothing: a truncated message.
      await client.query(`UPDATE a2a_tasks SET body = '\\x0a10'::bytea WHERE tenant = $1 AND id = 'garbage'`, [tenant]);
      for (const id of ["future", "garbage"]) {
        const e = await rejection(store.tasks.get({ ...key, id }));
        expect(isRpcError(e), String(e)).toBe(true);
        expect((e as { code: number }).code).toBe(Code.DATA_LOSS);
        expect((e as Error).message).toContain(`task ${id}`);
      }
      expect(((await rejection(store.tasks.get({ ...key, id: "future" }))) as Error).message).toMatch(/format 99/);
      errors.length = 0;
      const page = await store.tasks.list({
        tenant,
        owner: key.owner,
        contextId: "",
        state: 0,
        updatedSince: undefined,
        pageSize: 10,
        after: undefined,
      });
      expect(page.tasks.map((t) => t.id)).toEqual(["good"]);
      // Each row left out is reported, by its task (in the list's order: ids descending).
      expect(errors.map((e) => String((e as Error).message))).toEqual([
        expect.stringContaining("task garbage"),
        expect.stringContaining("task future"),
      ]);
      expect((await store.tasks.get({ ...key, id: "good" }))?.task.id).toBe("good");
    });

    it("an unreadable event fails events() with DATA_LOSS naming the event and its task", async () => {
      const t = task(key.id, TaskState.WORKING);
      await store.tasks.create(key, t, 1000, event(t));
      const done = task(key.id, TaskState.COMPLETED);
      await store.tasks.commit(key, done, 1, 2000, event(done));
      await client.query(`UPDATE a2a_events SET format = 99 WHERE tenant = $1 AND seq = 2`, [tenant]);
      const e = await rejection(store.tasks.events(key, 0));
      expect((e as { code: number }).code).toBe(Code.DATA_LOSS);
      expect((e as Error).message).toContain(`event 2 of task ${key.id}`);
      // A reader that resumes after it is not stuck on it.
      expect(await store.tasks.events(key, 2)).toEqual([]);
    });
  });

  describe("leases", () => {
    const leaseMs = 150;
    let leased: AgentStore;
    beforeAll(async () => {
      ({ store: leased } = await openStore(db(), { instance: "leaser", leaseMs }));
    });
    const lease = async (k: TaskKey) =>
      (
        await client.query(
          `SELECT lease_holder, lease_until::float8 AS until FROM a2a_tasks WHERE tenant = $1 AND owner = $2 AND id = $3`,
          [k.tenant, k.owner, k.id],
        )
      ).rows[0] as { lease_holder: string | null; until: number | null };
    const mine = async () => (await leased.shared!.expired(1000)).filter((t) => t.key.tenant === tenant);

    it("a running task holds a lease in its instance's name; an interrupted or ended one none", async () => {
      const t = task(key.id, TaskState.WORKING);
      const before = Date.now();
      await leased.tasks.create(key, t, 1000, event(t));
      const l = await lease(key);
      expect(l.lease_holder).toBe("leaser");
      expect(l.until).toBeGreaterThanOrEqual(before + leaseMs);
      const asking = task(key.id, TaskState.INPUT_REQUIRED);
      await leased.tasks.commit(key, asking, 1, 2000, event(asking));
      expect((await lease(key)).lease_holder).toBeNull();
      const again = task(key.id, TaskState.WORKING);
      await leased.tasks.commit(key, again, 2, 3000, event(again));
      expect((await lease(key)).lease_holder).toBe("leaser");
      const done = task(key.id, TaskState.COMPLETED);
      await leased.tasks.commit(key, done, 3, 4000, event(done));
      expect(await lease(key)).toEqual({ lease_holder: null, until: null });
      const ended = { ...key, id: "born-ended" };
      await leased.tasks.create(ended, task(ended.id, TaskState.REJECTED), 1000, event(task(ended.id, TaskState.REJECTED)));
      expect((await lease(ended)).lease_holder).toBeNull();
    });

    it("renew extends the lease; after leaseMs unrenewed, expired() lists it; takeOver only then", async () => {
      const t = task(key.id, TaskState.WORKING);
      await leased.tasks.create(key, t, 1000, event(t));
      const first = (await lease(key)).until!;
      await sleep(30);
      await leased.shared!.renew([key]);
      expect((await lease(key)).until!).toBeGreaterThan(first);
      // Another instance renews nothing of this one's.
      const other = (await openStore(db(), { instance: "other", leaseMs: 60_000 })).store;
      await other.shared!.renew([key]);
      expect((await lease(key)).until!).toBeLessThan(Date.now() + 60_000 - 1000);

      const failed = task(key.id, TaskState.FAILED);
      expect(await mine()).toEqual([]);
      const early = await rejection(other.shared!.takeOver(key, failed, 1, 5000, event(failed)));
      expect(early).toBeInstanceOf(StaleVersionError);
      expect((await leased.tasks.get(key))?.version).toBe(1);

      await sleep(leaseMs + 50);
      const exp = await mine();
      expect(exp.map((x) => ({ key: x.key, holder: x.holder, version: x.version, id: x.task.id }))).toEqual([
        { key, holder: "leaser", version: 1, id: key.id },
      ]);
      // A stale version is still refused.
      expect(await rejection(other.shared!.takeOver(key, failed, 0, 5000, event(failed)))).toBeInstanceOf(StaleVersionError);
      await other.shared!.takeOver(key, failed, 1, 5000, event(failed));
      expect(await leased.tasks.get(key)).toEqual({ task: failed, version: 2 });
      expect((await leased.tasks.events(key, 1)).map((e) => stateOf(e.event))).toEqual([TaskState.FAILED]);
      expect(await lease(key)).toEqual({ lease_holder: null, until: null });
      expect(await mine()).toEqual([]);
      // Once taken over, never twice.
      expect(await rejection(other.shared!.takeOver(key, failed, 2, 5000, event(failed)))).toBeInstanceOf(StaleVersionError);
    });
  });

  describe("leases of rows this version cannot read", () => {
    it("are reported and stepped over: however many sit at the head, expired() still finds the readable tasks behind them", async () => {
      // A database of its own: expired() sees every task in it.
      const { store: s, client: c } = await openStore(await engine().database(), { instance: "gone", leaseMs: 50 });
      const seen: unknown[] = [];
      const reader = await createSqlStore(c, { instance: "sweeper", onError: (e) => seen.push(e) });
      reader.bind?.(schemas);
      for (const id of ["bad-1", "bad-2", "bad-3", "good"]) {
        const t = task(id, TaskState.WORKING);
        await s.tasks.create({ ...key, id }, t, 1000, event(t));
        await sleep(2); // the bad ones' leases end first
      }
      await c.query(`UPDATE a2a_tasks SET body = '\\x0a10'::bytea WHERE id LIKE 'bad-%'`);
      await sleep(80);
      const found = await reader.shared!.expired(2);
      expect(found.map((x) => x.key.id)).toEqual(["good"]);
      expect(seen).toHaveLength(3);
    });
  });

  describe("instances", () => {
    it("watch(): a commit on one instance reaches the other's onEvent with its key and seq, not its own", async () => {
      const other = (await openStore(db(), { instance: "second" })).store;
      const seenHere: [TaskKey, number][] = [];
      const seenThere: [TaskKey, number][] = [];
      const stopHere = await store.shared!.watch(
        (k, seq) => k.tenant === tenant && seenHere.push([k, seq]),
        () => {},
      );
      const stopThere = await other.shared!.watch(
        (k, seq) => k.tenant === tenant && seenThere.push([k, seq]),
        () => {},
      );
      try {
        const t = task(key.id, TaskState.WORKING);
        await store.tasks.create(key, t, 1000, event(t));
        const done = task(key.id, TaskState.COMPLETED);
        await store.tasks.commit(key, done, 1, 2000, event(done));
        await eventually(() => seenThere.length === 2);
        expect(seenThere).toEqual([
          [key, 1],
          [key, 2],
        ]);
        // And the other way round.
        const k2 = { ...key, id: "from-second" };
        await other.tasks.create(k2, task(k2.id, TaskState.WORKING), 1000, event(task(k2.id, TaskState.WORKING)));
        await eventually(() => seenHere.length === 1);
        expect(seenHere).toEqual([[k2, 1]]);
        await sleep(50);
        expect(seenThere).toHaveLength(2);
      } finally {
        await stopHere();
        await stopThere();
      }
    });
  });

  describe("events from notifications", () => {
    it("while it watches, another instance's events come with their notifications: events() answers them without the table, and never short of a version it read or an event it wrote", async () => {
      const other = (await openStore(db(), { instance: "second" })).store;
      const heard: number[] = [];
      const stop = await store.shared!.watch(
        (k, seq) => k.tenant === tenant && heard.push(seq),
        () => {},
      );
      try {
        const t = task(key.id, TaskState.SUBMITTED);
        await other.tasks.create(key, t, 1000, event(t));
        await eventually(() => heard.length === 1);
        expect((await store.tasks.get(key))?.version).toBe(1);
        const working = task(key.id, TaskState.WORKING);
        await other.tasks.commit(key, working, 1, 2000, event(working));
        const done = task(key.id, TaskState.COMPLETED);
        await other.tasks.commit(key, done, 2, 3000, event(done));
        await eventually(() => heard.length === 3);
        // The table's copies made unreadable: a store that does not watch fails on them, this one has its own.
        await client.query(`UPDATE a2a_events SET format = 99 WHERE tenant = $1`, [tenant]);
        expect((await rejection(other.tasks.events(key, 1))) as { code: number }).toMatchObject({ code: Code.DATA_LOSS });
        const got = await store.tasks.events(key, 1);
        expect(got.map((e) => [e.seq, stateOf(e.event)])).toEqual([
          [2, TaskState.WORKING],
          [3, TaskState.COMPLETED],
        ]);
        // Its own write, then another instance's that it reads the version of before its notification may have come.
        const again = task(key.id, TaskState.FAILED);
        await store.tasks.commit(key, again, 3, 4000, event(again));
        const last = task(key.id, TaskState.CANCELED);
        await other.tasks.commit(key, last, 4, 5000, event(last));
        expect((await store.tasks.get(key))?.version).toBe(5);
        const after = await store.tasks.events(key, 3);
        expect(after.map((e) => [e.seq, stateOf(e.event)])).toEqual([
          [4, TaskState.FAILED],
          [5, TaskState.CANCELED],
        ]);
      } finally {
        await stop();
        await other.close?.();
      }
    });
  });

  describe.runIf(engineName === "PostgreSQL")("a lost LISTEN connection", () => {
    it("comes back by itself: watch() reports onMissed (so the engine catches up), then events flow again", async () => {
      const other = (await openStore(db(), { instance: "reconnecting" })).store;
      let missed = 0;
      const seen: number[] = [];
      const stop = await other.shared!.watch(
        (k, seq) => k.tenant === tenant && seen.push(seq),
        () => missed++,
      );
      try {
        const killed = await client.query(
          `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'`,
        );
        expect(killed.rows.length).toBeGreaterThan(0);
        await eventually(() => missed >= 1, 10_000);
        const t = task(key.id, TaskState.WORKING);
        await store.tasks.create(key, t, 1000, event(t));
        await eventually(() => seen.length === 1);
        expect(seen).toEqual([1]);
      } finally {
        await stop();
      }
    });
  });

  describe("the client", () => {
    it("rowCount means what pg says: rows written, or rows a SELECT returned", async () => {
      // In one transaction: a temporary table lives on one of the pool's connections.
      await client.transaction(async (tx) => {
        await tx.exec(`CREATE TEMP TABLE rc (a integer) ON COMMIT DROP`);
        expect((await tx.query(`INSERT INTO rc VALUES (1), (2)`)).rowCount).toBe(2);
        expect((await tx.query(`UPDATE rc SET a = 3 WHERE a = 99`)).rowCount).toBe(0);
        expect((await tx.query(`DELETE FROM rc`)).rowCount).toBe(2);
      });
      expect((await client.query(`SELECT 1 AS x UNION ALL SELECT 2`)).rowCount).toBe(2);
    });
  });

  describe("long keys", () => {
    /** Random letters: they do not compress, so the database's index could not take a longer key. */
    const letters = (n: number) => Array.from({ length: n }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join("");

    it("the longest key the store takes (2 048 bytes, non-ASCII) is written, read and announced to the other instances", async () => {
      // "é" is 2 bytes: tenant, owner, id and context id come to exactly MAX_KEY_BYTES.
      const long = { ...key, owner: "é".repeat(500), id: letters(2048 - Buffer.byteLength(tenant) - 1000 - 3) };
      const other = (await openStore(db(), { instance: "long-watcher" })).store;
      const seen: number[] = [];
      const stop = await other.shared!.watch(
        (k, seq) => k.owner === long.owner && seen.push(seq),
        () => {},
      );
      try {
        const t = task(long.id, TaskState.WORKING, "ctx");
        await store.tasks.create(long, t, 1000, event(t));
        const done = task(long.id, TaskState.COMPLETED, "ctx");
        await store.tasks.commit(long, done, 1, 2000, event(done));
        expect((await store.tasks.get(long))?.version).toBe(2);
        await eventually(() => seen.length === 2);
      } finally {
        await stop();
      }
    });

    it("a longer task key or push config id is refused with INVALID_ARGUMENT naming the limit, and nothing is written", async () => {
      const id = letters(4000);
      const k = { ...key, id };
      const e = await rejection(store.tasks.create(k, task(id, TaskState.WORKING), 1000, event(task(id, TaskState.WORKING))));
      expect(isRpcError(e), String(e)).toBe(true);
      expect((e as { code: number }).code).toBe(Code.INVALID_ARGUMENT);
      expect((e as Error).message).toMatch(/too long for the SQL store, \d+ bytes of tenant, owner and ids, at most 2048/);
      expect(await store.tasks.get(k)).toBeUndefined();
      // A context id counts too (ListTasks' index by context holds it with the key).
      const ctxLong = await rejection(
        store.tasks.create(key, task(key.id, TaskState.WORKING, letters(3000)), 1000, event(task(key.id, TaskState.WORKING))),
      );
      expect((ctxLong as { code: number }).code).toBe(Code.INVALID_ARGUMENT);
      expect(await store.tasks.get(key)).toBeUndefined();

      const t = task(key.id, TaskState.WORKING);
      await store.tasks.create(key, t, 1000, event(t));
      const c = await rejection(store.pushConfigs.put(key, config(key.id, letters(3000))));
      expect((c as { code: number }).code).toBe(Code.INVALID_ARGUMENT);
      expect(await store.pushConfigs.list(key)).toEqual([]);
    });
  });

  describe("the push outbox (a database of its own: claims see every task)", () => {
    const odb = useDatabase(engine);
    let ostore: AgentStore;
    let oclient: SqlClient;
    beforeAll(async () => {
      ({ store: ostore, client: oclient } = await openStore(odb(), { instance: "sender" }));
    });

    it("a commit enqueues one delivery per config; claim gives each config's oldest only, in order; retry and done", async () => {
      const outbox = ostore.shared!.outbox;
      const t0 = task(key.id, TaskState.SUBMITTED);
      await ostore.tasks.create(key, t0, 1000, event(t0));
      await ostore.pushConfigs.put(key, config(key.id, "A"));
      await ostore.pushConfigs.put(key, config(key.id, "B"));
      const states = [TaskState.WORKING, TaskState.INPUT_REQUIRED, TaskState.WORKING];
      for (const [i, s] of states.entries()) {
        const t = task(key.id, s);
        await ostore.tasks.commit(key, t, i + 1, 2000 + i, event(t));
      }
      expect(await count(oclient, `a2a_push_outbox WHERE tenant = $1`, [tenant])).toBe(6);

      const describe = (items: Awaited<ReturnType<typeof outbox.claim>>) =>
        items.map((x) => `${x.config.id}:${stateOf(x.event)}:${x.attempts}`);
      let items = await outbox.claim(10, 60_000);
      expect(describe(items)).toEqual([`A:${TaskState.WORKING}:0`, `B:${TaskState.WORKING}:0`]);
      expect(items[0]!.key).toEqual(key);
      expect(items[0]!.config).toEqual(config(key.id, "A"));
      // Claimed: nobody else gets them, and nothing behind them.
      expect(await outbox.claim(10, 60_000)).toEqual([]);

      const [a1, b1] = items;
      await outbox.done(a1!.id);
      items = await outbox.claim(10, 60_000);
      expect(describe(items)).toEqual([`A:${TaskState.INPUT_REQUIRED}:0`]);
      const a2 = items[0]!;
      // A retry later than now: not due yet; B's next stays behind its first.
      await outbox.retry(b1!.id, 1, Date.now() + 60_000);
      expect(await outbox.claim(10, 60_000)).toEqual([]);
      await outbox.retry(b1!.id, 2, Date.now() - 1);
      items = await outbox.claim(10, 60_000);
      expect(describe(items)).toEqual([`B:${TaskState.WORKING}:2`]);
      await outbox.done(items[0]!.id);
      await outbox.done(a2.id);
      items = await outbox.claim(1, 60_000);
      expect(items).toHaveLength(1);
      items.push(...(await outbox.claim(10, 60_000)));
      expect(describe(items).sort()).toEqual([`A:${TaskState.WORKING}:0`, `B:${TaskState.INPUT_REQUIRED}:0`]);
      for (const x of items) await outbox.done(x.id);
      expect(describe(await outbox.claim(10, 60_000))).toEqual([`B:${TaskState.WORKING}:0`]);
    });

    it("two instances claiming at once never get the same delivery, nor two of one config", async () => {
      const outbox = ostore.shared!.outbox;
      const second = (await openStore(odb(), { instance: "sender-2" })).store.shared!.outbox;
      const t0 = task(key.id, TaskState.WORKING);
      await ostore.tasks.create(key, t0, 1000, event(t0));
      for (let i = 0; i < 8; i++) await ostore.pushConfigs.put(key, config(key.id, `k${i}`));
      for (let v = 1; v <= 3; v++) {
        const t = task(key.id, TaskState.WORKING);
        await ostore.tasks.commit(key, t, v, 2000 + v, event(t));
      }
      const mine = (items: Awaited<ReturnType<typeof outbox.claim>>) => items.filter((x) => x.key.tenant === tenant);
      const [a, b] = await Promise.all([outbox.claim(100, 60_000), second.claim(100, 60_000)]);
      const got = [...mine(a), ...mine(b)];
      expect(new Set(got.map((x) => x.id)).size).toBe(got.length);
      expect(got.map((x) => x.config.id).sort()).toEqual(Array.from({ length: 8 }, (_, i) => `k${i}`));
      for (const x of [...a, ...b]) await outbox.done(x.id);
    });

    it("an expired claim is claimed again; enqueue adds a delivery for a config stored after its event", async () => {
      const outbox = ostore.shared!.outbox;
      // Whatever the tests before left (claims they hold lapse after 60 s: drop those rows outright).
      await oclient.query(`DELETE FROM a2a_push_outbox`);

      const t0 = task(key.id, TaskState.WORKING);
      await ostore.tasks.create(key, t0, 1000, event(t0));
      await ostore.pushConfigs.put(key, config(key.id, "late"));
      await outbox.enqueue(key, "late", 1);
      // A claim of 500 ms: long enough that the second claim, on a loaded machine, still finds it held (20 ms was not).
      const first = await outbox.claim(10, 500);
      expect(first.map((x) => [x.config.id, stateOf(x.event)])).toEqual([["late", TaskState.WORKING]]);
      expect(await outbox.claim(10, 500)).toEqual([]);
      await sleep(600);
      const again = await outbox.claim(10, 60_000);
      expect(again.map((x) => x.id)).toEqual([first[0]!.id]);
      await outbox.done(again[0]!.id);
      // The same event enqueued twice for one config (a retried enqueue): still one at a time.
      await outbox.enqueue(key, "late", 1);
      await outbox.enqueue(key, "late", 1);
      const dup = await outbox.claim(10, 60_000);
      expect(dup).toHaveLength(1);
      expect(await outbox.claim(10, 60_000)).toEqual([]);
      await outbox.done(dup[0]!.id);
      const dup2 = await outbox.claim(10, 60_000);
      expect(dup2).toHaveLength(1);
      await outbox.done(dup2[0]!.id);
      // A deleted config takes its pending deliveries with it.
      const t1 = task(key.id, TaskState.COMPLETED);
      await ostore.tasks.commit(key, t1, 1, 2000, event(t1));
      expect(await ostore.pushConfigs.delete(key, "late")).toBe(true);
      expect(await outbox.claim(10, 60_000)).toEqual([]);
      expect(await count(oclient, `a2a_push_outbox WHERE tenant = $1`, [tenant])).toBe(0);
    });
  });

  describe("migrations (a database of their own each)", () => {
    it("migrate applies every version once: again it is a no-op", async () => {
      const c = await (await engine().database()).connect();
      expect(await migrate(c)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
      expect(await migrate(c)).toEqual([]);
      expect(await count(c, `a2a_schema`, [])).toBe(SCHEMA_VERSION);
      // And a store opens on it without migrating.
      const s = await createSqlStore(c);
      expect(s.shared?.instance).toBeTruthy();
    });

    it("two concurrent migrate() calls both succeed, and the schema is applied once", async () => {
      const d = await engine().database();
      const [c1, c2] = [await d.connect(), await d.connect()];
      const [r1, r2] = await Promise.all([migrate(c1), migrate(c2)]);
      expect([...r1, ...r2].sort()).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
      expect(await count(c1, `a2a_schema`, [])).toBe(SCHEMA_VERSION);
    });

    it("a store refuses an outdated schema without migrate, and a newer one always (SchemaTooNewError, clear message)", async () => {
      const c = await (await engine().database()).connect();
      const outdated = await rejection(createSqlStore(c));
      expect(outdated).toBeInstanceOf(SchemaOutdatedError);
      expect((outdated as Error).message).toMatch(/a2a-http migrate/);
      await migrate(c);
      await c.query(`INSERT INTO a2a_schema (version, applied_at) VALUES ($1, $2)`, [SCHEMA_VERSION + 1, Date.now()]);
      for (const open of [() => createSqlStore(c), () => createSqlStore(c, { migrate: true }), () => migrate(c)]) {
        const e = await rejection(open());
        expect(e).toBeInstanceOf(SchemaTooNewError);
        expect((e as Error).message).toContain(`version ${SCHEMA_VERSION + 1}, newer than this a2a-http knows (${SCHEMA_VERSION})`);
      }
    });
  });
});

describe("opening a database", () => {
  it("PGlite on a data directory keeps tasks, events and push configs across a close and a reopen", async () => {
    const dir = await mkdtemp(join(tmpdir(), "a2a-pglite-"));
    try {
      const k = { tenant: "", owner: "alice", id: "durable" };
      const first = await createSqlStore(await openPglite(dir), { migrate: true });
      first.bind?.(schemas);
      const t = task(k.id, TaskState.WORKING);
      await first.tasks.create(k, t, 1000, event(t));
      await first.pushConfigs.put(k, config(k.id, "c"));
      const done = task(k.id, TaskState.COMPLETED);
      await first.tasks.commit(k, done, 1, 2000, event(done));
      await first.close?.();

      // Reopened without migrate: the schema is there.
      const again = await createSqlStore(await openPglite(dir));
      again.bind?.(schemas);
      try {
        expect(await again.tasks.get(k)).toEqual({ task: done, version: 2 });
        expect((await again.tasks.events(k, 0)).map((e) => stateOf(e.event))).toEqual([TaskState.WORKING, TaskState.COMPLETED]);
        expect((await again.pushConfigs.list(k)).map((c) => c.id)).toEqual(["c"]);
      } finally {
        await again.close?.();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("a PostgreSQL server that cannot be reached: an error naming the URL, without its password", async () => {
    const e = await rejection(connectPostgres("postgres://someone:s3cret@127.0.0.1:1/db"));
    expect((e as Error).message).toMatch(/^cannot connect to postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/db: /);
    expect((e as Error).message).not.toContain("s3cret");
  });
});
