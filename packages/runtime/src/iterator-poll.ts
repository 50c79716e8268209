// How an SSE writer takes an iterator's results without a promise per result:
// an iterator that can (the engine's TaskStream) answers a synchronous poll,
// and when it has nothing yet it calls the writer back once it may have.
// With ten thousand open streams, the promises, resolving functions and
// then() reactions of `next()` per stream and event were kept from one event
// to the next, long enough for the GC to promote them.

/** The method, on an iterator, that answers a poll. */
export const POLL: unique symbol = Symbol("a2a-http.poll");

/**
 * An iterator that can be polled. `[POLL](wake)` answers the next result as
 * `next()` would settle (a result, or it throws what `next()` would reject
 * with), or `undefined` when there is none yet: then `wake` is called once,
 * later, when a poll may have one (poll again: it may still say undefined).
 * `wake` is never called from within the poll, nor from within the code that
 * produced the result (see wakeLater). A poller does not mix polls and
 * `next()` calls waiting at the same time.
 */
export interface Pollable {
  [POLL](wake: () => void): IteratorResult<unknown> | undefined;
}

/** Whether `iterator` can be polled. */
export function isPollable(iterator: object): iterator is Pollable {
  return typeof (iterator as Partial<Pollable>)[POLL] === "function";
}

/** What a promise settled with, kept for the poll after its wake. */
export interface Outcome<T> {
  readonly value?: T | undefined;
  readonly error?: unknown;
  readonly failed: boolean;
}

/**
 * Waits for `promise` as a poll must when it cannot answer at once (the
 * rare cases: a stream's opening, a catch-up from the store, an iterator
 * that cannot be polled): `keep` gets the outcome, then `wake` is called.
 */
export function settleThenWake<T>(promise: Promise<T>, keep: (outcome: Outcome<T>) => void, wake: () => void): void {
  promise.then(
    (value) => {
      keep({ value, failed: false });
      callWake(wake);
    },
    (error: unknown) => {
      keep({ error, failed: true });
      callWake(wake);
    },
  );
}

/** The outcome's value, or its error thrown. */
export function outcomeValue<T>(outcome: Outcome<T>): T | undefined {
  if (outcome.failed) throw outcome.error;
  return outcome.value;
}

/** The callbacks to call in the next microtask: every stream woken by one event, in one microtask rather than one each. */
let woken: (() => void)[] = [];

/**
 * Calls `wake` in a microtask, after the code running now: a publisher that
 * hands an event to its subscribers returns before their writers write it,
 * as with promises. The callbacks queued in one turn share one microtask.
 */
export function wakeLater(wake: () => void): void {
  woken.push(wake);
  if (woken.length === 1) queueMicrotask(callWoken);
}

function callWoken(): void {
  const now = woken;
  woken = [];
  for (const wake of now) callWake(wake);
}

/**
 * Calls a poller's `wake`, which must not throw: a writer's own failure is
 * its own (it catches what it can). What escapes anyway stops here, not in
 * the other streams woken in the same microtask, nor as an unhandled
 * rejection from a promise's callback (a crash on Node and Deno).
 */
function callWake(wake: () => void): void {
  try {
    wake();
  } catch {
    // Dropped: see above.
  }
}
