/**
 * The push outbox: deliveries the task writer adds with each commit (one per
 * push config of the task), and those added for a config stored after its
 * event; claimed by any instance, the oldest of each config only, then
 * removed once sent or given up, or put back for a later attempt.
 */
import type { Message as ProtoMessage } from "@bufbuild/protobuf";
import { StoreUnavailableError, type OutboxItem, type PushConfigStore, type PushOutbox } from "../store.js";
import type { SqlStoreContext } from "./context.js";
import { keyOfRow } from "./keys.js";
import { decodeStored } from "./message-format.js";
import { EVENTS_CHANNEL, notifyPayload } from "./notifications.js";
import { storeFault } from "./unavailable.js";
import { CLAIM_DELIVERIES, DELETE_DELIVERY, ENQUEUE_DELIVERY, NOTIFY, OUTBOX_DEPTH, RETRY_DELIVERY, TASK_EVENT } from "./statements.js";

/** How soon a delivery the database could not read for a moment is due again. */
const RELEASE_MS = 1_000;

export function createPushOutbox(ctx: SqlStoreContext, pushConfigs: PushConfigStore): PushOutbox {
  const { db, instance } = ctx;
  const outbox: PushOutbox = {
    async enqueue(key, configId, seq) {
      await db.query(ENQUEUE_DELIVERY, [key.tenant, key.owner, key.id, configId, seq, Date.now()]);
      await db.query(NOTIFY, [EVENTS_CHANNEL, notifyPayload(instance, key, seq)]);
    },

    async claim(limit, claimMs) {
      const now = Date.now();
      const r = await db.query(CLAIM_DELIVERIES, [instance, now + claimMs, now, limit]);
      const items: OutboxItem[] = [];
      // RETURNING follows no order: hand them out oldest first.
      const rows = [...r.rows].sort((a, b) => Number(a["id"]) - Number(b["id"]));
      for (const [i, row] of rows.entries()) {
        const key = keyOfRow(row);
        const id = String(row["id"]);
        try {
          const config = await pushConfigs.get(key, String(row["config_id"]));
          const ev = await db.query(TASK_EVENT, [key.tenant, key.owner, key.id, row["seq"]]);
          if (!config || !ev.rows[0]) {
            // The config was deleted, or the task is gone: nothing to send.
            await outbox.done(id);
            continue;
          }
          const event = decodeStored<ProtoMessage>(ctx.schemas().event, ev.rows[0], `event ${String(row["seq"])} of task ${key.id}`);
          // The task's kept trace context (telemetry on at its create): the attempt continues it.
          const trace = row["trace"];
          items.push({ id, key, config, event, attempts: Number(row["attempts"]), ...(typeof trace === "string" ? { trace } : {}) });
        } catch (e) {
          // The database away for a moment: this delivery and the rest stay, claimed again once their claims lapse.
          if (storeFault(e) instanceof StoreUnavailableError) {
            await release(rows.slice(i));
            break;
          }
          // It cannot be read at all (an event this version cannot decode): it is dropped, and said so.
          ctx.onError(e);
          await outbox.done(id);
        }
      }
      return items;
    },

    async done(id) {
      await db.query(DELETE_DELIVERY, [id]);
    },

    async retry(id, attempts, nextAt) {
      await db.query(RETRY_DELIVERY, [id, attempts, Math.floor(nextAt)]);
    },

    async depth() {
      const r = await db.query(OUTBOX_DEPTH, []);
      return Number(r.rows[0]?.["n"] ?? 0);
    },
  };
  /**
   * Hands claimed rows back, due in a second: a claim lasts longer than a
   * webhook's attempt, which a database busy for a moment need not cost.
   * Best effort: should the database still not answer, the claims lapse.
   */
  async function release(rows: readonly Record<string, unknown>[]): Promise<void> {
    try {
      for (const row of rows) await outbox.retry(String(row["id"]), Number(row["attempts"]), Date.now() + RELEASE_MS);
    } catch {
      // Claimed again once the claims lapse.
    }
  }
  return outbox;
}
