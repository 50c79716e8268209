/**
 * Notifications and catch-up: the NOTIFY every commit sends on
 * `a2a_events` (what its payload holds), LISTEN on it while the engine
 * watches, and the events kept from the notifications (recent-events.ts)
 * from which a subscriber's catch-up is answered without a read of the
 * events table. This instance's own writes and the versions it reads keep
 * what is kept true. Owns whether the engine watches and what is kept.
 */
import type { Message as ProtoMessage } from "@bufbuild/protobuf";
import type { StoredEvent, TaskKey } from "../store.js";
import type { SqlStoreContext } from "./context.js";
import { idOf } from "./keys.js";
import { FORMAT_PROTOBUF, decodeStored } from "./message-format.js";
import { RecentEvents } from "./recent-events.js";

export const EVENTS_CHANNEL = "a2a_events";
/** pg_notify refuses payloads of 8000 bytes or more (bytes, not characters); longer keys wake everyone instead. */
const MAX_NOTIFY_PAYLOAD = 7_900;
/**
 * Most bytes of an event that its notification carries (as base64), so that
 * the instances that follow its task need not read it back (recent-events.ts):
 * a status update's are a few hundred; bigger ones (artifacts) are read from
 * the events table, and every instance keeps less of them.
 */
export const MAX_NOTIFIED_EVENT = 3_000;

/**
 * What the NOTIFY of event `seq` of a task says: a JSON array of the
 * instance, the task's tenant, owner and id, the seq and, when small enough,
 * the event's bytes as base64; only the instance (wake everyone) when the
 * key alone is too long.
 */
export function notifyPayload(instance: string, key: TaskKey, seq: number, event?: Uint8Array): string {
  if (event && event.length <= MAX_NOTIFIED_EVENT) {
    const base64 = Buffer.from(event.buffer, event.byteOffset, event.byteLength).toString("base64");
    const p = JSON.stringify([instance, key.tenant, key.owner, key.id, seq, base64]);
    if (Buffer.byteLength(p, "utf8") < MAX_NOTIFY_PAYLOAD) return p;
  }
  const p = JSON.stringify([instance, key.tenant, key.owner, key.id, seq]);
  // Measured in UTF-8 bytes: a key of 3 000 "é" is 6 000 bytes, and a payload
  // pg_notify refuses would fail the whole commit.
  return Buffer.byteLength(p, "utf8") < MAX_NOTIFY_PAYLOAD ? p : JSON.stringify([instance]);
}

/** A write, as far as what its outcome tells of its task's events. */
export interface NotedWrite {
  /** The task's key as one string (keys.ts). */
  readonly id: string;
  /** The version it was written at: its event is the next. */
  readonly expected: number;
  /** The event's bytes. */
  readonly event: Uint8Array;
  /** The event itself. */
  readonly message: ProtoMessage;
}

/**
 * Events of other instances' commits, from their notifications, while the
 * engine watches (`shared.watch`): `tasks.events` answers from them, and
 * this instance's own writes and the versions it reads keep them true.
 */
export class EventNotifications {
  private readonly recent: RecentEvents;
  /** The engine's watches open: while there are none, nothing is kept. */
  private watchers = 0;

  constructor(private readonly ctx: SqlStoreContext) {
    this.recent = new RecentEvents((base64, seq) =>
      decodeStored<ProtoMessage>(ctx.schemas().event, { format: FORMAT_PROTOBUF, body: Buffer.from(base64, "base64") }, `event ${seq}`),
    );
  }

  /** LISTENs: `shared.watch` (store.ts). */
  async watch(onEvent: (key: TaskKey, seq: number) => void, onMissed: () => void): Promise<() => Promise<void>> {
    const { instance } = this.ctx;
    const missed = () => {
      this.recent.clear();
      onMissed();
    };
    const stop = await this.ctx.db.listen(
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
        this.recent.note(idOf(key), seq, typeof p[5] === "string" ? p[5] : undefined);
        onEvent(key, seq);
      },
      missed,
    );
    this.watchers++;
    let stopped = false;
    return async () => {
      if (!stopped) {
        stopped = true;
        if (--this.watchers === 0) this.recent.clear();
      }
      await stop();
    };
  }

  /** A version of the task read from the database: an event up to it exists. */
  seen(key: TaskKey, version: number): void {
    if (this.watchers > 0) this.recent.note(idOf(key), version);
  }

  /** What a write's outcome tells of the task's events: written (true), stale (false) or unknown (an error). */
  wrote(w: NotedWrite, result: boolean | Error): void {
    if (this.watchers === 0) return;
    if (result instanceof Error) this.recent.forget(w.id);
    // Kept as the notification would carry it: a big event (an artifact) is read back when asked for.
    else if (result) this.recent.note(w.id, w.expected + 1, w.event.length <= MAX_NOTIFIED_EVENT ? w.message : undefined);
  }

  /** The task's events after `afterSeq`: from those kept while watching and complete, else `load`ed from the table. */
  events(key: TaskKey, afterSeq: number, load: () => Promise<StoredEvent[]>): Promise<StoredEvent[]> {
    return this.watchers > 0 ? this.recent.events(idOf(key), afterSeq, load) : load();
  }

  /** A read of the task's row (`load`): while watching, a subscriber's first read, after which the events come from the notifications. */
  version<R extends { readonly version: number } | undefined>(key: TaskKey, load: () => Promise<R>): Promise<R> {
    return this.watchers > 0 ? this.recent.version(idOf(key), load) : load();
  }
}
