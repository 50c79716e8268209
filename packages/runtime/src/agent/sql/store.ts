/**
 * The engine's store in SQL: the same statements on a PostgreSQL server
 * (`pg`) and on PGlite. A task's change, its event, the push deliveries it
 * causes and the NOTIFY that wakes the other instances commit in one
 * transaction; writes are versioned (a stale one is refused).
 */
import { fromBinary, type DescMessage, type Message as ProtoMessage } from "@bufbuild/protobuf";
import { Code, RpcError } from "../../errors.js";
import {
  StaleVersionError,
  StoreFullError,
  type AgentStore,
  type OutboxItem,
  type PushConfigLike,
  type PushConfigStore,
  type SharedStore,
  type StoreSchemas,
  type StoredEvent,
  type StoredTaskWithKey,
  type TaskKey,
  type TaskPage,
  type TaskQuery,
  type TaskStore,
} from "../store.js";
import { isInterrupted, isTerminal, type TaskLike } from "../types.js";
import type { SqlClient, SqlQueryable } from "./client.js";
import { encodeReusing } from "./encode.js";
import { checkSchema, migrate } from "./migrations.js";
import { RecentEvents } from "./recent-events.js";

export interface SqlStoreOptions {
  /** Apply missing migrations when the store opens. Default false: run `a2a-http migrate` first. */
  readonly migrate?: boolean;
  /** This instance's name in leases and outbox claims. Default: a random UUID per process. */
  readonly instance?: string;
  /** How long a task's lease lasts unless its instance renews it. Default 30 000 ms. */
  readonly leaseMs?: number;
  /** Most push configs per task. Default 10. */
  readonly maxPushConfigsPerTask?: number;
  /**
   * Most write statements (creates and commits) on their way at once; the
   * writes that come meanwhile wait and go together in the next one (group
   * commit). Default 4: fewer batch more but leave the server's cores idle,
   * more batch less (bench/store.mjs read 1 to 10 at 16 tasks in flight).
   */
  readonly writeStatements?: number;
  /** A row that cannot be read (ListTasks leaves it out). Default `console.error`. */
  readonly onError?: (error: unknown) => void;
}

/** The only encoding so far: protobuf binary of the user's message. */
const FORMAT_PROTOBUF = 1;
/** pg_notify refuses payloads of 8000 bytes or more (bytes, not characters); longer keys wake everyone instead. */
const MAX_NOTIFY_PAYLOAD = 7_900;
export const EVENTS_CHANNEL = "a2a_events";
/**
 * Most bytes of an event that its notification carries (as base64), so that
 * the instances that follow its task need not read it back (recent-events.ts):
 * a status update's are a few hundred; bigger ones (artifacts) are read from
 * the events table, and every instance keeps less of them.
 */
const MAX_NOTIFIED_EVENT = 3_000;
/**
 * Most tasks' writes in one statement. Small enough that the client encodes
 * and sends the next statement while the server runs the last one: with 16
 * tasks in flight, batches of 8 read 1.4-1.5x the SDK's store and batches of
 * 64 (all of them in one) 1.0-1.3x, the client and the server taking turns.
 */
const MAX_BATCH = 8;
/**
 * Most UTF-8 bytes of the text in one index entry (tenant, owner, task id and
 * context id, or a push config's id): a btree entry holds at most 2 704 bytes,
 * and past that PostgreSQL fails the write with "index row size exceeds btree
 * maximum", which a client would only see as an internal error.
 */
export const MAX_KEY_BYTES = 2_048;

/**
 * An error the server sent (an ErrorResponse: a severity and an SQLSTATE, on
 * pg and PGlite alike), not a lost connection's (Node's, such as EPIPE, have
 * a code but no severity); class 08 is the connection's.
 */
function isServerError(e: unknown): boolean {
  const { code, severity } = (e ?? {}) as { code?: unknown; severity?: unknown };
  return typeof severity === "string" && typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith("08");
}

