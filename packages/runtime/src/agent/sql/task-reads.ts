/**
 * Reading tasks: one task with its version, a ListTasks page, and a task's
 * events (while the engine watches, from those the notifications brought
 * when they are complete: notifications.ts).
 */
import type { Message as ProtoMessage } from "@bufbuild/protobuf";
import type { StoredEvent, StoredTask, TaskKey, TaskPage, TaskQuery } from "../store.js";
import type { TaskLike } from "../types.js";
import type { SqlStoreContext } from "./context.js";
import { decodeStored } from "./message-format.js";
import type { EventNotifications } from "./notifications.js";
import { GET_TASK, TASK_EVENTS, listTasks } from "./statements.js";

/** The task and its version (`tasks.get`). */
export function readTask(ctx: SqlStoreContext, notes: EventNotifications, key: TaskKey): Promise<StoredTask | undefined> {
  const load = async () => {
    const r = await ctx.db.query(GET_TASK, [key.tenant, key.owner, key.id]);
    const row = r.rows[0];
    if (!row) return undefined;
    const task = decodeStored<TaskLike>(ctx.schemas().task, row, `task ${key.id}`);
    const trace = row["trace"];
    return typeof trace === "string" ? { task, version: Number(row["version"]), trace } : { task, version: Number(row["version"]) };
  };
  // A subscriber's first read: the events after it come from the notifications.
  return notes.version(key, load);
}

/** One page of the owner's tasks (`tasks.list`); a row that cannot be read is reported and left out. */
export async function readTaskPage(ctx: SqlStoreContext, query: TaskQuery): Promise<TaskPage> {
  const { count, page } = listTasks(query);
  const total = Number((await ctx.db.query(count.text, count.params)).rows[0]!["n"]);
  const r = await ctx.db.query(page.text, page.params);
  const rows = r.rows.slice(0, query.pageSize);
  const out: TaskLike[] = [];
  for (const row of rows) {
    try {
      out.push(decodeStored<TaskLike>(ctx.schemas().task, row, `task ${String(row["id"])}`));
    } catch (e) {
      // One unreadable row must not take the whole page down; its GetTask says why.
      ctx.onError(e);
    }
  }
  const last = rows[rows.length - 1];
  return {
    tasks: out,
    total,
    next: last && r.rows.length > query.pageSize ? { updatedAt: Number(last["updated_at"]), id: String(last["id"]) } : undefined,
  };
}

/** The task's events after `afterSeq` (`tasks.events`). */
export function readEvents(ctx: SqlStoreContext, notes: EventNotifications, key: TaskKey, afterSeq: number): Promise<StoredEvent[]> {
  const load = async () => {
    const r = await ctx.db.query(TASK_EVENTS, [key.tenant, key.owner, key.id, afterSeq]);
    return r.rows.map(
      (row): StoredEvent => ({
        seq: Number(row["seq"]),
        event: decodeStored<ProtoMessage>(ctx.schemas().event, row, `event ${String(row["seq"])} of task ${key.id}`),
      }),
    );
  };
  return notes.events(key, afterSeq, load);
}
