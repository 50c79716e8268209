/**
 * The SQL store's statements, every text in one place, the same on a
 * PostgreSQL server and on PGlite. Fixed texts are constants (pg prepares
 * each once per connection, by its text: client.ts); the few that vary
 * (ListTasks' filters, a sweep's next page) are made by the functions here.
 * Parameters are numbered as the callers pass them.
 */
import type { TaskQuery } from "../store.js";

/**
 * What follows the write of a task's row, in the same statement: a CTE `t`
 * returns the task's key only when its row was written, and the event, its
 * push deliveries and the wake-up of the other instances go with it. One
 * statement is one transaction and one round trip; it answers one row when
 * the task was written, none when it was not (a stale version). Its
 * parameters from `n`: the event's seq, format and bytes, the deliveries'
 * time, the channel and the notification's payload.
 */
const afterWrite = (n: number) => `,
    e AS (INSERT INTO a2a_events (tenant, owner, task_id, seq, format, body)
          SELECT tenant, owner, id, $${n}::integer, $${n + 1}::smallint, $${n + 2}::bytea FROM t),
    o AS (INSERT INTO a2a_push_outbox (tenant, owner, task_id, config_id, seq, next_at)
          SELECT c.tenant, c.owner, c.task_id, c.id, $${n}::integer, $${n + 3}::bigint
          FROM a2a_push_configs c JOIN t ON c.tenant = t.tenant AND c.owner = t.owner AND c.task_id = t.id
          ORDER BY c.position)
    SELECT pg_notify($${n + 4}, $${n + 5}) FROM t`;

/**
 * A new task alone: tenant, owner, id, context id, state, updated at, format,
 * body, lease holder, lease until, then afterWrite's ($11-$16), then its
 * trace context ($17, null with telemetry off).
 */
export const CREATE_TASK = `WITH t AS (
             INSERT INTO a2a_tasks (tenant, owner, id, context_id, state, updated_at, version, format, body, lease_holder, lease_until, trace)
             VALUES ($1, $2, $3, $4, $5, $6, 1, $7, $8, $9, $10, $17::text) ON CONFLICT DO NOTHING
             RETURNING tenant, owner, id)${afterWrite(11)}`;

const updateTask = (onlyExpiredLease: boolean) => `WITH t AS (
             UPDATE a2a_tasks SET context_id = $4, state = $5, updated_at = $6, version = $7, body = $8, format = $9,
               lease_holder = $10, lease_until = $11
             WHERE tenant = $1 AND owner = $2 AND id = $3 AND version = $12
               ${onlyExpiredLease ? "AND lease_holder IS NOT NULL AND lease_until < $19" : ""}
             RETURNING tenant, owner, id)${afterWrite(13)}`;

/**
 * A task's commit alone, at its expected version: tenant, owner, id, context
 * id, state, updated at, new version, body, format, lease holder, lease
 * until, expected version, then afterWrite's.
 */
export const UPDATE_TASK = updateTask(false);

/** As UPDATE_TASK, only while the task's lease is expired: the time is $19. */
export const TAKE_OVER_TASK = updateTask(true);

/**
 * Several tasks' writes in one statement (group commit): the rows come in
 * as arrays ($1-$16: position, create or not, tenant, owner, id, context id,
 * state, updated at, expected version, lease holder, lease until, body
 * offset and length, event offset and length, notification payload), the
 * task bodies ($17) and the events ($18) as one bytea each with offsets (pg
 * would send a bytea[] as hex text), then the format, the deliveries' time,
 * the channel, and the creates' trace contexts ($22, nulls with telemetry off). Every write is still checked alone: a task's row is
 * written only at its expected version, and its event, push deliveries and
 * NOTIFY follow only the rows written. Answers the positions of the writes
 * that were written.
 */
export const WRITE_TASKS = `WITH w AS MATERIALIZED (
         SELECT * FROM unnest($1::integer[], $2::boolean[], $3::text[], $4::text[], $5::text[], $6::text[], $7::integer[], $8::bigint[],
           $9::integer[], $10::text[], $11::bigint[], $12::integer[], $13::integer[], $14::integer[], $15::integer[], $16::text[], $22::text[])
           AS w(ord, creates, tenant, owner, id, context_id, state, updated_at, expected, holder, lease_until, body_at, body_len, event_at, event_len, payload,
             trace)),
       c AS (
         INSERT INTO a2a_tasks (tenant, owner, id, context_id, state, updated_at, version, format, body, lease_holder, lease_until, trace)
         SELECT tenant, owner, id, context_id, state, updated_at, 1, $19, substring($17::bytea FROM body_at FOR body_len), holder, lease_until, trace
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
       SELECT ord, pg_notify($21, payload) FROM t ORDER BY ord`;

// Tasks and events, by the task's tenant, owner and id ($1-$3).

export const TASK_VERSION = `SELECT version FROM a2a_tasks WHERE tenant = $1 AND owner = $2 AND id = $3`;
export const GET_TASK = `SELECT version, format, body, trace FROM a2a_tasks WHERE tenant = $1 AND owner = $2 AND id = $3`;
/** The task's events after $4. */
export const TASK_EVENTS = `SELECT seq, format, body FROM a2a_events WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND seq > $4 ORDER BY seq`;
/** Event $4 of the task. */
export const TASK_EVENT = `SELECT format, body FROM a2a_events WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND seq = $4`;

/** A statement and its parameters. */
export interface Statement {
  readonly text: string;
  readonly params: unknown[];
}

/**
 * ListTasks: the count of the owner's tasks that pass the query's filters,
 * and one page of them, newest status first, one more than a page (to know
 * whether there is a next one).
 */
