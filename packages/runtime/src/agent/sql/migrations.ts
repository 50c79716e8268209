/**
 * The SQL store's schema: forward-only migrations, numbered from 1, each
 * applied in its own transaction and recorded in `a2a_schema`. A store checks
 * the recorded version when it opens and refuses a schema newer than
 * {@link SCHEMA_VERSION} (written by a newer a2a-http), so an old instance
 * never writes rows it does not understand.
 *
 * Times are milliseconds since the epoch (bigint); tasks, events and push
 * configs are protobuf binary (bytea) of the user's own generated messages,
 * with a `format` column so that a later encoding can be told apart.
 *
 * Keys and ids compare byte by byte (COLLATE "C"), whatever the database's
 * locale: ListTasks orders ids that way, so its indexes serve the order, and
 * every index write then compares bytes instead of calling the locale's
 * strcoll (on a C.UTF-8 database that took a task's commit from about 100 to
 * over 250 µs of the server's CPU as the tables grew: bench/store.mjs).
 */
import type { SqlClient, SqlQueryable } from "./client.js";

const MIGRATIONS: readonly string[] = [
  // 1: tasks, their events, push configs, the push outbox.
  `
  CREATE TABLE a2a_tasks (
    tenant text COLLATE "C" NOT NULL,
    owner text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    context_id text COLLATE "C" NOT NULL,
    state integer NOT NULL,
    updated_at bigint NOT NULL,
    version integer NOT NULL,
    format smallint NOT NULL,
    body bytea NOT NULL,
    -- The instance whose executor runs the task, and until when it promised to be alive.
    lease_holder text,
    lease_until bigint,
    PRIMARY KEY (tenant, owner, id)
  );
  -- ListTasks: newest status first, then id; optionally one context or one state.
  CREATE INDEX a2a_tasks_by_time ON a2a_tasks (tenant, owner, updated_at DESC, id DESC);
  CREATE INDEX a2a_tasks_by_context ON a2a_tasks (tenant, owner, context_id, updated_at DESC, id DESC);
  CREATE INDEX a2a_tasks_by_state ON a2a_tasks (tenant, owner, state, updated_at DESC, id DESC);
  CREATE INDEX a2a_tasks_leases ON a2a_tasks (lease_until) WHERE lease_holder IS NOT NULL;

  CREATE TABLE a2a_events (
    tenant text COLLATE "C" NOT NULL,
    owner text COLLATE "C" NOT NULL,
    task_id text COLLATE "C" NOT NULL,
    seq integer NOT NULL,
    format smallint NOT NULL,
    body bytea NOT NULL,
    PRIMARY KEY (tenant, owner, task_id, seq)
  );

  CREATE TABLE a2a_push_configs (
    tenant text COLLATE "C" NOT NULL,
    owner text COLLATE "C" NOT NULL,
    task_id text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    position bigserial,
    format smallint NOT NULL,
    body bytea NOT NULL,
    PRIMARY KEY (tenant, owner, task_id, id)
  );

  -- One row per (event, push config) still to deliver; sent in seq order per config.
  CREATE TABLE a2a_push_outbox (
    id bigserial PRIMARY KEY,
    tenant text COLLATE "C" NOT NULL,
    owner text COLLATE "C" NOT NULL,
    task_id text COLLATE "C" NOT NULL,
    config_id text COLLATE "C" NOT NULL,
    seq integer NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    next_at bigint NOT NULL,
    claimed_by text,
    claimed_until bigint
  );
  CREATE INDEX a2a_push_outbox_due ON a2a_push_outbox (next_at);
  CREATE INDEX a2a_push_outbox_per_config ON a2a_push_outbox (tenant, owner, task_id, config_id, seq);
  `,
  // 2: the trace context (W3C traceparent and tracestate, as JSON) of the request that created a task, written
  // with telemetry on only, at the create, and never answered: what another instance's spans of the task link to
  // or continue (its subscribers, a cancel, the outbox's deliveries).
  `ALTER TABLE a2a_tasks ADD COLUMN trace text;`,
];

/** The schema version this a2a-http writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Thrown when the database holds a schema newer than this a2a-http knows. */
export class SchemaTooNewError extends Error {
  constructor(readonly found: number) {
    super(
      `the database's a2a-http schema is at version ${found}, newer than this a2a-http knows (${SCHEMA_VERSION}): ` +
        `upgrade a2a-http, or point the agent at another database`,
    );
    this.name = "SchemaTooNewError";
  }
}

/** Thrown when the schema is older than this a2a-http and migrating was not asked for. */
export class SchemaOutdatedError extends Error {
  constructor(readonly found: number) {
    super(
      `the database's a2a-http schema is at version ${found}, this a2a-http needs ${SCHEMA_VERSION}: ` +
        `run \`a2a-http migrate --url <the same store>\`, or open the store with migrate: true`,
    );
    this.name = "SchemaOutdatedError";
  }
}

async function currentVersion(db: SqlQueryable): Promise<number> {
  const exists = await db.query(`SELECT to_regclass('a2a_schema') IS NOT NULL AS present`);
  if (!exists.rows[0]?.["present"]) return 0;
  const r = await db.query(`SELECT coalesce(max(version), 0)::integer AS v FROM a2a_schema`);
  return Number(r.rows[0]?.["v"] ?? 0);
}

/**
 * Applies the migrations the database lacks; returns the versions applied.
 * Safe to run from several instances at once: a transaction-scoped advisory
 * lock lets one migrate while the others wait, then find nothing to do.
 */
export async function migrate(db: SqlClient): Promise<number[]> {
  const applied: number[] = [];
  await db.transaction(async (tx) => {
    // Any constant works: it only has to be the same for every instance of a2a-http.
    // Without the statement timeout (here and in the client: exec): DDL may be slow on big tables,
    // and another instance may be migrating meanwhile.
    await tx.exec(`SET LOCAL statement_timeout = 0; SELECT pg_advisory_xact_lock(4242001)`);
    await tx.query(`CREATE TABLE IF NOT EXISTS a2a_schema (version integer PRIMARY KEY, applied_at bigint NOT NULL)`);
    const from = await currentVersion(tx);
    if (from > SCHEMA_VERSION) throw new SchemaTooNewError(from);
    for (let v = from + 1; v <= SCHEMA_VERSION; v++) {
      await tx.exec(MIGRATIONS[v - 1]!);
      await tx.query(`INSERT INTO a2a_schema (version, applied_at) VALUES ($1, $2)`, [v, Date.now()]);
      applied.push(v);
    }
  });
  return applied;
}

/** Throws unless the database is at exactly {@link SCHEMA_VERSION}. */
export async function checkSchema(db: SqlQueryable): Promise<void> {
  const v = await currentVersion(db);
  if (v > SCHEMA_VERSION) throw new SchemaTooNewError(v);
  if (v < SCHEMA_VERSION) throw new SchemaOutdatedError(v);
}
