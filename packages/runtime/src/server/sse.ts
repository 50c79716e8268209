// A server stream as text/event-stream, for every binding that answers with
// SSE (HTTP+JSON, JSON-RPC): the handler's first message decides between a
// plain error answer and a stream; after it, messages become events, an error
// a final event, and a quiet stream gets comment keep-alives.
import { isPollable, type Outcome, POLL, type Pollable, settleThenWake, outcomeValue } from "../iterator-poll.js";
import { tellWriterCloses } from "../writer-closes.js";
import { ON_WORKERS, sharedTicker, type Ticked, type Ticker } from "./ticker.js";

/** The headers of an SSE answer (no caching, no proxy buffering). */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  "x-accel-buffering": "no",
};

/**
 * Default interval of SSE keep-alive comments: 5 s, under the shortest idle
 * timeout of the hosts we serve on (Bun.serve closes a connection silent for
 * 10 s) and of common proxies. On Cloudflare Workers 0.5 s: a Worker learns
 * that its client went away only when it next writes (docs/deployment.md),
 * and its handler should stop working for nobody within a second.
 */
export const DEFAULT_KEEP_ALIVE_MS = ON_WORKERS ? 500 : 5_000;

/** An SSE comment line: clients skip it, proxies see traffic on an idle stream. */
const KEEP_ALIVE_CHUNK = ": keep-alive\n\n";

/**
 * Ticks per keep-alive period. A stream that has been waiting for its
 * handler for this many ticks gets a comment: between 3/4 of the period and
 * the period after its last chunk, never later (the idle timeouts it is
 * under), and every period while it stays quiet.
 */
const TICKS_PER_PERIOD = 4;

/** The comment as bytes, made once: written to a quiet stream, it costs nothing but the write. */
export const KEEP_ALIVE_BYTES: Uint8Array = new TextEncoder().encode(KEEP_ALIVE_CHUNK);

/**
 * Starts the stream of a server-streaming handler's iterable: waits for its
 * first message and encodes it. Rejects with the handler's error (or the
 * encoding's) when that fails, for the caller to answer as a plain error;
 * the iterator is then closed unless it ended by throwing. How a binding
 * writes its events: `encode` gives a message's whole event text (ending in
 * a blank line) and may throw; `errorEvent` gives the last event for an
 * error after the first message and must not throw.
 */
export async function startSseStream(
  iterable: AsyncIterable<unknown>,
  encode: (value: unknown) => string,
  errorEvent: (error: unknown) => string,
  keepAliveMs: number,
): Promise<SseStream> {
  const iterator = iterable[Symbol.asyncIterator]();
  const first = await iterator.next();
  let firstChunk: string | undefined;
  if (!first.done) {
    try {
      firstChunk = encode(first.value);
    } catch (e) {
      closeIterator(iterator);
      throw e;
    }
  }
  return new SseStream(iterator, firstChunk, encode, errorEvent, keepAliveMs);
}

/**
 * The body of an SSE answer: `next()` gives the next chunk of text to write
 * (`undefined` at the end; an error becomes a final error event), `close()`
 * ends it early and calls the handler iterator's `return()`.
 */
export class SseStream implements Ticked {
  private pending: string | undefined;
  /** The iterator finished by itself (done, or threw): no `return()` needed. */
  private finished: boolean;
  /** `close()` was called. */
  private closed = false;
  /** The handler's `next()` that a keep-alive comment interrupted: still the one to wait for. */
  private inflight: Promise<IteratorResult<unknown>> | undefined;
  /** The promise whose settling the wait already listens to (once, however many comments interrupt the wait). */
  private watched: Promise<unknown> | undefined;
  /**
   * The wait for the handler's `next()` in progress, when `next()` gives the
   * comments: resolves true when it settles, false when a keep-alive is due
   * (or the stream is closed).
   */
  private wake: ((settled: boolean) => void) | undefined;
  /** What ticks this stream while it waits (unless keep-alives are off). */
  private readonly clock: Ticker | undefined;
  /** Whether the stream waits for its handler now: only then do ticks count. */
  private waiting = false;
  /** The clock's ticks while waiting since the last chunk. */
  private quiet = 0;
  /** Where comments go, when the writer takes them itself (`keepAliveTo`). */
  private sink: ((comment: Uint8Array) => void) | undefined;
  /** next()'s then() handlers (see settled()). */
  private onResult: ((r: IteratorResult<unknown>) => string | undefined) | undefined;
  private onFailure: ((e: unknown) => string | undefined) | undefined;
  /** Whether `pull()` polls the iterator (iterator-poll.ts) rather than awaiting its `next()`. */
  private readonly pollable: boolean;
  /** `pull()` of an iterator that cannot be polled: its `next()` is in progress, or what it gave, for the next pull. */
  private pulling = false;
  private pulled: Outcome<string | undefined> | undefined;

