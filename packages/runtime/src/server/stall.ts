// A client that stops reading: its answer (an SSE stream or a large unary
// body) waits in the server's buffers for good, with the handler and the
// connection held. Backpressure already bounds what one connection buffers
// (SSE waits for `drain` after each chunk beyond the socket's high-water
// mark; a unary answer is one string), so what is left is time: a connection
// whose pending output makes no progress for `ms` is closed.

import { sharedTicker, type Ticked, type Ticker } from "./ticker.js";

/** The part of a net.Socket the guard reads. */
interface SocketLike {
  readonly writableLength: number;
  /** Bytes given to the socket, pending ones included: less writableLength, what has gone out. */
  readonly bytesWritten: number;
  readonly destroyed: boolean;
  destroy(): void;
  once(event: "close", listener: () => void): unknown;
}

/** Default of the `stallTimeoutMs` server option: a connection with output pending and none of it taken for 30 s is closed. */
export const DEFAULT_STALL_TIMEOUT_MS = 30_000;

/** The largest delay setInterval takes: Node runs a longer one every 1 ms instead. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The `stallTimeoutMs` server option, checked when the server is made so a
 * bad value fails at start-up and not on the first stalled client (Node
 * would turn a delay past 2^31-1 ms into 1 ms and close every slow reader).
 */
export function stallTimeoutOf(value: unknown): number {
  if (value === undefined) return DEFAULT_STALL_TIMEOUT_MS;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > MAX_TIMER_MS) {
    throw new RangeError(
      `stallTimeoutMs must be a whole number of milliseconds from 0 (no check) to ${MAX_TIMER_MS}, not ${typeof value === "string" ? JSON.stringify(value) : String(value)}`,
    );
  }
  return value;
}

/** One connection's guard: the period it checks at, on the shared ticker of that period (none when the period is 0). */
class Guard implements Ticked {
  ms = 0;
  private ticker: Ticker | undefined;
  /** Bytes gone out at the last check. */
  private sent = -1;

  constructor(private readonly s: SocketLike) {}

  watch(ms: number): void {
    this.stop();
    this.ms = ms;
    this.sent = -1;
    if (ms > 0) (this.ticker = sharedTicker(ms)).add(this);
  }

  stop(): void {
    this.ticker?.delete(this);
    this.ticker = undefined;
  }

  tick(): void {
    const s = this.s;
    const now = s.bytesWritten - s.writableLength;
    // Output pending, and not a byte of it gone out since the last check.
    if (s.writableLength > 0 && now === this.sent) {
      this.stop();
      s.destroy();
      return;
    }
    this.sent = now;
  }
}

const guards = new WeakMap<object, Guard>();

/**
 * Closes `socket` once output has been pending on it, without any of it being
 * written out, for `ms` (checked every `ms`, so it takes between `ms` and
 * 2 `ms`); `0` checks nothing. One guard per connection: a later request on
 * it with another `ms` (a service mounted with another option) sets the
 * period anew, so the request being served decides. Idle connections
 * (nothing pending) and slow but moving readers are left alone. The checks
 * of all connections at one period share one interval (ticker.ts).
 */
export function closeWhenStalled(socket: unknown, ms = DEFAULT_STALL_TIMEOUT_MS): void {
  const s = socket as SocketLike | null | undefined;
  if (s === null || typeof s !== "object" || typeof s.writableLength !== "number" || s.destroyed) return;
  let g = guards.get(s);
  if (g !== undefined) {
    if (g.ms === ms) return;
  } else {
    const guard = (g = new Guard(s));
    guards.set(s, guard);
    s.once("close", () => guard.stop());
  }
  g.watch(ms);
}
