/**
 * The task writer: a task's create or commit with its event, its push
 * deliveries and its NOTIFY in one statement, versioned (a stale write is
 * refused with StaleVersionError), and the group commit that sends the
 * writes arriving together in one statement. Owns the write queue.
 */
import type { Message as ProtoMessage } from "@bufbuild/protobuf";
import { StaleVersionError, type TaskKey } from "../store.js";
import { endsTask } from "../task-state.js";
import type { TaskLike } from "../types.js";
import type { SqlQueryable } from "./client.js";
import type { SqlStoreContext } from "./context.js";
import { encodeReusing } from "./encode.js";
import { isServerError } from "./faults.js";
import { idOf } from "./keys.js";
import { FORMAT_PROTOBUF } from "./message-format.js";
import { EVENTS_CHANNEL, type EventNotifications, notifyPayload } from "./notifications.js";
import { CREATE_TASK, TAKE_OVER_TASK, TASK_VERSION, UPDATE_TASK, WRITE_TASKS } from "./statements.js";

/**
 * Most tasks' writes in one statement. Small enough that the client encodes
 * and sends the next statement while the server runs the last one: with 16
 * tasks in flight, batches of 8 read 1.4-1.5x the SDK's store and batches of
 * 64 (all of them in one) 1.0-1.3x, the client and the server taking turns.
 */
const MAX_BATCH = 8;

/** A create (`expected` 0) or a commit, encoded, ready for its statement. */
export interface TaskWrite {
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
  /** The event itself, for the events this instance keeps (notifications.ts). */
  readonly message: ProtoMessage;
  readonly payload: string;
  readonly now: number;
  /** A create's trace context (telemetry on), kept in the task's row; null otherwise. */
  readonly trace: string | null;
}

/** A write waiting in the queue for its statement. */
interface Queued extends TaskWrite {
  /** Settles the caller's promise: true when the row was written, false when it was not (stale), or the error. */
  done(written: boolean | Error): void;
}

export class TaskWriter {
  /**
   * Group commit: a write goes out at once when fewer than `maxInFlight`
   * statements are on their way; the writes that arrive meanwhile wait and
   * go together in the next statement, so that under load one round trip
   * serves the tasks in flight (bench/store.mjs) and alone a write waits for
   * nothing. A statement takes one write per task (two of one task would read
   * the same snapshot, and the second could only be refused); the second
   * waits for the next statement, so a task's writes keep their order.
   */
  private readonly queue: Queued[] = [];
  private inFlight = 0;
  private scheduled = false;
  /** The tasks whose write is on its way: their next one waits for it. */
  private readonly busy = new Set<string>();
  private readonly flushLater = () => this.flush();

  constructor(
    private readonly ctx: SqlStoreContext,
    private readonly notes: EventNotifications,
    /** Most write statements on their way at once (the `writeStatements` option). */
    private readonly maxInFlight: number,
  ) {}

  /**
   * A create (`create`, `expected` 0) or a commit of `task` at version
   * `expected` with its event, encoded. While an executor is at work on the
   * task (its turn has not ended), this instance takes its lease.
   */
  prepare(
    create: boolean,
    key: TaskKey,
    task: TaskLike,
    expected: number,
    updatedAt: number,
    event: ProtoMessage,
    trace: string | null = null,
  ): TaskWrite {
    const { instance, leaseMs } = this.ctx;
    const schemas = this.ctx.schemas();
    const now = Date.now();
    const holder = endsTask(task) ? null : instance;
    // Tasks and events reuse the bytes of the messages they share with the last ones written (encode.ts).
    const bytes = encodeReusing(schemas.event, event);
    return {
      create,
      key,
      id: idOf(key),
      contextId: task.contextId,
      state: task.status?.state ?? 0,
      updatedAt,
      expected,
      body: encodeReusing(schemas.task, task),
      holder,
      leaseUntil: holder ? now + leaseMs : null,
      event: bytes,
      message: event,
      payload: notifyPayload(instance, key, expected + 1, bytes),
      now,
      trace,
    };
  }