/** A store on an open database; `close()` closes the database too. */
export async function createSqlStore(db: SqlClient, options: SqlStoreOptions = {}): Promise<AgentStore> {
  if (options.migrate) await migrate(db);
  else await checkSchema(db);
  const instance = options.instance ?? crypto.randomUUID();
  const leaseMs = options.leaseMs ?? 30_000;
  const maxConfigs = options.maxPushConfigsPerTask ?? 10;
  const MAX_IN_FLIGHT = Math.max(1, options.writeStatements ?? 4);
  const onError = options.onError ?? ((e: unknown) => console.error("a2a-http store:", e));
  let schemas: StoreSchemas | undefined;
  const bound = (): StoreSchemas => {
    if (!schemas) throw new Error("the SQL store is not bound to an agent yet (the engine binds it)");
    return schemas;
  };

  // Tasks and events reuse the bytes of the messages they share with the last ones written (encode.ts).
  const encode = (schema: DescMessage, m: ProtoMessage) => encodeReusing(schema, m);

  /** Reads one stored message; a row this version cannot read is a clear DATA_LOSS error about that row only. */
  function decode<M>(schema: DescMessage, row: Record<string, unknown>, what: string): M {
    const format = Number(row["format"]);
    if (format !== FORMAT_PROTOBUF) {
      throw new RpcError(
        Code.DATA_LOSS,
        `${what} is stored in format ${format}, which this a2a-http cannot read (written by a newer version?)`,
      );
    }
    try {
      return fromBinary(schema, row["body"] as Uint8Array) as M;
    } catch (e) {
      throw new RpcError(Code.DATA_LOSS, `${what} could not be read: ${(e as Error).message}`);
    }
  }

  const short = (id: string) => (id.length > 64 ? `${id.slice(0, 64)}…` : id);
  /** Refuses, before any write, keys the tables' indexes could not take. */
  const checkKeySize = (what: string, ...parts: string[]): void => {
    const bytes = parts.reduce((n, p) => n + Buffer.byteLength(p, "utf8"), 0);
    if (bytes > MAX_KEY_BYTES) {
      throw new RpcError(
        Code.INVALID_ARGUMENT,
        `${what} too long for the SQL store, ${bytes} bytes of tenant, owner and ids, at most ${MAX_KEY_BYTES}`,
      );
    }
  };

  const notifyPayload = (key: TaskKey, seq: number, event?: Uint8Array): string => {
    if (event && event.length <= MAX_NOTIFIED_EVENT) {
      const base64 = Buffer.from(event.buffer, event.byteOffset, event.byteLength).toString("base64");
      const p = JSON.stringify([instance, key.tenant, key.owner, key.id, seq, base64]);
      if (Buffer.byteLength(p, "utf8") < MAX_NOTIFY_PAYLOAD) return p;
    }
    const p = JSON.stringify([instance, key.tenant, key.owner, key.id, seq]);
    // Measured in UTF-8 bytes: a key of 3 000 "é" is 6 000 bytes, and a payload
    // pg_notify refuses would fail the whole commit.
    return Buffer.byteLength(p, "utf8") < MAX_NOTIFY_PAYLOAD ? p : JSON.stringify([instance]);
  };

  /** Whether an executor is at work on a task in this state: then its instance holds a lease. */
  const running = (task: TaskLike) => {
    const state = task.status?.state ?? 0;
    return !isTerminal(state) && !isInterrupted(state);
  };

  /**
   * What follows the write of a task's row, in the same statement: a CTE `t`
   * returns the task's key only when its row was written, and the event, its
   * push deliveries and the wake-up of the other instances go with it. One
   * statement is one transaction and one round trip; it answers one row when
   * the task was written, none when it was not (a stale version).
   */
  const AFTER_WRITE = (n: number) => `,
    e AS (INSERT INTO a2a_events (tenant, owner, task_id, seq, format, body)
          SELECT tenant, owner, id, $${n}::integer, $${n + 1}::smallint, $${n + 2}::bytea FROM t),
    o AS (INSERT INTO a2a_push_outbox (tenant, owner, task_id, config_id, seq, next_at)
          SELECT c.tenant, c.owner, c.task_id, c.id, $${n}::integer, $${n + 3}::bigint
          FROM a2a_push_configs c JOIN t ON c.tenant = t.tenant AND c.owner = t.owner AND c.task_id = t.id
          ORDER BY c.position)
    SELECT pg_notify($${n + 4}, $${n + 5}) FROM t`;
  async function versionOf(tx: SqlQueryable, key: TaskKey): Promise<number> {
    const r = await tx.query(`SELECT version FROM a2a_tasks WHERE tenant = $1 AND owner = $2 AND id = $3`, [key.tenant, key.owner, key.id]);
    const version = r.rows.length ? Number(r.rows[0]!["version"]) : 0;
    seen(key, version);
    return version;
  }

  /** A task's tenant, owner and id in one string. */
  const idOf = (key: TaskKey) => `${key.tenant}\u0000${key.owner}\u0000${key.id}`;

  /** A create (`expected` 0) or a commit, encoded, waiting for its statement. */
  interface Write {
    readonly create: boolean;
    readonly key: TaskKey;
    /** tenant, owner and id in one string: a statement takes one write per task. */
    readonly id: string;
    readonly contextId: string;
    readonly state: number;
    readonly updatedAt: number;
    readonly expected: number;
    readonly body: Uint8Array;
    readonly holder: string | null;
    readonly leaseUntil: number | null;
    readonly event: Uint8Array;
    /** The event itself, for the events this instance keeps (recent). */
    readonly message: ProtoMessage;
    readonly payload: string;
    readonly now: number;
    /** Settles the caller's promise: true when the row was written, false when it was not (stale). */
    done(written: boolean | Error): void;
  }

  function writeOf(
    create: boolean,
    key: TaskKey,
    task: TaskLike,
    expected: number,
    updatedAt: number,
    event: ProtoMessage,
  ): Omit<Write, "done"> {
    const now = Date.now();
    const holder = running(task) ? instance : null;
    const bytes = encode(bound().event, event);
    return {
      create,
      key,
      id: idOf(key),
      contextId: task.contextId,
      state: task.status?.state ?? 0,
      updatedAt,
      expected,
      body: encode(bound().task, task),
      holder,
      leaseUntil: holder ? now + leaseMs : null,
      event: bytes,
      message: event,
      payload: notifyPayload(key, expected + 1, bytes),
      now,
    };
  }

  /** One write alone: one statement that answers one row when it was written, none when stale. */
  async function writeOne(w: Omit<Write, "done">, onlyExpiredLease = false): Promise<boolean> {
    const after = [w.expected + 1, FORMAT_PROTOBUF, w.event, w.now, EVENTS_CHANNEL, w.payload];
    const r = w.create
      ? await db.query(
          `WITH t AS (
             INSERT INTO a2a_tasks (tenant, owner, id, context_id, state, updated_at, version, format, body, lease_holder, lease_until)
             VALUES ($1, $2, $3, $4, $5, $6, 1, $7, $8, $9, $10) ON CONFLICT DO NOTHING
             RETURNING tenant, owner, id)${AFTER_WRITE(11)}`,
          [
            w.key.tenant,
            w.key.owner,
            w.key.id,
            w.contextId,
            w.state,
            w.updatedAt,
            FORMAT_PROTOBUF,
            w.body,
            w.holder,
            w.leaseUntil,
            ...after,
          ],
        )
      : await db.query(
          `WITH t AS (
             UPDATE a2a_tasks SET context_id = $4, state = $5, updated_at = $6, version = $7, body = $8, format = $9,
               lease_holder = $10, lease_until = $11
             WHERE tenant = $1 AND owner = $2 AND id = $3 AND version = $12
               ${onlyExpiredLease ? "AND lease_holder IS NOT NULL AND lease_until < $19" : ""}
             RETURNING tenant, owner, id)${AFTER_WRITE(13)}`,
          [
            w.key.tenant,
            w.key.owner,
            w.key.id,
            w.contextId,
            w.state,
            w.updatedAt,
            w.expected + 1,
            w.body,
            FORMAT_PROTOBUF,
            w.holder,
            w.leaseUntil,
            w.expected,
            ...after,
            ...(onlyExpiredLease ? [w.now] : []),
          ],
        );
    return r.rows.length > 0;
  }

  /**
   * Several tasks' writes in one statement (group commit): the rows come in
   * as arrays, the task bodies and the events as one bytea each with offsets
   * (pg would send a bytea[] as hex text), and every write is still checked
   * alone: a task's row is written only at its expected version, and its
   * event, push deliveries and NOTIFY follow only the rows written. Answers
   * the positions of the writes that were written. One statement is one
   * transaction: one round trip, one plan execution and one WAL flush for
   * all of them.
   */
  async function writeMany(ws: readonly Write[]): Promise<Set<number>> {
    const bodies = Buffer.concat(ws.map((w) => w.body));
    const events = Buffer.concat(ws.map((w) => w.event));
    const bodyAt: number[] = [];
    const eventAt: number[] = [];
    let b = 1;
    let e = 1;
    for (const w of ws) {
      bodyAt.push(b);
      eventAt.push(e);
      b += w.body.length;
      e += w.event.length;
    }
    const r = await db.query(
      `WITH w AS MATERIALIZED (
         SELECT * FROM unnest($1::integer[], $2::boolean[], $3::text[], $4::text[], $5::text[], $6::text[], $7::integer[], $8::bigint[],
           $9::integer[], $10::text[], $11::bigint[], $12::integer[], $13::integer[], $14::integer[], $15::integer[], $16::text[])
           AS w(ord, creates, tenant, owner, id, context_id, state, updated_at, expected, holder, lease_until, body_at, body_len, event_at, event_len, payload)),
       c AS (
         INSERT INTO a2a_tasks (tenant, owner, id, context_id, state, updated_at, version, format, body, lease_holder, lease_until)
         SELECT tenant, owner, id, context_id, state, updated_at, 1, $19, substring($17::bytea FROM body_at FOR body_len), holder, lease_until
         FROM w WHERE creates ORDER BY ord
         ON CONFLICT DO NOTHING
         RETURNING tenant, owner, id),
       u AS (
         UPDATE a2a_tasks a SET context_id = w.context_id, state = w.state, updated_at = w.updated_at, version = w.expected + 1,
           body = substring($17::bytea FROM w.body_at FOR w.body_len), format = $19, lease_holder = w.holder, lease_until = w.lease_until
         FROM w WHERE NOT w.creates AND a.tenant = w.tenant AND a.owner = w.owner AND a.id = w.id AND a.version = w.expected
         RETURNING w.ord),
       t AS (
         SELECT w.* FROM w WHERE w.ord IN (SELECT ord FROM u)
           OR (w.creates AND (w.tenant, w.owner, w.id) IN (SELECT tenant, owner, id FROM c))),
       e AS (INSERT INTO a2a_events (tenant, owner, task_id, seq, format, body)
             SELECT tenant, owner, id, expected + 1, $19, substring($18::bytea FROM event_at FOR event_len) FROM t ORDER BY ord),
       o AS (INSERT INTO a2a_push_outbox (tenant, owner, task_id, config_id, seq, next_at)
             SELECT p.tenant, p.owner, p.task_id, p.id, t.expected + 1, $20::bigint
             FROM a2a_push_configs p JOIN t ON p.tenant = t.tenant AND p.owner = t.owner AND p.task_id = t.id
             ORDER BY t.ord, p.position)
       SELECT ord, pg_notify($21, payload) FROM t ORDER BY ord`,
      [
        ws.map((_, i) => i),
        ws.map((w) => w.create),
        ws.map((w) => w.key.tenant),
        ws.map((w) => w.key.owner),
        ws.map((w) => w.key.id),
        ws.map((w) => w.contextId),
        ws.map((w) => w.state),
        ws.map((w) => w.updatedAt),
        ws.map((w) => w.expected),
        ws.map((w) => w.holder),
        ws.map((w) => w.leaseUntil),
        bodyAt,
        ws.map((w) => w.body.length),
        eventAt,
        ws.map((w) => w.event.length),
        ws.map((w) => w.payload),
        bodies,
        events,
        FORMAT_PROTOBUF,
        Math.min(...ws.map((w) => w.now)),
        EVENTS_CHANNEL,
      ],
    );
    return new Set(r.rows.map((row) => Number(row["ord"])));
  }

  /**
   * Group commit: a write goes out at once when fewer than MAX_IN_FLIGHT
   * statements are on their way; the writes that arrive meanwhile wait and
   * go together in the next statement, so that under load one round trip
   * serves the tasks in flight (bench/store.mjs) and alone a write waits for
   * nothing. A statement takes one write per task (two of one task would read
   * the same snapshot, and the second could only be refused); the second
   * waits for the next statement, so a task's writes keep their order.
   */
  const queue: Write[] = [];
  let inFlight = 0;
  let scheduled = false;
  /** The tasks whose write is on its way: their next one waits for it. */
  const busy = new Set<string>();
  const schedule = () => {
    if (scheduled || inFlight >= MAX_IN_FLIGHT || queue.length === 0) return;
    scheduled = true;
    // After the current turn of the event loop, so that the writes its callbacks make go together.
    setImmediate(flush);
  };
  function flush(): void {
    scheduled = false;
    while (inFlight < MAX_IN_FLIGHT && queue.length > 0) {
      const batch: Write[] = [];
      let rest = 0;
      for (const w of queue) {
        if (batch.length < MAX_BATCH && !busy.has(w.id)) {
          busy.add(w.id);
          batch.push(w);
        } else {
          queue[rest++] = w;
        }
      }
      queue.length = rest;
      if (batch.length === 0) return;
      inFlight++;
      void send(batch).then((outcomes) => {
        // Free the slot and the tasks before their callers go on, so that a caller's next write finds the store idle.
        inFlight--;
        for (const w of batch) busy.delete(w.id);
        for (const [i, w] of batch.entries()) w.done(outcomes[i]!);
        schedule();
      });
    }
  }
  /** Each write's outcome: written, refused (stale) or its error; never throws. */
  async function send(batch: Write[]): Promise<(boolean | Error)[]> {
    const alone = (w: Write) => writeOne(w).catch((e: Error) => e);
    if (batch.length === 1) return [await alone(batch[0]!)];
    try {
      const written = await writeMany(batch);
      return batch.map((_, i) => written.has(i));
    } catch (e) {
      // The server refused the statement (one write's bad value, a deadlock
      // with another instance's statement), so nothing of it was committed:
      // that fails none of the others, each is tried again alone and fails
      // alone if it fails again. Without the server's word (the connection
      // was lost) the writes may have been committed, and trying them again
      // would call them stale: each fails with the error, as a write alone would.
      if (!isServerError(e)) return batch.map(() => e as Error);
      return Promise.all(batch.map(alone));
    }
  }

  async function write(w: Omit<Write, "done">): Promise<void> {
    const result = await new Promise<boolean | Error>((resolve) => {
      queue.push({ ...w, done: resolve });
      // An idle store sends at once: one write at a time waits for nothing.
      if (inFlight === 0 && queue.length === 1 && !scheduled) flush();
      else schedule();
    });
    wrote(w, result);
    if (result instanceof Error) throw result;
    if (!result) throw new StaleVersionError(w.key, w.expected, await versionOf(db, w.key));
  }

  /**
   * Events of other instances' commits, from their notifications, while the
   * engine watches (`shared.watch`): `tasks.events` answers from them, and
   * this instance's own writes and the versions it reads keep them true.
   */
  const recent = new RecentEvents((base64, seq) =>
    decode<ProtoMessage>(bound().event, { format: FORMAT_PROTOBUF, body: Buffer.from(base64, "base64") }, `event ${seq}`),
  );
  let watchers = 0;
  /** A version of the task read from the database: an event up to it exists. */
  const seen = (key: TaskKey, version: number) => {
    if (watchers > 0) recent.note(idOf(key), version);
  };
  /** What a write's outcome tells of the task's events. */
  function wrote(w: Omit<Write, "done">, result: boolean | Error): void {
    if (watchers === 0) return;
    if (result instanceof Error) recent.forget(w.id);
    // Kept as the notification would carry it: a big event (an artifact) is read back when asked for.
    else if (result) recent.note(w.id, w.expected + 1, w.event.length <= MAX_NOTIFIED_EVENT ? w.message : undefined);
  }

  const tasks: TaskStore = {
    get(key) {
      const load = async () => {
        const r = await db.query(`SELECT version, format, body FROM a2a_tasks WHERE tenant = $1 AND owner = $2 AND id = $3`, [
          key.tenant,
          key.owner,
          key.id,
        ]);
        const row = r.rows[0];
        if (!row) return undefined;
        return { task: decode<TaskLike>(bound().task, row, `task ${key.id}`), version: Number(row["version"]) };
      };
      // A subscriber's first read: the events after it come from the notifications.
      return watchers > 0 ? recent.version(idOf(key), load) : load();
    },

    async create(key, task, updatedAt, event) {
      checkKeySize(`task ${short(key.id)}:`, key.tenant, key.owner, key.id, task.contextId);
      await write(writeOf(true, key, task, 0, updatedAt, event));
    },

    commit: (key, task, expected, updatedAt, event) => write(writeOf(false, key, task, expected, updatedAt, event)),

    async list(query: TaskQuery): Promise<TaskPage> {
      const where = [`tenant = $1`, `owner = $2`];
      const params: unknown[] = [query.tenant, query.owner];
      const add = (sql: (n: number) => string, value: unknown) => {
        params.push(value);
        where.push(sql(params.length));
      };
      if (query.contextId !== "") add((n) => `context_id = $${n}`, query.contextId);
      if (query.state !== 0) add((n) => `state = $${n}`, query.state);
      if (query.updatedSince !== undefined) add((n) => `updated_at >= $${n}`, Math.floor(query.updatedSince));
      const filter = where.join(" AND ");
      const total = Number((await db.query(`SELECT count(*)::integer AS n FROM a2a_tasks WHERE ${filter}`, params)).rows[0]!["n"]);
      const pageParams = [...params];
      let page = filter;
      if (query.after) {
        pageParams.push(query.after.updatedAt, query.after.id);
        const a = pageParams.length - 1;
        page += ` AND (updated_at < $${a} OR (updated_at = $${a} AND id COLLATE "C" < $${a + 1}))`;
      }
      pageParams.push(query.pageSize + 1);
      // One more than a page, to know whether there is a next one. The order names the
      // column, not the float8 output of the same name, so that the indexes serve it.
      const r = await db.query(
        `SELECT id, updated_at::float8 AS updated_at, format, body FROM a2a_tasks WHERE ${page}
         ORDER BY a2a_tasks.updated_at DESC, id COLLATE "C" DESC LIMIT $${pageParams.length}`,
        pageParams,
      );
      const rows = r.rows.slice(0, query.pageSize);
      const out: TaskLike[] = [];
      for (const row of rows) {
        try {
          out.push(decode<TaskLike>(bound().task, row, `task ${String(row["id"])}`));
        } catch (e) {
          // One unreadable row must not take the whole page down; its GetTask says why.
          onError(e);
        }
      }
      const last = rows[rows.length - 1];
      return {
        tasks: out,
        total,
        next: last && r.rows.length > query.pageSize ? { updatedAt: Number(last["updated_at"]), id: String(last["id"]) } : undefined,
      };
    },

    events(key, afterSeq) {
      const load = async () => {
        const r = await db.query(
          `SELECT seq, format, body FROM a2a_events WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND seq > $4 ORDER BY seq`,
          [key.tenant, key.owner, key.id, afterSeq],
        );
        return r.rows.map(
          (row): StoredEvent => ({
            seq: Number(row["seq"]),
            event: decode<ProtoMessage>(bound().event, row, `event ${String(row["seq"])} of task ${key.id}`),
          }),
        );
      };
      return watchers > 0 ? recent.events(idOf(key), afterSeq, load) : load();
    },
  };

  const configSchema = (): DescMessage => {
    const s = bound().pushConfig;
    if (!s) throw new Error("this A2A service has no push notification rpcs");
    return s;
  };

  const pushConfigs: PushConfigStore = {
    async put(key, config) {
      checkKeySize(`push config ${short(config.id)}:`, key.tenant, key.owner, key.id, config.id);
      await db.transaction(async (tx) => {
        // The count and the insert under the task's row lock, so two puts cannot both pass the limit.
        const t = await tx.query(`SELECT 1 FROM a2a_tasks WHERE tenant = $1 AND owner = $2 AND id = $3 FOR UPDATE`, [
          key.tenant,
          key.owner,
          key.id,
        ]);
        if (t.rows.length === 0) return;
        const body = encode(configSchema(), config);
        const updated = await tx.query(
          `UPDATE a2a_push_configs SET body = $5, format = $6 WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND id = $4`,
          [key.tenant, key.owner, key.id, config.id, body, FORMAT_PROTOBUF],
        );
        if (updated.rowCount > 0) return;
        const n = await tx.query(`SELECT count(*)::integer AS n FROM a2a_push_configs WHERE tenant = $1 AND owner = $2 AND task_id = $3`, [
          key.tenant,
          key.owner,
          key.id,
        ]);
        if (Number(n.rows[0]!["n"]) >= maxConfigs) throw new StoreFullError(`a task takes at most ${maxConfigs} push notification configs`);
        await tx.query(`INSERT INTO a2a_push_configs (tenant, owner, task_id, id, format, body) VALUES ($1, $2, $3, $4, $5, $6)`, [
          key.tenant,
          key.owner,
          key.id,
          config.id,
          FORMAT_PROTOBUF,
          body,
        ]);
      });
    },
    async get(key, id) {
      const r = await db.query(`SELECT format, body FROM a2a_push_configs WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND id = $4`, [
        key.tenant,
        key.owner,
        key.id,
        id,
      ]);
      return r.rows[0] && decode<PushConfigLike>(configSchema(), r.rows[0], `push config ${id} of task ${key.id}`);
    },
    async list(key) {
      const r = await db.query(
        `SELECT id, format, body FROM a2a_push_configs WHERE tenant = $1 AND owner = $2 AND task_id = $3 ORDER BY position`,
        [key.tenant, key.owner, key.id],
      );
      return r.rows.map((row) => decode<PushConfigLike>(configSchema(), row, `push config ${String(row["id"])} of task ${key.id}`));
    },
    async delete(key, id) {
      return db.transaction(async (tx) => {
        const r = await tx.query(`DELETE FROM a2a_push_configs WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND id = $4`, [
          key.tenant,
          key.owner,
          key.id,
          id,
        ]);
        // Its pending deliveries go with it.
        await tx.query(`DELETE FROM a2a_push_outbox WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND config_id = $4`, [
          key.tenant,
          key.owner,
          key.id,
          id,
        ]);
        return r.rowCount > 0;
      });
    },
  };

  const keyOfRow = (row: Record<string, unknown>, id = "task_id"): TaskKey => ({
    tenant: String(row["tenant"]),
    owner: String(row["owner"]),
    id: String(row[id]),
  });

  const shared: SharedStore = {
    instance,
    leaseMs,

    async watch(onEvent, onMissed) {
      const missed = () => {
        recent.clear();
        onMissed();
      };
      const stop = await db.listen(
        EVENTS_CHANNEL,
        (payload) => {
          let p: unknown[];
          try {
            p = JSON.parse(payload) as unknown[];
          } catch {
            return;
          }
          if (p[0] === instance) return;
          if (p.length < 5) return missed();
          const key = { tenant: String(p[1]), owner: String(p[2]), id: String(p[3]) };
          const seq = Number(p[4]);
          // Before onEvent, whose catch-up reads it.
          recent.note(idOf(key), seq, typeof p[5] === "string" ? p[5] : undefined);
          onEvent(key, seq);
        },
        missed,
      );
      watchers++;
      let stopped = false;
      return async () => {
        if (!stopped) {
          stopped = true;
          if (--watchers === 0) recent.clear();
        }
        await stop();
      };
    },

    async renew(keys) {
      if (keys.length === 0) return;
      await db.query(
        `UPDATE a2a_tasks t SET lease_until = $1
         FROM unnest($3::text[], $4::text[], $5::text[]) AS k(tenant, owner, id)
         WHERE t.tenant = k.tenant AND t.owner = k.owner AND t.id = k.id AND t.lease_holder = $2`,
        [Date.now() + leaseMs, instance, keys.map((k) => k.tenant), keys.map((k) => k.owner), keys.map((k) => k.id)],
      );
    },

    async expired(limit) {
      const now = Date.now();
      const out: StoredTaskWithKey[] = [];
      // Rows it cannot read are reported and stepped over, page by page: were
      // they only left out of one query, `limit` of them at the head (the
      // oldest leases) would hide every other expired task from the sweep.
      let after: unknown[] | undefined;
      while (out.length < limit) {
        const asked = limit - out.length;
        const r = await db.query(
          `SELECT tenant, owner, id, version, format, body, lease_holder, lease_until::text AS lease_until FROM a2a_tasks
           WHERE lease_holder IS NOT NULL AND lease_until < $1
             ${after ? "AND (lease_until, tenant, owner, id) > ($3::bigint, $4, $5, $6)" : ""}
           ORDER BY lease_until, tenant, owner, id LIMIT $2`,
          [now, asked, ...(after ?? [])],
        );
        for (const row of r.rows) {
          try {
            const key = keyOfRow(row, "id");
            seen(key, Number(row["version"]));
            out.push({
              key,
              holder: String(row["lease_holder"]),
              version: Number(row["version"]),
              task: decode<TaskLike>(bound().task, row, `task ${String(row["id"])}`),
            });
          } catch (e) {
            onError(e);
          }
        }
        const last = r.rows[r.rows.length - 1];
        if (!last || r.rows.length < asked) break;
        after = [last["lease_until"], last["tenant"], last["owner"], last["id"]];
      }
      return out;
    },

    async takeOver(key, task, expected, updatedAt, event) {
      // Alone, past the group commit: rare, and its condition (the lease still expired) is its own.
      const w = writeOf(false, key, task, expected, updatedAt, event);
      const written = await writeOne(w, true).catch((e: Error) => e);
      wrote(w, written);
      if (written instanceof Error) throw written;
      if (!written) throw new StaleVersionError(key, expected, await versionOf(db, key));
    },

    outbox: {
      async enqueue(key, configId, seq) {
        await db.query(`INSERT INTO a2a_push_outbox (tenant, owner, task_id, config_id, seq, next_at) VALUES ($1, $2, $3, $4, $5, $6)`, [
          key.tenant,
          key.owner,
          key.id,
          configId,
          seq,
          Date.now(),
        ]);
        await db.query(`SELECT pg_notify($1, $2)`, [EVENTS_CHANNEL, notifyPayload(key, seq)]);
      },

      async claim(limit, claimMs) {
        const now = Date.now();
        // The oldest delivery of each config only, so that a config's notifications go out in order.
        const r = await db.query(
          `UPDATE a2a_push_outbox o SET claimed_by = $1, claimed_until = $2
           WHERE o.id IN (
             SELECT h.id FROM a2a_push_outbox h
             WHERE h.next_at <= $3 AND (h.claimed_until IS NULL OR h.claimed_until < $3)
               AND NOT EXISTS (
                 SELECT 1 FROM a2a_push_outbox e
                 WHERE e.tenant = h.tenant AND e.owner = h.owner AND e.task_id = h.task_id
                   AND e.config_id = h.config_id AND (e.seq < h.seq OR (e.seq = h.seq AND e.id < h.id)))
             ORDER BY h.id LIMIT $4 FOR UPDATE SKIP LOCKED)
           RETURNING o.id::text AS id, o.tenant, o.owner, o.task_id, o.config_id, o.seq, o.attempts`,
          [instance, now + claimMs, now, limit],
        );
        const items: OutboxItem[] = [];
        // RETURNING follows no order: hand them out oldest first.
        const rows = [...r.rows].sort((a, b) => Number(a["id"]) - Number(b["id"]));
        for (const row of rows) {
          const key = keyOfRow(row);
          const id = String(row["id"]);
          try {
            const config = await pushConfigs.get(key, String(row["config_id"]));
            const ev = await db.query(
              `SELECT format, body FROM a2a_events WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND seq = $4`,
              [key.tenant, key.owner, key.id, row["seq"]],
            );
            if (!config || !ev.rows[0]) {
              // The config was deleted, or the task is gone: nothing to send.
              await shared.outbox.done(id);
              continue;
            }
            const event = decode<ProtoMessage>(bound().event, ev.rows[0], `event ${String(row["seq"])} of task ${key.id}`);
            items.push({ id, key, config, event, attempts: Number(row["attempts"]) });
          } catch (e) {
            onError(e);
            await shared.outbox.done(id);
          }
        }
        return items;
      },

      async done(id) {
        await db.query(`DELETE FROM a2a_push_outbox WHERE id = $1`, [id]);
      },

      async retry(id, attempts, nextAt) {
        await db.query(`UPDATE a2a_push_outbox SET attempts = $2, next_at = $3, claimed_by = NULL, claimed_until = NULL WHERE id = $1`, [
          id,
          attempts,
          Math.floor(nextAt),
        ]);
      },
    },
  };

  return {
    tasks,
    pushConfigs,
    shared,
    bind(s) {
      if (schemas && schemas !== s && schemas.task.typeName !== s.task.typeName) throw new Error("a SQL store belongs to one agent");
      schemas = s;
    },
    close: () => db.close(),
  };
}
