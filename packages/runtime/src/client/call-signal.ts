import { Code, RpcError } from "../errors.js";
import { clientError } from "./client-error.js";
import type { CallOptions } from "./options.js";

/**
 * One call's abort signal: the caller's signal and the call's deadline linked
 * to one controller, told apart afterwards so that a failure is named for
 * what ended it (CANCELLED, DEADLINE_EXCEEDED, or the network: UNAVAILABLE).
 */
export interface CallSignal {
  /** What fetch and the body reads get; undefined when nothing can stop the call. */
  readonly signal: AbortSignal | undefined;
  /** The RpcError for a failure of fetch or of a read (an RpcError passes as it is). */
  mapError(e: unknown): unknown;
  /** The error for a call the caller cancelled or the deadline ended, else undefined. */
  stopped(): RpcError | undefined;
  /** Ends the call (a stream its consumer left early): closes the connection. */
  abort(): void;
  /** The call is over: clears the timer and lets go of the caller's signal. */
  done(): void;
}

const unstoppable: CallSignal = {
  signal: undefined,
  mapError: (e) => networkError(e, false),
  stopped: () => undefined,
  abort() {},
  done() {},
};

/**
 * Starts a call's signal. `always` makes a controller even with no caller
 * signal and no timeout: a stream needs one to close its connection when left
 * early; a unary call without either takes none.
 */
export function startCallSignal(callOptions: CallOptions | undefined, defaultTimeout: number | undefined, always: boolean): CallSignal {
  const outer = callOptions?.signal;
  const timeoutMs = callOptions?.timeoutMs ?? defaultTimeout;
  if (!outer && timeoutMs === undefined && !always) return unstoppable;
  const ctl = new AbortController();
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onAbort = () => ctl.abort(outer?.reason);
  if (outer) {
    if (outer.aborted) ctl.abort(outer.reason);
    else outer.addEventListener("abort", onAbort, { once: true });
  }
  if (timeoutMs !== undefined && !ctl.signal.aborted) {
    timer = setTimeout(() => {
      timedOut = true;
      ctl.abort(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
  }
  const stopped = (cause?: unknown): RpcError | undefined => {
    if (timedOut) return clientError(Code.DEADLINE_EXCEEDED, `the call timed out after ${timeoutMs} ms`, cause);
    if (outer?.aborted) return clientError(Code.CANCELLED, "the call was cancelled", outer.reason);
    return undefined;
  };
  return {
    signal: ctl.signal,
    mapError(e) {
      if (e instanceof RpcError) return e;
      return stopped(e) ?? networkError(e, ctl.signal.aborted);
    },
    stopped: () => stopped(),
    abort() {
      ctl.abort();
    },
    done() {
      if (timer !== undefined) clearTimeout(timer);
      outer?.removeEventListener("abort", onAbort);
    },
  };
}

/** A failure with no answer: CANCELLED when the call's own controller stopped it, else UNAVAILABLE. */
function networkError(e: unknown, aborted: boolean): unknown {
  if (e instanceof RpcError) return e;
  if (aborted) return clientError(Code.CANCELLED, "the call was cancelled", e);
  const detail = e instanceof Error ? (e.cause instanceof Error ? `${e.message}: ${e.cause.message}` : e.message) : String(e);
  return clientError(Code.UNAVAILABLE, `network error: ${detail}`, e);
}
