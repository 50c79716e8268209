// The unary deadline (the `unaryTimeoutMs` option) of the bindings served
// from a UniversalServerRequest: the first of the answer and the deadline
// wins, and the handler's signal fires with DEADLINE_EXCEEDED.
import { Code, RpcError } from "../errors.js";

/** What a call under a deadline gets: the signal that fires at the deadline, and a way to lift it (a stream is not unary). */
export interface Deadline {
  readonly signal: AbortSignal;
  /** Lifts the deadline: it no longer fires, and the answer is awaited however long it takes. */
  lift(): void;
}

/**
 * Runs `call` against a deadline of `ms`: when the call has not answered by
 * then, its signal fires and the answer is `onTimeout(error)` (the call's
 * own answer, when it comes, is dropped). A call that answers synchronously
 * costs no promise. `call`'s promise must not reject.
 */
export function withDeadline<T>(
  ms: number,
  call: (deadline: Deadline) => T | Promise<T>,
  onTimeout: (error: RpcError) => T,
): T | Promise<T> {
  const controller = new AbortController();
  let resolve: ((value: T) => void) | undefined;
  // Started before the call, so that the time the call takes to return counts too.
  const timer = setTimeout(() => {
    const err = new RpcError(Code.DEADLINE_EXCEEDED, `the call took longer than ${ms} ms`);
    controller.abort(err);
    resolve!(onTimeout(err));
  }, ms);
  const answer = call({ signal: controller.signal, lift: () => clearTimeout(timer) });
  if (!(answer instanceof Promise)) {
    clearTimeout(timer);
    return answer;
  }
  // The executor runs now, long before the timer can fire.
  return new Promise<T>((r) => {
    resolve = r;
    answer.then((value) => {
      clearTimeout(timer);
      r(value);
    });
  });
}