export function listTasks(query: TaskQuery): { readonly count: Statement; readonly page: Statement } {
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
  const pageParams = [...params];
  let page = filter;
  if (query.after) {
    pageParams.push(query.after.updatedAt, query.after.id);
    const a = pageParams.length - 1;
    page += ` AND (updated_at < $${a} OR (updated_at = $${a} AND id COLLATE "C" < $${a + 1}))`;
  }
  pageParams.push(query.pageSize + 1);
  return {
    count: { text: `SELECT count(*)::integer AS n FROM a2a_tasks WHERE ${filter}`, params },
    // The order names the column, not the float8 output of the same name, so that the indexes serve it.
    page: {
      text: `SELECT id, updated_at::float8 AS updated_at, format, body FROM a2a_tasks WHERE ${page}
         ORDER BY a2a_tasks.updated_at DESC, id COLLATE "C" DESC LIMIT $${pageParams.length}`,
      params: pageParams,
    },
  };
}

// Push configs, by their task's tenant, owner and id ($1-$3) and their id ($4).

/** The task's row, locked until the transaction ends. */
export const LOCK_TASK = `SELECT 1 FROM a2a_tasks WHERE tenant = $1 AND owner = $2 AND id = $3 FOR UPDATE`;
/** $5 body, $6 format. */
export const UPDATE_PUSH_CONFIG = `UPDATE a2a_push_configs SET body = $5, format = $6 WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND id = $4`;
export const COUNT_PUSH_CONFIGS = `SELECT count(*)::integer AS n FROM a2a_push_configs WHERE tenant = $1 AND owner = $2 AND task_id = $3`;
/** $5 format, $6 body. */
export const INSERT_PUSH_CONFIG = `INSERT INTO a2a_push_configs (tenant, owner, task_id, id, format, body) VALUES ($1, $2, $3, $4, $5, $6)`;
export const GET_PUSH_CONFIG = `SELECT format, body FROM a2a_push_configs WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND id = $4`;
export const LIST_PUSH_CONFIGS = `SELECT id, format, body FROM a2a_push_configs WHERE tenant = $1 AND owner = $2 AND task_id = $3 ORDER BY position`;
export const DELETE_PUSH_CONFIG = `DELETE FROM a2a_push_configs WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND id = $4`;
/** The config's pending deliveries. */
export const DELETE_CONFIG_DELIVERIES = `DELETE FROM a2a_push_outbox WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND config_id = $4`;

// Leases.

/** $1 the new end, $2 the instance, $3-$5 the tasks' tenants, owners and ids. */
export const RENEW_LEASES = `UPDATE a2a_tasks t SET lease_until = $1
         FROM unnest($3::text[], $4::text[], $5::text[]) AS k(tenant, owner, id)
         WHERE t.tenant = k.tenant AND t.owner = k.owner AND t.id = k.id AND t.lease_holder = $2`;

/** Tasks whose lease ended before $1, oldest lease first, at most $2. */
const expiredLeases = (
  after: boolean,
) => `SELECT tenant, owner, id, version, format, body, lease_holder, lease_until::text AS lease_until FROM a2a_tasks
           WHERE lease_holder IS NOT NULL AND lease_until < $1
             ${after ? "AND (lease_until, tenant, owner, id) > ($3::bigint, $4, $5, $6)" : ""}
           ORDER BY lease_until, tenant, owner, id LIMIT $2`;
export const EXPIRED_LEASES = expiredLeases(false);
/** EXPIRED_LEASES' next page: past the lease end, tenant, owner and id in $3-$6. */
export const EXPIRED_LEASES_AFTER = expiredLeases(true);

// The push outbox.

/** $4 config id, $5 seq, $6 when due. */
export const ENQUEUE_DELIVERY = `INSERT INTO a2a_push_outbox (tenant, owner, task_id, config_id, seq, next_at) VALUES ($1, $2, $3, $4, $5, $6)`;
/** $1 channel, $2 payload. */
export const NOTIFY = `SELECT pg_notify($1, $2)`;
/**
 * Claims for instance $1 until $2 the due deliveries at $3, at most $4, the
 * oldest delivery of each config only, so that a config's notifications go
 * out in order.
 */
export const CLAIM_DELIVERIES = `UPDATE a2a_push_outbox o SET claimed_by = $1, claimed_until = $2
           WHERE o.id IN (
             SELECT h.id FROM a2a_push_outbox h
             WHERE h.next_at <= $3 AND (h.claimed_until IS NULL OR h.claimed_until < $3)
               AND NOT EXISTS (
                 SELECT 1 FROM a2a_push_outbox e
                 WHERE e.tenant = h.tenant AND e.owner = h.owner AND e.task_id = h.task_id
                   AND e.config_id = h.config_id AND (e.seq < h.seq OR (e.seq = h.seq AND e.id < h.id)))
             ORDER BY h.id LIMIT $4 FOR UPDATE SKIP LOCKED)
           RETURNING o.id::text AS id, o.tenant, o.owner, o.task_id, o.config_id, o.seq, o.attempts,
             (SELECT t.trace FROM a2a_tasks t WHERE t.tenant = o.tenant AND t.owner = o.owner AND t.id = o.task_id) AS trace`;

export const OUTBOX_DEPTH = `SELECT count(*)::int AS n FROM a2a_push_outbox`;

export const DELETE_DELIVERY = `DELETE FROM a2a_push_outbox WHERE id = $1`;
/** $2 attempts, $3 when due again. */
export const RETRY_DELIVERY = `UPDATE a2a_push_outbox SET attempts = $2, next_at = $3, claimed_by = NULL, claimed_until = NULL WHERE id = $1`;
