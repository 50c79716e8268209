/**
 * The last events of the tasks an instance catches up on, so that an event
 * another instance commits reaches this one's subscribers without a read of
 * the events table: the NOTIFY that wakes this instance carries the event's
 * bytes (store.ts), and `tasks.events` answers from here when it holds every
 * event after the reader's up to the last one it knows of.
 *
 * Why an answer from here is never short of what the store answered before:
 * a task is kept only from a read of its events in the database, which saw
 * every event committed until then; every later one reaches `note()` (another
 * instance's by its notification, in commit order; this instance's own by its
 * write; a version read by `get()`), so `known` is at least the last event any
 * caller of this store can have seen. Missing one event up to `known`, the
 * answer is read from the database. Notifications lost (the listener came
 * back) empty it all.
 */
import type { Message as ProtoMessage } from "@bufbuild/protobuf";
import type { StoredEvent } from "../store.js";

/** An event as decoded, or the base64 of its protobuf binary from a notification (decoded when first asked for). */
export type HeldEvent = ProtoMessage | string;

/** Most tasks kept; the one kept longest unread goes first. */
const MAX_TASKS = 512;
/** Most events kept per task: a reader further behind reads the database. */
const MAX_EVENTS = 32;

interface Kept {
  /** The last event this task is known to have. */
  known: number;
  readonly events: Map<number, HeldEvent>;
}

interface Reading extends Kept {
  /** False once its task was forgotten meanwhile: the read's answer is not kept. */
  valid: boolean;
}

function add(k: Kept, seq: number, event: HeldEvent | undefined): void {
  if (seq > k.known) k.known = seq;
  if (event === undefined || k.events.has(seq)) return;
  k.events.set(seq, event);
  if (k.events.size > MAX_EVENTS) {
    let min = Number.POSITIVE_INFINITY;
    for (const s of k.events.keys()) if (s < min) min = s;
    k.events.delete(min);
  }
}

export class RecentEvents {
  private readonly kept = new Map<string, Kept>();
  private readonly reads = new Map<string, Set<Reading>>();

  constructor(private readonly decode: (base64: string, seq: number) => ProtoMessage) {}

  /** Event `seq` of task `id` exists (committed); `event` when it is at hand. */
  note(id: string, seq: number, event?: HeldEvent): void {
    const k = this.kept.get(id);
    if (k) add(k, seq, event);
    const rs = this.reads.get(id);
    if (rs) for (const r of rs) add(r, seq, event);
  }

  /** What is known of task `id` may be wrong (a write's outcome is unknown): it is read again. */
  forget(id: string): void {
    this.kept.delete(id);
    const rs = this.reads.get(id);
    if (rs) for (const r of rs) r.valid = false;
  }

  /** Notifications may have been lost: nothing kept can be vouched for. */
  clear(): void {
    this.kept.clear();
    for (const rs of this.reads.values()) for (const r of rs) r.valid = false;
  }

  /** Task `id`'s events after `after`: from here when all are held, else from `load` (the database), then kept. */
  async events(id: string, after: number, load: () => Promise<StoredEvent[]>): Promise<StoredEvent[]> {
    const held = this.held(id, after);
    if (held) return held;
    return this.reading(id, after, load, (rows) => rows);
  }

  /**
   * A read of task `id`'s row (`load`), whose version starts what is kept of
   * it: every event up to it was committed before, so none this store handed
   * out is later, and the notifications after it follow.
   */
  version<R extends { readonly version: number } | undefined>(id: string, load: () => Promise<R>): Promise<R> {
    return this.reading(
      id,
      0,
      load,
      (r) => (r ? [] : undefined),
      (r) => r?.version ?? 0,
    );
  }

  /**
   * `load`, a read of the database, with what the notifications bring
   * meanwhile: what it found of task `id`'s events (`found`; undefined for
   * nothing to keep) and the last event it shows (`last`, at least `from`) are kept.
   */
  private async reading<R>(
    id: string,
    from: number,
    load: () => Promise<R>,
    found: (r: R) => readonly StoredEvent[] | undefined,
    last: (r: R) => number = () => from,
  ): Promise<R> {
    const r: Reading = { known: from, events: new Map(), valid: true };
    let rs = this.reads.get(id);
    if (!rs) this.reads.set(id, (rs = new Set()));
    rs.add(r);
    let got: R;
    try {
      got = await load();
    } finally {
      rs.delete(r);
      if (rs.size === 0) this.reads.delete(id);
    }
    const events = found(got);
    if (!r.valid || !events) return got;
    const k = this.kept.get(id) ?? { known: 0, events: new Map<number, HeldEvent>() };
    this.kept.delete(id);
    for (const e of events) add(k, e.seq, e.event);
    for (const [seq, e] of r.events) add(k, seq, e);
    add(k, Math.max(r.known, last(got)), undefined);
    this.keep(id, k);
    return got;
  }

  private keep(id: string, k: Kept): void {
    this.kept.set(id, k);
    if (this.kept.size > MAX_TASKS) this.kept.delete(this.kept.keys().next().value!);
  }

  private held(id: string, after: number): StoredEvent[] | undefined {
    const k = this.kept.get(id);
    if (!k || after > k.known || k.known - after > MAX_EVENTS) return undefined;
    const out: StoredEvent[] = [];
    for (let seq = after + 1; seq <= k.known; seq++) {
      let e = k.events.get(seq);
      if (e === undefined) return undefined;
      if (typeof e === "string") {
        try {
          e = this.decode(e, seq);
        } catch {
          // The database's copy says what is wrong with it.
          this.forget(id);
          return undefined;
        }
        k.events.set(seq, e);
      }
      out.push({ seq, event: e });
    }
    // Read last: kept the longest.
    this.kept.delete(id);
    this.keep(id, k);
    return out;
  }
}
