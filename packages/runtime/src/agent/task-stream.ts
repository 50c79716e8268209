/**
 * What a stream rpc (SendStreamingMessage, SubscribeToTask) answers: its
 * first events, then the task's events as they are published, each once and
 * in order, until one ends the stream (or the subscription ends). Written out
 * as an async iterator rather than as async generators (the rpc's around a
 * follower's), which cost several promises and ticks per event: an event the
 * subscriber has queued is answered in one settled promise.
 */
import type { Subscriber } from "./event-hub.js";
import { WRITER_CLOSES, type WriterCloses } from "../writer-closes.js";
import type { StoredEvent } from "./store.js";

/** Where a stream goes on after its first events. */
export interface Follow {
  readonly sub: Subscriber;
  /** The sequence number of the last event the first events stand for. */
  readonly afterSeq: number;
  /** The task's stored events after `afterSeq`: what fills a gap (a notification from another instance lost or late). */
  events(afterSeq: number): Promise<readonly StoredEvent[]>;
}

/** What a stream starts with. */
export interface Opened {
  readonly first: readonly unknown[];
  /** Unless the first events end the stream: where it follows the task from. */
  readonly follow: Follow | undefined;
  /** The subscription, closed when the stream ends, followed or not. */
  readonly sub: Subscriber | undefined;
}

export class TaskStream implements AsyncIterableIterator<unknown>, WriterCloses {
  private opened = false;
  private done = false;
  /** What is answered before anything more is taken from the subscriber. */
  private readonly queue: unknown[] = [];
  private follow: Follow | undefined;
  private sub: Subscriber | undefined;
  private last = 0;
  /** An event after a gap, taken from the subscriber: the store's events are read instead. */
  private gap = false;
  /** A next() that had to wait: one called meanwhile waits for it, as an async generator's does. */
  private busy: Promise<IteratorResult<unknown>> | undefined;
  /** Whether a wait listens to the request's signal: not once the writer said it calls return() when its client leaves. */
  private watchSignal = true;

  /**
   * `open` runs on the first next(), as a generator's body would (its errors
   * are that next()'s); `ends` says whether an event is the stream's last;
   * `signal` (the client left) ends a stream that waits for an event.
   */
  constructor(
    private readonly open: () => Promise<Opened>,
    private readonly ends: (event: StoredEvent["event"]) => boolean,
    private readonly signal: () => AbortSignal,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** The writer calls return() when its client leaves (writer-closes.ts): the request's signal need not be watched (nor made) for that. */
  [WRITER_CLOSES](): void {
    this.watchSignal = false;
  }

  next(): Promise<IteratorResult<unknown>> {
    if (this.busy) {
      const busy = this.busy;
      return busy.then(
        () => this.next(),
        () => this.next(),
      );
    }
    const now = this.now();
    if (now !== undefined) return Promise.resolve(now);
    const p = this.step();
    this.busy = p;
    const clear = () => {
      if (this.busy === p) this.busy = undefined;
    };
    p.then(clear, clear);
    return p;
  }

  return(value?: unknown): Promise<IteratorResult<unknown>> {
    this.finish();
    return Promise.resolve({ value, done: true });
  }

  throw(error?: unknown): Promise<IteratorResult<unknown>> {
    this.finish();
    return Promise.reject(error);
  }

  /** The next result if it is at hand (an event given or queued, or the end); undefined when it must be waited for. */
  private now(): IteratorResult<unknown> | undefined {
    if (this.done) return { value: undefined, done: true };
    if (!this.opened || this.gap) return undefined;
    if (this.queue.length > 0) return { value: this.queue.shift(), done: false };
    const follow = this.follow;
    if (follow === undefined) {
      this.finish();
      return { value: undefined, done: true };
    }
    for (let e = follow.sub.take(); e !== undefined; e = follow.sub.take()) {
      // Seen already (published here and caught up from the store).
      if (e.seq <= this.last) continue;
      if (e.seq !== this.last + 1) {
        this.gap = true;
        return undefined;
      }
      this.last = e.seq;
      if (this.ends(e.event)) this.follow = undefined;
      return { value: e.event, done: false };
    }
    return undefined;
  }

  /** What next() waits for: the opening, a gap's events from the store, the subscriber's next event. */
  private async step(): Promise<IteratorResult<unknown>> {
    try {
      if (!this.opened) {
        this.opened = true;
        const o = await this.open();
        this.sub = o.sub;
        this.follow = o.follow;
        this.last = o.follow?.afterSeq ?? 0;
        this.queue.push(...o.first);
        // return() while it opened.
        if (this.done) this.finish();
      }
      for (;;) {
        const now = this.now();
        if (now !== undefined) return now;
        const follow = this.follow!;
        if (this.gap) {
          this.gap = false;
          const events = await follow.events(this.last);
          if (this.done) return { value: undefined, done: true };
          for (const x of events) {
            if (x.seq <= this.last) continue;
            this.last = x.seq;
            this.queue.push(x.event);
            if (this.ends(x.event)) {
              this.follow = undefined;
              break;
            }
          }
          continue;
        }
        if (!(await follow.sub.ready(this.watchSignal ? this.signal() : undefined))) {
          this.finish();
          return { value: undefined, done: true };
        }
      }
    } catch (e) {
      this.finish();
      throw e;
    }
  }

  private finish(): void {
    this.done = true;
    this.follow = undefined;
    this.queue.length = 0;
    this.sub?.close();
  }
}
