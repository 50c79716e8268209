/**
 * Leases: while an executor is at work on a task, its row names the
 * instance and a time until which the task is leased (the task writer sets
 * them with each write). Here the instance renews its leases, finds the
 * tasks whose lease ran out (their instance died or lost the database), and
 * ends one of those only while its lease is still expired.
 */
import type { Message as ProtoMessage } from "@bufbuild/protobuf";
import type { StoredTaskWithKey, TaskKey } from "../store.js";
import type { TaskLike } from "../types.js";
import type { SqlStoreContext } from "./context.js";
import { keyOfRow } from "./keys.js";
import { decodeStored } from "./message-format.js";
import type { EventNotifications } from "./notifications.js";
import { EXPIRED_LEASES, EXPIRED_LEASES_AFTER, RENEW_LEASES } from "./statements.js";
import type { TaskWriter } from "./task-writer.js";

/** Extends this instance's leases on these tasks (`shared.renew`). */
export async function renewLeases(ctx: SqlStoreContext, keys: readonly TaskKey[]): Promise<void> {
  if (keys.length === 0) return;
  await ctx.db.query(RENEW_LEASES, [
    Date.now() + ctx.leaseMs,
    ctx.instance,
    keys.map((k) => k.tenant),
    keys.map((k) => k.owner),
    keys.map((k) => k.id),
  ]);
}

/** Tasks whose lease ran out, oldest lease first, at most `limit` (`shared.expired`). */
export async function findExpired(ctx: SqlStoreContext, notes: EventNotifications, limit: number): Promise<StoredTaskWithKey[]> {
  const now = Date.now();
  const out: StoredTaskWithKey[] = [];
  // Rows it cannot read are reported and stepped over, page by page: were
  // they only left out of one query, `limit` of them at the head (the
  // oldest leases) would hide every other expired task from the sweep.
  let after: unknown[] | undefined;
  while (out.length < limit) {
    const asked = limit - out.length;
    const r = await ctx.db.query(after ? EXPIRED_LEASES_AFTER : EXPIRED_LEASES, [now, asked, ...(after ?? [])]);
    for (const row of r.rows) {
      try {
        const key = keyOfRow(row, "id");
        notes.seen(key, Number(row["version"]));
        out.push({
          key,
          holder: String(row["lease_holder"]),
          version: Number(row["version"]),
          task: decodeStored<TaskLike>(ctx.schemas().task, row, `task ${String(row["id"])}`),
        });
      } catch (e) {
        ctx.onError(e);
      }
    }
    const last = r.rows[r.rows.length - 1];
    if (!last || r.rows.length < asked) break;
    after = [last["lease_until"], last["tenant"], last["owner"], last["id"]];
  }
  return out;
}

/** Commits a task another instance left behind, only while its lease is still expired (`shared.takeOver`). */
export function takeOver(
  writer: TaskWriter,
  key: TaskKey,
  task: TaskLike,
  expected: number,
  updatedAt: number,
  event: ProtoMessage,
): Promise<void> {
  return writer.takeOver(writer.prepare(false, key, task, expected, updatedAt, event));
}