  constructor(
    private readonly iterator: AsyncIterator<unknown>,
    first: string | undefined,
    private readonly encode: (value: unknown) => string,
    private readonly errorEvent: (error: unknown) => string,
    /** After this long without a message, a keep-alive comment (from `next()`, or to the `keepAliveTo` sink); 0: never. */
    keepAliveMs = 0,
  ) {
    this.pending = first;
    this.finished = first === undefined;
    this.clock = keepAliveMs > 0 ? sharedTicker(keepAliveMs / TICKS_PER_PERIOD) : undefined;
    this.pollable = isPollable(iterator);
  }

  /** A stream of one chunk of text (an error event, say), then its end. */
  static of(chunk: string): SseStream {
    const none: AsyncIterator<unknown> = { next: async () => ({ done: true, value: undefined }) };
    return new SseStream(
      none,
      chunk,
      () => "",
      () => "",
    );
  }

  /**
   * Has keep-alive comments written to `sink` (the bytes of one comment, the
   * same array each time: write it, do not keep or change it) while the
   * stream waits for its handler, instead of given by `next()`: a quiet
   * stream then costs no promise per comment. The writer decides whether it
   * can take one now (not while its client is behind, say).
   */
  keepAliveTo(sink: (comment: Uint8Array) => void): void {
    this.sink = sink;
  }

  /**
   * Says that the writer calls close() when its client leaves: the handler's
   * iterator, told so (writer-closes.ts), then need not watch the request's
   * signal for that.
   */
  writerCloses(): void {
    tellWriterCloses(this.iterator);
  }

  /**
   * The next chunk, or `undefined` when the stream has ended. Not an async
   * function: a stream waits here most of its life, and with a writer that
   * takes the comments itself the wait is one then() on the handler's
   * promise with handlers made once per stream, where an async function's
   * frame and promise would be held (and promoted by the GC) from one event
   * to the next, per stream.
   */
  next(): Promise<string | undefined> {
    if (this.pending !== undefined) {
      const chunk = this.pending;
      this.pending = undefined;
      return Promise.resolve(chunk);
    }
    if (this.finished || this.closed) return Promise.resolve(undefined);
    let p: Promise<IteratorResult<unknown>>;
    try {
      p = this.inflight ??= this.iterator.next();
    } catch (e) {
      return Promise.resolve(this.failed(e));
    }
    this.clock?.add(this);
    this.waiting = true;
    if (this.clock !== undefined && this.sink === undefined) return this.nextOrKeepAlive(p);
    return this.settled(p);
  }

  /**
   * The next chunk now, for a writer driven by callbacks rather than
   * awaiting `next()`: a chunk, `undefined` when the stream has ended, or
   * `null` when there is none yet; then `wake` is called once, later (never
   * from within this call), when a pull may have one. Throws only what
   * `next()` would reject with. Keep-alive comments go to the `keepAliveTo`
   * sink, which such a writer sets first. An iterator that can be polled
   * (the engine's TaskStream) costs no promise per event here; any other
   * is awaited as by `next()`.
   */
  pull(wake: () => void): string | undefined | null {
    if (this.pending !== undefined) {
      const chunk = this.pending;
      this.pending = undefined;
      return chunk;
    }
    const pulled = this.pulled;
    if (pulled !== undefined) {
      this.pulled = undefined;
      return outcomeValue(pulled);
    }
    // A next() in progress comes first: the end it may already have seen is told after its chunk.
    if (this.pulling) return null;
    if (this.finished || this.closed) return undefined;
    if (!this.pollable) return this.pullNext(wake);
    let r: IteratorResult<unknown> | undefined;
    try {
      r = (this.iterator as AsyncIterator<unknown> & Pollable)[POLL](wake);
    } catch (e) {
      return this.failed(e);
    }
    if (r !== undefined) return this.result(r);
    this.clock?.add(this);
    this.waiting = true;
    return null;
  }