  /** Writes `w` through the group commit; throws StaleVersionError when the task was not at `expected`. */
  async write(w: TaskWrite): Promise<void> {
    const result = await new Promise<boolean | Error>((resolve) => {
      this.queue.push({ ...w, done: resolve });
      // An idle store sends at once: one write at a time waits for nothing.
      if (this.inFlight === 0 && this.queue.length === 1 && !this.scheduled) this.flush();
      else this.schedule();
    });
    this.notes.wrote(w, result);
    if (result instanceof Error) throw result;
    if (!result) throw new StaleVersionError(w.key, w.expected, await this.versionOf(this.ctx.db, w.key));
  }

  /**
   * Writes a commit alone, past the group commit, only while the task's lease
   * is expired (`shared.takeOver`): rare, and its condition is its own.
   */
  async takeOver(w: TaskWrite): Promise<void> {
    const written = await this.writeOne(w, true).catch((e: Error) => e);
    this.notes.wrote(w, written);
    if (written instanceof Error) throw written;
    if (!written) throw new StaleVersionError(w.key, w.expected, await this.versionOf(this.ctx.db, w.key));
  }

  /** The task's version in the database (0: none), which also tells the kept events that its events up to it exist. */
  private async versionOf(tx: SqlQueryable, key: TaskKey): Promise<number> {
    const r = await tx.query(TASK_VERSION, [key.tenant, key.owner, key.id]);
    const version = r.rows.length ? Number(r.rows[0]!["version"]) : 0;
    this.notes.seen(key, version);
    return version;
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    // After the current turn of the event loop, so that the writes its callbacks make go together.
    setImmediate(this.flushLater);
  }

  private flush(): void {
    this.scheduled = false;
    const queue = this.queue;
    while (this.inFlight < this.maxInFlight && queue.length > 0) {
      const batch: Queued[] = [];
      let rest = 0;
      for (const w of queue) {
        if (batch.length < MAX_BATCH && !this.busy.has(w.id)) {
          this.busy.add(w.id);
          batch.push(w);
        } else {
          queue[rest++] = w;
        }
      }
      queue.length = rest;
      if (batch.length === 0) return;
      this.inFlight++;
      void this.send(batch).then((outcomes) => {
        // Free the slot and the tasks before their callers go on, so that a caller's next write finds the store idle.
        this.inFlight--;
        for (const w of batch) this.busy.delete(w.id);
        for (const [i, w] of batch.entries()) w.done(outcomes[i]!);
        this.schedule();
      });
    }
  }

  /** Each write's outcome: written, refused (stale) or its error; never throws. */
  private async send(batch: Queued[]): Promise<(boolean | Error)[]> {
    const alone = (w: Queued) => this.writeOne(w).catch((e: Error) => e);
    if (batch.length === 1) return [await alone(batch[0]!)];
    try {
      const written = await this.writeMany(batch);
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

  /** One write alone: one statement that answers one row when it was written, none when stale. */
  private async writeOne(w: TaskWrite, onlyExpiredLease = false): Promise<boolean> {
    const after = [w.expected + 1, FORMAT_PROTOBUF, w.event, w.now, EVENTS_CHANNEL, w.payload];
    const { key } = w;
    const r = w.create
      ? await this.ctx.db.query(CREATE_TASK, [
          key.tenant,
          key.owner,
          key.id,
          w.contextId,
          w.state,
          w.updatedAt,
          FORMAT_PROTOBUF,
          w.body,
          w.holder,
          w.leaseUntil,
          ...after,
          w.trace,
        ])
      : await this.ctx.db.query(onlyExpiredLease ? TAKE_OVER_TASK : UPDATE_TASK, [
          key.tenant,
          key.owner,
          key.id,
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
        ]);
    return r.rows.length > 0;
  }

  /**
   * Several tasks' writes in one statement (WRITE_TASKS), each still checked
   * alone. Answers the positions of the writes that were written. One
   * statement is one transaction: one round trip, one plan execution and one
   * WAL flush for all of them.
   */
  private async writeMany(ws: readonly TaskWrite[]): Promise<Set<number>> {
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
    const r = await this.ctx.db.query(WRITE_TASKS, [
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
      ws.map((w) => w.trace),
    ]);
    return new Set(r.rows.map((row) => Number(row["ord"])));
  }
}
