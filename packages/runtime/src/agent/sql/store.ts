/**
 * The engine's store in SQL: the same statements on a PostgreSQL server
 * (`pg`) and on PGlite. A task's change, its event, the push deliveries it
 * causes and the NOTIFY that wakes the other instances commit in one
 * transaction; writes are versioned (a stale one is refused).
 *
 * This file wires the parts, each one concern: statements.ts (every SQL
 * text), task-writer.ts (creates and commits, alone and grouped: the write
 * queue), task-reads.ts (GetTask, ListTasks, a task's events),
 * notifications.ts (NOTIFY, LISTEN, the events kept for catch-up), leases.ts
 * (renew, expired, take over), push-configs.ts, push-outbox.ts; beside them
 * keys.ts, message-format.ts, encode.ts, faults.ts (what a database error
 * means), unavailable.ts (the connection's faults as
 * StoreUnavailableError), client.ts (pg and PGlite) and migrations.ts.
 */
import { consoleLogger } from "../../logger.js";
import type { AgentStore, SharedStore, StoreSchemas, TaskStore } from "../store.js";
import type { SqlClient } from "./client.js";
import type { SqlStoreContext } from "./context.js";
import { checkKeySize, short } from "./keys.js";
import { findExpired, renewLeases, takeOver } from "./leases.js";
import { checkSchema, migrate } from "./migrations.js";
import { EventNotifications } from "./notifications.js";
import { createPushConfigs } from "./push-configs.js";
import { sqlPing } from "./probe.js";
import { createPushOutbox } from "./push-outbox.js";
import { readEvents, readTask, readTaskPage } from "./task-reads.js";
import { TaskWriter } from "./task-writer.js";
import { withUnavailableFaults } from "./unavailable.js";

export { MAX_KEY_BYTES } from "./keys.js";
export { EVENTS_CHANNEL } from "./notifications.js";

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

/** A store on an open database; `close()` closes the database too. */
export async function createSqlStore(db: SqlClient, options: SqlStoreOptions = {}): Promise<AgentStore> {
  if (options.migrate) await migrate(db);
  else await checkSchema(db);
  /** The agent's messages, once the engine bound the store (`bind`). */
  let schemas: StoreSchemas | undefined;
  const ctx: SqlStoreContext = {
    db,
    instance: options.instance ?? crypto.randomUUID(),
    leaseMs: options.leaseMs ?? 30_000,
    onError: options.onError ?? ((e: unknown) => consoleLogger.error({ err: e }, "a2a-http store")),
    schemas: () => {
      if (!schemas) throw new Error("the SQL store is not bound to an agent yet (the engine binds it)");
      return schemas;
    },
  };
  const notes = new EventNotifications(ctx);
  const writer = new TaskWriter(ctx, notes, Math.max(1, options.writeStatements ?? 4));

  const tasks: TaskStore = {
    get: (key) => readTask(ctx, notes, key),
    async create(key, task, updatedAt, event, trace) {
      checkKeySize(`task ${short(key.id)}:`, key.tenant, key.owner, key.id, task.contextId);
      await writer.write(writer.prepare(true, key, task, 0, updatedAt, event, trace ?? null));
    },
    commit: (key, task, expected, updatedAt, event) => writer.write(writer.prepare(false, key, task, expected, updatedAt, event)),
    list: (query) => readTaskPage(ctx, query),
    events: (key, afterSeq) => readEvents(ctx, notes, key, afterSeq),
  };
  const pushConfigs = createPushConfigs(ctx, options.maxPushConfigsPerTask ?? 10);
  const shared: SharedStore = {
    instance: ctx.instance,
    leaseMs: ctx.leaseMs,
    watch: (onEvent, onMissed) => notes.watch(onEvent, onMissed),
    renew: (keys) => renewLeases(ctx, keys),
    expired: (limit) => findExpired(ctx, notes, limit),
    takeOver: (key, task, expected, updatedAt, event) => takeOver(writer, key, task, expected, updatedAt, event),
    outbox: createPushOutbox(ctx, pushConfigs),
  };

  // A connection fault reaches the engine as StoreUnavailableError: waited out, answered UNAVAILABLE (unavailable.ts).
  return withUnavailableFaults({
    tasks,
    pushConfigs,
    shared,
    bind(s) {
      if (schemas && schemas !== s && schemas.task.typeName !== s.task.typeName) throw new Error("a SQL store belongs to one agent");
      schemas = s;
    },
    // What an agent's readiness asks (agent/readiness.ts).
    ping: sqlPing(db),
    close: () => db.close(),
  });
}
