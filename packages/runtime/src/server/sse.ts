// A server stream as text/event-stream, for every binding that answers with
// SSE (HTTP+JSON, JSON-RPC): the handler's first message decides between a
// plain error answer and a stream; after it, messages become events, an error
// a final event, and a quiet stream gets comment keep-alives.

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
 * and its handler should stop working for nobody within a second. Workers
 * name themselves in `navigator.userAgent`, which no binding can change.
 */
export const DEFAULT_KEEP_ALIVE_MS =
  (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent === "Cloudflare-Workers" ? 500 : 5_000;

/** An SSE comment line: clients skip it, proxies see traffic on an idle stream. */
const KEEP_ALIVE_CHUNK = ": keep-alive\n\n";

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
export class SseStream {
  private pending: string | undefined;
  /** The iterator finished by itself (done, or threw): no `return()` needed. */
  private finished: boolean;
  /** `close()` was called. */
  private closed = false;
  /** The handler's `next()` that a keep-alive comment interrupted: still the one to wait for. */
  private inflight: Promise<IteratorResult<unknown>> | undefined;
  /**
   * The wait for the handler's `next()` in progress: resolves true when it
   * settles, false when a keep-alive is due (or the stream is closed).
   */
  private wake: ((settled: boolean) => void) | undefined;
  /** When that wait began (ms since the epoch). */
  private waitStart = 0;
  /**
   * The stream's one keep-alive timer. It is not cleared when an event comes
   * (a timer per event costs more than the event), only re-armed when it
   * fires during a wait that began later; it stops when it fires with no
   * wait in progress, and when the stream ends.
   */
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly iterator: AsyncIterator<unknown>,
    first: string | undefined,
    private readonly encode: (value: unknown) => string,
    private readonly errorEvent: (error: unknown) => string,
    /** After this long without a message, `next()` gives a keep-alive comment; 0: never. */
    private readonly keepAliveMs = 0,
  ) {
    this.pending = first;
    this.finished = first === undefined;
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

  /** The next chunk, or `undefined` when the stream has ended. */
  async next(): Promise<string | undefined> {
    if (this.pending !== undefined) {
      const chunk = this.pending;
      this.pending = undefined;
      return chunk;
    }
    if (this.finished || this.closed) return undefined;
    let r: IteratorResult<unknown>;
    try {
      const p = (this.inflight ??= this.iterator.next());
      if (this.keepAliveMs > 0 && !(await this.settlesBeforeKeepAlive(p))) return this.closed ? undefined : KEEP_ALIVE_CHUNK;
      this.inflight = undefined;
      r = await p;
    } catch (e) {
      this.inflight = undefined;
      this.finished = true;
      this.stopTimer();
      return this.closed ? undefined : this.errorEvent(e);
    }
    if (r.done) {
      this.finished = true;
      this.stopTimer();
    }
    if (r.done || this.closed) return undefined;
    try {
      return this.encode(r.value);
    } catch (e) {
      this.close();
      return this.errorEvent(e);
    }
  }

  /** True when `p` settles (either way) before a keep-alive is due, false when one is (or the stream closes); never rejects. */
  private settlesBeforeKeepAlive(p: Promise<unknown>): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      this.wake = resolve;
      this.waitStart = Date.now();
      this.timer ??= setTimeout(this.onTimer, this.keepAliveMs);
      // Every wait is on the current `inflight`: its settling ends the wait in progress.
      p.then(this.onSettled, this.onSettled);
    });
  }

  private readonly onSettled = () => this.settle(true);

  private readonly onTimer = () => {
    this.timer = undefined;
    if (this.wake === undefined) return;
    const left = this.waitStart + this.keepAliveMs - Date.now();
    if (left > 0) this.timer = setTimeout(this.onTimer, left);
    else this.settle(false);
  };

  private settle(settled: boolean): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.(settled);
  }

  private stopTimer(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Ends the stream early (the client went away): calls the iterator's `return()` once. */
  close(): void {
    this.pending = undefined;
    this.stopTimer();
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
