/**
 * What a stream rpc (SendStreamingMessage, SubscribeToTask) answers: its
 * first events, then the task's events as they are published, each once and
 * in order, until one ends the stream (or the subscription ends). Written out
 * as an async iterator rather than as async generators (the rpc's around a
 * follower's), which cost several promises and ticks per event: an event the
 * subscriber has queued is answered in one settled promise.
 */
import type { Subscriber } from "./event-hub.js";
import { type Outcome, POLL, type Pollable, settleThenWake, outcomeValue, wakeLater } from "../iterator-poll.js";
import { WRITER_CLOSES, type WriterCloses } from "../writer-closes.js";
import type { StoredEvent } from "./store.js";

const DONE: IteratorResult<unknown> = Object.freeze({ value: undefined, done: true });

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

export class TaskStream implements AsyncIterableIterator<unknown>, WriterCloses, Pollable {
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
  /** The next() waiting for the subscriber's next event: how to answer it (see wait()). */
  private resolveWait: ((r: IteratorResult<unknown> | Promise<IteratorResult<unknown>>) => void) | undefined;
  private rejectWait: ((e: unknown) => void) | undefined;
  /** The subscriber that wait listens to, and the signal it watches, if any. */
  private waitingOn: Subscriber | undefined;
  private waitSignal: AbortSignal | undefined;
  /** What the subscriber calls when the wait may be over: made once, not per wait. */
  private readonly onWake = () => this.woken();
  /** The poller's callback while a poll waits for the subscriber (see [POLL]). */
  private pollWake: (() => void) | undefined;
  /** A poll that went through next() (the opening, a gap): it is in progress, or what it got, for the next poll. */
  private throughNext = false;
  private polled: Outcome<IteratorResult<unknown>> | undefined;

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
    if (this.opened && !this.gap && this.follow !== undefined) return this.wait(this.follow.sub);
    // The opening or a gap first, then next() again (busy until then: a next() called meanwhile waits for this one).
    const p = this.prepare().then(
      () => {
        this.busy = undefined;
        return this.next();
      },
      (e) => {
        this.busy = undefined;
        throw e;
      },
    );
    this.busy = p;
    return p;
  }

  /**
   * The subscriber has nothing queued: waits for it in one promise, which
   * woken() settles directly when the subscriber calls, rather than through
   * an async function awaiting a promise of the subscriber's: each waiting
   * stream held those objects (and a then() to clear `busy`) from one event
   * to the next, long enough for the GC to promote them, a cost per
   * subscriber per event that a CPU profile at ten thousand subscribers
   * showed as garbage collection.
   */
  private wait(sub: Subscriber): Promise<IteratorResult<unknown>> {
    const signal = this.watchSignal ? this.signal() : undefined;
    let ready: boolean | undefined;
    try {
      ready = this.readyOrFinish(sub, signal);
    } catch (e) {
      return Promise.reject(e);
    }
    if (ready === false) return Promise.resolve(DONE);
    // Queued meanwhile (now() took all there was): answer it.
    if (ready === true) return this.next();
    const p = new Promise<IteratorResult<unknown>>((resolve, reject) => {
      this.resolveWait = resolve;
      this.rejectWait = reject;
    });
    this.busy = p;
    this.listenTo(sub, signal);
    return p;
  }

  /**
   * The next result without a promise (iterator-poll.ts): what next() would
   * answer at once, else undefined, the subscriber told to call, and `wake`
   * called (in a microtask) once the wait is over; the next poll then takes
   * the event. The opening and a gap's catch-up from the store go through
   * next(), whose result the next poll answers.
   */
  [POLL](wake: () => void): IteratorResult<unknown> | undefined {
    const polled = this.polled;
    if (polled !== undefined) {
      this.polled = undefined;
      return outcomeValue(polled);
    }
    if (this.throughNext) return undefined;
    for (;;) {
      if (this.busy !== undefined) break;
      const now = this.now();
      if (now !== undefined) return now;
      const follow = this.follow;
      if (!this.opened || this.gap || follow === undefined) break;
      const signal = this.watchSignal ? this.signal() : undefined;
      const ready = this.readyOrFinish(follow.sub, signal);
      if (ready === false) return DONE;
      if (ready === true) continue;
      this.pollWake = wake;
      this.listenTo(follow.sub, signal);
      return undefined;
    }
    this.throughNext = true;
    // A callback made here, not one per stream: this path is rare.
    settleThenWake(
      this.next(),
      (outcome) => {
        this.throughNext = false;
        this.polled = outcome;
      },
      wake,
    );
    return undefined;
  }

  /** The subscriber called a poll's wait: the poller is woken if the wait is over (an event, the end, the cut-off). */
  private wokenPoll(sub: Subscriber, wake: () => void): void {
    let over = this.done;
    if (!over) {
      try {
        over = sub.readyNow(this.waitSignal) !== undefined;
      } catch {
        // The cut-off: the next poll throws it.
        over = true;
      }
    }
    if (!over) return;
    this.stopListening(sub);
    this.pollWake = undefined;
    // Not from within the publisher's hand-out: its subscribers' writers write after it returns.
    wakeLater(wake);
  }

  /** The subscriber called: settles the waiting next() if the wait is over (an event, the end, the cut-off). */
  private woken(): void {
    const wake = this.pollWake;
    if (wake !== undefined && this.waitingOn !== undefined) return this.wokenPoll(this.waitingOn, wake);
    const resolve = this.resolveWait;
    const reject = this.rejectWait;
    const sub = this.waitingOn;
    if (resolve === undefined || reject === undefined || sub === undefined) return;
    let ready: boolean | undefined;
    let error: unknown;
    try {
      ready = this.done ? false : sub.readyNow(this.waitSignal);
    } catch (e) {
      error = e;
      ready = false;
    }
    if (ready === undefined) return;
    this.stopListening(sub);
    this.resolveWait = undefined;
    this.rejectWait = undefined;
    this.busy = undefined;
    if (error !== undefined) {
      this.finish();
      reject(error);
    } else if (!ready) {
      this.finish();
      resolve(DONE);
    } else {
      // An event: answered as is. One seen already, or after a gap: next() goes on waiting, or fills the gap.
      const now = this.now();
      resolve(now ?? this.next());
    }
  }

  /**
   * What the subscriber has for a wait (readyNow): an event (true), nothing
   * yet (undefined), or the stream's end: over (false) or cut off (thrown),
   * the stream finished either way.
   */
  private readyOrFinish(sub: Subscriber, signal: AbortSignal | undefined): boolean | undefined {
    let ready: boolean | undefined;
    try {
      ready = sub.readyNow(signal);
    } catch (e) {
      this.finish();
      throw e;
    }
    if (ready === false) this.finish();
    return ready;
  }

  /** A wait (next()'s or a poll's) begins: the subscriber calls woken() until stopListening(). */
  private listenTo(sub: Subscriber, signal: AbortSignal | undefined): void {
    this.waitSignal = signal;
    this.waitingOn = sub;
    sub.listen(signal, this.onWake);
  }

  private stopListening(sub: Subscriber): void {
    sub.listen(undefined, undefined);
    this.waitingOn = undefined;
    this.waitSignal = undefined;
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

  /** What next() waits for before it can answer: the opening, or a gap's events from the store. */
  private async prepare(): Promise<void> {
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
        return;
      }
      const follow = this.follow;
      if (!this.gap || follow === undefined) return;
      this.gap = false;
      const events = await follow.events(this.last);
      if (this.done) return;
      for (const x of events) {
        if (x.seq <= this.last) continue;
        this.last = x.seq;
        this.queue.push(x.event);
        if (this.ends(x.event)) {
          this.follow = undefined;
          break;
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