  /** pull() of an iterator that cannot be polled: `next()`, its chunk kept for the pull after `wake`. */
  private pullNext(wake: () => void): null {
    this.pulling = true;
    // A callback made here, not one per stream: an iterator that can be polled never comes here.
    settleThenWake(
      this.next(),
      (outcome) => {
        this.pulling = false;
        this.pulled = outcome;
      },
      wake,
    );
    return null;
  }

  /** next() when it gives the comments: the handler's result, or a comment when one is due first. */
  private async nextOrKeepAlive(p: Promise<IteratorResult<unknown>>): Promise<string | undefined> {
    if (!(await this.settlesBeforeKeepAlive(p))) return this.closed ? undefined : KEEP_ALIVE_CHUNK;
    return this.settled(p);
  }

  /** The then() of next()'s wait on the handler, with handlers made once per stream, on first use (a writer that pulls from a TaskStream needs none). */
  private settled(p: Promise<IteratorResult<unknown>>): Promise<string | undefined> {
    this.onResult ??= (r) => this.result(r);
    this.onFailure ??= (e) => {
      this.inflight = undefined;
      return this.failed(e);
    };
    return p.then(this.onResult, this.onFailure);
  }

  /** The handler's next message (or its end) as the chunk to write. */
  private result(r: IteratorResult<unknown>): string | undefined {
    this.inflight = undefined;
    this.waiting = false;
    this.quiet = 0;
    if (r.done) this.end();
    if (r.done || this.closed) return undefined;
    try {
      return this.encode(r.value);
    } catch (e) {
      this.close();
      return this.errorEvent(e);
    }
  }

  /** The handler failed: its error as the last event (nothing when the stream was closed). */
  private failed(e: unknown): string | undefined {
    this.end();
    return this.closed ? undefined : this.errorEvent(e);
  }

  /** Called by the clock: a comment when the stream has waited for a period. */
  tick(): void {
    if (!this.waiting || ++this.quiet < TICKS_PER_PERIOD) return;
    this.quiet = 0;
    if (this.sink !== undefined) this.sink(KEEP_ALIVE_BYTES);
    else this.settle(false);
  }

  /** True when `p` settles (either way) before a keep-alive is due, false when one is (or the stream closes); never rejects. */
  private settlesBeforeKeepAlive(p: Promise<unknown>): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      this.wake = resolve;
      // Every wait is on the current `inflight`: its settling ends the wait in progress.
      if (this.watched !== p) {
        this.watched = p;
        const settled = () => this.settle(true);
        p.then(settled, settled);
      }
    });
  }

  private settle(settled: boolean): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.(settled);
  }

  /** The handler's iterator is done (or threw): nothing more to wait for. */
  private end(): void {
    this.finished = true;
    this.waiting = false;
    this.clock?.delete(this);
  }

  /** Ends the stream early (the client went away): calls the iterator's `return()` once. */
  close(): void {
    this.pending = undefined;
    this.waiting = false;
    this.clock?.delete(this);
    this.settle(false);
    if (this.closed) return;
    this.closed = true;
    if (!this.finished) closeIterator(this.iterator);
  }
}

/** Calls an iterator's `return()`, ignoring its failure: nothing listens any more. */
export function closeIterator(iterator: AsyncIterator<unknown>): void {
  try {
    const r = iterator.return?.();
    if (r && typeof (r as Promise<unknown>).then === "function") (r as Promise<unknown>).then(undefined, () => {});
  } catch {
    // The handler's cleanup failed; nothing is listening any more.
  }
}
