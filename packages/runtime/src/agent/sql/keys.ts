/**
 * A task's key in the SQL store: as one string (a write queue's and the
 * kept events' name for a task), read back from a row, and the size the
 * tables' indexes take.
 */
import { Code, RpcError } from "../../errors.js";
import type { TaskKey } from "../store.js";

/**
 * Most UTF-8 bytes of the text in one index entry (tenant, owner, task id and
 * context id, or a push config's id): a btree entry holds at most 2 704 bytes,
 * and past that PostgreSQL fails the write with "index row size exceeds btree
 * maximum", which a client would only see as an internal error.
 */
export const MAX_KEY_BYTES = 2_048;

/** A task's tenant, owner and id in one string. */
export const idOf = (key: TaskKey): string => `${key.tenant}\u0000${key.owner}\u0000${key.id}`;

/** The key of the task a row names (its id in column `id`, default `task_id`). */
export const keyOfRow = (row: Record<string, unknown>, id = "task_id"): TaskKey => ({
  tenant: String(row["tenant"]),
  owner: String(row["owner"]),
  id: String(row[id]),
});

/** An id as it may be shown in a message. */
export const short = (id: string): string => (id.length > 64 ? `${id.slice(0, 64)}…` : id);

/** Refuses, before any write, keys the tables' indexes could not take. */
export function checkKeySize(what: string, ...parts: string[]): void {
  const bytes = parts.reduce((n, p) => n + Buffer.byteLength(p, "utf8"), 0);
  if (bytes > MAX_KEY_BYTES) {
    throw new RpcError(
      Code.INVALID_ARGUMENT,
      `${what} too long for the SQL store, ${bytes} bytes of tenant, owner and ids, at most ${MAX_KEY_BYTES}`,
    );
  }
}
